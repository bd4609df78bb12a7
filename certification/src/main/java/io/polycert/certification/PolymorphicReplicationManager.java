package io.polycert.certification;

import io.polycert.core.AbortCause;
import io.polycert.core.CommitHandler;
import io.polycert.core.CommitOutcomeUnknownException;
import io.polycert.core.CommitLog;
import io.polycert.core.CommitRequest;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.VBox;
import io.polycert.core.codec.CodecException;
import io.polycert.core.codec.UnregisteredTypeException;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.GroupListener;
import io.polycert.core.group.GroupMember;
import io.polycert.core.group.GroupStatistics;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.NotInMajorityException;
import io.polycert.core.group.StateHandler;
import io.polycert.core.group.View;
import io.polycert.oracle.CommitTimings;
import io.polycert.oracle.OracleContext;
import io.polycert.oracle.Outcome;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import io.polycert.oracle.TransactionProfile;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * PolyCert's polymorphic replication manager: certifies every read-write transaction across the replicas with
 * the protocol the oracle picks for it, NVC, BFC or VC, all three in one certification queue.
 *
 * <p><b>Committing</b> (on the application's thread, as the STM's {@link CommitHandler}): the transaction is
 * pre-validated locally, the oracle chooses a protocol, and its message is atomically broadcast: the snapshot
 * version and write-set, plus the read-set's ids (NVC) or a Bloom filter of them (BFC) or nothing (VC). A message
 * that would be too large goes by VC, whose message holds only the write-set. The thread then waits for the
 * outcome.
 *
 * <p><b>Certifying</b> (on the group's delivery thread, as its {@link GroupListener}): every replica queues the
 * transactions in delivery order and decides them from the head. NVC and BFC are decided by every replica alike,
 * against the write-sets committed after the snapshot. A VC transaction is decided by its originator, which
 * validates it (at once if nothing ahead of it in the queue writes what it read: the early-validation
 * optimization, else when it reaches the head) and sends its vote by uniform reliable broadcast; the others wait
 * for the vote, and an abort vote removes the transaction wherever it is. Committed write-sets are installed in
 * the STM in delivery order, so every replica numbers its versions alike.
 *
 * <p><b>An originator that leaves</b> before its vote is delivered: when the view without it is delivered (in
 * the total order), every replica atomically broadcasts what it knows of each of its undecided VC transactions
 * (the vote, or nothing); once a report from every member of the view is ordered, all decide alike: the vote if
 * any report had it, else abort. A vote delivered anywhere is held by a majority (reliable broadcast is
 * uniform), and every holder is shown it before the view ({@link #heldFromDeparted}), so it is found.
 *
 * <p><b>State transfer</b>: a joining replica receives the boxes, the window of committed write-sets and the
 * queue of undecided transactions, as of the view that admitted it.
 */
public final class PolymorphicReplicationManager implements CommitHandler, GroupListener, StateHandler {
    private static final Logger LOG = LoggerFactory.getLogger(PolymorphicReplicationManager.class);
    private static final byte TX = 1;
    private static final byte VOTE = 2;
    private static final byte REPORT = 3;
    private static final byte VOTE_QUERY = 4;
    /** Ordered: a founder's codec registrations (see {@link FounderRegistrations}). */
    private static final byte REGISTRATIONS = 5;
    /** Ordered: a founder has compared its registrations with the others' (see {@link FounderRegistrations}). */
    private static final byte REGISTRATIONS_COMPARED = 6;
    /** How long the head of the queue waits for a vote before asking its originator to send it again. */
    private static final long VOTE_QUERY_AFTER_NANOS = 1_000_000_000L;
    /**
     * The wire format of full replication: the state and every message above (TX to REGISTRATIONS_COMPARED). Raise
     * it with any change to any of them. Every replica that joins, or comes back from a minority, takes the state
     * first, so one of another format is refused there, both formats named, instead of misreading commits and
     * diverging. (Founders started together exchange no state: they must run the same build.)
     */
    private static final int STATE_FORMAT = 6;
    private static final int REMEMBERED_DECISIONS = 100_000;
    /** {@link Protocol#values()} copies its array at every call; every delivery looks its protocol up here. */
    private static final Protocol[] PROTOCOLS = Protocol.values();
    private static final byte[] NO_GOSSIP = new byte[0];
    /**
     * Beyond this many ids written since a snapshot, statistics count them all as distinct. The count sorts them on
     * the certifier thread, which every commit waits for; that is in proportion to the filter check just made over
     * the same ids (a few hash probes each), and bounded. At 1,024, commits that stalled while hundreds of others
     * were certified counted in full, and a scan expected 69.5 false positives for 44 seen.
     */
    private static final int DISTINCT_COUNT_LIMIT = 16_384;
    /**
     * Above this many reads a VC transaction is not checked for stale reads before it is broadcast. The check looks
     * at every box read (tens of ns each, more when they lie scattered in memory), and VC's originator validates
     * again before it votes, against the write log, for a few binary searches; what the early check saves is one
     * small broadcast and a vote for a transaction already doomed. NVC and BFC are always checked: their messages
     * carry the read-set to every replica.
     */
    static final int VC_CHECKED_READS = 256;

    private final CommitLog log;
    private final BoxDirectory boxes;
    private final ValueCodec codec;
    private final ProtocolOracle oracle;
    private final CertificationSettings settings;
    private final CertificationStatistics stats = new CertificationStatistics();
    private final FounderRegistrations founderRegistrations;
    private final AtomicLong txIds = new AtomicLong();
    private final Map<Long, LocalTx> local = new ConcurrentHashMap<>();
    private volatile GroupMember group;
    /** This replica's identity, known before it joins (reports must name it while joining). */
    private volatile MemberId self;
    private volatile boolean closed;

    // ---- certifier state: group delivery thread only ----
    private final ArrayDeque<Queued> queue = new ArrayDeque<>();
    private final Map<TxKey, Queued> queuedByKey = new HashMap<>();
    private WriteLog writes;
    /** Sizes BFC filters (read by application threads, see its comment). */
    private final BloomLookupForecast lookupForecast;
    private final Map<TxKey, Boolean> votes = new HashMap<>();
    /**
     * Votes of departed originators that this replica held undelivered at the view without them: reported at that
     * view, never acted on (this replica may be their only holder; see {@link #heldFromDeparted}), then dropped.
     */
    private final Map<TxKey, Boolean> heldVotes = new HashMap<>();
    private final Map<TxKey, Map<MemberId, Integer>> resolutions = new HashMap<>();
    /**
     * Resolutions this replica sent its report on, not yet ordered or resolved. Not in the state: a joiner takes the
     * resolutions in progress with it but must still report on them, since the others wait for a report from every
     * member of the view, the joiner's too.
     */
    private final Set<TxKey> reportsSent = new HashSet<>();
    private final RememberedDecisions decided = new RememberedDecisions(REMEMBERED_DECISIONS);
    private View view;
    /** For the oracle's monitor: which thread delivers, and since when the queue's head waits. */
    private volatile long deliveryThreadId = -1;
    private volatile long headWaitingSince;
    /** Reports due while joining, before the group handle exists: sent on attach. */
    private final List<byte[]> reportsBeforeAttach = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** When input was last logged as dropped, and how much was dropped since (see {@link #dropped}). */
    private long lastDropLogged;
    private long droppedSinceLogged;
    /** While the transferred state is read: no votes go out (see {@link #sendVote}). */
    private boolean installingState;

    private record TxKey(MemberId origin, long txId) {
    }

    private boolean isDecided(TxKey key) {
        return decided.contains(key.origin(), key.txId());
    }

    private static boolean contradicts(Boolean decision, boolean commit) {
        return decision != null && decision != commit;
    }

    /** What this replica decided for {@code key}, or null if it decided nothing it remembers. */
    private Boolean decisionOf(TxKey key) {
        return decided.get(key.origin(), key.txId());
    }

    /** A transaction of this replica waiting for its outcome. */
    private static final class LocalTx {
        final CommitRequest request;
        final long[] readIds;
        final Protocol protocol;
        final TransactionProfile profile;
        final long startNanos;
        final CompletableFuture<Long> outcome = new CompletableFuture<>();
        boolean voteSent;
        /** The vote sent, once {@link #voteSent}: sent again if the queue waits for it (see askForVote). */
        boolean sentVote;
        // Timings for the oracle: written on the delivery thread before the outcome completes, read after.
        int messageBytes;
        long marshalNanos;
        long bloomBuildNanos;
        /** How many ids a BFC filter was sized to be checked against; the newest certified version at encoding. */
        int plannedLookups;
        /** The chance that its filter matches an absent id (counted here, off the delivery thread). */
        double filterMatchChance;
        long plannedAtVersion;
        long broadcastAt;
        long broadcastNanos = -1;
        long validationNanos = -1;
        long voteSentAt;
        long voteNanos = -1;
        /**
         * For a VC transaction sent without the stale-read check: the newest version installed when it was sent
         * (else -1). If its vote finds it stale only by versions up to this one, the check would have caught it
         * before sending, and the oracle is told so (OTHER), as it is for the transactions that check does catch.
         */
        long uncheckedUpTo = -1;
        boolean staleBeforeSending;

        LocalTx(CommitRequest request, long[] readIds, Protocol protocol, TransactionProfile profile,
                long startNanos) {
            this.request = request;
            this.readIds = readIds;
            this.protocol = protocol;
            this.profile = profile;
            this.startNanos = startNanos;
        }
    }

    /** A delivered transaction in the certification queue. */
    private static final class Queued {
        final TxKey key;
        final Protocol protocol;
        final long snapshot;
        final long[] writeIds;
        final boolean[] created;
        final long[] readIds;
        final BloomFilter bloom;
        final byte[] message;
        final int valuesOffset;
        final LocalTx local;
        /** The oracle's tag on the message, told again with the outcome; 0 for none. */
        final long oracleTag;
        final long deliveredAt = System.nanoTime();
        /** Its originator left before its vote was delivered: the ordered reports decide it (kept in the state). */
        boolean resolving;
        /** Ours but no longer tracked here (see {@link #sendVote}): the abort vote went out. */
        boolean untrackedVoteSent;
        /** When this replica last asked the originator for the vote (see {@link #askForVote}), or 0. */
        long voteAskedAt;
        /** The ids of the boxes it creates, sorted; built when a value first names a box not found here. */
        private long[] createdSorted;

        Queued(TxKey key, Protocol protocol, long snapshot, long[] writeIds, boolean[] created, long[] readIds,
                BloomFilter bloom, byte[] message, int valuesOffset, LocalTx local, long oracleTag) {
            this.key = key;
            this.protocol = protocol;
            this.snapshot = snapshot;
            this.writeIds = writeIds;
            this.created = created;
            this.readIds = readIds;
            this.bloom = bloom;
            this.message = message;
            this.valuesOffset = valuesOffset;
            this.local = local;
            this.oracleTag = oracleTag;
        }

        /** Whether this commit creates box {@code id} (a lookup, not a scan: a commit may create thousands). */
        boolean creates(long id) {
            if (createdSorted == null) {
                int n = 0;
                long[] ids = new long[writeIds.length];
                for (int i = 0; i < writeIds.length; i++) {
                    if (created[i]) {
                        ids[n++] = writeIds[i];
                    }
                }
                createdSorted = Arrays.copyOf(ids, n);
                Arrays.sort(createdSorted);
            }
            return Arrays.binarySearch(createdSorted, id) >= 0;
        }
    }

    public PolymorphicReplicationManager(CommitLog log, BoxDirectory boxes, ValueCodec codec, ProtocolOracle oracle,
            CertificationSettings settings) {
        this.log = Objects.requireNonNull(log, "log");
        this.boxes = Objects.requireNonNull(boxes, "boxes");
        this.codec = Objects.requireNonNull(codec, "codec");
        this.oracle = Objects.requireNonNull(oracle, "oracle");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.writes = new WriteLog(settings.writeLogWindow(), settings.writeLogMaxIds(), log.latestVersion());
        this.lookupForecast = new BloomLookupForecast(log.latestVersion());
        this.founderRegistrations = new FounderRegistrations(codec.registrations());
    }

    /** This replica's identity in the group: set before joining. */
    public void identity(MemberId self) {
        this.self = Objects.requireNonNull(self, "self");
    }

    /**
     * Compares this replica's codec registrations with its group's, once it has joined, and announces them to the
     * group. A replica that took the group's state was checked then (the returned future is complete). One that
     * founded the group completes the future once it has heard every founder still in the view: exceptionally,
     * with the reason, if another founder registers a tag this one lacks. The replica must not commit before.
     *
     * @throws io.polycert.core.group.NotInMajorityException if the group lost its majority meanwhile
     */
    public CompletableFuture<Void> checkRegistrations() {
        MemberId me = Objects.requireNonNull(self, "identity() first");
        founderRegistrations.startAnnouncing(me);
        // Even with the state: a founder cut off and readmitted with it before it announced is still awaited by
        // the other founders.
        ValueOutput out = new ValueOutput(codec, 256);
        out.writeByte(REGISTRATIONS);
        FounderRegistrations.write(out, codec.registrations());
        group.broadcast(out.toByteArray());
        // After the announcement (each origin's broadcasts are ordered as sent): a founder that failed waits for this.
        founderRegistrations.compared().thenRun(this::broadcastCompared);
        return founderRegistrations.outcome();
    }

    private void broadcastCompared() {
        try {
            group.broadcast(new byte[] {REGISTRATIONS_COMPARED});
        } catch (RuntimeException e) {
            LOG.warn("could not say that the codec registrations were compared: {}", e.toString());
        }
    }

    /** The group this manager broadcasts through (set once the member exists: it needs this listener first). */
    public void attach(GroupMember member) {
        this.group = Objects.requireNonNull(member, "member");
        oracle.attach(new OracleContext() {
            @Override
            public GroupStatistics group() {
                return member.statistics();
            }

            @Override
            public long deliveryThreadId() {
                return deliveryThreadId;
            }

            @Override
            public long replayLagNanos() {
                long since = headWaitingSince;
                return since == 0 ? 0 : Math.max(0, System.nanoTime() - since);
            }
        });
        List<byte[]> owed = new ArrayList<>(reportsBeforeAttach);
        reportsBeforeAttach.clear();
        owed.forEach(this::broadcastReport);
    }

    public CertificationStatistics statistics() {
        return stats;
    }

    // =====================================================================================================
    // Committing (application threads)
    // =====================================================================================================

    @Override
    public boolean allowsBoxesOutsideTransactions() {
        return false;
    }

    @Override
    public boolean usesStartTimes() {
        return true; // the oracle's cost of a transaction runs from its start
    }

    @Override
    public long commit(CommitRequest request) {
        long start = System.nanoTime();
        long began = request.startNanos();
        long costFrom = began != -1 && start - began >= 0 ? began : start;
        GroupMember member = group;
        if (closed || member == null) {
            throw new TransactionAbortedException(AbortCause.REPLICA_LEFT, "the replica is not in its group");
        }
        long[] readIds = distinctReadIds(request);
        long marshalStart = System.nanoTime();
        byte[] values = encodeValues(request);
        long marshalNanos = System.nanoTime() - marshalStart;
        TransactionProfile profile = new TransactionProfile(readIds.length, request.writeSetSize(), values.length);
        Protocol protocol = oracle.choose(profile);
        boolean checked = protocol != Protocol.VC || readIds.length <= VC_CHECKED_READS;
        long uncheckedUpTo = checked ? -1 : log.latestVersion();
        if (checked) {
            VBox<?> stale = log.firstStaleRead(request);
            if (stale != null) {
                record(protocol, profile, costFrom, Outcome.OTHER); // aborted before the protocol did anything
                throw new TransactionAbortedException(AbortCause.CONFLICT, stale + " was overwritten after snapshot "
                        + request.snapshotVersion() + " (found before broadcasting)");
            }
        }
        long txId = txIds.incrementAndGet();
        byte[] gossip = oracleGossip();
        long tag = oracleTag(profile);
        long bloomStart = System.nanoTime();
        // The certifier counts a version after the STM installs it: a snapshot may be one ahead of its count.
        long plannedAt = Math.max(request.snapshotVersion(), lookupForecast.latest());
        int lookups = protocol == Protocol.BFC ? lookupForecast.expectedLookups(request.snapshotVersion()) : 0;
        BloomFilter bloom = protocol == Protocol.BFC ? bloomOf(readIds, lookups) : null;
        long bloomNanos = bloom == null ? -1 : System.nanoTime() - bloomStart;
        marshalStart = System.nanoTime();
        byte[] message = encode(txId, protocol, request, readIds, bloom, values, gossip, tag);
        marshalNanos += System.nanoTime() - marshalStart;
        if (message.length > settings.maxMessageBytes() && protocol != Protocol.VC) {
            protocol = Protocol.VC; // only the write-set travels
            stats.rerouted.increment();
            bloomNanos = -1;
            message = encode(txId, protocol, request, readIds, null, values, gossip, tag);
        }
        if (message.length > settings.maxMessageBytes()) {
            record(protocol, profile, costFrom, Outcome.OTHER);
            throw new TransactionAbortedException(AbortCause.TOO_LARGE, "the write-set takes " + message.length
                    + " bytes, more than the " + settings.maxMessageBytes() + " a commit message may carry");
        }
        LocalTx tx = new LocalTx(request, readIds, protocol, profile, start);
        tx.uncheckedUpTo = uncheckedUpTo;
        tx.messageBytes = message.length;
        tx.marshalNanos = marshalNanos;
        tx.bloomBuildNanos = bloomNanos;
        tx.plannedLookups = lookups;
        tx.plannedAtVersion = plannedAt;
        if (protocol == Protocol.BFC) { // still BFC: not sent by VC instead
            tx.filterMatchChance = bloom.falsePositiveProbability();
        }
        local.put(txId, tx);
        stats.of(protocol).bytes.add(message.length);
        try {
            tx.broadcastAt = System.nanoTime();
            member.broadcast(message);
        } catch (NotInMajorityException e) {
            local.remove(txId);
            record(protocol, profile, costFrom, Outcome.OTHER);
            throw new TransactionAbortedException(AbortCause.NOT_IN_MAJORITY, e.getMessage(), e);
        } catch (RuntimeException e) {
            local.remove(txId);
            record(protocol, profile, costFrom, Outcome.OTHER);
            throw new TransactionAbortedException(AbortCause.REPLICA_LEFT, "broadcast failed: " + e, e);
        }
        try {
            long version = OutcomeWait.get(tx.outcome, settings.outcomeYields(), settings.outcomeTimeout());
            record(protocol, profile, costFrom, Outcome.COMMITTED);
            observe(tx, start - costFrom);
            stats.of(protocol).committed.increment();
            stats.of(protocol).latencyNanos.add(System.nanoTime() - start);
            return version;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof CommitOutcomeUnknownException unknown) { // the replica closed meanwhile
                stats.of(protocol).outcomeUnknown.increment();
                throw unknown;
            }
            TransactionAbortedException abort = e.getCause() instanceof TransactionAbortedException t ? t
                    : new TransactionAbortedException(AbortCause.REPLICA_LEFT, String.valueOf(e.getCause()), e);
            Outcome outcome = switch (abort.abortCause()) {
                case CONFLICT -> tx.staleBeforeSending ? Outcome.OTHER : Outcome.CONFLICT;
                case BLOOM_FILTER_FALSE_POSITIVE -> Outcome.FALSE_POSITIVE;
                default -> Outcome.OTHER;
            };
            record(protocol, profile, costFrom, outcome);
            switch (abort.abortCause()) {
                case CONFLICT -> stats.of(protocol).conflicts.increment();
                case BLOOM_FILTER_FALSE_POSITIVE -> stats.of(protocol).falsePositives.increment();
                default -> stats.of(protocol).otherAborts.increment();
            }
            throw abort;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            // The group decides regardless; we only stop waiting. Not an abort: the transaction may commit, and
            // an abort would tell the caller nothing was written. Nor the protocol's cost: the oracle is not told.
            stats.of(protocol).outcomeUnknown.increment();
            throw new CommitOutcomeUnknownException(self + ": interrupted while waiting for the outcome of "
                    + protocol + " transaction " + txId + "; it may still commit");
        } catch (TimeoutException e) {
            // As above: the group decides regardless (a VC transaction nobody waits for is voted down, sendVote).
            record(protocol, profile, costFrom, Outcome.OTHER);
            stats.of(protocol).outcomeUnknown.increment();
            throw new CommitOutcomeUnknownException(self + ": no outcome for " + protocol + " transaction " + txId
                    + " within " + settings.outcomeTimeout().toMillis() + " ms (view " + member.view()
                    + "); it may still commit");
        } finally {
            local.remove(txId);
        }
    }

    /** The oracle's statistics for the other replicas, when due: they ride on this commit (DistUCB). */
    private byte[] oracleGossip() {
        try {
            byte[] gossip = oracle.gossipToSend();
            return gossip == null ? NO_GOSSIP : gossip;
        } catch (RuntimeException e) {
            LOG.warn("the oracle failed to produce its statistics for the other replicas", e);
            return NO_GOSSIP;
        }
    }

    /** The oracle's word for every replica's oracle, on this commit (DistUCB's epochs); 0 for none. */
    private long oracleTag(TransactionProfile profile) {
        try {
            long tag = oracle.commitTag(profile);
            return Math.max(0, tag);
        } catch (RuntimeException e) {
            LOG.warn("the oracle failed to tag a commit", e);
            return 0;
        }
    }

    private void observe(LocalTx tx, long executionNanos) {
        try {
            oracle.observe(new CommitTimings(tx.protocol, tx.profile, executionNanos, tx.messageBytes, tx.marshalNanos,
                    tx.bloomBuildNanos, tx.validationNanos, tx.broadcastNanos, tx.voteNanos));
        } catch (RuntimeException e) {
            LOG.warn("the oracle failed to observe a commit", e);
        }
    }

    /**
     * Tells the oracle what the transaction cost: from the start of its execution when the STM says (a protocol
     * that slows every replica's execution down, by the CPU its certification takes, shows up there), else from
     * the start of the commit.
     */
    private void record(Protocol protocol, TransactionProfile profile, long start, Outcome outcome) {
        try {
            oracle.record(protocol, profile, System.nanoTime() - start, outcome);
        } catch (RuntimeException e) {
            LOG.warn("the oracle failed to record a transaction", e);
        }
    }

    private static long[] distinctReadIds(CommitRequest request) {
        long[] ids = new long[request.readSetSize()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = request.readBox(i).id();
        }
        return SortedIds.distinct(ids);
    }

    private byte[] encodeValues(CommitRequest request) {
        ValueOutput out = new ValueOutput(codec, 64 + request.writeSetSize() * 16);
        for (int i = 0; i < request.writeSetSize(); i++) {
            try {
                out.writeValue(request.writtenValue(i));
            } catch (UnregisteredTypeException e) {
                throw new TransactionAbortedException(AbortCause.BAD_VALUE, "cannot replicate the write to "
                        + request.writtenBox(i) + ": " + e.getMessage(), e);
            } catch (CodecException e) {
                throw new TransactionAbortedException(AbortCause.BAD_VALUE, "cannot encode the write to "
                        + request.writtenBox(i) + ": " + e.getMessage(), e);
            }
        }
        return out.toByteArray();
    }

    private BloomFilter bloomOf(long[] readIds, int lookups) {
        // Sized for the configured extra abort rate over that many lookups (see BloomLookupForecast).
        BloomFilter bloom = BloomFilter.forAbortRate(readIds.length, settings.bloomFalsePositiveRate(), lookups,
                ThreadLocalRandom.current().nextLong());
        for (long id : readIds) {
            bloom.add(id);
        }
        return bloom;
    }

    private byte[] encode(long txId, Protocol protocol, CommitRequest request, long[] readIds, BloomFilter bloom,
            byte[] values, byte[] gossip, long tag) {
        int n = request.writeSetSize();
        ValueOutput out = new ValueOutput(codec, 64 + n * 10 + values.length + gossip.length
                + (protocol == Protocol.NVC ? readIds.length * 9 : 0));
        out.writeByte(TX).writeByte(protocol.ordinal()).writeVarLong(txId).writeVarLong(request.snapshotVersion());
        out.writeBytes(gossip);
        out.writeVarLong(tag);
        out.writeVarInt(n);
        for (int i = 0; i < n; i++) {
            out.writeLong(request.writtenBox(i).id()).writeBoolean(request.isCreated(i));
        }
        switch (protocol) {
            case NVC -> {
                out.writeVarInt(readIds.length);
                long previous = 0;
                for (long id : readIds) { // sorted: send deltas
                    out.writeVarLong(id - previous);
                    previous = id;
                }
            }
            case BFC -> bloom.write(out);
            case VC -> {
                // only the write-set travels
            }
            default -> throw new AssertionError(protocol);
        }
        out.writeRaw(values, 0, values.length);
        return out.toByteArray();
    }

    // =====================================================================================================
    // Certifying (group delivery thread)
    // =====================================================================================================

    @Override
    public void deliverOrdered(MemberId origin, long position, byte[] payload) {
        long thread = Thread.currentThread().getId();
        if (thread != deliveryThreadId) {
            deliveryThreadId = thread;
        }
        try {
            ValueInput in = new ValueInput(codec, payload, id -> {
                throw new CodecException("no box references in headers");
            });
            byte kind = in.readByte();
            if (kind == TX) {
                enqueue(origin, position, payload, in);
            } else if (kind == REPORT) {
                onReport(origin, in);
            } else if (kind == REGISTRATIONS) {
                SortedMap<Integer, String> registrations = FounderRegistrations.read(in);
                in.expectEnd();
                founderRegistrations.delivered(origin, registrations);
            } else if (kind == REGISTRATIONS_COMPARED) {
                in.expectEnd();
                founderRegistrations.comparedBy(origin);
            } else {
                throw new CodecException("unknown ordered message kind " + kind);
            }
        } catch (RuntimeException e) {
            // Every replica drops the same malformed message alike, so they stay in step.
            dropped(Level.WARN, "a malformed commit message of " + payload.length + " bytes from " + origin, e);
        }
        drain();
    }

    private void enqueue(MemberId origin, long position, byte[] payload, ValueInput in) {
        int p = in.readByte();
        if (p < 0 || p >= PROTOCOLS.length) {
            throw new CodecException("unknown protocol " + p);
        }
        Protocol protocol = PROTOCOLS[p];
        long txId = in.readVarLong();
        TxKey key = new TxKey(origin, txId);
        if (queuedByKey.containsKey(key) || isDecided(key)) {
            // Delivered before (a member sending a commit again): a second entry for one transaction would make
            // it wait for a vote forever. Every replica knows the same transactions (joiners get the decided ones
            // with the state), so every one drops it alike.
            throw new CodecException("a replay of " + key + ", which was delivered before");
        }
        long snapshot = in.readVarLong();
        byte[] gossip = in.readBytes();
        if (gossip.length > 0 && !isSelf(origin)) {
            try {
                oracle.gossipReceived(gossip);
            } catch (RuntimeException e) {
                // the transaction itself is fine: certify it like every other replica does
                dropped(Level.WARN, "malformed oracle statistics from " + origin, e);
            }
        }
        long tag = in.readVarLong();
        if (tag != 0 && position >= 0) {
            try {
                oracle.commitDelivered(position, tag);
            } catch (RuntimeException e) {
                dropped(Level.WARN, "a malformed oracle tag from " + origin, e); // as above
                tag = 0;
            }
        } else {
            tag = 0;
        }
        int n = in.readLength(9);
        long[] writeIds = new long[n];
        boolean[] created = new boolean[n];
        for (int i = 0; i < n; i++) {
            writeIds[i] = in.readLong();
            created[i] = in.readBoolean();
        }
        long[] readIds = null;
        BloomFilter bloom = null;
        if (protocol == Protocol.NVC) {
            readIds = new long[in.readLength(1)];
            long previous = 0;
            for (int i = 0; i < readIds.length; i++) {
                previous += in.readVarLong();
                readIds[i] = previous;
            }
        } else if (protocol == Protocol.BFC) {
            bloom = BloomFilter.read(in);
        }
        int valuesOffset = payload.length - in.remaining();
        LocalTx mine = isSelf(origin) ? local.get(txId) : null;
        if (mine != null && mine.broadcastNanos < 0) {
            mine.broadcastNanos = System.nanoTime() - mine.broadcastAt;
        }
        Queued q = new Queued(key, protocol, snapshot, writeIds, created, readIds, bloom, payload, valuesOffset, mine,
                tag);
        queue.addLast(q);
        queuedByKey.put(key, q);
        // Early validation: nothing ahead of it can invalidate what it read.
        if (protocol == Protocol.VC && (mine != null ? !anyQueuedAheadWrites(q, mine.readIds) : isSelf(origin))) {
            sendVote(q);
        }
    }

    private boolean isSelf(MemberId origin) {
        return origin.equals(self);
    }

    private boolean anyQueuedAheadWrites(Queued q, long[] sortedReadIds) {
        for (Queued ahead : queue) {
            if (ahead == q) {
                return false;
            }
            for (long id : ahead.writeIds) {
                if (Arrays.binarySearch(sortedReadIds, id) >= 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The originator validates its VC transaction against what committed so far and broadcasts the vote. */
    private void sendVote(Queued q) {
        if (installingState) {
            return; // the group may not take broadcasts yet: the drain after the install votes for the head
        }
        if (q.resolving) {
            // The reports decide it, and they count one vote of its originator at most: an originator back from a
            // minority, where its thread stopped waiting, would otherwise vote abort here after voting commit.
            return;
        }
        LocalTx tx = q.local;
        boolean commit;
        if (tx == null) {
            if (!isSelf(q.key.origin()) || q.untrackedVoteSent) {
                return;
            }
            // Ours, but this replica no longer tracks it (its thread stopped waiting): only we can vote on it, or
            // it would hold up the queue of every replica. Without its read-set, the vote is abort.
            q.untrackedVoteSent = true;
            commit = false;
        } else {
            if (tx.voteSent) {
                return;
            }
            tx.voteSent = true;
            long validationStart = System.nanoTime();
            // Checked against the write log, as NVC is: a few binary searches per recent write, not a second look
            // at every box read. The log holds every commit delivered before this one (installed in the same step),
            // and those still queued ahead write nothing it read (early validation) or there are none (the head).
            commit = q.snapshot >= writes.horizon() && writes.readWrittenAfter(tx.readIds, q.snapshot) == null;
            tx.staleBeforeSending = !commit && tx.uncheckedUpTo >= writes.horizon()
                    && writes.readWrittenAfter(tx.readIds, tx.uncheckedUpTo) == null;
            tx.validationNanos = System.nanoTime() - validationStart;
            tx.sentVote = commit;
            tx.voteSentAt = System.nanoTime();
        }
        q.voteAskedAt = System.nanoTime(); // a resend, if it does not come back, waits a while from here
        broadcastVote(q.key.txId(), commit);
    }

    /** Sends this replica's vote on its transaction {@code txId} by uniform reliable broadcast. */
    private void broadcastVote(long txId, boolean commit) {
        try {
            group.reliableBroadcast(new ValueOutput(codec, 16).writeByte(VOTE).writeVarLong(txId).writeBoolean(commit)
                    .toByteArray());
        } catch (RuntimeException e) {
            LOG.warn("could not broadcast the vote for our transaction {}: {}", txId, e.toString());
        }
    }

    /** A vote's transaction and decision; a malformed one throws. */
    private record Vote(TxKey key, boolean commit) {
    }

    private Vote readVote(MemberId origin, byte[] payload) {
        ValueInput in = new ValueInput(codec, payload, id -> null);
        if (in.readByte() != VOTE) {
            throw new CodecException("not a vote");
        }
        Vote vote = new Vote(new TxKey(origin, in.readVarLong()), in.readBoolean());
        in.expectEnd();
        return vote;
    }

    @Override
    public void deliverReliable(MemberId origin, byte[] payload) {
        try {
            Vote vote = readVote(origin, payload);
            TxKey key = vote.key();
            boolean commit = vote.commit();
            Queued q = queuedByKey.get(key);
            if (q != null && q.protocol != Protocol.VC) {
                // Only VC transactions take votes. Acting on this one where it happens to arrive, which differs from
                // replica to replica, would let them decide the transaction differently.
                throw new CodecException("a vote for " + key + ", which is certified by " + q.protocol);
            }
            if (q != null && q.local != null && q.local.voteNanos < 0) {
                q.local.voteNanos = System.nanoTime() - q.local.voteSentAt;
            }
            if (isDecided(key) || (q != null && q.resolving)) {
                return; // decided, or being resolved in the total order: the vote there decides
            }
            votes.put(key, commit);
            if (!commit && q != null) {
                queue.remove(q); // an abort vote takes it out wherever it is
                queuedByKey.remove(key);
                finish(q, false, AbortCause.CONFLICT, "its originator's validation failed");
            }
        } catch (RuntimeException e) {
            dropped(Level.WARN, "a malformed vote from " + origin, e);
        }
        drain();
    }

    /**
     * The vote of an originator that left, which this replica held undelivered when the view without it was
     * installed; that view comes next. The originator may have delivered it (then a majority held it), so this
     * replica's report at the view carries it. It decides nothing here: this replica may be the only one holding
     * it and crash, and the others would then resolve the transaction without it (as an abort) while this one had
     * committed it; the ordered reports decide, alike everywhere.
     */
    @Override
    public void heldFromDeparted(MemberId origin, byte[] payload) {
        try {
            Vote vote = readVote(origin, payload);
            heldVotes.put(vote.key(), vote.commit()); // a delivered vote or a decision, if any, counts first
        } catch (RuntimeException e) {
            dropped(Level.WARN, "a malformed vote from " + origin, e);
        }
    }

    /** Report state of what this replica knows of a VC transaction's vote: 0 nothing, 1 commit, 2 abort. */
    private int knownVote(TxKey key) {
        Boolean vote = votes.get(key);
        if (vote == null) {
            vote = heldVotes.get(key);
        }
        return vote == null ? 0 : vote ? 1 : 2;
    }

    /**
     * Asks the originator of the head of the queue, a VC transaction, to send its vote again once the head has
     * waited a while: votes go by reliable broadcast, which is not ordered with views or with state transfer, so a
     * replica that joined (or came back from a minority) can miss one its queue waits for. The originator answers
     * with what it decided; a transaction whose originator left is resolved in the total order instead.
     */
    private void askForVote(Queued head) {
        long now = System.nanoTime();
        if (head.resolving || now - head.deliveredAt < VOTE_QUERY_AFTER_NANOS
                || (head.voteAskedAt != 0 && now - head.voteAskedAt < VOTE_QUERY_AFTER_NANOS)) {
            return;
        }
        if (isSelf(head.key.origin())) {
            // Our own vote went out but has not come back (a member that was cut off meanwhile): send it again.
            boolean sent = head.local != null ? head.local.voteSent : head.untrackedVoteSent;
            if (sent) {
                head.voteAskedAt = now;
                broadcastVote(head.key.txId(), head.local != null && head.local.sentVote);
            }
            return;
        }
        if (head.voteAskedAt == 0) {
            LOG.info("[{}] {} has waited {} ms at the head of the certification queue for its vote: asking {}", self,
                    head.key, (now - head.deliveredAt) / 1_000_000, head.key.origin());
        }
        head.voteAskedAt = now;
        try {
            group.send(head.key.origin(), new ValueOutput(codec, 12).writeByte(VOTE_QUERY)
                    .writeVarLong(head.key.txId()).toByteArray());
        } catch (RuntimeException e) {
            LOG.debug("could not ask {} for its vote: {}", head.key.origin(), e.toString());
        }
    }

    @Override
    public void deliverDirect(MemberId origin, byte[] payload) {
        try {
            ValueInput in = new ValueInput(codec, payload, id -> null);
            if (in.readByte() != VOTE_QUERY) {
                throw new CodecException("not a vote query");
            }
            long txId = in.readVarLong();
            in.expectEnd();
            TxKey key = new TxKey(self, txId);
            Boolean vote = decisionOf(key);
            if (vote == null) {
                vote = votes.get(key);
            }
            Queued q = queuedByKey.get(key);
            if (vote == null || (q != null && q.protocol != Protocol.VC)) {
                return; // not voted yet (the vote will come), or nothing to vote on
            }
            broadcastVote(txId, vote);
        } catch (RuntimeException e) {
            dropped(Level.WARN, "a malformed vote query from " + origin, e);
        }
    }

    @Override
    public void viewInstalled(View newView, long position) {
        this.view = newView;
        founderRegistrations.viewInstalled(newView);
        // Undecided VC transactions of members that left: report what we know, in the total order. Also any
        // resolution in progress that lacks our report: this replica may have joined with it (its state's, even one
        // it does not queue since it decided it, or whose originator is back in the view).
        for (Queued q : queue) {
            if (q.protocol == Protocol.VC && !newView.contains(q.key.origin())) {
                reportOnce(q.key);
            }
        }
        for (TxKey key : new ArrayList<>(resolutions.keySet())) {
            reportOnce(key);
        }
        heldVotes.clear(); // shown for this view's reports, which are out: a later report comes from votes or decisions
        for (Map.Entry<TxKey, Map<MemberId, Integer>> e : new ArrayList<>(resolutions.entrySet())) {
            tryResolve(e.getKey(), e.getValue());
        }
        drain();
    }

    /**
     * Sends this replica's report on {@code key} unless it sent one or one is ordered: what it knows of the vote
     * while the transaction is queued, else what it decided (it had the vote), else nothing.
     */
    private void reportOnce(TxKey key) {
        MemberId me = self;
        Map<MemberId, Integer> ordered = resolutions.get(key);
        if (me == null || (ordered != null && ordered.containsKey(me)) || !reportsSent.add(key)) {
            return;
        }
        Queued q = queuedByKey.get(key);
        if (q != null) {
            q.resolving = true;
            report(key, knownVote(key));
        } else {
            Boolean d = decisionOf(key);
            report(key, d == null ? 0 : d ? 1 : 2);
        }
    }

    private void report(TxKey key, int state) {
        ValueOutput out = new ValueOutput(codec, 48).writeByte(REPORT);
        out.writeLong(key.origin().high()).writeLong(key.origin().low()).writeString(key.origin().name());
        out.writeVarLong(key.txId()).writeByte(state);
        if (group == null) {
            reportsBeforeAttach.add(out.toByteArray());
        } else {
            broadcastReport(out.toByteArray());
        }
    }

    private void broadcastReport(byte[] report) {
        try {
            group.broadcast(report);
        } catch (RuntimeException e) {
            LOG.warn("could not send a resolution report: {}", e.toString()); // a minority: the majority decides
        }
    }

    private void onReport(MemberId reporter, ValueInput in) {
        MemberId origin = new MemberId(in.readLong(), in.readLong(), in.readString());
        TxKey key = new TxKey(origin, in.readVarLong());
        int state = in.readByte();
        if (state < 0 || state > 2) {
            throw new CodecException("report state " + state);
        }
        Map<MemberId, Integer> reports = resolutions.computeIfAbsent(key, k -> new HashMap<>());
        reports.putIfAbsent(reporter, state);
        reportOnce(key);
        tryResolve(key, reports);
    }

    private void tryResolve(TxKey key, Map<MemberId, Integer> reports) {
        if (view == null || !reports.keySet().containsAll(view.members())) {
            return;
        }
        resolutions.remove(key);
        reportsSent.remove(key);
        int state = 0;
        for (int s : reports.values()) {
            state = Math.max(state, s == 0 ? 0 : s); // any vote wins; the originator cast only one
        }
        boolean commit = state == 1;
        Queued q = queuedByKey.get(key);
        if (q != null) {
            votes.put(key, commit);
            if (!commit) {
                queue.remove(q);
                queuedByKey.remove(key);
                finish(q, false, AbortCause.REPLICA_LEFT, "its originator left before its vote was delivered");
            }
        } else if (contradicts(decisionOf(key), commit)) {
            // A report that contradicts what this replica decided (a report from a faulty or hostile member can
            // name any transaction): rate-limited like other dropped input.
            dropped(Level.ERROR, "the resolution of " + key + " (reports say " + (commit ? "commit" : "abort")
                    + ")", "this replica decided " + (commit ? "abort" : "commit"));
        }
    }

    /** Decides and applies transactions from the head of the queue while their outcome is known. */
    private void drain() {
        drainQueue();
        Queued head = queue.peekFirst();
        headWaitingSince = head == null ? 0 : head.deliveredAt;
    }

    private void drainQueue() {
        while (!queue.isEmpty()) {
            Queued head = queue.peekFirst();
            long validationStart = System.nanoTime();
            Boolean commit;
            AbortCause cause = AbortCause.CONFLICT;
            String why = null;
            if (head.snapshot < writes.horizon()) {
                commit = false;
                why = "its snapshot " + head.snapshot + " is older than the certification window ("
                        + writes.horizon() + ")";
            } else {
                switch (head.protocol) {
                    case NVC -> {
                        Long stale = writes.readWrittenAfter(head.readIds, head.snapshot);
                        commit = stale == null;
                        if (!commit) {
                            why = "VBox#" + stale + " was overwritten after snapshot " + head.snapshot;
                        }
                    }
                    case BFC -> {
                        commit = !writes.anyWrittenAfter(head.snapshot, head.bloom::mightContain);
                        boolean falsePositive = !commit && head.local != null && !realConflict(head);
                        if (head.local != null && (commit || falsePositive)) {
                            countFilterCheck(head);
                        }
                        if (!commit) {
                            why = "its Bloom filter matches a box written after snapshot " + head.snapshot;
                            if (falsePositive) {
                                cause = AbortCause.BLOOM_FILTER_FALSE_POSITIVE;
                                why += " (a false positive: checked against " + writes.writesAfter(head.snapshot)
                                        + " ids, " + writes.writesAfter(head.local.plannedAtVersion)
                                        + " of them written during the commit; sized for "
                                        + head.local.plannedLookups + ")";
                            }
                        }
                    }
                    case VC -> {
                        commit = votes.get(head.key);
                        if (commit == null) {
                            sendVote(head); // at the head all before it are decided: validate now
                            askForVote(head);
                            return; // wait for the vote
                        }
                        why = "its originator's validation failed";
                    }
                    default -> throw new AssertionError(head.protocol);
                }
            }
            if (head.local != null && head.protocol != Protocol.VC) {
                head.local.validationNanos = System.nanoTime() - validationStart;
            }
            queue.pollFirst();
            queuedByKey.remove(head.key);
            finish(head, commit, cause, why);
        }
    }

    /** Statistics: how many ids one of our filters was checked against, and the false positives to expect. */
    private void countFilterCheck(Queued q) {
        int checked = writes.writesAfter(q.snapshot);
        stats.filtersChecked.increment();
        if (checked > q.local.plannedLookups) {
            stats.filtersUnderSized.increment();
        }
        // A filter answers alike for an id however often it was written: distinct ids decide the odds.
        int distinct = checked > DISTINCT_COUNT_LIMIT ? checked : writes.distinctWritesAfter(q.snapshot, checked);
        stats.expectedFalsePositives.add(1 - Math.pow(1 - q.local.filterMatchChance, distinct));
    }

    private boolean realConflict(Queued q) {
        long[] reads = q.local.readIds;
        return writes.anyWrittenAfter(q.snapshot, id -> Arrays.binarySearch(reads, id) >= 0);
    }

    private void finish(Queued q, boolean commit, AbortCause cause, String why) {
        if (q.local != null && q.protocol == Protocol.BFC) {
            // BFC's own commits only: the writes during a commit grow with its latency, and smaller NVC commits,
            // often far more numerous, would make the forecast too low for BFC's larger messages.
            lookupForecast.observeCommit(q.local.plannedAtVersion); // before its own version is counted
        }
        votes.remove(q.key);
        decided.put(q.key.origin(), q.key.txId(), commit);
        if (q.oracleTag != 0) {
            try {
                oracle.commitDecided(q.oracleTag, q.protocol, commit);
            } catch (RuntimeException e) {
                dropped(Level.WARN, "an oracle tag refused with the outcome of " + q.key, e);
            }
        }
        if (!commit) {
            if (q.local != null) {
                q.local.outcome.completeExceptionally(new TransactionAbortedException(cause,
                        "certification (" + q.protocol + ") aborted the transaction: " + why));
            } else {
                stats.remoteAborts.increment();
            }
            return;
        }
        long version;
        if (q.local != null) {
            version = log.append(q.local.request); // our own boxes and values: nothing to decode
        } else {
            Object[] values;
            try {
                values = decodeValues(q); // before the written boxes are looked up, or created
            } catch (RuntimeException e) {
                // Certified, but its values do not decode (a malformed message, or a sender whose codec differs):
                // every replica with this codec finds so at the same point, and drops it alike.
                decided.put(q.key.origin(), q.key.txId(), false);
                stats.remoteAborts.increment();
                dropped(Level.WARN, "the commit of " + q.key + " (" + q.message.length + " bytes), whose values do not"
                        + " decode", e);
                return;
            }
            version = log.append(resolveBoxes(q), values);
            stats.remoteCommits.increment();
        }
        writes.committed(version, q.writeIds);
        lookupForecast.committed(version, q.writeIds.length);
        if (q.local != null) {
            q.local.outcome.complete(version);
        }
    }

    private VBox<?>[] resolveBoxes(Queued q) {
        VBox<?>[] out = new VBox<?>[q.writeIds.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = q.created[i] ? boxes.findOrCreate(q.writeIds[i], log::createBox) : resolve(q, q.writeIds[i]);
        }
        return out;
    }

    private Object[] decodeValues(Queued q) {
        ValueInput in = new ValueInput(codec, q.message, q.valuesOffset, q.message.length - q.valuesOffset,
                id -> resolve(q, id));
        Object[] values = new Object[q.writeIds.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = in.readValue();
        }
        in.expectEnd();
        return values;
    }

    /**
     * This replica's box for {@code id}, named by a remote commit (written, or referenced by a value). A box the commit
     * creates, or a root, is made here if need be. Any other box must already exist here; if it does not, this replica
     * collected it (the registry holds boxes weakly) because no replicated state reached it, while the originator still
     * held it in a variable: the application broke the registry's contract, and the box starts here with no value, so
     * this replica now differs from the originator. That is reported (counted, logged) rather than passed over.
     */
    private VBox<?> resolve(Queued q, long id) {
        VBox<?> box = boxes.find(id);
        if (box != null) {
            return box;
        }
        if (!boxes.isRoot(id) && !q.creates(id)) {
            stats.unknownBoxes.increment();
            logRateLimited(Level.ERROR, "the commit of " + q.key + " names box #" + id + ", which this replica no"
                    + " longer has: no replicated state reached it, so it was collected here (keep shared boxes"
                    + " reachable from a root; see ObjectRegistry). It starts with no value here, unlike at the"
                    + " originator.");
        }
        return boxes.findOrCreate(id, log::createBox);
    }

    /**
     * Logs that input was dropped, at most once a second (delivery thread only) with a count of what was dropped
     * meanwhile: a flood of malformed or hostile messages must not become a flood of log lines.
     */
    private void dropped(Level level, String what, Object cause) {
        logRateLimited(level, "dropped " + what + ": " + cause);
    }

    private void logRateLimited(Level level, String message) {
        long now = System.nanoTime();
        if (lastDropLogged != 0 && now - lastDropLogged < 1_000_000_000L) {
            droppedSinceLogged++;
            return;
        }
        lastDropLogged = now;
        String also = droppedSinceLogged > 0 ? " (and " + droppedSinceLogged + " more since the last warning)" : "";
        droppedSinceLogged = 0;
        LOG.atLevel(level).log("[{}] {}{}", self, message, also);
    }

    @Override
    public void blocked(View minority) {
        // Commits in flight stay in the queue; new ones are refused by the group with NotInMajorityException.
        founderRegistrations.blocked();
    }

    // =====================================================================================================
    // State transfer (group delivery thread)
    // =====================================================================================================

    @Override
    public void writeState(OutputStream out) throws IOException {
        ValueOutput o = new ValueOutput(codec, 1 << 16);
        o.writeVarInt(STATE_FORMAT);
        // First, so that a joiner missing a registration stops before it decodes a value.
        FounderRegistrations.write(o, codec.registrations());
        long version = log.latestVersion();
        o.writeVarLong(version);
        List<VBox<?>> live = new ArrayList<>();
        for (VBox<?> b : boxes.all()) {
            if (log.latestVersionOf(b) >= 0) {
                live.add(b);
            }
        }
        o.writeVarInt(live.size());
        for (VBox<?> b : live) {
            o.writeLong(b.id());
        }
        for (VBox<?> b : live) {
            o.writeValue(log.latestValue(b));
        }
        writes.write(o);
        o.writeVarInt(queue.size());
        for (Queued q : queue) {
            o.writeLong(q.key.origin().high()).writeLong(q.key.origin().low()).writeString(q.key.origin().name());
            o.writeBytes(q.message).writeBoolean(q.resolving);
        }
        o.writeVarInt(votes.size());
        votes.forEach((k, v) -> {
            o.writeLong(k.origin().high()).writeLong(k.origin().low()).writeString(k.origin().name());
            o.writeVarLong(k.txId()).writeBoolean(v);
        });
        o.writeVarInt(resolutions.size());
        resolutions.forEach((k, reports) -> {
            o.writeLong(k.origin().high()).writeLong(k.origin().low()).writeString(k.origin().name());
            o.writeVarLong(k.txId()).writeVarInt(reports.size());
            reports.forEach((m, s) -> o.writeLong(m.high()).writeLong(m.low()).writeString(m.name()).writeByte(s));
        });
        o.writeVarInt(decided.size());
        decided.forEach((origin, txId, commit) -> o.writeLong(origin.high()).writeLong(origin.low())
                .writeString(origin.name()).writeVarLong(txId).writeBoolean(commit));
        byte[] state = o.toByteArray();
        out.write(state);
        out.write(ByteBuffer.allocate(4).putInt(checksum(state, state.length)).array());
    }

    /**
     * CRC32C of the state's first {@code length} bytes: it ends the state, so a copy damaged on its way is refused
     * before anything of it is installed (a flipped bit in a value would otherwise decode, and install, as another
     * value).
     */
    private static int checksum(byte[] state, int length) {
        CRC32C crc = new CRC32C();
        crc.update(state, 0, length);
        return (int) crc.getValue();
    }

    @Override
    public void readState(InputStream in) throws IOException {
        byte[] bytes = in.readAllBytes();
        ValueInput header = new ValueInput(codec, bytes, id -> null);
        int format = header.readVarInt();
        if (format != STATE_FORMAT) { // first: another build's state is named as such, not as damaged
            throw new IOException("unknown state format " + format + " (this replica reads " + STATE_FORMAT
                    + "): are all replicas on the same PolyCert version?");
        }
        int end = bytes.length - 4; // the checksum's place
        if (end < 1 || ByteBuffer.wrap(bytes, end, 4).getInt() != checksum(bytes, end)) {
            throw new IOException("the transferred state is damaged: its checksum does not match (" + bytes.length
                    + " bytes); nothing of it was installed");
        }
        checkJoinerRegistrations(header);
        long version = header.readVarLong();
        int n = header.readLength(8);
        VBox<?>[] installed = new VBox<?>[n];
        for (int i = 0; i < n; i++) {
            installed[i] = boxes.findOrCreate(header.readLong(), log::createBox);
        }
        int valuesAt = bytes.length - header.remaining();
        ValueInput in2 = new ValueInput(codec, bytes, valuesAt, end - valuesAt,
                id -> boxes.findOrCreate(id, log::createBox));
        Object[] values = new Object[n];
        for (int i = 0; i < n; i++) {
            values[i] = in2.readValue();
        }
        // A replica back from a minority view has a state of its own, a prefix of the group's: a minority commits
        // nothing. The group's certifier state replaces its own, and its commits still waiting learn their outcome.
        long mine = log.latestVersion();
        if (version < mine) {
            throw new IOException("the transferred state (version " + version + ") is older than this replica's ("
                    + mine + ")");
        }
        if (version > mine) {
            log.installSnapshot(version, installed, values);
        }
        writes = WriteLog.read(in2, settings.writeLogWindow(), settings.writeLogMaxIds());
        lookupForecast.restart(writes.latest());
        queue.clear();
        queuedByKey.clear();
        resolutions.clear();
        reportsSent.clear();
        decided.clear();
        // Votes stay: they come by reliable broadcast, unordered with the state, and may have arrived before it.
        int queued = in2.readLength(1);
        installingState = true;
        try {
            for (int i = 0; i < queued; i++) {
                MemberId origin = new MemberId(in2.readLong(), in2.readLong(), in2.readString());
                byte[] message = in2.readBytes();
                boolean resolving = in2.readBoolean();
                ValueInput m = new ValueInput(codec, message, id -> null);
                m.readByte();
                enqueue(origin, -1, message, m); // no position: delivered before the state was taken
                queue.peekLast().resolving = resolving;
            }
        } finally {
            installingState = false;
        }
        int nv = in2.readLength(1);
        for (int i = 0; i < nv; i++) {
            MemberId origin = new MemberId(in2.readLong(), in2.readLong(), in2.readString());
            votes.put(new TxKey(origin, in2.readVarLong()), in2.readBoolean());
        }
        int nr = in2.readLength(1);
        for (int i = 0; i < nr; i++) {
            MemberId origin = new MemberId(in2.readLong(), in2.readLong(), in2.readString());
            TxKey key = new TxKey(origin, in2.readVarLong());
            int reports = in2.readLength(1);
            Map<MemberId, Integer> map = new HashMap<>();
            for (int k = 0; k < reports; k++) {
                map.put(new MemberId(in2.readLong(), in2.readLong(), in2.readString()), (int) in2.readByte());
            }
            resolutions.put(key, map);
        }
        int nd = in2.readLength(1);
        for (int i = 0; i < nd; i++) {
            MemberId origin = new MemberId(in2.readLong(), in2.readLong(), in2.readString());
            decided.put(origin, in2.readVarLong(), in2.readBoolean());
        }
        in2.expectEnd();
        votes.keySet().removeIf(this::isDecided); // arrived while the group decided them without us
        completeDecidedWhileAway(version);
        founderRegistrations.stateInstalled();
    }

    /**
     * A joiner must register every tag the replica sending the state registered: values of those types may be in
     * the state or in any later commit, and a replica that cannot decode a commit drops it, so it would differ
     * from the others from then on. Registering more is fine (a rolling upgrade adds a type replica by replica,
     * and uses it once all have it). A tag that names another class here is only reported: tags, not class names,
     * are the wire format, so a class may be renamed or moved between versions.
     */
    private void checkJoinerRegistrations(ValueInput header) throws IOException {
        Map<Integer, String> theirs = FounderRegistrations.read(header);
        Map<Integer, String> ours = codec.registrations();
        StringBuilder missing = new StringBuilder();
        theirs.forEach((tag, type) -> {
            String here = ours.get(tag);
            if (here == null) {
                missing.append(missing.length() == 0 ? "" : ", ").append(tag).append('=').append(type);
            } else if (!here.equals(type)) {
                LOG.warn("[{}] codec tag {} is {} here and {} at the replica that sent the state: fine if the class"
                        + " was renamed or moved, wrong if these are different types", self, tag, here, type);
            }
        });
        if (missing.length() > 0) {
            throw new IOException(self + " cannot join: it does not register codec types its group does (" + missing
                    + "); register them with the same tags on every replica (ValueCodec.builder().register)");
        }
    }

    /**
     * Our commits that the group decided while this replica was cut off: their writes, if they committed, are in the
     * installed state. Those it has not ordered yet stay waiting: the group layer sends them again.
     */
    private void completeDecidedWhileAway(long version) {
        for (Map.Entry<Long, LocalTx> e : local.entrySet()) {
            TxKey key = new TxKey(self, e.getKey());
            Boolean commit = queuedByKey.containsKey(key) ? null : decisionOf(key);
            if (commit == null) {
                continue;
            }
            if (commit) {
                e.getValue().outcome.complete(version);
            } else {
                e.getValue().outcome.completeExceptionally(new TransactionAbortedException(AbortCause.REPLICA_LEFT,
                        "the group aborted the transaction while this replica was cut off from it"));
            }
        }
    }

    // =====================================================================================================

    @Override
    public void close() {
        closed = true;
        try {
            oracle.close();
        } catch (RuntimeException e) {
            LOG.warn("the oracle failed to close", e);
        }
        // Not an abort: the transactions were sent, and the group may still commit them.
        for (Iterator<LocalTx> it = local.values().iterator(); it.hasNext(); ) {
            it.next().outcome.completeExceptionally(new CommitOutcomeUnknownException(self + " was closed before"
                    + " the outcome was known; the group may still commit the transaction"));
            it.remove();
        }
    }
}
