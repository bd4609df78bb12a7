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
 * logical clock; the final timestamp is the largest proposal; a destination delivers a message once its timestamp
 * is final and every message before it here is delivered (ties broken by origin and sequence number), since no
 * message still pending or yet to come can get a smaller one; with conflict keys, every message before it that it
 * conflicts with (below). Two variants, as in Ruivo's thesis:
 * <ul>
 *   <li>{@link Variant#COORDINATED} (TOM-3): destinations send their proposal to the origin, which sends the
 *       final timestamp: three communication steps, 3n messages;</li>
 *   <li>{@link Variant#DECENTRALIZED} (TOM-2): every destination sends its proposal to every other, and each
 *       computes the maximum: two steps, n + n(n-1) messages.</li>
 * </ul>
 * A single destination assigns its final timestamp at once. Only destinations take part.
 *
 * <p>Conflicts: a message may carry conflict keys ({@link io.polycert.core.group.GroupMember#multicast(Collection,
 * long[], byte[])}). A final message is delivered once no undelivered message before it in timestamp order shares a
 * key with it (a message without keys shares one with every message), not only once it reaches the head: Skeen's
 * rule would hold it behind every earlier message still collecting proposals, though the two commute. Messages
 * that share a key are still delivered in timestamp order at every destination. That is safe because a message
 * this member has not received yet gets a timestamp above every final one here (its proposal comes from this
 * clock, which has passed them), and one it has received but not finalized has a proposal, which bounds its final
 * timestamp from below.
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
        /** Sorted, distinct; null: conflicts with every message. */
        final long[] keys;
        final byte[] payload;
        long ts;
        boolean isFinal;
        /** When its timestamp became final here (System.nanoTime), for the wait statistics. */
        long finalAtNanos;
        /** Proposals by destination (index in {@link #destinations}); 0 for none yet (timestamps start at 1). */
        final long[] proposals;
        int proposalCount;
        /** The epoch of the view it was sent in (at least the sender's; 0 if unknown). */
        long sentIn;
        /** Set once this destination reported the message for resolution: late FINALs are ignored then. */
        boolean reported;

        Message(Id id, List<MemberId> destinations, long[] keys, byte[] payload) {
            this.id = id;
            this.destinations = destinations;
            this.keys = keys;
            this.payload = payload;
            this.proposals = new long[destinations.size()];
        }

        /** Records {@code from}'s proposal; false if {@code from} is not a destination. */
        boolean propose(MemberId from, long ts) {
            int i = destinations.indexOf(from);
            if (i < 0) {
                return false;
            }
            if (proposals[i] == 0) {
                proposalCount++;
            }
            proposals[i] = ts;
            return true;
        }

        boolean allProposed() {
            return proposalCount == proposals.length;
        }

        long maxProposal() {
            long max = 0;
            for (long p : proposals) {
                max = Math.max(max, p);
            }
            return max;
        }

        /** Whether it shares a key with {@code blocked} (keys of messages before it); true if either is unkeyed. */
        boolean conflictsWith(LongScratchSet blocked) {
            if (keys == null) {
                return true;
            }
            for (long k : keys) {
                if (blocked.contains(k)) {
                    return true;
                }
            }
            return false;
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
    private final DeliveredFinals recentFinals = new DeliveredFinals(1 << 16, 16);
    /** The keys of the undelivered messages a delivery pass has passed (reused: see LongScratchSet). */
    private final LongScratchSet blocked = new LongScratchSet();
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

    private record Held(Id id, long sentIn, List<MemberId> dests, long[] keys, byte[] payload) {
    }

    private static final int MAX_HELD = 10_000;
    /**
     * How many undelivered messages one delivery pass looks past. Stopping early only delays a message until a
     * later pass; every pass delivers the final messages at the head, as Skeen's rule does.
     */
    private static final int MAX_PASSED = 1024;
    /** How many keys of undelivered messages one pass collects before it stops (see MAX_PASSED). */
    private static final int MAX_BLOCKED_KEYS = 16_384;

    TotalOrderMulticast(GroupEngine engine, Variant variant) {
        this.engine = engine;
        this.variant = variant;
    }

    /** {@code conflictKeys} null: the message conflicts with every other (see the class comment). */
    void multicast(Collection<MemberId> destinations, long[] conflictKeys, byte[] payload) {
        long[] keys = conflictKeys == null ? null : normalized(conflictKeys);
        List<MemberId> dests = new ArrayList<>(new TreeSet<>(destinations));
        if (dests.isEmpty()) {
            throw new IllegalArgumentException("a multicast needs at least one destination");
        }
        // The group checked the destinations against its view when the application called; one may have left the
        // transport's view since. Send anyway (a send to a member gone is a no-op): the destinations still here
        // find it cut off, or the next view finds it in flight, and resolve it as they do a message whose
        // destination crashed after it was sent. Dropping it instead left its originator without an outcome
        // (PartitionedStoreTest.membershipChangesUnderLoadLoseNothing: "no outcome within PT30S").
        Id id = new Id(engine.self, nextSeq++);
        if (variant == Variant.COORDINATED && dests.size() > 1) {
            Message c = new Message(id, dests, keys, payload);
            c.sentIn = installed == null ? 0 : installed.epoch();
            coordinating.put(id, c);
        }
        ValueOutput out = Wire.out(MessageType.TOM_DATA, payload.length + 64 + 24 * dests.size());
        Wire.writeMember(out, id.origin);
        out.writeVarLong(id.seq);
        out.writeVarLong(installed == null ? 0 : installed.epoch()); // the view it was sent in
        Wire.writeMembers(out, dests);
        writeKeys(out, keys);
        out.writeBytes(payload);
        byte[] bytes = out.toByteArray();
        for (MemberId d : dests) {
            engine.sendTo(d, bytes);
        }
    }

    void onData(MemberId from, ValueInput in) {
        Id id = new Id(Wire.readMember(in, known()), Wire.readPositive(in));
        long sentIn = in.readVarLong();
        List<MemberId> dests = readDestinations(in);
        long[] keys = readKeys(in);
        byte[] payload = in.readBytes();
        if (!from.equals(id.origin) || !dests.contains(engine.self)) {
            throw new CodecException("TOM data " + id + " from " + from + " for " + dests);
        }
        if (cutOffSince >= 0 || (installed != null && sentIn > installed.epoch())) {
            // Back from a minority and not yet in the new view, or sent in a view we have not installed yet (its
            // origin may be a member we do not know of yet): hold it until we have that view.
            if (held.size() < MAX_HELD) {
                held.add(new Held(id, sentIn, dests, keys, payload));
            } else {
                engine.log.warn("dropped total-order data {}: {} messages already wait for a view", id, MAX_HELD);
            }
            return;
        }
        if (sentIn < acceptFrom) {
            return; // sent before we fell into a minority; the survivors resolved it without us
        }
        accept(id, dests, keys, payload, sentIn);
    }

    private void accept(Id id, List<MemberId> dests, long[] keys, byte[] payload, long sentIn) {
        if (delivered.contains(id.origin, id.seq) || pending.containsKey(id)) {
            return;
        }
        Message m = take(id, dests, keys, payload);
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
            engine.sendTo(id.origin, propose(MessageType.TOM_PROPOSE, id, m.ts));
        } else {
            byte[] proposal = propose(MessageType.TOM_PROPOSE, id, m.ts);
            for (MemberId d : dests) {
                if (!d.equals(engine.self)) {
                    engine.sendTo(d, proposal);
                }
            }
            m.propose(engine.self, m.ts);
            Map<MemberId, Long> before = early.remove(id);
            if (before != null) {
                before.forEach(m::propose);
            }
            maybeDecide(m);
        }
    }

    /** Adds a message with a fresh proposal from our clock. */
    private Message take(Id id, List<MemberId> dests, long[] keys, byte[] payload) {
        Message m = new Message(id, dests, keys, payload);
        m.ts = ++clock;
        pending.put(id, m);
        queue.add(m);
        return m;
    }

    /** The members to decode ids against (see {@link Wire#readMember(ValueInput, List)}). */
    private List<MemberId> known() {
        return installed == null ? List.of(engine.self) : installed.members();
    }

    /**
     * Destinations as the origin sent them: sorted and distinct. A repeated one would never let the message collect
     * a proposal per destination (one slot each), and it would hold back every delivery behind it: malformed.
     */
    private List<MemberId> readDestinations(ValueInput in) {
        List<MemberId> dests = Wire.readMembers(in, known());
        for (int i = 1; i < dests.size(); i++) {
            if (dests.get(i - 1).compareTo(dests.get(i)) >= 0) {
                throw new CodecException("destinations not sorted and distinct: " + dests);
            }
        }
        return dests;
    }

    /** A proposed or final timestamp: clocks start at 0 and every proposal is past it, so 0 is malformed. */
    private static long readTimestamp(ValueInput in) {
        long ts = Wire.readPositive(in);
        if (ts == 0) {
            throw new CodecException("timestamp 0");
        }
        return ts;
    }

    private static byte[] propose(byte type, Id id, long ts) {
        ValueOutput out = Wire.out(type);
        Wire.writeMember(out, id.origin);
        out.writeVarLong(id.seq).writeVarLong(ts);
        return out.toByteArray();
    }

    void onPropose(MemberId from, ValueInput in) {
        Id id = new Id(Wire.readMember(in, known()), Wire.readPositive(in));
        long ts = readTimestamp(in);
        if (variant == Variant.COORDINATED) {
            Message c = coordinating.get(id);
            if (c == null || !c.propose(from, ts)) {
                return;
            }
            if (c.allProposed()) {
                coordinating.remove(id);
                byte[] fin = propose(MessageType.TOM_FINAL, id, c.maxProposal());
                for (MemberId d : c.destinations) {
                    engine.sendTo(d, fin);
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
        if (m.propose(from, ts)) {
            maybeDecide(m);
        }
    }

    private void maybeDecide(Message m) {
        if (!m.reported && m.allProposed()) {
            finish(m, m.maxProposal());
        }
    }

    void onFinal(MemberId from, ValueInput in) {
        Id id = new Id(Wire.readMember(in, known()), Wire.readPositive(in));
        long ts = readTimestamp(in);
        Message m = pending.get(id);
        if (m != null && !m.reported && from.equals(id.origin)) {
            finish(m, ts);
        }
    }

    private void finish(Message m, long ts) {
        queue.remove(m);
        m.ts = ts;
        m.isFinal = true;
        m.finalAtNanos = System.nanoTime();
        clock = Math.max(clock, ts);
        queue.add(m);
        deliverReady();
    }

    /**
     * Delivers, in timestamp order, every final message that no undelivered message before it conflicts with
     * (see the class comment); with no conflict keys, exactly the final messages at the head of the queue.
     */
    private void deliverReady() {
        List<Message> ready = null;
        blocked.clear();
        int passed = 0;
        for (java.util.Iterator<Message> it = queue.iterator(); it.hasNext(); ) {
            Message m = it.next();
            if (m.isFinal && (blocked.size() == 0 || !m.conflictsWith(blocked))) {
                it.remove();
                if (ready == null) {
                    ready = new ArrayList<>();
                }
                ready.add(m);
                continue;
            }
            if (m.keys == null || ++passed > MAX_PASSED) {
                break; // it conflicts with everything after it, or the pass has looked far enough
            }
            for (long k : m.keys) {
                blocked.add(k);
            }
            if (blocked.size() > MAX_BLOCKED_KEYS) {
                break; // transactions with many keys: bound the work of a pass, as above
            }
        }
        if (ready == null) {
            return;
        }
        long now = System.nanoTime();
        for (Message m : ready) {
            pending.remove(m.id);
            delivered.add(m.id.origin, m.id.seq, this::lowestPending);
            recentFinals.put(m.id.origin, m.id.seq, m.ts);
            engine.countDelivery(m.payload.length);
            engine.countMulticastDelivery(now - m.finalAtNanos);
            engine.sink.multicast(m.id.origin, m.payload);
        }
    }

    /** The lowest sequence number of {@code origin}'s messages still pending here; Long.MAX_VALUE if none. */
    private long lowestPending(MemberId origin) {
        long lowest = Long.MAX_VALUE;
        for (Id id : pending.keySet()) {
            if (id.origin.equals(origin)) {
                lowest = Math.min(lowest, id.seq);
            }
        }
        return lowest;
    }

    private static long[] normalized(long[] keys) {
        if (keys.length == 0) {
            throw new IllegalArgumentException("a multicast ordered by its conflicts needs at least one conflict key");
        }
        long[] sorted = keys.clone();
        java.util.Arrays.sort(sorted);
        int n = 1;
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] != sorted[n - 1]) {
                sorted[n++] = sorted[i];
            }
        }
        return n == sorted.length ? sorted : java.util.Arrays.copyOf(sorted, n);
    }

    private static void writeKeys(ValueOutput out, long[] keys) {
        out.writeBoolean(keys != null);
        if (keys != null) {
            out.writeVarInt(keys.length);
            for (long k : keys) {
                out.writeLong(k);
            }
        }
    }

    /** Conflict keys as sent; a keyed message with no key is malformed (it would conflict with nothing). */
    private static long[] readKeys(ValueInput in) {
        if (!in.readBoolean()) {
            return null;
        }
        int n = in.readLength(8);
        if (n == 0) {
            throw new CodecException("a keyed multicast without conflict keys");
        }
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = in.readLong();
        }
        java.util.Arrays.sort(keys);
        return keys;
    }

    // ---- failures -----------------------------------------------------------------------------------------

    /**
     * A new primary view was installed: report the messages it cuts off. (Reporting early is harmless; only the
     * decisions must happen at the same place of the total order.)
     */
    void onViewInstalled(View newView) {
        installed = newView;
        recentFinals.retainOrigins(newView);
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
                    accept(h.id, h.dests, h.keys, h.payload, h.sentIn);
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
        long deliveredAt = recentFinals.get(id.origin, id.seq);
        long proposal;
        long fin;
        if (m != null) {
            m.reported = true;
            proposal = m.ts;
            fin = m.isFinal ? m.ts : -1;
        } else if (deliveredAt > 0) {
            proposal = deliveredAt;
            fin = proposal;
        } else if (delivered.contains(id.origin, id.seq)) {
            engine.log.error("cannot report {}: delivered too long ago to remember its timestamp", id);
            return;
        } else {
            // We learn of it from another destination's report, which does not carry its keys: it waits for every
            // message before it (always allowed).
            m = take(id, dests, null, payload);
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
        Id id;
        List<MemberId> dests;
        byte[] payload;
        long proposal;
        long fin;
        try {
            ValueInput in = Wire.in(bytes);
            in.readByte();
            id = new Id(Wire.readMember(in, known()), Wire.readPositive(in));
            dests = readDestinations(in);
            payload = in.readBytes();
            proposal = Wire.readPositive(in);
            fin = in.readLong();
        } catch (CodecException e) {
            // Delivered in the same place at every member, so every member drops it alike; the entries after it
            // are delivered as usual.
            engine.dropped("a resolution report of " + bytes.length + " bytes from " + reporter, e);
            return;
        }
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
        long deliveredAt = recentFinals.get(id.origin, id.seq);
        if (m != null) {
            finish(m, ts);
        } else if (deliveredAt > 0 && deliveredAt != ts) {
            engine.log.error("resolution of {} decided {} but it was delivered at {}", id, ts, deliveredAt);
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
        deliverReady(); // what waited behind a forgotten message can go now
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
