package io.polycert.gcs;

import io.polycert.core.codec.CodecException;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Skeen's total-order multicast to a subset of the members. Each destination proposes a timestamp from its
 * logical clock; the final timestamp is the largest proposal; a destination delivers the message with the
 * smallest timestamp once that timestamp is final (ties broken by origin and sequence number), since no message
 * still pending or yet to come can get a smaller one. Two variants, as in Ruivo's thesis:
 * <ul>
 *   <li>{@link Variant#COORDINATED} (TOM-3): destinations send their proposal to the origin, which sends the
 *       final timestamp: three communication steps, 3n messages;</li>
 *   <li>{@link Variant#DECENTRALIZED} (TOM-2): every destination sends its proposal to every other, and each
 *       computes the maximum: two steps, n + n(n-1) messages.</li>
 * </ul>
 * A single destination assigns its final timestamp at once. Only destinations take part.
 *
 * <p>Failures: when a view installed in the atomic-broadcast order no longer holds a message's origin or one of
 * its destinations, the surviving destinations each atomically broadcast what they know of it (their proposal,
 * the final timestamp if they had it, the payload). Once the ordered stream holds one such report from every
 * destination still in the view, each decides alike: the final timestamp if any report had it, else the largest
 * proposal. Since all decide at the same place of one total order, they agree; a destination that learns of the
 * message only from a report takes it in. A message whose final timestamp reached nobody still alive is
 * delivered by none or by all. (Agreement is among correct members: a destination that delivered and crashed
 * may have ordered it differently.)
 *
 * <p>Runs on the engine thread only.
 */
final class TotalOrderMulticast {

    /** Which protocol variant collects the proposals. */
    enum Variant { COORDINATED, DECENTRALIZED }

    private record Id(MemberId origin, long seq) {
    }

    private static final Comparator<Message> ORDER = Comparator.<Message>comparingLong(m -> m.ts)
            .thenComparing(m -> m.id.origin).thenComparingLong(m -> m.id.seq);

    private static final class Message {
        final Id id;
        final List<MemberId> destinations;
        final byte[] payload;
        long ts;
        boolean isFinal;
        final Map<MemberId, Long> proposals = new HashMap<>();
        /** The epoch of the view it was sent in (at least the sender's; 0 if unknown). */
        long sentIn;
        /** Set once this destination reported the message for resolution: late FINALs are ignored then. */
        boolean reported;

        Message(Id id, List<MemberId> destinations, byte[] payload) {
            this.id = id;
            this.destinations = destinations;
            this.payload = payload;
        }
    }

    /** The reports of the destinations, gathered in the atomic-broadcast order. */
    private static final class Resolution {
        final List<MemberId> destinations;
        byte[] payload;
        final Map<MemberId, long[]> reports = new HashMap<>(); // {proposal, final or -1}

        Resolution(List<MemberId> destinations) {
            this.destinations = destinations;
        }
    }

    private static final int REMEMBERED_FINALS = 100_000;

    private final GroupEngine engine;
    private final Variant variant;
    private long clock;
    private long nextSeq = 1;
    private final Map<Id, Message> pending = new HashMap<>();
    private final TreeSet<Message> queue = new TreeSet<>(ORDER);
    /** Origin side of the coordinated variant: proposals gathered per message. */
    private final Map<Id, Message> coordinating = new HashMap<>();
    /** Decentralized variant: proposals that arrived before the message. */
    private final Map<Id, Map<MemberId, Long>> early = new HashMap<>();
    private final SeenIds delivered = new SeenIds(REMEMBERED_FINALS);
    /** Final timestamps of recently delivered messages, for resolutions started by others. */
    private final Map<Id, Long> recentFinals = new LinkedHashMap<>(16, 0.75f, false) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Id, Long> eldest) {
            return size() > REMEMBERED_FINALS;
        }
    };
    private final Map<Id, Resolution> resolutions = new HashMap<>();
    /** Messages we reported, and messages whose resolution was decided: each happens once. */
    private final Set<Id> reportedIds = boundedSet();
    private final Set<Id> resolvedIds = boundedSet();
    /** The last view installed (reports start from it) and the last view delivered in order (decisions use it). */
    private View installed;
    private View view;
    /** The epoch of the last primary view before we fell into a minority, or -1 while we are in a primary one. */
    private long cutOffSince = -1;
    /** Data sent in views before this one is from before our time in a minority: dropped. */
    private long acceptFrom;
    /** Data that waits for a view: sent in one we have not installed, or reaching us while cut off. */
    private final List<Held> held = new ArrayList<>();

    private record Held(Id id, long sentIn, List<MemberId> dests, byte[] payload) {
    }

    private static final int MAX_HELD = 10_000;

    TotalOrderMulticast(GroupEngine engine, Variant variant) {
        this.engine = engine;
        this.variant = variant;
    }

    void multicast(Collection<MemberId> destinations, byte[] payload) {
        List<MemberId> dests = new ArrayList<>(new TreeSet<>(destinations));
        if (dests.isEmpty()) {
            throw new IllegalArgumentException("a multicast needs at least one destination");
        }
        List<MemberId> members = engine.transportView().members();
        for (MemberId d : dests) {
            if (!members.contains(d)) {
                throw new IllegalArgumentException("destination " + d + " is not in the view " + members);
            }
        }
        Id id = new Id(engine.self, nextSeq++);
        if (variant == Variant.COORDINATED && dests.size() > 1) {
            Message c = new Message(id, dests, payload);
            c.sentIn = installed == null ? 0 : installed.epoch();
            coordinating.put(id, c);
        }
        ValueOutput out = Wire.out(MessageType.TOM_DATA, payload.length + 64 + 24 * dests.size());
        Wire.writeMember(out, id.origin);
        out.writeVarLong(id.seq);
        out.writeVarLong(installed == null ? 0 : installed.epoch()); // the view it was sent in
        Wire.writeMembers(out, dests);
        out.writeBytes(payload);
        byte[] bytes = out.toByteArray();
        for (MemberId d : dests) {
            engine.transport.send(d, bytes);
        }
    }

    void onData(MemberId from, ValueInput in) {
        Id id = new Id(Wire.readMember(in), Wire.readPositive(in));
        long sentIn = in.readVarLong();
        List<MemberId> dests = Wire.readMembers(in);
        byte[] payload = in.readBytes();
        if (!from.equals(id.origin) || !dests.contains(engine.self)) {
            throw new CodecException("TOM data " + id + " from " + from + " for " + dests);
        }
        if (cutOffSince >= 0 || (installed != null && sentIn > installed.epoch())) {
            // Back from a minority and not yet in the new view, or sent in a view we have not installed yet (its
            // origin may be a member we do not know of yet): hold it until we have that view.
            if (held.size() < MAX_HELD) {
                held.add(new Held(id, sentIn, dests, payload));
            } else {
                engine.log.warn("dropped total-order data {}: {} messages already wait for a view", id, MAX_HELD);
            }
            return;
        }
        if (sentIn < acceptFrom) {
            return; // sent before we fell into a minority; the survivors resolved it without us
        }
        accept(id, dests, payload, sentIn);
    }

    private void accept(Id id, List<MemberId> dests, byte[] payload, long sentIn) {
        if (delivered.contains(id.origin, id.seq) || pending.containsKey(id)) {
            return;
        }
        Message m = take(id, dests, payload);
        m.sentIn = sentIn;
        if (dests.size() == 1) {
            finish(m, m.ts);
            return;
        }
        if (installed != null && cutOff(m, installed)) {
            report(id, dests, payload); // it arrived after a view that already lost its origin or a destination
            return;
        }
        if (variant == Variant.COORDINATED) {
            engine.transport.send(id.origin, propose(MessageType.TOM_PROPOSE, id, m.ts));
        } else {
            byte[] proposal = propose(MessageType.TOM_PROPOSE, id, m.ts);
            for (MemberId d : dests) {
                if (!d.equals(engine.self)) {
                    engine.transport.send(d, proposal);
                }
            }
            m.proposals.put(engine.self, m.ts);
            Map<MemberId, Long> before = early.remove(id);
            if (before != null) {
                m.proposals.putAll(before);
            }
            maybeDecide(m);
        }
    }

    /** Adds a message with a fresh proposal from our clock. */
    private Message take(Id id, List<MemberId> dests, byte[] payload) {
        Message m = new Message(id, dests, payload);
        m.ts = ++clock;
        pending.put(id, m);
        queue.add(m);
        return m;
    }

    private static byte[] propose(byte type, Id id, long ts) {
        ValueOutput out = Wire.out(type);
        Wire.writeMember(out, id.origin);
        out.writeVarLong(id.seq).writeVarLong(ts);
        return out.toByteArray();
    }

    void onPropose(MemberId from, ValueInput in) {
        Id id = new Id(Wire.readMember(in), Wire.readPositive(in));
        long ts = Wire.readPositive(in);
        if (variant == Variant.COORDINATED) {
            Message c = coordinating.get(id);
            if (c == null || !c.destinations.contains(from)) {
                return;
            }
            c.proposals.put(from, ts);
            if (c.proposals.size() == c.destinations.size()) {
                coordinating.remove(id);
                long max = c.proposals.values().stream().mapToLong(Long::longValue).max().orElseThrow();
                byte[] fin = propose(MessageType.TOM_FINAL, id, max);
                for (MemberId d : c.destinations) {
                    engine.transport.send(d, fin);
                }
            }
            return;
        }
        Message m = pending.get(id);
        if (m == null) {
            if (!delivered.contains(id.origin, id.seq)) {
                early.computeIfAbsent(id, k -> new HashMap<>()).put(from, ts);
            }
            return;
        }
        if (m.destinations.contains(from)) {
            m.proposals.put(from, ts);
            maybeDecide(m);
        }
    }

    private void maybeDecide(Message m) {
        if (!m.reported && m.proposals.keySet().containsAll(m.destinations)) {
            finish(m, m.proposals.values().stream().mapToLong(Long::longValue).max().orElseThrow());
        }
    }

    void onFinal(MemberId from, ValueInput in) {
        Id id = new Id(Wire.readMember(in), Wire.readPositive(in));
        long ts = Wire.readPositive(in);
        Message m = pending.get(id);
        if (m != null && !m.reported && from.equals(id.origin)) {
            finish(m, ts);
        }
    }

    private void finish(Message m, long ts) {
        queue.remove(m);
        m.ts = ts;
        m.isFinal = true;
        clock = Math.max(clock, ts);
        queue.add(m);
        deliverFinalHeads();
    }

    /** Delivers from the head of the queue while the head's timestamp is final. */
    private void deliverFinalHeads() {
        while (!queue.isEmpty() && queue.first().isFinal) {
            Message head = queue.pollFirst();
            pending.remove(head.id);
            delivered.add(head.id.origin, head.id.seq);
            recentFinals.put(head.id, head.ts);
            engine.countDelivery(head.payload.length);
            engine.sink.multicast(head.id.origin, head.payload);
        }
    }

    // ---- failures -----------------------------------------------------------------------------------------

    /**
     * A new primary view was installed: report the messages it cuts off. (Reporting early is harmless; only the
     * decisions must happen at the same place of the total order.)
     */
    void onViewInstalled(View newView) {
        installed = newView;
        if (cutOffSince >= 0) {
            // Views between ours and this one never held us, so anything sent to us in them is new too.
            acceptFrom = cutOffSince + 1;
            cutOffSince = -1;
        }
        if (!held.isEmpty()) {
            List<Held> ready = new ArrayList<>();
            held.removeIf(h -> h.sentIn <= newView.epoch() && ready.add(h));
            for (Held h : ready) {
                if (h.sentIn >= acceptFrom) {
                    accept(h.id, h.dests, h.payload, h.sentIn);
                }
            }
        }
        coordinating.values().removeIf(c -> !newView.members().containsAll(c.destinations));
        early.keySet().removeIf(id -> !newView.contains(id.origin));
        for (Message m : new ArrayList<>(pending.values())) {
            if (!m.reported && cutOff(m, newView)) {
                report(m.id, m.destinations, m.payload);
            }
        }
    }

    private static boolean cutOff(Message m, View v) {
        return !v.contains(m.id.origin) || !v.members().containsAll(m.destinations);
    }

    /** A view reached its place in the atomic-broadcast order: decisions from here on count its members. */
    void onViewDelivered(View delivered) {
        view = delivered;
        for (Map.Entry<Id, Resolution> e : new ArrayList<>(resolutions.entrySet())) {
            tryResolve(e.getKey(), e.getValue());
        }
    }

    private static Set<Id> boundedSet() {
        return java.util.Collections.newSetFromMap(new LinkedHashMap<>(16, 0.75f, false) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Id, Boolean> eldest) {
                return size() > REMEMBERED_FINALS;
            }
        });
    }

    /** Atomically broadcasts what we know of a message so that all destinations still alive decide alike. */
    private void report(Id id, List<MemberId> dests, byte[] payload) {
        if (!reportedIds.add(id)) {
            return;
        }
        Message m = pending.get(id);
        long proposal;
        long fin;
        if (m != null) {
            m.reported = true;
            proposal = m.ts;
            fin = m.isFinal ? m.ts : -1;
        } else if (recentFinals.containsKey(id)) {
            proposal = recentFinals.get(id);
            fin = proposal;
        } else if (delivered.contains(id.origin, id.seq)) {
            engine.log.error("cannot report {}: delivered too long ago to remember its timestamp", id);
            return;
        } else {
            m = take(id, dests, payload); // we learn of it from another destination's report
            m.sentIn = installed == null ? 0 : installed.epoch();
            m.reported = true;
            proposal = m.ts;
            fin = -1;
        }
        ValueOutput out = Wire.out((byte) 0, payload.length + 96);
        Wire.writeMember(out, id.origin);
        out.writeVarLong(id.seq);
        Wire.writeMembers(out, dests);
        out.writeBytes(payload).writeVarLong(proposal).writeLong(fin);
        engine.ab.broadcast(MessageType.ENTRY_TOM_RESOLVE, out.toByteArray());
    }

    /** A report, delivered in the atomic-broadcast order (at every member; only destinations act). */
    void onResolveDelivered(MemberId reporter, byte[] bytes) {
        ValueInput in = Wire.in(bytes);
        in.readByte();
        Id id = new Id(Wire.readMember(in), Wire.readPositive(in));
        List<MemberId> dests = Wire.readMembers(in);
        byte[] payload = in.readBytes();
        long proposal = Wire.readPositive(in);
        long fin = in.readLong();
        if (!dests.contains(engine.self) || !dests.contains(reporter) || resolvedIds.contains(id)) {
            return;
        }
        Resolution r = resolutions.computeIfAbsent(id, k -> new Resolution(dests));
        r.payload = payload;
        r.reports.putIfAbsent(reporter, new long[] {proposal, fin});
        report(id, dests, payload); // once: our own report may still be on its way
        tryResolve(id, r);
    }

    private void tryResolve(Id id, Resolution r) {
        if (view == null) {
            return;
        }
        Set<MemberId> alive = new HashSet<>(r.destinations);
        alive.retainAll(view.members());
        if (!r.reports.keySet().containsAll(alive)) {
            return;
        }
        resolutions.remove(id);
        resolvedIds.add(id);
        long decided = -1;
        long max = 0;
        for (Map.Entry<MemberId, long[]> e : r.reports.entrySet()) {
            max = Math.max(max, e.getValue()[0]);
            if (e.getValue()[1] >= 0) {
                decided = e.getValue()[1];
            }
        }
        long ts = decided >= 0 ? decided : max;
        Message m = pending.get(id);
        if (m != null) {
            finish(m, ts);
        } else if (recentFinals.containsKey(id) && recentFinals.get(id) != ts) {
            engine.log.error("resolution of {} decided {} but it was delivered at {}", id, ts, recentFinals.get(id));
        }
    }

    /**
     * This member fell into a minority: the survivors resolve every multicast in flight without it, so it forgets
     * them (one it kept could never be resolved here and would hold back every later delivery). Until it is in a
     * primary view again it holds new data; then it takes only what was sent after its last primary view, which
     * drops retransmissions of old messages that reach it once the partition heals.
     */
    void cutOff() {
        reset();
        if (cutOffSince < 0) {
            cutOffSince = installed == null ? 0 : installed.epoch();
        }
    }

    /**
     * This member received the group's state as of {@code view} (it joined, or came back from a minority): it
     * forgets the multicasts in flight from before that view, which the survivors resolved without it, and keeps
     * those sent in it, which may already have reached it (the state can arrive after them).
     */
    void stateInstalled(View view) {
        long epoch = view.epoch();
        pending.values().removeIf(m -> m.sentIn < epoch);
        queue.removeIf(m -> m.sentIn < epoch);
        coordinating.values().removeIf(m -> m.sentIn < epoch);
        resolutions.clear();
        deliverFinalHeads(); // what waited behind a forgotten message can go now
    }

    /** Forgets every multicast in flight. */
    void reset() {
        pending.clear();
        queue.clear();
        coordinating.clear();
        early.clear();
        resolutions.clear();
    }

    int pendingCount() {
        return pending.size();
    }
}
