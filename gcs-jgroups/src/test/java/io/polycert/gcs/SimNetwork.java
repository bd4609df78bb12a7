package io.polycert.gcs;

import io.polycert.core.group.MemberId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A deterministic simulated network for group engines: reliable FIFO channels per pair of members, views
 * installed by the simulator (as JGroups' GMS would), and faults: crashes that cut a member's in-flight messages
 * at a random point per receiver (as NAKACK2 forgets a departed member), dropped links, partitions and joins.
 * Every choice comes from one seeded {@link Random}, so a failing seed replays exactly.
 */
final class SimNetwork {
    final Random random;
    final List<Node> nodes = new ArrayList<>();
    private final Map<Long, ArrayDeque<byte[]>> channels = new HashMap<>();
    private final Settings settings;
    private long viewIds;
    private int idCounter;
    final History history = new History();
    /** Members a coordinator asked to exclude, in order. */
    final List<MemberId> excludeRequests = new ArrayList<>();
    /** Bytes sent so far, by message type (the first byte of every message). */
    final Map<Byte, Long> bytesSent = new HashMap<>();
    /** Messages sent so far, by type, sender and receiver ("ACK B>A" style keys come from {@link #sent}). */
    final Map<String, Integer> messagesSent = new HashMap<>();
    /** Batches sent (their messages are counted in {@link #messagesSent} and {@link #bytesSent} by their own type). */
    int batchesSent;

    SimNetwork(long seed, Settings settings) {
        this.random = new Random(seed);
        this.settings = settings;
    }

    /** One simulated member. */
    final class Node implements Transport {
        final MemberId id;
        final int index;
        final RecordingSink sink;
        final GroupEngine engine;
        final ArrayDeque<Runnable> local = new ArrayDeque<>();
        final ArrayDeque<TransportView> views = new ArrayDeque<>();
        TransportView view;
        boolean crashed;
        int partition;
        final java.util.Set<Integer> deafTo = new java.util.HashSet<>();
        /**
         * Receives nothing while set; what is sent to it waits in its channels. A member back from a stop is like
         * this: it first receives by retransmission what the others multicast while it was away.
         */
        boolean held;
        final java.util.Set<MemberId> excludedByMe = new java.util.HashSet<>();
        boolean dirty;

        Node(String name) {
            this.index = idCounter++;
            this.id = new MemberId(0, index + 1, name);
            this.sink = new RecordingSink(this, history);
            this.engine = new GroupEngine(id, this, sink, settings, task -> local.add(task));
        }

        @Override
        public MemberId self() {
            return id;
        }

        @Override
        public void send(MemberId to, byte[] message) {
            if (crashed) {
                return;
            }
            Node target = node(to);
            if (target == null || target.crashed || target.partition != partition || target.deafTo.contains(index)) {
                return;
            }
            channel(index, target.index).add(message);
            if (message[0] == MessageType.BATCH) {
                batchesSent++;
                io.polycert.core.codec.ValueInput in = Wire.in(message);
                in.readByte();
                for (byte[] m : GroupEngine.batchMessages(in)) {
                    count(m, to); // the counts are by the messages' own types, batched or not
                }
            } else {
                count(message, to);
            }
        }

        private void count(byte[] message, MemberId to) {
            bytesSent.merge(message[0], (long) message.length, Long::sum);
            messagesSent.merge(message[0] + " " + id + ">" + to, 1, Integer::sum);
        }

        @Override
        public void multicast(byte[] message) {
            if (view == null) {
                return;
            }
            for (MemberId m : view.members()) {
                send(m, message);
            }
        }

        /**
         * As GMS at a coordinator would: the members still in this member's view get one without the excluded (and
         * without those it excluded before); the excluded keep theirs until the test heals the group.
         */
        @Override
        public void exclude(MemberId member) {
            excludeRequests.add(member);
            excludedByMe.add(member);
            List<MemberId> ids = new ArrayList<>(view.members());
            ids.removeAll(excludedByMe);
            TransportView v = new TransportView(++viewIds, ids.get(0), ids);
            for (Node n : nodes) {
                if (ids.contains(n.id) && n.view != null && n.view.equals(view)) {
                    n.views.add(v);
                }
            }
        }

        @Override
        public void close() {
        }

        @Override
        public String toString() {
            return id.toString();
        }
    }

    /** How many messages of {@code type} {@code from} sent to {@code to} since {@link #messagesSent} was cleared. */
    int sent(byte type, Node from, Node to) {
        return messagesSent.getOrDefault(type + " " + from.id + ">" + to.id, 0);
    }

    /** How many messages of {@code type} were sent since {@link #messagesSent} was cleared. */
    int sent(byte type) {
        int total = 0;
        for (Map.Entry<String, Integer> e : messagesSent.entrySet()) {
            if (e.getKey().startsWith(type + " ")) {
                total += e.getValue();
            }
        }
        return total;
    }

    Node add(String name) {
        Node n = new Node(name);
        nodes.add(n);
        return n;
    }

    /** A network whose members A, B, ... (as many as {@code members}) founded a group with default settings. */
    static SimNetwork founded(long seed, int members) {
        SimNetwork net = new SimNetwork(seed, Settings.defaults());
        List<Node> founders = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            founders.add(net.add(String.valueOf((char) ('A' + i))));
        }
        net.installView(founders);
        net.runUntilQuiet();
        return net;
    }

    Node node(MemberId id) {
        for (Node n : nodes) {
            if (n.id.equals(id)) {
                return n;
            }
        }
        return null;
    }

    private ArrayDeque<byte[]> channel(int from, int to) {
        return channels.computeIfAbsent(((long) from << 32) | to, k -> new ArrayDeque<>());
    }

    /** Installs a view made of {@code members} (coordinator first) at each of them, as a queued event. */
    void installView(List<Node> members) {
        List<MemberId> ids = new ArrayList<>();
        for (Node n : members) {
            ids.add(n.id);
        }
        TransportView v = new TransportView(++viewIds, members.get(0).id, ids);
        for (Node n : members) {
            n.views.add(v);
        }
    }

    /**
     * Installs a view made of {@code members} (coordinator first) at {@code at} only, as JGroups does at a member
     * whose own failure detection changed its view while the others, excluding it meanwhile, moved on.
     */
    void installViewOnlyAt(Node at, List<Node> members) {
        List<MemberId> ids = new ArrayList<>();
        for (Node n : members) {
            ids.add(n.id);
        }
        at.views.add(new TransportView(++viewIds, members.get(0).id, ids));
    }

    /** Takes what is in flight from {@code from} to {@code to} off the network, to {@link #release} it later. */
    List<byte[]> intercept(Node from, Node to) {
        ArrayDeque<byte[]> c = channel(from.index, to.index);
        List<byte[]> taken = new ArrayList<>(c);
        c.clear();
        return taken;
    }

    /** Puts intercepted messages back in flight from {@code from} to {@code to}, whatever happened since. */
    void release(Node from, Node to, List<byte[]> messages) {
        channel(from.index, to.index).addAll(messages);
    }

    List<Node> alive() {
        List<Node> out = new ArrayList<>();
        for (Node n : nodes) {
            if (!n.crashed) {
                out.add(n);
            }
        }
        return out;
    }

    List<Node> alive(int partition) {
        List<Node> out = new ArrayList<>();
        for (Node n : nodes) {
            if (!n.crashed && n.partition == partition) {
                out.add(n);
            }
        }
        return out;
    }

    /**
     * Crashes a member: it stops, and each other member receives a random prefix of what it had in flight to
     * it; then the survivors of its partition get a new view.
     */
    void crash(Node n) {
        n.crashed = true;
        history.crashed.add(n.id);
        for (Node other : nodes) {
            ArrayDeque<byte[]> out = channels.get(((long) n.index << 32) | other.index);
            if (out != null) {
                int keep = out.isEmpty() ? 0 : random.nextInt(out.size() + 1);
                while (out.size() > keep) {
                    out.pollLast();
                }
            }
            ArrayDeque<byte[]> in = channels.get(((long) other.index << 32) | n.index);
            if (in != null) {
                in.clear();
            }
        }
        List<Node> survivors = alive(n.partition);
        if (!survivors.isEmpty()) {
            installView(survivors);
        }
    }

    /** Splits the live members into the given partitions (each list becomes one view). */
    void partition(List<List<Node>> groups) {
        for (int g = 0; g < groups.size(); g++) {
            for (Node n : groups.get(g)) {
                n.partition = g + 1;
            }
        }
        for (Node a : nodes) {
            for (Node b : nodes) {
                if (a.partition != b.partition) {
                    ArrayDeque<byte[]> c = channels.get(((long) a.index << 32) | b.index);
                    if (c != null) {
                        // in flight across the cut: a random prefix gets through
                        int keep = c.isEmpty() ? 0 : random.nextInt(c.size() + 1);
                        while (c.size() > keep) {
                            c.pollLast();
                        }
                    }
                }
            }
        }
        for (List<Node> g : groups) {
            installView(g);
        }
    }

    /** Heals all partitions into one view whose coordinator is {@code coordinator}. */
    void heal(Node coordinator) {
        List<Node> all = new ArrayList<>();
        all.add(coordinator);
        for (Node n : alive()) {
            n.partition = 0;
            if (n != coordinator) {
                all.add(n);
            }
        }
        coordinator.partition = 0;
        installView(all);
    }

    /** Runs one event: a message, a posted task or a view, at a random member. Returns false if none is left. */
    boolean step() {
        List<Runnable> choices = new ArrayList<>();
        for (Map.Entry<Long, ArrayDeque<byte[]>> e : channels.entrySet()) {
            if (!e.getValue().isEmpty()) {
                int from = (int) (e.getKey() >>> 32);
                int to = (int) (long) e.getKey();
                Node target = nodes.get(to);
                if (target.crashed) {
                    e.getValue().clear();
                    continue;
                }
                if (target.held) {
                    continue;
                }
                ArrayDeque<byte[]> q = e.getValue();
                choices.add(() -> {
                    target.engine.onMessage(nodes.get(from).id, q.poll());
                    target.dirty = true;
                });
            }
        }
        for (Node n : nodes) {
            if (n.crashed) {
                continue;
            }
            if (!n.local.isEmpty()) {
                choices.add(() -> {
                    n.local.poll().run();
                    n.dirty = true;
                });
            }
            if (!n.views.isEmpty()) {
                choices.add(() -> {
                    n.view = n.views.poll();
                    n.engine.onView(n.view);
                    n.dirty = true;
                });
            }
        }
        if (choices.isEmpty()) {
            return flushAll();
        }
        choices.sort((a, b) -> 0);
        choices.get(random.nextInt(choices.size())).run();
        // Flush sometimes right away, sometimes later, to vary batching.
        for (Node n : nodes) {
            if (n.dirty && !n.crashed && random.nextInt(3) == 0) {
                n.dirty = false;
                n.engine.flush();
            }
        }
        return true;
    }

    private boolean flushAll() {
        boolean any = false;
        for (Node n : nodes) {
            if (n.dirty && !n.crashed) {
                n.dirty = false;
                n.engine.flush();
                any = true;
            }
        }
        return any;
    }

    /** Runs until nothing is left to do (or the step budget is spent, which fails the test: a livelock). */
    void runUntilQuiet() {
        int steps = 0;
        while (step()) {
            if (++steps > 5_000_000) {
                throw new AssertionError("no quiescence after 5,000,000 steps");
            }
        }
    }

    void run(int steps) {
        for (int i = 0; i < steps && step(); i++) {
            // keep stepping
        }
    }

    /** Broadcasts from a member, remembering the payload for the checks. */
    void broadcast(Node n, String payload) {
        history.broadcast.put(payload, n.id);
        try {
            n.engine.broadcast(payload.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (io.polycert.core.group.NotInMajorityException e) {
            history.broadcast.remove(payload);
            throw e;
        }
        n.dirty = true;
    }

    void reliable(Node n, String payload) {
        history.reliableSent.put(payload, n.id);
        n.engine.reliableBroadcast(payload.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        n.dirty = true;
    }

    void multicast(Node n, Collection<Node> dests, String payload) {
        multicast(n, dests, null, payload);
    }

    /** {@code keys} null: conflicts with every multicast. */
    void multicast(Node n, Collection<Node> dests, long[] keys, String payload) {
        List<MemberId> ids = new ArrayList<>();
        for (Node d : dests) {
            ids.add(d.id);
        }
        history.multicastSent.put(payload, ids);
        history.multicastKeys.put(payload, keys);
        n.engine.multicast(ids, keys, payload.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        n.dirty = true;
    }

    /** What every member delivered, for the checks. */
    static final class History {
        final Map<Long, String> positions = new HashMap<>();
        final Map<String, MemberId> broadcast = new HashMap<>();
        final Map<String, MemberId> reliableSent = new HashMap<>();
        final Map<String, List<MemberId>> multicastSent = new HashMap<>();
        /** The conflict keys of each multicast; null for one that conflicts with all. */
        final Map<String, long[]> multicastKeys = new HashMap<>();
        final java.util.Set<MemberId> crashed = new java.util.HashSet<>();
        final List<String> violations = new ArrayList<>();
    }
}
