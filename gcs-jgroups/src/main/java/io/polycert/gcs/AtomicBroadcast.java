package io.polycert.gcs;

import io.polycert.core.codec.CodecException;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.NotInMajorityException;
import io.polycert.core.group.View;
import java.io.ByteArrayOutputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Uniform atomic broadcast with primary-component membership.
 *
 * <p><b>Normal operation.</b> The coordinator of the view is the sequencer: members send it their messages, it
 * numbers them and multicasts them in batches; every member stores what it receives and acknowledges it (to all,
 * or with three members or fewer mostly to the coordinator alone: see ackMulticastUpTo); a member delivers position
 * s once a majority of the view holds s. A message delivered anywhere, even by a member
 * that then crashes, is therefore held by a majority and survives any minority of crashes.
 *
 * <p><b>Epochs.</b> On every view change the new coordinator recovers before anything new is ordered. It asks
 * every member of the new view for what it holds and knows, and starts a new epoch (identified by the view's
 * {@link Ballot}) with a {@code NEW_EPOCH} message carrying the entries the newest history holds that not
 * everyone delivered, then an entry for the view itself. Members of the view that lack the history (joiners,
 * members back from a minority) receive the application state as of that view entry.
 *
 * <p><b>Which views may continue</b> (dynamic voting, after Yeger-Lotem, Keidar and Dolev). Each member remembers
 * the last epoch it knows was established (its view entry was delivered) and the epochs it installed since
 * without knowing their fate. A new view may start an epoch only if it holds a majority of the newest established
 * epoch its members know of and of every later epoch any of them installed; and the new epoch's first deliveries
 * (up to its view entry) need a majority of each of those too, besides a majority of the new view. So two
 * epochs that both deliver anything always share a member that knows of the earlier one, and a view holding no
 * such majorities blocks: it orders and delivers nothing until it merges back.
 *
 * <p>Runs on the engine thread only.
 */
final class AtomicBroadcast {
    private static final int MAX_BATCH_BYTES = 60_000;
    private static final int MAX_BATCH_ENTRIES = 4096;
    private static final int STATE_CHUNK = 1 << 20;
    private static final int MAX_EARLY = 100_000;

    enum Mode {
        /** Before the first epoch was installed. */
        STARTING,
        /** A view change is being recovered: nothing is ordered or delivered. */
        RECOVERING,
        NORMAL,
        /** In a view that may not continue the history. */
        BLOCKED
    }

    private record Pending(long originSeq, byte kind, byte[] payload, long sentAt) {
    }

    /** What a member of a view being recovered holds and knows. */
    private record Recovered(MemberId from, Ballot installed, long epoch, long lineageHigh, long lineageLow,
            boolean hasState, long nextDeliver, long receivedUpTo, Attempt established, List<Attempt> ambiguous,
            List<Entry> entries) {

        boolean sameLineage(Recovered o) {
            return lineageHigh == o.lineageHigh && lineageLow == o.lineageLow;
        }
    }

    /** The payload of an ENTRY_VIEW: the epoch, who needs state, and who sends it. */
    private record ViewEntry(Ballot ballot, View view, List<MemberId> joiners, MemberId provider) {
    }

    private final GroupEngine engine;
    private final MemberId self;
    /** {@link Wire#FORMAT}; another value only in tests, to play a member of another build. */
    int wireFormat = Wire.FORMAT;
    /** Whether this member already gave up its join for a member of another format (it does so once). */
    private boolean reportedIncompatible;
    /**
     * A request of another format from a member that is not (yet, as far as this member knows) its view's
     * coordinator: its sender and format, judged again when the next view names the coordinator.
     */
    private MemberId incompatibleSender;
    private String incompatibleSenderFormat;

    // ---- epoch ----
    private Mode mode = Mode.STARTING;
    private Ballot ballot = Ballot.NONE;
    private long epoch;
    private long lineageHigh;
    private long lineageLow;
    private boolean hasState;
    private View installedView;
    /** Position of this epoch's view entry, and the epochs a majority of which must hold positions up to it. */
    private long epochMarker;
    private List<Attempt> required = List.of();
    /** The newest epoch known to be established, and epochs installed since whose fate is unknown. */
    private Attempt established = Attempt.NONE;
    private final List<Attempt> ambiguous = new ArrayList<>();

    // ---- ordered log ----
    private final EntryLog log = new EntryLog();
    private long nextDeliver = 1;
    private long receivedUpTo;
    private final Map<MemberId, Long> acked = new LinkedHashMap<>();
    /** Members this coordinator asked to exclude since the last view (laggards, or silent members). */
    private final java.util.Set<MemberId> excluding = new java.util.HashSet<>();
    private final long[] heldScratch = new long[16]; // the engine runs one event at a time
    private long ackSent = -1;
    /**
     * The coordinator: the last position its batches of this epoch carried. A member that receives a batch counts
     * it as the coordinator's acknowledgement of its entries (see onOrder), so an ACK saying no more is not sent.
     */
    private long batchedUpTo = -1;
    /**
     * The last acknowledgement this member multicast. With three members or fewer, a member other than the
     * coordinator needs nobody's acknowledgement but the coordinator's batches to deliver (it and the coordinator
     * are a majority), and the coordinator needs one: its acknowledgements go to the coordinator alone, and to
     * everyone only every {@link #ACK_GOSSIP_ENTRIES} entries or {@link #ACK_GOSSIP_BYTES} payload bytes and at
     * each tick, so that the others can discard what all hold (and report no more of it when the coordinator
     * leaves: see firstToReport).
     */
    private long ackMulticastUpTo = -1;
    static final int ACK_GOSSIP_ENTRIES = 256;
    static final long ACK_GOSSIP_BYTES = 1 << 20;
    /** Payload bytes received since this member last multicast its acknowledgement (see ackMulticastUpTo). */
    private long bytesSinceAckMulticast;
    /**
     * Per origin, the highest origin sequence number delivered: drops the duplicates resends create. This relies
     * on each origin's messages being ordered in the order it sent them (FIFO channels, resends in order).
     */
    private final Map<MemberId, Long> lastDelivered = new HashMap<>();

    // ---- sequencer ----
    private boolean sequencer;
    private long nextSeq;
    private final List<Entry> batch = new ArrayList<>();
    private int batchBytes;
    /**
     * Flow control: DATA this coordinator holds back, unordered, while a member that keeps acknowledging is more
     * than a fifth of the lag bound behind. The group then runs at that member's pace instead of excluding a
     * member that is only slower (a state transfer each time). A member whose acknowledgements stood still for a
     * whole tick period is stopped or cut off, not slow: nothing is held for it, and the lag bound excludes it.
     */
    private final ArrayDeque<Entry> heldBack = new ArrayDeque<>();
    /** How many more entries, and payload bytes, may be ordered before a member that keeps up is held for. */
    private long orderBudget = Long.MAX_VALUE;
    private long orderBudgetBytes = Long.MAX_VALUE;
    /** Each member's acknowledgement at the last tick, and the members whose acknowledgement moved since. */
    private final Map<MemberId, Long> ackedAtTick = new HashMap<>();
    private final java.util.Set<MemberId> progressing = new java.util.HashSet<>();
    /** DATA sent to us under an epoch newer than ours (its sender installed it first), with that epoch. */
    private final List<EarlyData> earlyData = new ArrayList<>();
    /** ACKs that arrived before we installed the epoch they belong to. */
    private final TreeMap<Ballot, Map<MemberId, Long>> earlyAcks = new TreeMap<>();

    private record EarlyData(Ballot ballot, Entry entry) {
    }

    // ---- origin ----
    private long nextOriginSeq = 1;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();

    // ---- recovery ----
    private TransportView recovering;
    private final Map<MemberId, Recovered> recoveredStates = new HashMap<>();
    private final List<Object[]> requestsForLaterViews = new ArrayList<>();

    // ---- state transfer (joiner side) ----
    private long awaitedMarker = -1;
    private final TreeMap<Integer, byte[]> stateChunks = new TreeMap<>();
    private byte[] stateDedupe;
    private long stateChunksFor = -1;
    /** The ballot of the epoch whose view entry the buffered chunks' state was taken at. */
    private Ballot stateChunksBallot = Ballot.NONE;
    private int stateChunksTotal;

    AtomicBroadcast(GroupEngine engine) {
        this.engine = engine;
        this.self = engine.self;
    }

    Mode mode() {
        return mode;
    }

    View installedView() {
        return installedView;
    }

    int undelivered() {
        return pending.size();
    }

    long nextDeliver() {
        return nextDeliver;
    }

    /** The first position still held in the log (what every member holds is discarded). */
    long firstHeld() {
        return log.first();
    }

    /** Payload bytes of the entries still held in the log. */
    long heldBytes() {
        return log.bytesAfter(log.first() - 1);
    }

    /** Where this member stands, for diagnostics and logs (engine thread). */
    String describe() {
        return "mode=" + mode + " epoch=" + epoch + " view=" + (installedView == null ? null : installedView.members())
                + " hasState=" + hasState + " awaitedMarker=" + awaitedMarker + " epochMarker=" + epochMarker
                + " nextDeliver=" + nextDeliver + " receivedUpTo=" + receivedUpTo + " log=" + log.first() + ".."
                + log.last() + " acked=" + acked + " pending=" + pending.size()
                + (pending.isEmpty() ? "" : " firstPending=" + pending.peekFirst().originSeq)
                + " lastDeliveredSelf=" + lastDelivered.get(self) + " stateChunksFor=" + stateChunksFor
                + " chunks=" + stateChunks.size() + "/" + stateChunksTotal + " of " + stateChunksBallot;
    }

    // ---- sending ----------------------------------------------------------------------------------------

    void broadcast(byte kind, byte[] payload) {
        if (mode == Mode.BLOCKED) {
            throw new NotInMajorityException(self + " is in view " + engine.transportView().members()
                    + ", which holds no majority of the group's last primary view, so it cannot broadcast");
        }
        Pending p = new Pending(nextOriginSeq++, kind, payload, System.nanoTime());
        pending.add(p);
        if (mode == Mode.NORMAL) {
            sendData(p);
        }
    }

    private void sendData(Pending p) {
        if (sequencer) {
            admit(self, p.originSeq, p.kind, p.payload);
        } else {
            ValueOutput out = Wire.out(MessageType.DATA, p.payload.length + 48);
            ballot.writeTag(out); // a coordinator orders only what was sent to it under its own epoch: see onData
            out.writeVarLong(p.originSeq).writeByte(p.kind).writeBytes(p.payload);
            engine.sendTo(installedView.coordinator(), out.toByteArray());
        }
    }

    /**
     * DATA sent under our epoch is ordered (by its coordinator); under a newer one (its sender installed it first
     * and resends to us), kept until we install that epoch; under an older one, dropped. Ordering a late DATA of
     * an older epoch would lose messages: its sender's earlier messages, which this member had received while
     * recovering and dropped, come again only as resends once the sender installs the new epoch, after it, and
     * delivery drops them as duplicates of a later sequence number (found by a review's property test of the
     * simulated network: two joins in a row). The sender resends all it has pending whenever it installs an
     * epoch, so nothing dropped here is lost.
     */
    void onData(MemberId from, ValueInput in) {
        Ballot b = Ballot.readTag(in, ballot);
        long originSeq = Wire.readPositive(in);
        byte kind = in.readByte();
        byte[] payload = in.readBytes();
        if (kind != MessageType.ENTRY_APP && kind != MessageType.ENTRY_TOM_RESOLVE) {
            throw new CodecException("cannot order an entry of kind " + kind);
        }
        int epochOrder = b.compareTo(ballot);
        if (mode == Mode.NORMAL && epochOrder == 0) {
            if (sequencer && installedView.contains(from)) {
                admit(from, originSeq, kind, payload);
            }
        } else if (epochOrder > 0 && earlyData.size() < MAX_EARLY) {
            earlyData.add(new EarlyData(b, new Entry(0, from, originSeq, kind, payload)));
        }
    }

    /** Orders a message now, or holds it back behind those already held (each origin's order is kept). */
    private void admit(MemberId origin, long originSeq, byte kind, byte[] payload) {
        if (heldBack.isEmpty() && (orderBudget <= 0 || orderBudgetBytes <= 0)) {
            refreshBudget(); // spent before the last acknowledgements came: they may have made room
        }
        if (!heldBack.isEmpty() || orderBudget <= 0 || orderBudgetBytes <= 0) {
            heldBack.add(new Entry(0, origin, originSeq, kind, payload));
        } else {
            orderWithinBudget(origin, originSeq, kind, payload);
        }
    }

    private void orderWithinBudget(MemberId origin, long originSeq, byte kind, byte[] payload) {
        order(origin, originSeq, kind, payload);
        orderBudget--;
        orderBudgetBytes -= payload.length;
    }

    private void order(MemberId origin, long originSeq, byte kind, byte[] payload) {
        Entry e = new Entry(nextSeq++, origin, originSeq, kind, payload);
        log.append(e);
        receivedUpTo = e.seq();
        batch.add(e);
        batchBytes += e.size();
        if (batchBytes >= MAX_BATCH_BYTES || batch.size() >= MAX_BATCH_ENTRIES) {
            sendBatch();
        }
    }

    private void sendBatch() {
        if (batch.isEmpty()) {
            return;
        }
        ValueOutput out = Wire.out(MessageType.ORDER, batchBytes + 64);
        ballot.writeTag(out);
        out.writeVarInt(batch.size());
        List<MemberId> members = installedView.members();
        for (Entry e : batch) {
            e.writeCompact(out, members);
        }
        batchedUpTo = batch.get(batch.size() - 1).seq();
        batch.clear();
        batchBytes = 0;
        engine.transport.multicast(out.toByteArray());
    }

    void onOrder(MemberId from, ValueInput in) {
        Ballot b = Ballot.readTag(in, ballot);
        if (from.equals(self) || !b.equals(ballot) || mode != Mode.NORMAL
                || !from.equals(installedView.coordinator())) {
            return; // our own batch (already logged), or another epoch's (whose view we may not know)
        }
        int n = in.readLength(5);
        List<MemberId> members = installedView.members();
        List<Entry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            entries.add(Entry.readCompact(in, members));
        }
        for (Entry entry : entries) {
            if (entry.seq() != receivedUpTo + 1) {
                throw new CodecException("entry " + entry.seq() + " does not follow " + receivedUpTo);
            }
            log.append(entry);
            receivedUpTo = entry.seq();
            bytesSinceAckMulticast += entry.payload().length;
        }
        if (!entries.isEmpty()) {
            // The coordinator logs a batch before sending it, so the batch is also its acknowledgement: with
            // three members, we and the coordinator are a majority and deliver without waiting for an ACK.
            acked.merge(from, receivedUpTo, Math::max);
        }
    }

    void onAck(MemberId from, ValueInput in) {
        Ballot b = Ballot.readTag(in, ballot);
        long upTo = Wire.readPositive(in);
        if (b.equals(ballot) && mode == Mode.NORMAL && acked.containsKey(from)) {
            acked.merge(from, upTo, Math::max);
            if (!heldBack.isEmpty()) {
                excludeLaggards(); // the member held for may have caught up: order what it allows
            }
        } else if (b.compareTo(ballot) > 0 && earlyAcks.size() < 64) {
            earlyAcks.computeIfAbsent(b, k -> new HashMap<>()).merge(from, upTo, Math::max); // we install b later
        }
    }

    /** End of a burst of events: send the batch and the acknowledgement, deliver what became stable. */
    void flush() {
        // Delivering can make the layers above broadcast (TOM reports), so go round until nothing is left.
        while (mode == Mode.NORMAL && (!batch.isEmpty() || receivedUpTo > ackSent || deliverable())) {
            sendBatch();
            if (receivedUpTo > ackSent) {
                ackSent = receivedUpTo;
                acked.put(self, receivedUpTo);
                if (!(sequencer && batchedUpTo == receivedUpTo)) {
                    sendAck(!sequencer && installedView.members().size() <= 3 && ackMulticastUpTo >= epochMarker
                            && receivedUpTo - ackMulticastUpTo < ACK_GOSSIP_ENTRIES
                            && bytesSinceAckMulticast < ACK_GOSSIP_BYTES);
                }
            }
            deliverStable();
        }
    }

    private void sendAck(boolean toCoordinatorOnly) {
        ValueOutput out = Wire.out(MessageType.ACK);
        ballot.writeTag(out);
        byte[] ack = out.writeVarLong(ackSent).toByteArray();
        if (toCoordinatorOnly) {
            engine.sendTo(installedView.coordinator(), ack);
        } else {
            ackMulticastUpTo = ackSent;
            bytesSinceAckMulticast = 0;
            engine.transport.multicast(ack);
        }
    }

    private boolean deliverable() {
        // receivedUpTo first: with no ordered traffic (a workload of total-order multicasts, say) this runs at every
        // flush, and the stable position costs a lookup per member (1.6-3% of TOM-3's CPU samples at degree 4).
        return hasState && nextDeliver <= receivedUpTo && nextDeliver <= stablePosition();
    }

    private void deliverStable() {
        if (!hasState) {
            return;
        }
        // A majority holds it, and so do we (nothing to look up when we hold nothing new: see deliverable()).
        long stable = nextDeliver <= receivedUpTo ? Math.min(stablePosition(), receivedUpTo) : receivedUpTo;
        while (nextDeliver <= stable) {
            deliver(log.get(nextDeliver));
            nextDeliver++;
        }
        long heldByAll = Long.MAX_VALUE;
        for (long a : acked.values()) {
            heldByAll = Math.min(heldByAll, a);
        }
        log.discardUpTo(Math.min(heldByAll, nextDeliver - 1));
        excludeLaggards();
    }

    /** Whether this member coordinates a primary view in which it waits for others' acknowledgements. */
    boolean coordinatorAwaitingAcks() {
        if (mode != Mode.NORMAL || !sequencer) {
            return false;
        }
        for (Map.Entry<MemberId, Long> e : acked.entrySet()) {
            if (!e.getKey().equals(self) && e.getValue() < receivedUpTo) {
                return true;
            }
        }
        return false;
    }

    /** Whether this member coordinates a primary view of more than itself. */
    boolean coordinatingOthers() {
        return mode == Mode.NORMAL && sequencer && installedView.members().size() > 1;
    }

    /**
     * Whether this member coordinates a view change and still waits for members' answers: those that excluded it
     * meanwhile ignore its request, since they never install its view. A member of the view that is only late (one
     * merged back after a stop first receives by retransmission what was multicast while it was away) is excluded
     * too once nothing was heard for the stall timeout, and merges back: one member catching up must not hold up
     * the whole group for longer than that (waiting for it instead kept the group in recovery for 11.7 s in a logged
     * run of seed 103 of the fault campaign, and failed 3 of 4 runs).
     */
    boolean coordinatorAwaitingRecovery() {
        return recovering != null && recoveredStates.size() < recovering.members().size();
    }

    /**
     * Asks GMS to exclude the other members this coordinator waits for (see {@link GroupEngine#tick}), in the view
     * it recovers or else in its epoch's view: it has heard nothing from any of them for a long time.
     */
    void excludeOthers(long silentMs) {
        List<MemberId> others = new ArrayList<>();
        boolean inRecovery = recovering != null;
        for (MemberId m : inRecovery ? recovering.members() : installedView.members()) {
            boolean answered = inRecovery && recoveredStates.containsKey(m);
            if (!m.equals(self) && !answered && excluding.add(m)) {
                others.add(m);
            }
        }
        if (others.isEmpty()) {
            return;
        }
        engine.log.warn("heard nothing from {} for {} ms while waiting for them: excluding them (this member was"
                + " probably excluded by them, and comes back through a merge)", others, silentMs);
        for (MemberId m : others) {
            engine.transport.exclude(m);
        }
    }

    /**
     * The coordinator excludes a member that holds more than {@code maxLag} fewer entries than it ordered, or lacks
     * more than {@code maxLagBytes} of their payloads. The group delivers on a majority, so nothing else stops such
     * a member (a lossy link) from falling ever further behind while it and everyone else keep what it has not
     * acknowledged; it comes back through a merge and a state transfer.
     */
    private void excludeLaggards() {
        if (!sequencer) {
            return;
        }
        for (Map.Entry<MemberId, Long> e : acked.entrySet()) {
            MemberId m = e.getKey();
            if (m.equals(self) || excluding.contains(m)) {
                continue;
            }
            long entriesBehind = receivedUpTo - e.getValue();
            long bytesBehind = log.bytesAfter(e.getValue());
            if (entriesBehind > engine.settings.maxLag() || bytesBehind > engine.settings.maxLagBytes()) {
                excluding.add(m);
                engine.log.warn("{} holds {} of the {} entries ordered, {} entries and {} bytes behind (bounds {} and"
                        + " {}): excluding it (it comes back with the group's state)", m, e.getValue(), receivedUpTo,
                        entriesBehind, bytesBehind, engine.settings.maxLag(), engine.settings.maxLagBytes());
                engine.transport.exclude(m);
            }
        }
        refreshBudget(); // after the exclusions: nothing is held for a member being excluded
        while (mode == Mode.NORMAL && !heldBack.isEmpty() && orderBudget > 0 && orderBudgetBytes > 0) {
            Entry d = heldBack.poll();
            orderWithinBudget(d.origin(), d.originSeq(), d.kind(), d.payload());
        }
    }

    /** What may be ordered before a member that keeps acknowledging falls a fifth of the lag bound behind. */
    private void refreshBudget() {
        long budget = Long.MAX_VALUE;
        long budgetBytes = Long.MAX_VALUE;
        for (Map.Entry<MemberId, Long> e : acked.entrySet()) {
            MemberId m = e.getKey();
            if (!m.equals(self) && progressing.contains(m) && !excluding.contains(m)) {
                budget = Math.min(budget, Math.max(1, engine.settings.maxLag() / 5) - (receivedUpTo - e.getValue()));
                budgetBytes = Math.min(budgetBytes,
                        Math.max(1, engine.settings.maxLagBytes() / 5) - log.bytesAfter(e.getValue()));
            }
        }
        orderBudget = budget;
        orderBudgetBytes = budgetBytes;
    }

    /**
     * Periodic (see {@link GroupEngine#tick}): which members acknowledged anything since the last tick. Flow control
     * waits only for those (see {@link #heldBack}).
     */
    void tick() {
        progressing.clear();
        for (Map.Entry<MemberId, Long> e : acked.entrySet()) {
            Long before = ackedAtTick.put(e.getKey(), e.getValue());
            if (before != null && e.getValue() > before) {
                progressing.add(e.getKey());
            }
        }
        ackedAtTick.keySet().retainAll(acked.keySet());
        if (mode == Mode.NORMAL && !sequencer && ackSent > ackMulticastUpTo) {
            sendAck(false); // what the others may discard (see ackMulticastUpTo)
        }
        if (mode == Mode.NORMAL) {
            excludeLaggards(); // may release what was held for a member that stopped
        }
    }

    /**
     * The highest position a majority of the view holds; up to this epoch's view entry, also a majority of
     * each epoch the recovery had to respect (see the class comment).
     */
    private long stablePosition() {
        long stable = majorityHeld(installedView.members());
        if (nextDeliver <= epochMarker) {
            for (Attempt a : required) {
                stable = Math.min(stable, majorityHeld(a.config()));
            }
        }
        return stable;
    }

    private long majorityHeld(List<MemberId> members) {
        if (members.isEmpty()) {
            return Long.MAX_VALUE;
        }
        int n = members.size();
        long[] held = n <= heldScratch.length ? heldScratch : new long[n];
        for (int i = 0; i < n; i++) {
            held[i] = acked.getOrDefault(members.get(i), 0L);
        }
        Arrays.sort(held, 0, n);
        return held[n - (n / 2 + 1)]; // the (majority)-th largest
    }

    private void deliver(Entry e) {
        if (e.kind() == MessageType.ENTRY_VIEW) {
            ViewEntry ve = decodeViewEntry(e.payload());
            learnEstablished(ve);
            engine.sink.view(ve.view, e.seq());
            engine.viewDelivered(ve.view);
            if (ve.provider.equals(self) && !ve.joiners.isEmpty()) {
                captureStateFor(ve, e.seq());
            }
            return;
        }
        Long last = lastDelivered.get(e.origin());
        boolean duplicate = last != null && last >= e.originSeq();
        if (e.origin().equals(self)) {
            settleOwn(e.originSeq(), duplicate);
        }
        if (duplicate) {
            return; // a resend of something already delivered
        }
        lastDelivered.put(e.origin(), e.originSeq());
        if (e.kind() == MessageType.ENTRY_APP) {
            if (!e.origin().equals(self)) {
                engine.countOrdered();
            }
            engine.countDelivery(e.payload().length);
            engine.sink.ordered(e.origin(), e.seq(), e.payload());
        } else {
            engine.tom.onResolveDelivered(e.origin(), e.payload());
        }
    }

    /**
     * Our broadcasts up to {@code originSeq} are settled: delivered here now (the last one, unless it is a
     * duplicate), or delivered by the group while we were away (we hold their effect through the state, and the
     * group drops their resends as duplicates). They leave the pending queue and free their room in the window.
     */
    private void settleOwn(long originSeq, boolean duplicate) {
        Pending p;
        while ((p = pending.peekFirst()) != null && p.originSeq <= originSeq) {
            pending.pollFirst();
            if (p.kind != MessageType.ENTRY_APP) {
                continue; // TOM reports take no room in the window
            }
            if (p.originSeq == originSeq && !duplicate) {
                engine.ownDelivered(System.nanoTime() - p.sentAt, p.payload.length);
            } else {
                engine.ownSettled(p.payload.length);
            }
        }
    }

    /** A view entry was delivered (or its state installed): that epoch is established. */
    private void learnEstablished(ViewEntry ve) {
        if (ve.ballot.compareTo(established.ballot()) > 0) {
            established = new Attempt(ve.ballot, ve.view.members());
            ambiguous.removeIf(a -> a.ballot().compareTo(ve.ballot) <= 0);
        }
    }

    // ---- view changes and recovery ----------------------------------------------------------------------

    void onTransportView(TransportView view) {
        if (mode != Mode.STARTING) {
            mode = Mode.RECOVERING; // from here on we neither acknowledge nor deliver for the old epoch
        }
        sequencer = false;
        batch.clear();
        batchBytes = 0;
        heldBack.clear(); // their origins send them again to the next coordinator, as they do with unordered ones
        orderBudget = Long.MAX_VALUE;
        orderBudgetBytes = Long.MAX_VALUE;
        recovering = null;
        recoveredStates.clear();
        excluding.clear(); // a member still in this view, excluded before, may have to be excluded again
        if (view.coordinator().equals(self)) {
            recovering = view;
            ValueOutput out = Wire.out(MessageType.RECOVER_REQUEST);
            out.writeVarInt(wireFormat);
            out.writeVarLong(view.id());
            Wire.writeMember(out, view.creator());
            engine.transport.multicast(out.toByteArray());
        }
        if (incompatibleSender != null && ballot.equals(Ballot.NONE) && incompatibleSender.equals(view.coordinator())) {
            giveUpJoin(incompatibleSender, incompatibleSenderFormat);
        }
        incompatibleSender = null;
        List<Object[]> later = new ArrayList<>(requestsForLaterViews);
        requestsForLaterViews.clear();
        for (Object[] r : later) {
            onRecoverRequest((MemberId) r[0], (Long) r[1], (MemberId) r[2]);
        }
    }

    void onRecoverRequest(MemberId from, ValueInput in) {
        checkFormat(from, in, true);
        long viewId = Wire.readPositive(in);
        MemberId creator = Wire.readMember(in);
        onRecoverRequest(from, viewId, creator);
    }

    private void onRecoverRequest(MemberId from, long viewId, MemberId creator) {
        TransportView tv = engine.transportView();
        if (tv != null && tv.sameAs(viewId, creator)) {
            if (from.equals(tv.coordinator())) {
                engine.sendTo(from, recoverState(viewId, creator, tv.members()));
            }
        } else if ((tv == null || viewId > tv.id()) && requestsForLaterViews.size() < 16) {
            requestsForLaterViews.add(new Object[] {from, viewId, creator}); // we will see that view soon
        }
    }

    private byte[] recoverState(long viewId, MemberId creator, List<MemberId> viewMembers) {
        long from = firstToReport(viewMembers);
        long entries = log.last() - from + 1;
        ValueOutput out = Wire.out(MessageType.RECOVER_STATE, 256 + (int) Math.min(1 << 20, entries * 64));
        out.writeVarInt(wireFormat);
        out.writeVarLong(viewId);
        Wire.writeMember(out, creator);
        ballot.write(out);
        out.writeVarLong(epoch).writeLong(lineageHigh).writeLong(lineageLow);
        out.writeBoolean(hasState).writeVarLong(nextDeliver).writeVarLong(receivedUpTo);
        established.write(out);
        Attempt.writeAll(out, ambiguous);
        out.writeVarInt((int) entries);
        for (long s = from; s <= log.last(); s++) {
            log.get(s).write(out);
        }
        return out.toByteArray();
    }

    /**
     * The first entry of our log that the recovery of a view with these members may need. Not those every one of
     * them acknowledged in our epoch (each holds them, or delivered them, and reports what it holds itself), unless
     * we have not delivered them ourselves: so each member reports at least from its own next delivery, and the
     * reports of the newest epoch still join up. Without this bound every member sent its whole log: after
     * excluding a member far behind, that is everything the excluded member lacked, once per member, to the new
     * coordinator at once (the fault campaign saw coordinators run out of heap right after such an exclusion).
     */
    private long firstToReport(List<MemberId> viewMembers) {
        long heldByAll = Long.MAX_VALUE;
        for (MemberId m : viewMembers) {
            heldByAll = Math.min(heldByAll, acked.getOrDefault(m, 0L)); // acked lists our epoch's members only
        }
        return Math.max(log.first(), Math.min(nextDeliver, heldByAll + 1));
    }

    void onRecoverState(MemberId from, ValueInput in) {
        checkFormat(from, in, false);
        long viewId = Wire.readPositive(in);
        MemberId creator = Wire.readMember(in);
        Ballot installed = Ballot.read(in);
        long e = Wire.readPositive(in);
        long lh = in.readLong();
        long ll = in.readLong();
        boolean state = in.readBoolean();
        long next = Wire.readPositive(in);
        long received = Wire.readPositive(in);
        Attempt est = Attempt.read(in);
        List<Attempt> amb = Attempt.readAll(in);
        int n = in.readLength(20);
        List<Entry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            entries.add(Entry.read(in));
        }
        if (recovering == null || !recovering.sameAs(viewId, creator) || !recovering.members().contains(from)) {
            return;
        }
        recoveredStates.put(from, new Recovered(from, installed, e, lh, ll, state, next, received, est, amb,
                entries));
        if (recoveredStates.size() == recovering.members().size()) {
            TransportView view = recovering;
            recovering = null;
            engine.transport.multicast(decideEpoch(view));
        }
    }

    /** Reads a recovery message's format; if it is not ours, reports the other member (see incompatible). */
    private void checkFormat(MemberId from, ValueInput in, boolean request) {
        long format = Wire.readPositive(in);
        if (format != wireFormat) {
            incompatible(from, "format " + format, request);
        }
    }

    /**
     * {@code from} speaks another wire format (another PolyCert build): the two cannot be in one group, and nothing
     * it sends can be read. Every member exchanges recovery messages at each view change, so this shows as soon as
     * a member of another build joins. A member that never took part in an epoch (it is joining, or founding) and
     * is asked to recover by its view's coordinator in another format gives up, naming both formats: its join
     * fails and it leaves. A request of another format from a member that is not the coordinator of the view this
     * member knows (it may not know the request's view yet) is judged again when the next view comes: only its
     * coordinator's word counts, since any member could send such a message. The message is always dropped,
     * counted and logged (rate-limited) like any unreadable one.
     *
     * @param request whether the message was a request to recover (else a member's report)
     * @throws CodecException always: the message cannot be read
     */
    void incompatible(MemberId from, String theirs, boolean request) {
        if (ballot.equals(Ballot.NONE) && request) {
            TransportView tv = engine.transportView();
            if (tv != null && from.equals(tv.coordinator())) {
                giveUpJoin(from, theirs);
            } else {
                incompatibleSender = from;
                incompatibleSenderFormat = theirs;
            }
        }
        throw new CodecException(incompatibility(from, theirs));
    }

    private String incompatibility(MemberId from, String theirs) {
        return from + " speaks the group layer's " + theirs + ", " + self + " format " + wireFormat
                + ": members of PolyCert builds with different wire formats cannot form one group";
    }

    private void giveUpJoin(MemberId from, String theirs) {
        if (!reportedIncompatible) {
            String message = incompatibility(from, theirs);
            reportedIncompatible = true;
            engine.log.error("{}; giving up the join", message);
            engine.sink.incompatible(new IllegalStateException(message));
        }
    }

    /** Coordinator, once every member of the new view answered: the NEW_EPOCH message (or a refusal). */
    private byte[] decideEpoch(TransportView view) {
        ValueOutput out = Wire.out(MessageType.NEW_EPOCH, 1024);
        out.writeVarLong(view.id());
        Wire.writeMember(out, view.creator());
        boolean fresh = recoveredStates.values().stream().allMatch(r -> r.installed.equals(Ballot.NONE));
        if (fresh) {
            if (view.members().size() < engine.settings.minimumMembers()) {
                engine.log.warn("view {} has fewer than the {} members needed to found the group; waiting",
                        view.members(), engine.settings.minimumMembers());
                return out.writeBoolean(false).toByteArray();
            }
            UUID lineage = UUID.randomUUID();
            writeEpoch(out, Ballot.NONE, 1, lineage.getMostSignificantBits(), lineage.getLeastSignificantBits(),
                    view.members(), List.of(), 1, List.of(), 1, List.of(), self);
            return out.toByteArray();
        }
        // The log to continue: that of the newest ballot installed (whether its holders have the application
        // state yet or not); two histories founded apart: the larger lineage wins.
        Recovered best = null;
        for (Recovered r : recoveredStates.values()) {
            if (r.installed.equals(Ballot.NONE)) {
                continue;
            }
            if (best == null) {
                best = r;
                continue;
            }
            int c = r.installed.compareTo(best.installed);
            if (c > 0 || (c == 0 && (Long.compareUnsigned(r.lineageHigh, best.lineageHigh) > 0
                    || (r.lineageHigh == best.lineageHigh && Long.compareUnsigned(r.lineageLow, best.lineageLow) > 0)))) {
                best = r;
            }
        }
        // Which epochs must be respected: the newest known established one, and every later one installed.
        Attempt newestEstablished = Attempt.NONE;
        for (Recovered r : recoveredStates.values()) {
            if (r.sameLineage(best) && r.established.ballot().compareTo(newestEstablished.ballot()) > 0) {
                newestEstablished = r.established;
            }
        }
        Map<Ballot, Attempt> mustRespect = new TreeMap<>();
        if (!newestEstablished.config().isEmpty()) {
            mustRespect.put(newestEstablished.ballot(), newestEstablished);
        }
        for (Recovered r : recoveredStates.values()) {
            if (!r.sameLineage(best)) {
                continue;
            }
            for (Attempt a : r.ambiguous) {
                if (a.ballot().compareTo(newestEstablished.ballot()) > 0) {
                    mustRespect.put(a.ballot(), a);
                }
            }
        }
        for (Attempt a : mustRespect.values()) {
            if (!a.majorityIn(view.members())) {
                engine.log.info("view {} holds no majority of epoch {} {}: blocking", view.members(),
                        a.ballot().viewId(), a.config());
                return out.writeBoolean(false).toByteArray();
            }
        }
        List<Recovered> upToDate = new ArrayList<>();
        long maxSeq = 0;
        TreeMap<Long, Entry> merged = new TreeMap<>();
        for (Recovered r : recoveredStates.values()) {
            if (r.installed.equals(best.installed) && r.sameLineage(best)) {
                upToDate.add(r);
                maxSeq = Math.max(maxSeq, r.receivedUpTo);
                for (Entry e : r.entries) {
                    merged.putIfAbsent(e.seq(), e);
                }
            }
        }
        merged.tailMap(maxSeq, false).clear();
        // Every member reports its entries from its next delivery (or lower) up, so they run contiguously down to
        // here (see firstToReport).
        long coveredFrom = maxSeq + 1;
        while (merged.containsKey(coveredFrom - 1)) {
            coveredFrom--;
        }
        // Who continues: members with this history's state whose next position the entries still reach
        // (including members of an older epoch that missed a NEW_EPOCH lost with a crashed coordinator).
        long sendFrom = Long.MAX_VALUE;
        MemberId provider = null;
        List<MemberId> joiners = new ArrayList<>();
        for (MemberId m : view.members()) {
            Recovered r = recoveredStates.get(m);
            boolean continues = r.hasState && r.sameLineage(best) && r.nextDeliver >= coveredFrom
                    && r.nextDeliver <= maxSeq + 1;
            if (continues) {
                sendFrom = Math.min(sendFrom, r.nextDeliver);
                if (provider == null) {
                    provider = m;
                }
            } else {
                joiners.add(m);
            }
        }
        if (provider == null) {
            engine.log.error("no member of view {} has the state to continue the history (entries {} to {});"
                    + " blocking", view.members(), coveredFrom, maxSeq);
            return out.writeBoolean(false).toByteArray();
        }
        List<Entry> entries = new ArrayList<>(merged.tailMap(sendFrom, true).values());
        writeEpoch(out, best.installed, best.epoch + 1, best.lineageHigh, best.lineageLow, view.members(),
                new ArrayList<>(mustRespect.values()), sendFrom, entries, maxSeq + 1, joiners, provider);
        return out.toByteArray();
    }

    private static void writeEpoch(ValueOutput out, Ballot history, long newEpoch, long lh, long ll,
            List<MemberId> members, List<Attempt> respect, long startSeq, List<Entry> entries, long marker,
            List<MemberId> joiners, MemberId provider) {
        out.writeBoolean(true);
        history.write(out);
        out.writeVarLong(newEpoch).writeLong(lh).writeLong(ll);
        Wire.writeMembers(out, members);
        Attempt.writeAll(out, respect);
        out.writeVarLong(startSeq).writeVarInt(entries.size());
        for (Entry e : entries) {
            e.write(out);
        }
        out.writeVarLong(marker);
        Wire.writeMembers(out, joiners);
        Wire.writeMember(out, provider);
    }

    void onNewEpoch(MemberId from, ValueInput in) {
        long viewId = Wire.readPositive(in);
        MemberId creator = Wire.readMember(in);
        boolean primary = in.readBoolean();
        TransportView tv = engine.transportView();
        boolean current = tv != null && tv.sameAs(viewId, creator) && from.equals(tv.coordinator());
        if (!primary) {
            if (current) {
                mode = Mode.BLOCKED;
                View minority = new View(epoch, tv.members(), false);
                engine.viewBlocked(minority);
                engine.sink.blocked(minority);
            }
            return;
        }
        Ballot history = Ballot.read(in);
        long newEpoch = Wire.readPositive(in);
        long lh = in.readLong();
        long ll = in.readLong();
        List<MemberId> members = Wire.readMembers(in);
        List<Attempt> respect = Attempt.readAll(in);
        long startSeq = Wire.readPositive(in);
        int n = in.readLength(20);
        List<Entry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            entries.add(Entry.read(in));
        }
        long marker = Wire.readPositive(in);
        List<MemberId> joiners = Wire.readMembers(in);
        MemberId provider = Wire.readMember(in);
        if (current) {
            install(Ballot.of(tv), history, newEpoch, lh, ll, members, respect, startSeq, entries, marker, joiners,
                    provider);
        }
    }

    private void install(Ballot newBallot, Ballot history, long newEpoch, long lh, long ll, List<MemberId> members,
            List<Attempt> respect, long startSeq, List<Entry> entries, long marker, List<MemberId> joiners,
            MemberId provider) {
        if (joiners.contains(self)) {
            hasState = newEpoch == 1;
            log.reset(startSeq);
            nextDeliver = newEpoch == 1 ? 1 : marker + 1;
            awaitedMarker = hasState ? -1 : marker;
        } else {
            if (!ballot.equals(history) || lh != lineageHigh || ll != lineageLow) {
                log.truncateAfter(nextDeliver - 1); // what we hold beyond that is from a superseded epoch
            }
            if (stateChunksFor <= marker) {
                stateChunks.clear(); // a state we turned out not to need
            }
        }
        if (newEpoch == 1) {
            hasState = true;
            log.reset(1);
            nextDeliver = 1;
        }
        for (Entry e : entries) { // where our log (of the same history) and these overlap, they agree
            if (e.seq() == log.last() + 1) {
                log.append(e);
            }
        }
        if (log.last() != marker - 1) {
            throw new IllegalStateException(self + " holds entries up to " + log.last() + " but the view entry of "
                    + "epoch " + newEpoch + " is at " + marker);
        }
        View view = new View(newEpoch, members, true);
        ViewEntry ve = new ViewEntry(newBallot, view, joiners, provider);
        log.append(new Entry(marker, members.get(0), 0, MessageType.ENTRY_VIEW, encodeViewEntry(ve)));
        receivedUpTo = marker;
        ballot = newBallot;
        epoch = newEpoch;
        lineageHigh = lh;
        lineageLow = ll;
        installedView = view;
        epochMarker = marker;
        required = respect;
        ambiguous.add(new Attempt(newBallot, members));
        mode = Mode.NORMAL;
        acked.clear();
        excluding.clear();
        for (MemberId m : members) {
            acked.put(m, startSeq - 1);
        }
        acked.put(self, receivedUpTo);
        Map<MemberId, Long> early = earlyAcks.remove(newBallot);
        if (early != null) {
            early.forEach((m, upTo) -> acked.computeIfPresent(m, (k, v) -> Math.max(v, upTo)));
        }
        earlyAcks.headMap(newBallot).clear();
        ackSent = -1;
        batchedUpTo = -1;
        ackMulticastUpTo = -1;
        bytesSinceAckMulticast = 0;
        sequencer = members.get(0).equals(self);
        nextSeq = marker + 1;
        progressing.retainAll(members);
        refreshBudget(); // before our own resends below: the members acknowledge the new epoch from its start
        if (sequencer) {
            for (EarlyData sent : earlyData) {
                Entry d = sent.entry();
                if (sent.ballot().equals(newBallot) && members.contains(d.origin())) {
                    order(d.origin(), d.originSeq(), d.kind(), d.payload());
                }
            }
        }
        earlyData.removeIf(sent -> sent.ballot().compareTo(newBallot) <= 0);
        // Resend what we broadcast and is not among the recovered entries (duplicates are dropped at delivery).
        Set<Long> recoveredOwn = new HashSet<>();
        for (Entry e : entries) {
            if (e.origin().equals(self)) {
                recoveredOwn.add(e.originSeq());
            }
        }
        for (Pending p : pending) {
            if (!recoveredOwn.contains(p.originSeq)) {
                sendData(p);
            }
        }
        // Only now may the layers above broadcast (TOM reports): each origin's messages must reach the order in
        // the order it sent them, because duplicates are recognised by origin sequence number.
        engine.viewInstalled(view, newBallot, hasState);
        if (!hasState) {
            tryInstallState();
        }
    }

    // ---- state transfer ---------------------------------------------------------------------------------

    private void captureStateFor(ViewEntry ve, long marker) {
        ValueOutput dedupe = Wire.out((byte) 0);
        dedupe.writeVarInt(lastDelivered.size());
        lastDelivered.forEach((origin, seq) -> {
            Wire.writeMember(dedupe, origin);
            dedupe.writeVarLong(seq);
        });
        byte[] dedupeBytes = dedupe.toByteArray();
        engine.sink.captureState(state -> engine.post(() -> {
            for (MemberId joiner : ve.joiners) {
                if (engine.transportView().members().contains(joiner)) {
                    sendState(joiner, ve.ballot, marker, dedupeBytes, state);
                }
            }
        }));
    }

    /** Sends the state in chunks (a joiner that misses some gets it again from the provider of a later view). */
    private void sendState(MemberId joiner, Ballot epochBallot, long marker, byte[] dedupe, byte[] state) {
        int chunks = Math.max(1, (state.length + STATE_CHUNK - 1) / STATE_CHUNK);
        for (int i = 0; i < chunks; i++) {
            int from = i * STATE_CHUNK;
            int len = Math.min(STATE_CHUNK, state.length - from);
            ValueOutput out = Wire.out(MessageType.STATE_CHUNK, len + 64);
            epochBallot.write(out);
            out.writeVarLong(marker).writeVarInt(i).writeVarInt(chunks);
            out.writeBytes(i == 0 ? dedupe : new byte[0]);
            out.writeVarInt(len).writeRaw(state, from, len);
            engine.sendTo(joiner, out.toByteArray());
        }
    }

    void onStateChunk(MemberId from, ValueInput in) {
        Ballot chunkBallot = Ballot.read(in);
        long marker = Wire.readPositive(in);
        int index = in.readVarInt();
        int total = in.readVarInt();
        byte[] dedupe = in.readBytes();
        byte[] bytes = in.readBytes();
        if (total < 1 || index >= total || total > 1 << 20) {
            throw new CodecException("state chunk " + index + " of " + total);
        }
        // Chunks may come before the NEW_EPOCH that tells us to expect them (even while we still have a state
        // the recovery did not count on): keep those of the newest view entry.
        if (marker < stateChunksFor || (hasState && marker <= epochMarker)) {
            return;
        }
        // Two histories founded apart can put view entries at the same position: the position alone does not
        // say whose state a chunk carries, its epoch's ballot does (a straggler of an older epoch is dropped).
        if (marker == stateChunksFor && chunkBallot.compareTo(stateChunksBallot) < 0) {
            return;
        }
        if (stateChunksFor != marker || !chunkBallot.equals(stateChunksBallot)) {
            stateChunks.clear();
            stateChunksFor = marker;
            stateChunksBallot = chunkBallot;
            stateDedupe = null;
        }
        stateChunks.put(index, bytes);
        stateChunksTotal = total;
        if (index == 0) {
            stateDedupe = dedupe;
        }
        tryInstallState();
    }

    /** Installs the transferred state once NEW_EPOCH told us which view it belongs to and every chunk is here. */
    private void tryInstallState() {
        if (hasState || awaitedMarker < 0 || stateChunksFor != awaitedMarker || !stateChunksBallot.equals(ballot)
                || stateDedupe == null || stateChunks.size() != stateChunksTotal) {
            return;
        }
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        stateChunks.values().forEach(all::writeBytes);
        stateChunks.clear();
        ValueInput dedupe = Wire.in(stateDedupe);
        dedupe.readByte();
        int n = dedupe.readLength(17);
        Map<MemberId, Long> provided = new HashMap<>();
        for (int i = 0; i < n; i++) {
            provided.put(Wire.readMember(dedupe), Wire.readPositive(dedupe));
        }
        long marker = awaitedMarker;
        View view = installedView;
        Ballot b = ballot;
        engine.sink.installState(all.toByteArray(), () -> engine.post(() -> {
            // Not for a later epoch, even one whose view entry sits at the same position: that takes another
            // history's view entry (of a group founded apart), whose own state follows.
            if (hasState || awaitedMarker != marker || !ballot.equals(b)) {
                return;
            }
            hasState = true;
            awaitedMarker = -1;
            lastDelivered.clear();
            lastDelivered.putAll(provided);
            Long ours = provided.get(self);
            if (ours != null) {
                settleOwn(ours, true);
            }
            nextDeliver = marker + 1;
            engine.stateInstalled(view);
            learnEstablished(new ViewEntry(b, view, List.of(), self)); // its provider delivered the view entry
            engine.sink.view(view, marker);
            engine.viewDelivered(view);
            deliverStable();
        }));
    }

    // ---- view entries -------------------------------------------------------------------------------------

    private static byte[] encodeViewEntry(ViewEntry ve) {
        ValueOutput out = Wire.out((byte) 0);
        ve.ballot.write(out);
        out.writeVarLong(ve.view.epoch());
        Wire.writeMembers(out, ve.view.members());
        Wire.writeMembers(out, ve.joiners);
        Wire.writeMember(out, ve.provider);
        return out.toByteArray();
    }

    private static ViewEntry decodeViewEntry(byte[] payload) {
        ValueInput in = Wire.in(payload);
        in.readByte();
        Ballot b = Ballot.read(in);
        long e = Wire.readPositive(in);
        List<MemberId> members = Wire.readMembers(in);
        List<MemberId> joiners = Wire.readMembers(in);
        MemberId provider = Wire.readMember(in);
        return new ViewEntry(b, new View(e, members, true), joiners, provider);
    }
}
