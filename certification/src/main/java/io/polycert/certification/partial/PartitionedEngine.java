package io.polycert.certification.partial;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.polycert.certification.CertificationSettings;
import io.polycert.certification.OutcomeWait;
import io.polycert.core.AbortCause;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.codec.CodecException;
import io.polycert.core.group.GroupListener;
import io.polycert.core.group.GroupMember;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.NotInMajorityException;
import io.polycert.core.group.View;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member's share of a partially replicated key-value store: the keys it owns (by consistent hashing), a near
 * cache of keys it read from others, and the commit protocol among owners (Ruivo's total-order-multicast commit,
 * or the two-phase-commit baseline). Keys and values are bytes here; {@code PartitionedStore} in kvstore puts
 * typed maps on top.
 *
 * <p><b>Total-order commit.</b> The originator multicasts the transaction (writes, and the versions it read
 * that must still hold) in total order to the owners of its keys; no other member takes part. Each owner queues
 * the transaction behind earlier ones on the same keys (in delivery order, which all owners share for transactions
 * with a key in common, so no deadlock is possible; the multicast carries the keys' hashes as conflict keys),
 * validates the keys it owns once first in every queue (on delivery when it has nothing to validate, as under read
 * committed and repeatable read), and sends its vote to the originator and the other destinations. Owners of one
 * key vote alike, so the outcome is decided by one positive vote per key or by the first negative vote, by the
 * originator and every destination on their own: no outcome message, so an originator crash cannot leave keys
 * locked. A member's own yes covers a key only once no other owner of it in its view can still vote (see
 * {@link #covers}): a member excluded without noticing must hear the others before it applies or acknowledges.
 * For the same reason the originator reports an abort only once a refusal stands: once every other destination,
 * or every owner of one key, refused (see {@link #settleRefusals}).
 *
 * <p><b>Placement changes.</b> On every view change the coordinator multicasts a rebalance to all members. Each
 * member processes it after every transaction delivered before it has finished and before any delivered after
 * it, sends the keys it owned to their new owners, and waits for the keys it gains. A transaction certified
 * under an older placement is refused by all of its destinations alike (they deliver it on the same side of the
 * rebalance) and retried.
 *
 * <p>All protocol state is guarded by this object's monitor; the group's delivery thread and a timer thread take
 * it briefly and never wait inside it. Application threads read owned keys and the near cache without it.
 */
public final class PartitionedEngine implements GroupListener, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PartitionedEngine.class);
    private static final int DATA_BATCH = 512;
    private static final int REMEMBERED = 100_000;

    /** A placement: its epoch (the view id it was computed for) and the ring. */
    record Topology(long epoch, HashRing ring) {
    }

    private record TxId(MemberId origin, long seq) {
    }

    /** An originated transaction waiting for its outcome. */
    static final class Pending {
        final long seq;
        /** The placement it was certified under. */
        final long epoch;
        /** The owners of each key the outcome depends on (its writes and the reads it validates). */
        final Map<ByteKey, List<MemberId>> owners;
        final Set<ByteKey> uncovered;
        final Set<MemberId> destinations = new LinkedHashSet<>();
        final Set<MemberId> awaitingPrepareVotes;
        final CompletableFuture<Void> outcome = new CompletableFuture<>();
        /**
         * The refusals heard, this member's own included, by voter: held back until one stands or they are
         * contradicted (see settleRefusals).
         */
        final Map<MemberId, AbortCause> refusals = new LinkedHashMap<>(4);
        /** When the first refusal was held (System.nanoTime), to ask the silent owners after a while. */
        long refusedAtNanos;
        /** Other owners that said they never voted on it and never will (see onNoVote). */
        final Set<MemberId> noVoters = new HashSet<>(2);
        /** The other members that voted yes. */
        final Set<MemberId> yesVoters = new HashSet<>(4);
        /** This member, a destination, voted yes (and others may have counted it). */
        boolean ownYes;

        Pending(long seq, long epoch, Map<ByteKey, List<MemberId>> owners) {
            this.seq = seq;
            this.epoch = epoch;
            this.owners = owners;
            this.uncovered = new HashSet<>(owners.keySet());
            owners.values().forEach(destinations::addAll);
            this.awaitingPrepareVotes = new HashSet<>(destinations);
        }
    }

    /** A transaction at one of its destinations. */
    private final class Remote {
        final TxId id;
        final Message.Transaction tx;
        /** The owners of each of its keys, computed once (placement hashing is not free on this thread). */
        final Map<ByteKey, List<MemberId>> owners = new HashMap<>();
        final List<ByteKey> lockKeys = new ArrayList<>();
        /** Whether a key it reads is held here: only then does this member's vote depend on its place in the queues. */
        final boolean validatesHere;
        final Set<ByteKey> uncovered = new HashSet<>();
        final Set<MemberId> voters = new LinkedHashSet<>();
        int waiting;
        /** Its place in this member's delivery order (admission count). */
        long order;
        /** Its writes reached {@link #data} (set under the apply gate, read after taking it). */
        volatile boolean written;
        boolean voted;
        /** Its vote went to the other destinations (see {@link #sendsVote}). */
        boolean voteSent;
        /** When this member voted (System.nanoTime), to ask for votes still missing a while after. */
        long votedAtNanos;
        /** Owners that said they dropped it without voting and never will (see {@link #onNoVote}). */
        Set<MemberId> noVotes;
        /**
         * In doubt: the keys this member holds that no other owner's yes was heard on when it was cut off. Only its
         * own yes may have covered them (see {@link #resolveDoubt}); null for none.
         */
        Set<ByteKey> ownYesOnly;

        /** Records a yes vote of {@code voter}; true once every key is covered by one. */
        boolean coveredBy(MemberId voter) {
            uncovered.removeIf(k -> covers(voter, owners.get(k), noVotes));
            return uncovered.isEmpty();
        }

        /**
         * Records that {@code owner} never voted and never will; true once every owner of some key not yet covered
         * has said so: nobody voted yes on that key, so the transaction committed nowhere.
         */
        boolean neverVotedBy(MemberId owner) {
            if (noVotes == null) {
                noVotes = new HashSet<>(4);
            }
            noVotes.add(owner);
            return uncovered.stream().anyMatch(k -> noVotes.containsAll(owners.get(k)));
        }
        /** Its writes were handed to the apply pool (parallel apply). */
        boolean applying;
        /** This member's vote once it voted (null for yes). */
        AbortCause refusal;
        boolean released;
        boolean decided;
        boolean commit;
        // Two-phase commit: how far lock acquisition got, the lock waited for, and its timeout.
        int acquired;
        Lock waitingFor;
        ScheduledFuture<?> timeout;

        Remote(TxId id, Message.Transaction tx, HashRing ring) {
            this.id = id;
            this.tx = tx;
            for (Message.Write w : tx.writes()) {
                owners.computeIfAbsent(w.key(), ring::owners);
            }
            for (Message.Check c : tx.checks()) {
                owners.computeIfAbsent(c.key(), ring::owners);
            }
            uncovered.addAll(owners.keySet());
            Set<ByteKey> own = new LinkedHashSet<>(); // writes first, in write order: 2PC locks in that order
            for (Message.Write w : tx.writes()) {
                if (holds(w.key())) {
                    own.add(w.key());
                }
            }
            boolean checked = false;
            for (Message.Check c : tx.checks()) {
                if (holds(c.key())) {
                    own.add(c.key());
                    checked = true;
                }
            }
            validatesHere = checked;
            lockKeys.addAll(own);
            owners.values().forEach(voters::addAll);
            voters.add(id.origin);
            voters.remove(self);
        }

        /** Whether this member owns the key under the transaction's placement. */
        boolean holds(ByteKey key) {
            return owners.get(key).contains(self);
        }
    }

    /** A two-phase-commit lock: its holder and the transactions waiting, first come first served. */
    private static final class Lock {
        Remote holder;
        final ArrayDeque<Remote> waiters = new ArrayDeque<>(2);
    }

    private record EarlyVote(MemberId voter, AbortCause refusal) {
    }

    /** A vote this member sent on a transaction it then dropped undecided, and who it went to. */
    private record SentVote(TxId id, AbortCause refusal, List<MemberId> voters) {
    }

    /** A transaction or rebalance delivered behind a rebalance barrier, and the placement epoch it belongs to. */
    private record Deferred(long epoch, TxId tx, Runnable step) {
        Deferred(long epoch, Runnable step) {
            this(epoch, null, step);
        }
    }

    /**
     * Copies of lost keys for {@link Message.Recover}, of placement {@code placement}, the regions they cover, and
     * the transactions in doubt that write some of them, in delivery order. Not {@code complete}: this member never
     * completed the rebalance of {@code placement}, and only says it is back (no copies, no doubts).
     */
    private record PendingRecovery(long placement, List<LostRegion> regions, Map<ByteKey, Versioned> copies,
            List<Remote> doubts, boolean complete) {
    }

    /** A read sent to an owner. */
    private record ReadRequest(ByteKey key, MemberId target, boolean cache, CompletableFuture<Versioned> reply) {
    }

    private final ConsistencyLevel level;
    private final CommitProtocol protocol;
    private final int degree;
    private final int virtualNodes;
    private final int minimumMembers;
    private final Duration lockTimeout;
    private final Duration readTimeout;
    private final Duration outcomeTimeout;
    /** How many times a thread waiting for an outcome or a remote read yields before it parks (OutcomeWait). */
    private final int outcomeYields;
    private final Duration voteQueryInterval;
    final PartitionedStatistics stats = new PartitionedStatistics();
    /** Applies committed transactions off the delivery thread (parallel apply), or null to apply on it. */
    private final ExecutorService applyPool;
    /**
     * Held shared by the apply pool while it writes keys, exclusively to end a life (drop the transactions in
     * progress): no write of the old life lands after that.
     */
    private final ReentrantReadWriteLock applyGate = new ReentrantReadWriteLock();
    /** Incremented whenever the transactions in progress are dropped; an apply of an older life writes nothing. */
    private volatile long life;

    private volatile GroupMember group;
    private final MemberId self;
    /** Messages produced before {@link #attach} (while joining), sent once attached. */
    private final List<Map.Entry<MemberId, byte[]>> unsent = new ArrayList<>();
    private volatile Topology topology;
    /** True between processing a rebalance and receiving every key it brings. */
    private volatile boolean receiving;
    /** Cut off from the majority since the last rebalance: its data may be behind, or even diverge. */
    private volatile boolean stale;
    /** Cut off, and no rebalance delivered since: transactions delivered now belong to the old life. */
    private boolean cutOff;
    /**
     * The newest epoch whose "done" messages showed that this member missed a placement (0 for none): rebalances
     * older than it were completed without this member, and transactions delivered before it belong to the old life.
     */
    private long missedBefore;
    private volatile boolean closed;

    final ConcurrentHashMap<ByteKey, Versioned> data = new ConcurrentHashMap<>();
    final Cache<ByteKey, Versioned> nearCache;
    private final ConcurrentHashMap<Long, Pending> originated = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, ReadRequest> reads = new ConcurrentHashMap<>();
    private final AtomicLong sequence = new AtomicLong();
    private final ScheduledExecutorService timer;

    // ---- guarded by this ----
    /**
     * Members that read a key from us and may cache it: told when it changes. Oldest first, and capped at
     * {@link #requestorLimit} keys: a key read but never written (an absent one, say) would otherwise stay here
     * for ever; the oldest are dropped with an invalidation, so a cacher never keeps a copy nobody will update.
     */
    private final LinkedHashMap<ByteKey, Set<MemberId>> requestors = new LinkedHashMap<>();
    private final int requestorLimit;
    /** Whether reads ask owners to remember this member as a cacher (not when the near cache is off). */
    private final boolean nearCaching;
    private final Map<TxId, Remote> remotes = new HashMap<>();
    private final Map<ByteKey, ArrayDeque<Remote>> queues = new HashMap<>();
    private final Map<ByteKey, Lock> locks = new HashMap<>();
    /** Per key, the last apply handed to the pool that writes it: the next one on the key runs after it. */
    private final Map<ByteKey, CompletableFuture<Void>> applyTails = new HashMap<>();
    private final Map<TxId, List<EarlyVote>> earlyVotes = bounded();
    /** Members whose messages came in another wire format, each reported once. */
    private final Set<MemberId> formatMismatches = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final ArrayDeque<Remote> runnable = new ArrayDeque<>();
    private boolean draining;
    private final Decided decided = new Decided();
    /**
     * Own total-order transactions this member is a destination of, until it delivers and finishes them: false
     * once it reported the abort before it delivered the transaction (see reportAbort).
     */
    private final Map<Long, Boolean> ownDestined = bounded();
    /** Epoch and ring of the last rebalance delivered (transactions are checked against it on delivery). */
    private long deliveredEpoch;
    private HashRing deliveredRing;
    /** Transactions admitted and not yet finished: a rebalance waits for them. */
    private int unfinished;
    /** The rebalance being processed or waiting for {@link #unfinished} to drain, and what came after it. */
    private Message.Rebalance barrier;
    private final ArrayDeque<Deferred> backlog = new ArrayDeque<>();
    private final Set<MemberId> awaitingDone = new HashSet<>();
    /** Keys received for a rebalance, by epoch and sender, installed when every sender is done. */
    private final Map<Long, Map<MemberId, Map<ByteKey, Versioned>>> transferData = new HashMap<>();
    /** Senders done for a rebalance, by epoch, and whether each was fresh. */
    private final Map<Long, Map<MemberId, Message.Done>> transferDone = new HashMap<>();
    /** The placement held before the one being installed (0 for none), and its members. */
    private long previousPlacement;
    private List<MemberId> previousMembers = List.of();
    /**
     * For each of {@link #previousMembers}, the epoch of the first primary view after that placement, up to the one
     * being installed, without it (0 for none): sent with the "done", it orders the departures of a lost key's
     * owners (see {@link LostRegion}).
     */
    private List<Long> previousLeft = List.of();
    /**
     * The primary views installed here newer than the placement last started, in order: the departures since that
     * placement. Every member that stays in the group installs the same ones, each at its place in the order.
     */
    private final List<View> viewsSincePlacement = new ArrayList<>();
    /** The last placement whose rebalance completed here: the one this member's data is complete for. */
    private long completedPlacement;
    /** Keys a rebalance moves away from this member, dropped once it completes (until then they may be recovered). */
    private final List<ByteKey> handedOver = new ArrayList<>();
    /**
     * Regions of keys no member holds a fresh copy of, refused by reads and commits. Identical at every member:
     * they change only at points of the total order (a rebalance completing, a recovery delivered).
     */
    private volatile List<LostRegion> lost = List.of();
    private final List<Runnable> deferredReads = new ArrayList<>();
    /**
     * Votes sent on transactions dropped undecided when this member was cut off or missed a placement, sent again
     * once it is back: if every other owner of a key is gone too, the others may still wait for exactly this vote
     * (it may have been lost with the connection), and nobody else can give it.
     */
    private final List<SentVote> votesToRepeat = new ArrayList<>();
    /** The same votes, kept after they were sent again: a member asking for one later gets it (bounded). */
    private final Map<TxId, SentVote> droppedVotes = forgetful();
    /**
     * The newest placement epoch of which a decision or a vote may have been forgotten ({@link #decided} and
     * {@link #droppedVotes} keep the newest {@value #REMEMBERED}): asked about a transaction of that placement or an
     * older one that it does not know, this member cannot tell "never voted" from "forgotten", so it says nothing.
     */
    private long forgottenThroughEpoch;
    /** Transactions admitted so far (their delivery order here). */
    private long admissions;
    /** The members of the last primary view installed here (in delivery order): the owners that can still vote. */
    private Set<MemberId> members = Set.of();
    /** The members of the last view, and this member: what received votes are decoded against (Message.decode). */
    private volatile List<MemberId> knownMembers;
    /**
     * Transactions dropped when this member was cut off (or missed a placement) that may have committed elsewhere:
     * it voted yes and had not heard the outcome, or knew they committed and had not applied them yet. The others
     * may have committed them on one vote per key, this member's among them. If it comes back holding the only
     * copies of some keys (a lost region), the committed ones must be in those copies before it hands them over,
     * or a committed write is missing from the keys for good. In delivery order; resolved by asking the other
     * destinations, like {@link #queryMissingVotes}.
     */
    private final Map<TxId, Remote> inDoubt = new HashMap<>();
    /** Those dropped since this member last completed a rebalance: they belong to its next recovery, if any. */
    private final List<Remote> doubtsOfThisLife = new ArrayList<>();
    /**
     * Copies of lost keys held back until the transactions in doubt that write them are resolved (see
     * {@link #inDoubt}), oldest first: a member cut off again before one went out may hold two.
     */
    private final List<PendingRecovery> pendingRecoveries = new ArrayList<>();
    /**
     * This member's copies of lost keys, multicast until it delivers them itself. A member back from a minority can
     * complete the merged view's rebalance before that view reaches its group, whose multicast then still refuses
     * (minority view): sent once only, the copies were lost and the keys refused for ever.
     */
    private final List<Message.Recover> unsentRecoveries = new ArrayList<>();
    private long dropped;
    /**
     * What a thread that is not delivering for the group (an apply thread, the timer, an application thread) sends
     * while it holds this monitor, sent once it lets go. A group with inline delivery runs its queued deliveries on
     * any thread that sends while the group is idle: under the monitor, which is reentrant, they would run in the
     * middle of the step that sent. A rebalance started on an apply thread lost the "done" messages delivered while
     * it sent its own that way: counted for no rebalance, as this member had not yet moved to the new placement,
     * and then awaited for ever. One queue for the whole engine, drained by one thread at a time, and used by every
     * send under the monitor while it holds anything: messages leave in the order the steps that sent them held
     * the monitor (a read's reply before the invalidation of its key by a later write, say). Guarded by this.
     */
    private final ArrayDeque<Runnable> outbox = new ArrayDeque<>();
    /** Steps of non-delivering threads under way (nested ones too), and whether a thread drains the outbox. */
    private int offDeliverySteps;
    private boolean drainingOutbox;

    private PartitionedEngine(Builder b) {
        this.level = b.level;
        this.protocol = b.protocol;
        this.degree = b.degree;
        this.virtualNodes = b.virtualNodes;
        this.minimumMembers = b.minimumMembers;
        this.lockTimeout = b.lockTimeout;
        this.readTimeout = b.readTimeout;
        this.outcomeTimeout = b.outcomeTimeout;
        this.outcomeYields = b.outcomeYields;
        this.voteQueryInterval = b.voteQueryInterval;
        this.self = Objects.requireNonNull(b.identity, "identity: the member id the group will be joined with");
        this.knownMembers = List.of(self);
        this.nearCache = Caffeine.newBuilder().maximumSize(b.nearCacheSize).build();
        this.nearCaching = b.nearCacheSize > 0;
        // Members' near caches are sized alike; four times one of them leaves room for several readers' keys.
        this.requestorLimit = (int) Math.min(1 << 24, Math.max(1_024, 4 * b.nearCacheSize));
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "polycert-partial-timer");
            t.setDaemon(true);
            return t;
        });
        AtomicLong applyThreadCount = new AtomicLong();
        this.applyPool = b.applyThreads == 0 ? null : Executors.newFixedThreadPool(b.applyThreads, r -> {
            Thread t = new Thread(r, "polycert-partial-apply-" + applyThreadCount.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Connects the engine to its group, joined with this engine as listener and with {@link Builder#identity}
     * as member id. Call once, after joining.
     */
    public void attach(GroupMember member) {
        Objects.requireNonNull(member, "member");
        offDeliveryThread(() -> {
            if (group != null) {
                throw new IllegalStateException("already attached to " + group);
            }
            if (!member.self().equals(self)) {
                throw new IllegalArgumentException("the group member is " + member.self() + " but the engine was built"
                        + " for " + self + ": join with identity(engine.self())");
            }
            group = member;
            for (Map.Entry<MemberId, byte[]> e : unsent) {
                send(e.getKey(), e.getValue());
            }
            unsent.clear();
        });
        View v = member.view();
        if (v != null) {
            offDeliveryThread(() -> viewInstalled(v, -1));
        }
        long every = voteQueryInterval.toNanos();
        timer.scheduleWithFixedDelay(() -> {
            try {
                offDeliveryThread(() -> queryMissingVotes(every));
            } catch (RuntimeException e) {
                log.warn("{}: asking for missing votes failed", self, e); // and again at the next tick
            }
        }, every, every, TimeUnit.NANOSECONDS);
    }

    public ConsistencyLevel level() {
        return level;
    }

    public CommitProtocol protocol() {
        return protocol;
    }

    public PartitionedStatistics statistics() {
        return stats;
    }

    public MemberId self() {
        return self;
    }

    /** Begins a transaction; waits (up to the read timeout) while this member has no placement yet. */
    public PartitionedTransaction begin(boolean readOnly) {
        return new PartitionedTransaction(this, awaitPlacement(), readOnly);
    }

    /** The members that own the key under the current placement, primary first (empty before the first one). */
    public List<MemberId> owners(byte[] key) {
        Topology t = topology;
        return t == null ? List.of() : t.ring.owners(new ByteKey(key));
    }

    /** The current placement's epoch (0 before the first). */
    public long epoch() {
        Topology t = topology;
        return t == null ? 0 : t.epoch;
    }

    /** The number of keys (including removed ones' tombstones) this member holds as an owner. */
    public int ownedKeys() {
        return data.size();
    }

    /** The regions of lost keys, refused until their owners are back (tests read them). */
    List<LostRegion> lostRegions() {
        return lost;
    }

    /** This member's committed value of a key it owns, or null (for tests and tools). */
    public byte[] ownedValue(byte[] key) {
        Versioned v = data.get(new ByteKey(key));
        return v == null ? null : v.value();
    }

    /** This member's committed version of a key it owns (0 when it never held it). */
    public long ownedVersion(byte[] key) {
        Versioned v = data.get(new ByteKey(key));
        return v == null ? 0 : v.version();
    }

    /** Whether the engine has a placement and holds every key it owns (no rebalance under way). */
    public boolean isReady() {
        return topology != null && !receiving && !stale;
    }

    Topology awaitPlacement() {
        long deadline = System.nanoTime() + readTimeout.toNanos() * 10;
        synchronized (this) {
            while (topology == null || receiving || stale) {
                checkOpen();
                View current = group.view();
                if (current != null && !current.primary()) {
                    // Cut off: no placement comes before it merges back; say so now, as a commit would, rather
                    // than wait out the deadline and blame moving keys (blocked() wakes this wait).
                    throw abort(AbortCause.NOT_IN_MAJORITY, self + " is cut off from the group's majority");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TransactionAbortedException(AbortCause.TOPOLOGY_CHANGED, topology == null
                            ? "no placement yet: the group has fewer than " + minimumMembers + " members"
                            : "keys are still moving to this member after a membership change");
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new TransactionAbortedException(AbortCause.EXPLICIT, "interrupted waiting for placement");
                }
            }
            return topology;
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the partitioned store is closed");
        }
    }

    // ------------------------------------------------------------------------------------------------ reads

    /** A committed version of a key, read under the transaction's placement. Called by application threads. */
    Versioned read(ByteKey key, Topology placement) {
        checkOpen();
        if (topology != placement) {
            throw new TransactionAbortedException(AbortCause.TOPOLOGY_CHANGED,
                    "the placement changed while the transaction ran");
        }
        refuseIfLost(key);
        List<MemberId> owners = placement.ring.owners(key);
        MemberId me = self;
        if (owners.contains(me)) {
            if (receiving || stale) {
                awaitPlacement();
            }
            return data.getOrDefault(key, Versioned.ABSENT);
        }
        Versioned cached = nearCache.getIfPresent(key);
        if (cached != null) {
            stats.nearCacheHits.increment();
            return cached;
        }
        stats.remoteReads.increment();
        View now = group.view();
        for (MemberId owner : owners) {
            if (now != null && !now.contains(owner)) {
                continue; // it left: asking would only wait out the read timeout
            }
            long id = sequence.incrementAndGet();
            ReadRequest request = new ReadRequest(key, owner, nearCaching, new CompletableFuture<>());
            reads.put(id, request);
            try {
                group.send(owner, Message.encode(new Message.Get(id, key, nearCaching)));
                Versioned v = OutcomeWait.get(request.reply, outcomeYields, readTimeout);
                if (v == Versioned.UNAVAILABLE) {
                    throw unavailable(key, owner + " holds no fresh copy: every owner it had left or was cut off");
                }
                if (v != null) {
                    return v;
                }
                throw new TransactionAbortedException(AbortCause.TOPOLOGY_CHANGED,
                        owner + " no longer owns a key the transaction read");
            } catch (ExecutionException | TimeoutException e) {
                log.debug("read of {} from {} failed ({}); trying the next owner", key, owner, e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TransactionAbortedException(AbortCause.EXPLICIT, "interrupted during a remote read", e);
            } catch (NotInMajorityException e) {
                throw new TransactionAbortedException(AbortCause.NOT_IN_MAJORITY, e.getMessage(), e);
            } finally {
                reads.remove(id);
            }
        }
        String why = "no owner of a key answered (owners " + owners + ", view " + (now == null ? "none"
                : now.members()) + ")";
        if (now != null && owners.stream().noneMatch(now::contains)) {
            throw afterPlacementChange(placement, why);
        }
        throw new TransactionAbortedException(AbortCause.TOPOLOGY_CHANGED, why);
    }

    /**
     * Waits, at most the read timeout, for the placement after {@code placement}, then returns the abort to throw
     * ({@code atomic} retries it, under the new placement). For an attempt that needs an owner out of the view:
     * every attempt under {@code placement} fails alike until the rebalance of the new view starts, and that
     * rebalance waits for the transactions delivered before it, which can take until members cut off are back.
     * Failing at once had the majority's clients retry about 20,000 times a second per thread meanwhile (partial
     * schedule 3029, docs/RELIABILITY.md). Returns at once if this member is cut off, stale or closed, which
     * the retry then meets at its start.
     */
    private TransactionAbortedException afterPlacementChange(Topology placement, String why) {
        long deadline = System.nanoTime() + readTimeout.toNanos();
        synchronized (this) {
            while (topology == placement && !closed && !stale) {
                View current = group.view();
                long left = deadline - System.nanoTime();
                if (left <= 0 || current != null && !current.primary()) {
                    break;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return abort(AbortCause.EXPLICIT, "interrupted waiting for the placement after " + why);
                }
            }
        }
        return abort(AbortCause.TOPOLOGY_CHANGED, why);
    }

    private synchronized void onGet(MemberId from, Message.Get get) {
        if (topology == null || receiving || stale) {
            deferredReads.add(() -> onGet(from, get));
            return;
        }
        if (!topology.ring.isOwner(self, get.key())) {
            send(from, new Message.Value(get.request(), false, 0, null));
            return;
        }
        if (lostRegionOf(get.key()) != null) {
            send(from, new Message.Value(get.request(), false, Versioned.UNAVAILABLE.version(), null));
            return;
        }
        Versioned v = data.getOrDefault(get.key(), Versioned.ABSENT);
        if (get.cache()) {
            requestors.computeIfAbsent(get.key(), k -> new HashSet<>(4)).add(from);
        }
        send(from, new Message.Value(get.request(), true, v.version(), v.value()));
        if (requestors.size() > requestorLimit) {
            forgetOldestRequestors(); // after the reply, so the invalidation reaches the reader behind it
        }
    }

    /** Drops the oldest quarter of {@link #requestors}, telling each cacher to evict those keys. */
    private void forgetOldestRequestors() {
        Map<MemberId, List<ByteKey>> invalidations = new HashMap<>();
        int drop = requestors.size() - requestorLimit * 3 / 4;
        for (Iterator<Map.Entry<ByteKey, Set<MemberId>>> it = requestors.entrySet().iterator();
                it.hasNext() && drop > 0; drop--) {
            Map.Entry<ByteKey, Set<MemberId>> e = it.next();
            for (MemberId m : e.getValue()) {
                invalidations.computeIfAbsent(m, x -> new ArrayList<>()).add(e.getKey());
            }
            it.remove();
        }
        invalidations.forEach((m, keys) -> send(m, new Message.Invalidate(keys)));
    }

    /** Keys some member may hold in its near cache, as far as this owner knows (for tests). */
    synchronized int cachedElsewhere() {
        return requestors.size();
    }

    private void onValue(MemberId from, Message.Value value) {
        ReadRequest request = reads.get(value.request());
        if (request == null || request.reply.isDone() || !from.equals(request.target)) {
            return; // timed out, or failed when its owner left (its copy must not be cached now), or not the owner
        }
        if (!value.owned()) {
            request.reply.complete(value.version() == Versioned.UNAVAILABLE.version() ? Versioned.UNAVAILABLE : null);
            return;
        }
        Versioned v = new Versioned(value.value(), value.version());
        if (request.cache) {
            // Cached here, on the delivery thread, so an invalidation sent after this reply evicts it.
            nearCache.put(request.key, v);
        }
        request.reply.complete(v);
    }

    private void onInvalidate(Message.Invalidate inv) {
        nearCache.invalidateAll(inv.keys());
    }

    // ----------------------------------------------------------------------------------- commit: originator

    /**
     * Certifies and commits a transaction's writes (and the reads it must validate) among their owners; returns
     * once the outcome is known.
     */
    void commit(Topology placement, Map<ByteKey, byte[]> writes, Map<ByteKey, Long> checks) {
        checkOpen();
        View current = group.view();
        if (stale || (current != null && !current.primary())) {
            throw abort(AbortCause.NOT_IN_MAJORITY, self + " is cut off from the group's majority");
        }
        if (topology != placement) {
            throw abort(AbortCause.TOPOLOGY_CHANGED, "the placement changed while the transaction ran");
        }
        writes.keySet().forEach(this::refuseIfLost);
        checks.keySet().forEach(this::refuseIfLost);
        List<Message.Write> ws = new ArrayList<>(writes.size());
        Map<ByteKey, List<MemberId>> owners = new HashMap<>();
        for (Map.Entry<ByteKey, byte[]> e : writes.entrySet()) {
            ws.add(new Message.Write(e.getKey(), e.getValue()));
            owners.computeIfAbsent(e.getKey(), placement.ring::owners);
        }
        List<Message.Check> cs = new ArrayList<>(checks.size());
        for (Map.Entry<ByteKey, Long> e : checks.entrySet()) {
            cs.add(new Message.Check(e.getKey(), e.getValue()));
            owners.computeIfAbsent(e.getKey(), placement.ring::owners);
        }
        long started = System.nanoTime();
        long seq = sequence.incrementAndGet();
        Pending pending = new Pending(seq, placement.epoch, owners);
        Set<MemberId> destinations = pending.destinations;
        originated.put(seq, pending);
        boolean twoPhase = protocol == CommitProtocol.TWO_PHASE_COMMIT;
        Message.Transaction tx = new Message.Transaction(twoPhase, seq, placement.epoch, level, ws, cs);
        try {
            byte[] payload = Message.encode(tx);
            if (twoPhase) {
                // A destination that already left would never vote: the view change that removed it may have been
                // handled before this transaction was registered, so look again now that it is.
                View now = group.view();
                for (MemberId d : destinations) {
                    if (now != null && !now.contains(d)) {
                        throw new IllegalArgumentException(d + " is not in the view " + now.members());
                    }
                }
                // Own prepare last: if it fails at once, the rollback must follow every prepare sent.
                for (MemberId d : destinations) {
                    if (!d.equals(self)) {
                        group.send(d, payload);
                    }
                }
                if (destinations.contains(self)) {
                    offDeliveryThread(() -> onPrepare(self, tx));
                }
            } else {
                if (destinations.contains(self)) {
                    synchronized (this) {
                        ownDestined.put(seq, Boolean.TRUE);
                    }
                }
                group.multicast(destinations, conflictKeys(owners.keySet()), payload);
            }
            awaitOutcome(pending);
        } catch (TransactionAbortedException e) {
            if (e.abortCause() == AbortCause.CONFLICT) {
                // A version it read no longer held: if it came from the near cache, the next attempt must not
                // read it there again (an invalidation may still be on its way, or lost with a connection).
                checks.keySet().forEach(nearCache::invalidate);
            }
            throw e;
        } catch (IllegalArgumentException e) { // a destination out of the view, which the group refuses
            View now = group.view();
            String why = "an owner left the group: " + e.getMessage();
            throw now != null && !now.members().containsAll(destinations) ? afterPlacementChange(placement, why)
                    : abort(AbortCause.TOPOLOGY_CHANGED, why);
        } catch (NotInMajorityException e) {
            throw abort(AbortCause.NOT_IN_MAJORITY, e.getMessage());
        } finally {
            originated.remove(seq);
            stats.commitNanos.add(System.nanoTime() - started);
            stats.commitRounds.increment();
        }
        for (ByteKey k : writes.keySet()) {
            nearCache.invalidate(k);
        }
        stats.committed.increment();
    }

    /**
     * What a destination orders a transaction on: the keys it writes and validates, all that its queues hold (see
     * {@link #admit}). Transactions on other keys may be delivered in either order, so a transaction need not
     * wait behind every earlier one still collecting timestamps.
     */
    private static long[] conflictKeys(Set<ByteKey> keys) {
        long[] hashes = new long[keys.size()];
        int i = 0;
        for (ByteKey k : keys) {
            hashes[i++] = k.placementHash();
        }
        return hashes;
    }

    private void awaitOutcome(Pending pending) {
        try {
            OutcomeWait.get(pending.outcome, outcomeYields, outcomeTimeout);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TransactionAbortedException abort) {
                stats.aborts.get(abort.abortCause()).increment();
                throw abort;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            if (protocol == CommitProtocol.TWO_PHASE_COMMIT) {
                // Decide under the engine's lock, where the last vote decides too: without it, a vote arriving
                // now could send the commit while we send the rollback and tell the client it aborted.
                TransactionAbortedException[] timedOut = new TransactionAbortedException[1];
                offDeliveryThread(() -> {
                    if (!pending.outcome.isDone()) {
                        timedOut[0] = abort(AbortCause.LOCK_TIMEOUT,
                                "no vote from every owner within " + outcomeTimeout);
                        pending.outcome.completeExceptionally(timedOut[0]);
                        rollback2pc(pending);
                    }
                });
                if (timedOut[0] != null) {
                    throw timedOut[0];
                }
                awaitOutcome(pending); // decided meanwhile: report that outcome (it returns at once)
                return;
            }
            throw new OutcomeUnknownException("no outcome within " + outcomeTimeout + " (transaction " + pending.seq
                    + " may have committed); " + waitingFor(pending));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OutcomeUnknownException("interrupted while waiting for the outcome");
        }
    }

    /** What an originated transaction still waits for, for the message of an outcome that did not come. */
    private synchronized String waitingFor(Pending p) {
        StringBuilder sb = new StringBuilder("waiting for a yes on ").append(p.uncovered.size()).append(" of ")
                .append(p.owners.size()).append(" keys");
        p.uncovered.stream().limit(3).forEach(k -> sb.append(", ").append(k).append(" owned by ")
                .append(p.owners.get(k)));
        sb.append("; yes from ").append(p.yesVoters).append(", refusals ").append(p.refusals)
                .append("; placement ").append(p.epoch).append(", delivered placement ").append(deliveredEpoch)
                .append(", view ").append(members);
        TxId id = new TxId(self, p.seq);
        Remote here = remotes.get(id);
        if (here != null) {
            sb.append("; here waiting on ").append(here.waiting).append(" keys, voted ").append(here.voted)
                    .append(", decided ").append(here.decided).append(", keys not yet covered here ")
                    .append(here.uncovered.size());
        } else if (p.destinations.contains(self)) {
            sb.append("; not held here (").append(decided.containsKey(id) ? "decided"
                    : inDoubt.containsKey(id) ? "in doubt" : "not delivered").append(')');
        }
        return sb.toString();
    }

    TransactionAbortedException abort(AbortCause cause, String message) {
        stats.aborts.get(cause).increment();
        return new TransactionAbortedException(cause, message);
    }

    /** The lost region a key lies in, or null when some member holds a fresh copy of it. */
    private LostRegion lostRegionOf(ByteKey key) {
        for (LostRegion region : lost) {
            if (region.covers(key)) {
                return region;
            }
        }
        return null;
    }

    private void refuseIfLost(ByteKey key) {
        LostRegion region = lostRegionOf(key);
        if (region != null) {
            throw unavailable(key, "every member that owned it under placement " + region.placement
                    + " left the group or was cut off, and none is back with its copy yet");
        }
    }

    private KeyUnavailableException unavailable(ByteKey key, String why) {
        stats.aborts.get(AbortCause.OWNERS_UNAVAILABLE).increment();
        return new KeyUnavailableException(key.bytes, "no member holds a fresh copy of the key: " + why);
    }

    /** A vote or acknowledgement for a transaction this member originated. */
    private void onOriginVote(MemberId voter, Message.Vote vote) {
        Pending p = originated.get(vote.seq());
        if (p == null || p.outcome.isDone()) {
            return;
        }
        if (!vote.positive()) {
            if (protocol == CommitProtocol.TWO_PHASE_COMMIT) {
                rollback2pc(p);
                p.outcome.completeExceptionally(refused(p, vote.refusal(), voter));
                return;
            }
            if (!p.destinations.contains(voter)) {
                return; // only the owners of its keys vote on it
            }
            if (p.refusals.isEmpty()) {
                p.refusedAtNanos = System.nanoTime();
            }
            p.refusals.putIfAbsent(voter, vote.refusal());
            settleRefusals(p);
            return;
        }
        if (protocol == CommitProtocol.TWO_PHASE_COMMIT) {
            p.awaitingPrepareVotes.remove(voter);
            if (p.awaitingPrepareVotes.isEmpty()) {
                byte[] commit = Message.encode(new Message.Outcome(p.seq, true));
                for (MemberId d : p.destinations) {
                    if (d.equals(self)) {
                        onOutcome(self, new Message.Outcome(p.seq, true));
                    } else {
                        send(d, commit);
                    }
                }
                p.outcome.complete(null);
            }
            return;
        }
        p.uncovered.removeIf(k -> covers(voter, p.owners.get(k), null));
        if (p.uncovered.isEmpty() && !isDestination(p.seq) && p.refusals.isEmpty()) {
            p.outcome.complete(null);
        }
        // A destination itself, it reports a commit once it decided it (see decide): the other owners' votes can
        // come before its own delivery, and its client's next transaction would read its keys before the write.
        if (voter.equals(self)) {
            p.ownYes = true;
        } else {
            p.yesVoters.add(voter);
            settleRefusals(p);
        }
    }

    private RuntimeException refused(Pending p, AbortCause refusal, MemberId voter) {
        return refusal == AbortCause.OWNERS_UNAVAILABLE
                ? unavailable(p.owners.keySet().stream().filter(k -> lostRegionOf(k) != null).findFirst()
                        .orElse(p.owners.keySet().iterator().next()), voter + " refused it: every owner of one"
                        + " of its keys left the group or was cut off")
                : new TransactionAbortedException(refusal, describe(refusal, voter));
    }

    /**
     * Reports a refusal of this member's transaction, its own or another owner's, only once it stands. Why not at
     * once: a member excluded without noticing (paused, say) can deliver the transaction after one that the members
     * who resolved its multicast without it ordered after it, and refuse it where they commit it; "aborted" would
     * then be false, and {@code atomic} would run the transaction again. The originator, excluded together with that
     * owner, would hear the refusal and not the others' yes. Owners of one key vote alike when their orders agree,
     * and only destinations commit, so a refusal stands:
     * <ul>
     * <li>once every other destination has refused (or, asked again, answers that it decided an abort) or said it
     *     never voted and never will: none of them commits, and neither does this member, which decides on their
     *     refusals;
     * <li>once every owner of some key has refused or said it never will, one of them at least: no owner's yes on
     *     that key is left to commit the transaction anywhere. This member's own yes counts against it (another
     *     destination may have counted it); its silence does not (holding a refusal, it decides an abort and never
     *     votes yes).
     * </ul>
     * An owner that left without a word settles nothing, whenever it left: it may have said yes to other
     * destinations before it went (crashed, or excluded together with others), and they commit; and readers may
     * have seen what it applied. A refusal whose keys' other owners have all answered or left, some of them left,
     * therefore waits for the second rule on another key (the silent owners of every key are asked after a while,
     * and, once none is left, those that said yes, which most likely decided an abort on this very refusal), and is
     * unknown at once if no key can still satisfy it: each has an owner that left without a word, or this member's
     * own yes. (Until 2026-11-26 an owner out of this member's view counted as a refusal if it left before the
     * refusal came.) The outcome is unknown here too if this member's own refusal is contradicted (every key it
     * holds has a yes from another owner, or its other owners all answered or left and one said yes: their orders
     * differ), or if every key of the transaction has a yes. Another member's
     * refusal is not taken as contradicted by a yes on its own keys alone: it may report an abort that member
     * decided on a third owner's refusal before it voted ({@link #onRemoteVote}), which says nothing of its own
     * keys. Until then it waits, about a round trip in a group without faults: every owner sends its refusal to
     * the originator and the other destinations, even one that keeps a yes to itself ({@link #sendsVote}), an
     * owner that decided on another's refusal before it voted tells the originator, and owners that stay silent
     * are asked after a while ({@link #queryMissingVotes}); one that dropped the transaction unvoted says so
     * ({@link Message.NoVote}). The outcome timeout bounds the rest.
     */
    private void settleRefusals(Pending p) {
        if (p.refusals.isEmpty() || p.outcome.isDone()) {
            return;
        }
        MemberId first = p.refusals.keySet().iterator().next();
        if (p.destinations.stream().allMatch(d -> d.equals(self) || p.refusals.containsKey(d)
                || p.noVoters.contains(d))) {
            reportAbort(p, p.refusals.get(first), first);
            return;
        }
        for (List<MemberId> keyOwners : p.owners.values()) {
            MemberId refuser = null;
            boolean noYesLeft = true;
            for (MemberId o : keyOwners) {
                if (p.refusals.containsKey(o)) {
                    refuser = refuser == null ? o : refuser;
                } else if (o.equals(self) ? p.ownYes : !p.noVoters.contains(o)) {
                    noYesLeft = false;
                    break;
                }
            }
            if (noYesLeft && (refuser != null || keyOwners.stream().anyMatch(p.noVoters::contains))) {
                // Every owner of this key refused or said it never voted (this member, silent, decides an abort
                // on the refusal it holds): no yes on it anywhere.
                MemberId shown = refuser != null ? refuser : first;
                reportAbort(p, p.refusals.get(shown), shown);
                return;
            }
        }
        boolean unknown = false;
        boolean standsThroughDeparture = false;
        for (Map.Entry<MemberId, AbortCause> refusal : p.refusals.entrySet()) {
            MemberId refuser = refusal.getKey();
            boolean stands = true;
            boolean throughDeparture = false;
            boolean contradicted = true;
            boolean anyYes = false;
            for (List<MemberId> keyOwners : p.owners.values()) {
                if (!keyOwners.contains(refuser)) {
                    continue;
                }
                boolean yes = false;
                for (MemberId o : keyOwners) {
                    if (o.equals(refuser)) {
                        continue;
                    }
                    boolean answered = o.equals(self) || p.refusals.containsKey(o) || p.noVoters.contains(o);
                    stands &= answered || !members.contains(o);
                    throughDeparture |= !answered && !members.contains(o);
                    yes |= saidYes(p, o);
                }
                contradicted &= yes;
                anyYes |= yes;
            }
            // (Standing with no yes and no departure is the rule above, on one of the refuser's keys.)
            // Another member's refusal may be an abort it decided, not its vote on its keys (see above): a yes
            // from a co-owner does not contradict it, and it waits for the owners of the key refused.
            unknown |= refuser.equals(self) && (contradicted || stands && anyYes);
            standsThroughDeparture |= stands && throughDeparture;
        }
        // Standing only through owners that left without a word: one of them may have said yes to others before it
        // went, and they commit. Only the owners of another key refusing, every one, can still show the abort.
        unknown |= standsThroughDeparture && p.owners.values().stream().noneMatch(keyOwners -> keyOwners.stream()
                .allMatch(o -> o.equals(self) ? !p.ownYes : members.contains(o) || p.refusals.containsKey(o)
                        || p.noVoters.contains(o)));
        // Every key has a yes standing (not since turned into an abort decided): no key can gather the refusals of
        // all its owners any more.
        unknown |= p.owners.values().stream().allMatch(keyOwners -> keyOwners.stream()
                .anyMatch(o -> saidYes(p, o) && !p.refusals.containsKey(o)));
        if (unknown) {
            log.warn("{}: transaction {} was refused by {} where other owners of the same keys accepted it or left"
                    + " without a word: their orders of transactions may differ", self, p.seq, p.refusals.keySet());
            p.outcome.completeExceptionally(new OutcomeUnknownException("transaction " + p.seq + " was refused by "
                    + p.refusals + " where other owners of the same keys accepted it or left without voting: their"
                    + " orders of transactions may differ (one excluded without noticing?), so it may have"
                    + " committed"));
        }
    }

    /**
     * Reports the abort, and makes it this member's decision too where it is a destination. It decides on the
     * refusals it hears as votes, but a refusal that came before it delivered the transaction is kept only while
     * its sender stays in the view: without this, its own yes could later commit, here, what its client was told
     * aborted.
     */
    private void reportAbort(Pending p, AbortCause cause, MemberId refuser) {
        p.outcome.completeExceptionally(refused(p, cause, refuser));
        if (!isDestination(p.seq)) {
            return;
        }
        TxId id = new TxId(self, p.seq);
        Remote r = remotes.get(id);
        if (r == null) {
            if (!decided.containsKey(id)) {
                ownDestined.put(p.seq, Boolean.FALSE);
            }
        } else if (!r.decided) {
            decide(r, false);
            drain();
        }
    }

    private boolean saidYes(Pending p, MemberId owner) {
        return owner.equals(self) ? p.ownYes : p.yesVoters.contains(owner);
    }

    /**
     * Whether a yes vote of {@code voter} covers a key with these owners. Another owner's vote covers it. This
     * member's own covers it only once no other owner can still vote: none is in the view, or each that is said it
     * never will ({@code saidNoVote}). Why: a member excluded without noticing (paused, say) can deliver a
     * transaction before a rebalance that the others delivered first, and vote yes where they refused it; deciding
     * from its own vote, it would apply and acknowledge a commit nobody else made (partial bug 5 in
     * docs/RELIABILITY.md). Waiting for another owner costs a message delay where one member owns every key.
     */
    private boolean covers(MemberId voter, List<MemberId> keyOwners, Set<MemberId> saidNoVote) {
        if (!keyOwners.contains(voter)) {
            return false;
        }
        if (!voter.equals(self)) {
            return true;
        }
        for (MemberId o : keyOwners) {
            if (!o.equals(self) && members.contains(o) && (saidNoVote == null || !saidNoVote.contains(o))) {
                return false;
            }
        }
        return true;
    }

    private static String describe(AbortCause cause, MemberId voter) {
        return switch (cause) {
            case CONFLICT -> "a key read was overwritten by a transaction ordered first (voted by " + voter + ")";
            case TOPOLOGY_CHANGED -> "the placement changed before the transaction was ordered (" + voter + ")";
            case LOCK_TIMEOUT -> "a lock stayed held for the lock timeout at " + voter;
            case DEADLOCK -> "waiting for a lock would deadlock at " + voter;
            default -> cause + " at " + voter;
        };
    }

    private void rollback2pc(Pending p) {
        byte[] rollback = Message.encode(new Message.Outcome(p.seq, false));
        for (MemberId d : p.destinations) {
            if (d.equals(self)) {
                onOutcome(self, new Message.Outcome(p.seq, false));
            } else {
                send(d, rollback);
            }
        }
    }

    // ----------------------------------------------------------------------- commit: destinations (total order)

    private synchronized void onTransaction(MemberId origin, Message.Transaction tx) {
        TxId id = new TxId(origin, tx.seq());
        if (cutOff) {
            // Ordered while we were cut off: the majority decides it without us. A refusal from here could
            // contradict the owners that voted, so say nothing. Another owner of our keys may have voted yes,
            // so it is in doubt, like those dropped at the cut.
            if (protocol == CommitProtocol.TOTAL_ORDER && tx.epoch() == deliveredEpoch
                    && deliveredRing != null && !decided.containsKey(id) && !inDoubt.containsKey(id)) {
                Remote r = new Remote(id, tx, deliveredRing);
                r.order = ++admissions;
                neverVotes(r);
                holdInDoubt(r);
            }
            return;
        }
        if (decided.containsKey(id) || remotes.containsKey(id) || inDoubt.containsKey(id)
                || droppedVotes.containsKey(id)) {
            // Its sender multicast it again. Checked before the placement: a refusal of a replay from an older
            // placement could contradict the vote this member gave the first time.
            drop(origin, "a replay of transaction " + tx.seq() + ", delivered before");
            return;
        }
        if (tx.epoch() != deliveredEpoch || tx.level() != level || deliveredRing == null) {
            AbortCause why = tx.level() != level ? AbortCause.BAD_VALUE : AbortCause.TOPOLOGY_CHANGED;
            if (tx.level() != level) {
                warn("a transaction from " + origin + " uses level " + tx.level() + ", this member " + level);
            }
            // Remembered, so that a destination asking for this member's vote hears the refusal, not NoVote.
            decided.put(id, false);
            vote(origin, id, why, List.of());
            return;
        }
        Remote r = new Remote(id, tx, deliveredRing);
        if (barrier != null) {
            backlog.add(new Deferred(tx.epoch(), id, () -> admit(r)));
        } else {
            admit(r);
        }
    }

    private void admit(Remote r) {
        if (remotes.containsKey(r.id) || decided.containsKey(r.id)) {
            // Its sender multicast it again: applying an old write again would roll back what came after it. Every
            // owner saw the first delivery at the same point of the order, so every one drops the replay alike.
            drop(r.id.origin, "a replay of transaction " + r.id.seq + ", delivered before");
            return;
        }
        if (touchesLostKey(r.tx)) {
            // Every destination refuses it alike: the lost regions change only at points of the order.
            decided.put(r.id, false);
            vote(r.id.origin, r.id, AbortCause.OWNERS_UNAVAILABLE, List.of());
            return;
        }
        unfinished++;
        r.order = ++admissions;
        remotes.put(r.id, r);
        for (ByteKey k : r.lockKeys) {
            ArrayDeque<Remote> q = queues.computeIfAbsent(k, key -> new ArrayDeque<>(2));
            if (!q.isEmpty()) {
                r.waiting++;
            }
            q.add(r);
        }
        if (r.id.origin.equals(self) && Boolean.FALSE.equals(ownDestined.get(r.id.seq))) {
            decide(r, false); // its client was told it aborted (see reportAbort)
        }
        List<EarlyVote> early = earlyVotes.remove(r.id);
        if (early != null) {
            for (EarlyVote v : early) {
                if (members.contains(v.voter)) {
                    onRemoteVote(r, v.voter, v.refusal);
                }
            }
        }
        runnable.add(r);
        drain();
    }

    private boolean touchesLostKey(Message.Transaction tx) {
        if (lost.isEmpty()) {
            return false;
        }
        return tx.writes().stream().anyMatch(w -> lostRegionOf(w.key()) != null)
                || tx.checks().stream().anyMatch(c -> lostRegionOf(c.key()) != null);
    }

    /** Steps transactions until none can move: the work list keeps deep queues from recursing. */
    private void drain() {
        if (draining) {
            return;
        }
        draining = true;
        try {
            Remote t;
            while ((t = runnable.poll()) != null) {
                step(t);
            }
        } finally {
            draining = false;
        }
    }

    /**
     * Moves one transaction on: once first in the queue of every key it holds here, it validates and votes; once
     * decided, it applies (a commit, when first everywhere) and leaves the queues.
     */
    private void step(Remote t) {
        if (t.released) {
            return;
        }
        // Even when the others' votes decided it: the keys' other owners wait for this one. A transaction with
        // nothing to validate here votes too (an owner excluded without noticing may deliver it before a rebalance
        // the others delivered first, and they refuse it), and at once: its vote cannot depend on what is before
        // it in the queues, so the vote round overlaps the wait instead of following it.
        if (!t.voted && (!t.decided || t.commit) && (t.waiting == 0 || !t.validatesHere)) {
            castVote(t);
        }
        if (!t.decided) {
            return;
        }
        if (!t.commit) {
            release(t);
        } else if (t.waiting == 0 && !t.applying) {
            // It leaves the queues only once applied: the next transaction on its keys validates after it.
            t.applying = true;
            applyThen(t, () -> release(t));
        }
    }

    /**
     * Validates a transaction and sends the vote to every other destination and the originator: once it is first
     * in every queue here, or on delivery when the keys it holds here have nothing to validate.
     */
    private void castVote(Remote t) {
        t.voted = true;
        t.votedAtNanos = System.nanoTime();
        AbortCause refusal = validate(t);
        t.refusal = refusal;
        if (t.decided && refusal != null) {
            log.error("{}: voted {} on transaction {} of {}, which the other owners' votes committed: owners of a key"
                    + " disagree", self, refusal, t.id.seq, t.id.origin);
        }
        // To the voters, every other destination and the originator, when they need it from this member.
        t.voteSent = sendsVote(t);
        // A refusal goes out even from an owner that keeps its yes to itself: the originator waits for the refusals
        // of every owner of a key (settleRefusals), and the others decide on it before their turn comes.
        vote(t.id.origin, t.id, refusal, t.voteSent || refusal != null ? new ArrayList<>(t.voters) : List.of(),
                false);
        onRemoteVote(t, self, refusal);
    }

    /**
     * Whether this member's vote must go out. One other owner's vote per key is all a destination waits for, and
     * owners vote alike, so the first two owners of each key (in placement order) send theirs and the others,
     * at degree 3 and more, stay silent: half the vote messages at degree 4. An owner also sends when one of
     * those two for a key it holds is not in its view (it stands in for it). A vote held back is still answered
     * to a {@link Message.VoteQuery}; a refusal always goes out (the originator waits for every owner of a key to
     * refuse before it reports an abort, see settleRefusals).
     */
    private boolean sendsVote(Remote r) {
        for (ByteKey k : r.lockKeys) {
            List<MemberId> keyOwners = r.owners.get(k);
            for (int i = 0; i < Math.min(2, keyOwners.size()); i++) {
                MemberId first = keyOwners.get(i);
                if (first.equals(self) || !members.contains(first)) {
                    return true;
                }
            }
        }
        return r.lockKeys.isEmpty();
    }

    private AbortCause validate(Remote r) {
        for (Message.Check c : r.tx.checks()) {
            if (r.holds(c.key())
                    && data.getOrDefault(c.key(), Versioned.ABSENT).version() != c.version()) {
                return AbortCause.CONFLICT;
            }
        }
        return null;
    }

    /** Sends a vote to the originator and the given other destinations (the originator gets it once). */
    private void vote(MemberId origin, TxId id, AbortCause refusal, List<MemberId> others) {
        vote(origin, id, refusal, others, true);
    }

    private void vote(MemberId origin, TxId id, AbortCause refusal, List<MemberId> others, boolean toOrigin) {
        Message.Vote v = new Message.Vote(origin, id.seq, refusal);
        byte[] payload = Message.encode(v);
        if (origin.equals(self)) {
            onOriginVote(self, v);
        }
        for (MemberId m : others) {
            if (!m.equals(self)) {
                send(m, payload);
            }
        }
        if (toOrigin && !origin.equals(self) && !others.contains(origin)) {
            send(origin, payload);
        }
    }

    private synchronized void onVote(MemberId voter, Message.Vote vote) {
        if (protocol == CommitProtocol.TOTAL_ORDER && !members.contains(voter)) {
            // Not in this member's view: it was excluded, and may have delivered transactions in another order
            // than the members that resolved them without it. A vote it sent while still a member was counted,
            // or agrees with those of the members (it saw the same order up to its exclusion).
            log.debug("{}: vote on {} of {} from {}, not in the view, ignored", self, vote.seq(), vote.origin(),
                    voter);
            return;
        }
        if (vote.origin().equals(self)) {
            onOriginVote(voter, vote);
        }
        if (protocol == CommitProtocol.TWO_PHASE_COMMIT) {
            return;
        }
        TxId id = new TxId(vote.origin(), vote.seq());
        Remote r = remotes.get(id);
        if (r != null) {
            onRemoteVote(r, voter, vote.refusal());
            drain();
        } else if (inDoubt.containsKey(id) && !decided.containsKey(id)) {
            resolveDoubt(inDoubt.get(id), voter, vote.refusal(), false);
        } else if (!decided.containsKey(id) && (!vote.origin().equals(self) || isDestination(vote.seq()))) {
            // The transaction reaches us later: keep the vote until it does.
            earlyVotes.computeIfAbsent(id, k -> new ArrayList<>(2)).add(new EarlyVote(voter, vote.refusal()));
        }
    }

    /**
     * Asks for the votes still missing on transactions this member voted on {@code olderThanNanos} ago or more:
     * from the owners in the view of each key not yet covered. A vote lost with a connection, or an owner that was
     * cut off and dropped the transaction, would otherwise hold the transaction, and every rebalance after it, for
     * ever. Runs every second on the timer; tests call it directly.
     */
    synchronized void queryMissingVotes(long olderThanNanos) {
        GroupMember g = group;
        if (g == null || protocol != CommitProtocol.TOTAL_ORDER || g.view() == null) {
            return;
        }
        Set<MemberId> inView = new HashSet<>(g.view().members());
        long now = System.nanoTime();
        List<Remote> asking = new ArrayList<>(remotes.values());
        if (!cutOff) {
            asking.addAll(inDoubt.values()); // dropped at a cut: voted or not, asked at once
        }
        for (Remote r : asking) {
            boolean doubt = !remotes.containsKey(r.id);
            if (r.decided || !doubt && (!r.voted || now - r.votedAtNanos < olderThanNanos)) {
                continue;
            }
            Set<MemberId> ask = new LinkedHashSet<>();
            List<ByteKey> unknown = new ArrayList<>(r.uncovered);
            if (doubt && r.ownYesOnly != null) {
                unknown.addAll(r.ownYesOnly);
            }
            for (ByteKey k : unknown) {
                for (MemberId owner : r.owners.get(k)) {
                    if (!owner.equals(self) && inView.contains(owner)
                            && (r.noVotes == null || !r.noVotes.contains(owner))) {
                        ask.add(owner);
                    }
                }
            }
            sendVoteQuery(ask, r.id.origin, r.id.seq, r.tx.epoch());
        }
        // A held refusal waits for the other owners of its keys (of the refuser's, or of another key when the
        // refuser's other owners left without a word); one that dropped the transaction unvoted (cut off, then
        // past its placement) would never answer unasked, and the client would wait out the outcome timeout.
        for (Pending p : originated.values()) {
            if (p.refusals.isEmpty() || p.outcome.isDone() || now - p.refusedAtNanos < olderThanNanos) {
                continue;
            }
            Set<MemberId> ask = new LinkedHashSet<>();
            for (List<MemberId> keyOwners : p.owners.values()) {
                for (MemberId owner : keyOwners) {
                    if (!owner.equals(self) && inView.contains(owner) && !p.refusals.containsKey(owner)
                            && !p.yesVoters.contains(owner) && !p.noVoters.contains(owner)) {
                        ask.add(owner);
                    }
                }
            }
            if (ask.isEmpty()) {
                // Nobody is left to settle it: the other owners of its keys said yes, or left (one key's other
                // owner crashed, another key's said yes). Those that said yes have decided since, most likely on
                // this very refusal: asked again, one that aborted answers with a refusal, which settles it.
                p.yesVoters.stream().filter(inView::contains).forEach(ask::add);
            }
            sendVoteQuery(ask, self, p.seq, p.epoch);
        }
    }

    private void sendVoteQuery(Set<MemberId> ask, MemberId origin, long seq, long epoch) {
        if (!ask.isEmpty()) {
            stats.voteQueries.increment();
            byte[] query = Message.encode(new Message.VoteQuery(origin, seq, epoch));
            ask.forEach(m -> send(m, query));
        }
    }

    /**
     * Answers a destination missing this member's vote: the vote again if it voted (on a transaction it holds,
     * decided, or dropped undecided; a decided abort is answered with a refusal, which is the outcome anyway), or
     * {@link Message.NoVote} if it never voted and never will: it has not admitted the transaction (it dropped it
     * while cut off, or ignored it then) and has moved past its placement, so a late delivery would be refused.
     * Otherwise (not delivered here yet, or not its turn) nothing: it will vote in time, and the asker asks again.
     */
    private synchronized void onVoteQuery(MemberId from, Message.VoteQuery q) {
        TxId id = new TxId(q.origin(), q.seq());
        Remote r = remotes.get(id);
        AbortCause refusal;
        if (r != null) {
            if (!r.voted) {
                return;
            }
            refusal = r.refusal;
        } else if (decided.containsKey(id)) {
            refusal = decided.get(id) ? null : AbortCause.REPLICA_LEFT;
        } else if (inDoubt.containsKey(id) && inDoubt.get(id).voted) {
            // Voted, and held in doubt since the cut: its vote, even once droppedVotes forgot it (answering NoVote
            // would let the others abort what this member may commit when its own yes was the only vote).
            refusal = inDoubt.get(id).refusal;
        } else if (droppedVotes.containsKey(id)) {
            refusal = droppedVotes.get(id).refusal();
        } else {
            if (deliveredEpoch > q.epoch() && q.epoch() > forgottenThroughEpoch && !cutOff
                    && backlog.stream().noneMatch(d -> id.equals(d.tx()))) {
                send(from, new Message.NoVote(q.origin(), q.seq()));
            }
            return;
        }
        send(from, new Message.Vote(q.origin(), q.seq(), refusal));
    }

    /**
     * An owner never voted on the transaction and never will. Once every owner of a key not yet covered says so,
     * nobody voted yes on that key, so no destination can have committed: abort. (One owner saying so decides
     * nothing: another may have voted yes, and a destination committed.)
     */
    private synchronized void onNoVote(MemberId from, Message.NoVote n) {
        TxId id = new TxId(n.origin(), n.seq());
        if (n.origin().equals(self)) {
            Pending p = originated.get(n.seq());
            if (p != null && p.destinations.contains(from)) {
                // That owner will never vote yes: a refusal, now or later, may stand.
                p.noVoters.add(from);
                settleRefusals(p);
            }
        }
        Remote r = remotes.get(id);
        if (r == null && inDoubt.containsKey(id)) {
            resolveDoubt(inDoubt.get(id), from, null, true);
            return;
        }
        if (r == null || r.decided) {
            return;
        }
        if (!r.neverVotedBy(from)) {
            decideOnOwnYes(r); // the other owners of its keys may all have said they never will vote
            drain();
            return;
        }
        log.info("{}: every owner of a key of transaction {} of {} dropped it unvoted: it aborts", self, r.id.seq,
                r.id.origin);
        stats.abortedUnvoted.increment();
        decide(r, false);
        if (r.id.origin.equals(self)) {
            Pending p = originated.get(r.id.seq);
            if (p != null) {
                p.outcome.completeExceptionally(new TransactionAbortedException(AbortCause.REPLICA_LEFT,
                        "every owner of one of its keys was cut off before it voted"));
            }
        }
        drain();
    }

    /** Whether this member is a destination of its own transaction (known until that transaction leaves). */
    private boolean isDestination(long seq) {
        return ownDestined.containsKey(seq);
    }

    private void onRemoteVote(Remote r, MemberId voter, AbortCause refusal) {
        if (r.decided) {
            return;
        }
        if (refusal != null) {
            decide(r, false);
            if (!r.voted && !voter.equals(self) && !r.id.origin.equals(self)) {
                // The originator holds a refusal back until the other owners' confirm it (settleRefusals); decided
                // by it before voting, this member would not vote at all, so it tells the originator its decision.
                // Only the originator hears this. (An originator that is a destination has heard the refusal.)
                r.voted = true;
                r.refusal = refusal;
                vote(r.id.origin, r.id, refusal, List.of());
            }
            return;
        }
        if (r.coveredBy(voter)) {
            decide(r, true);
        }
    }

    /** Commits a transaction this member voted yes on once its own vote covers what is left (see {@link #covers}). */
    private void decideOnOwnYes(Remote r) {
        if (!r.decided && r.voted && r.refusal == null && r.coveredBy(self)) {
            decide(r, true);
        }
    }

    private void decide(Remote r, boolean commit) {
        r.decided = true;
        r.commit = commit;
        decided.put(r.id, commit);
        runnable.add(r);
        if (commit && r.id.origin.equals(self)) {
            // Its originator is a destination: a commit decided here holds for the originator too (its own
            // record of the votes may miss a NoVote, which only destinations hear).
            Pending p = originated.get(r.id.seq);
            if (p != null) {
                p.outcome.complete(null);
            }
        }
    }

    /** Leaves every queue; successors that became first everywhere become runnable. */
    private void release(Remote r) {
        r.released = true;
        for (ByteKey k : r.lockKeys) {
            ArrayDeque<Remote> q = queues.get(k);
            if (q == null) {
                continue;
            }
            boolean wasHead = q.peek() == r;
            q.remove(r);
            if (q.isEmpty()) {
                queues.remove(k);
            } else if (wasHead) {
                Remote next = q.peek();
                if (--next.waiting == 0) {
                    runnable.add(next);
                }
            }
        }
        remotes.remove(r.id);
        if (r.id.origin.equals(self)) {
            ownDestined.remove(r.id.seq);
        }
        finished();
    }

    /** Writes the keys this member owns and tells the members that cached them. */
    private void apply(Remote r) {
        writeOwned(r);
        notifyCachers(r);
    }

    /**
     * Applies a committed transaction, then runs {@code after} (under this monitor). With parallel apply the
     * writes run on the apply pool after every earlier apply that writes one of the same keys (per-key chains, so
     * delivery order holds per key and disjoint transactions run in parallel); {@code after} then runs when they
     * are done, unless the transactions in progress were dropped meanwhile.
     */
    private void applyThen(Remote r, Runnable after) {
        if (applyPool == null) {
            apply(r);
            after.run();
            return;
        }
        List<ByteKey> keys = new ArrayList<>(r.tx.writes().size());
        for (Message.Write w : r.tx.writes()) {
            if (r.holds(w.key())) {
                keys.add(w.key());
            }
        }
        CompletableFuture<?>[] earlier = keys.stream().map(applyTails::get).filter(Objects::nonNull)
                .toArray(CompletableFuture[]::new);
        long lifeNow = life;
        // The completion is attached before the write can run, so it always runs on the apply thread that wrote,
        // never on this (delivering) thread because the write happened to be done already.
        CompletableFuture<Void> written = new CompletableFuture<>();
        written.whenComplete((v, failure) ->
                offDeliveryThread(() -> applied(r, keys, written, lifeNow, after, failure)));
        keys.forEach(k -> applyTails.put(k, written));
        CompletableFuture.allOf(earlier).whenCompleteAsync((ignored, earlierFailed) -> {
            if (earlierFailed != null) {
                written.completeExceptionally(earlierFailed);
                return;
            }
            Throwable failed = null;
            applyGate.readLock().lock();
            try {
                if (life == lifeNow) {
                    writeOwned(r);
                }
            } catch (RuntimeException | Error e) {
                failed = e;
            } finally {
                applyGate.readLock().unlock();
            }
            // Only now: the completion takes this engine's monitor, under which dropTransactionsInProgress waits
            // for the gate.
            if (failed == null) {
                written.complete(null);
            } else {
                written.completeExceptionally(failed);
            }
        }, applyPool);
    }

    private synchronized void applied(Remote r, List<ByteKey> keys, CompletableFuture<Void> written, long lifeThen,
            Runnable after, Throwable failure) {
        keys.forEach(k -> applyTails.remove(k, written));
        if (failure != null) {
            log.error("applying transaction {} failed", r.id, failure);
        }
        if (life != lifeThen) {
            return; // dropped with the other transactions in progress
        }
        notifyCachers(r);
        after.run();
        drain();
    }

    private void writeOwned(Remote r) {
        for (Message.Write w : r.tx.writes()) {
            if (r.holds(w.key())) {
                Versioned old = data.getOrDefault(w.key(), Versioned.ABSENT);
                data.put(w.key(), new Versioned(w.value(), old.version() + 1));
            }
        }
        r.written = true;
    }

    private void notifyCachers(Remote r) {
        Map<MemberId, List<ByteKey>> invalidations = null;
        for (Message.Write w : r.tx.writes()) {
            if (!r.holds(w.key())) {
                continue;
            }
            Set<MemberId> cachers = requestors.remove(w.key());
            if (cachers != null) {
                if (invalidations == null) {
                    invalidations = new HashMap<>();
                }
                for (MemberId m : cachers) {
                    invalidations.computeIfAbsent(m, x -> new ArrayList<>()).add(w.key());
                }
            }
        }
        if (invalidations != null) {
            // The originator too: its commit returned once decided, maybe before this member applied it, and a
            // read it sent since may have cached the value from before its own write (it evicts only at return).
            invalidations.forEach((m, keys) -> {
                if (!m.equals(self)) {
                    send(m, new Message.Invalidate(keys));
                }
            });
        }
    }

    private void finished() {
        if (--unfinished == 0 && barrier != null && awaitingDone.isEmpty() && !receiving) {
            startRebalance(barrier);
        }
    }

    // --------------------------------------------------------------------- commit: two-phase commit baseline

    private synchronized void onPrepare(MemberId origin, Message.Transaction tx) {
        TxId id = new TxId(origin, tx.seq());
        Topology t = topology;
        if (t == null || tx.epoch() != t.epoch || barrier != null || receiving || stale || tx.level() != level) {
            vote(origin, id, AbortCause.TOPOLOGY_CHANGED, List.of());
            return;
        }
        if (touchesLostKey(tx)) {
            vote(origin, id, AbortCause.OWNERS_UNAVAILABLE, List.of());
            return;
        }
        if (decided.containsKey(id)) {
            return; // rolled back before its prepare arrived
        }
        if (remotes.containsKey(id)) {
            drop(origin, "a second prepare of transaction " + tx.seq());
            return;
        }
        Remote r = new Remote(id, tx, t.ring);
        remotes.put(id, r);
        unfinished++;
        acquire(r);
    }

    /** Takes the transaction's locks in order; stops at the first one held by another. */
    private void acquire(Remote r) {
        while (r.acquired < r.lockKeys.size()) {
            Lock lock = locks.computeIfAbsent(r.lockKeys.get(r.acquired), k -> new Lock());
            if (lock.holder == null) {
                lock.holder = r;
                r.acquired++;
                continue;
            }
            Lock theirs = lock.holder.waitingFor;
            if (theirs != null && theirs.holder == r) {
                refuse2pc(r, AbortCause.DEADLOCK);
                return;
            }
            lock.waiters.add(r);
            r.waitingFor = lock;
            if (r.timeout == null) {
                r.timeout = timer.schedule(() -> offDeliveryThread(() -> lockTimedOut(r)), lockTimeout.toMillis(),
                        TimeUnit.MILLISECONDS);
            }
            return;
        }
        if (r.timeout != null) {
            r.timeout.cancel(false);
        }
        AbortCause refusal = validate(r);
        if (refusal != null) {
            refuse2pc(r, refusal);
        } else {
            r.voted = true;
            vote(r.id.origin, r.id, null, List.of());
        }
    }

    private synchronized void lockTimedOut(Remote r) {
        if (remotes.get(r.id) == r && r.waitingFor != null) {
            refuse2pc(r, AbortCause.LOCK_TIMEOUT);
        }
    }

    private void refuse2pc(Remote r, AbortCause cause) {
        unlock(r);
        vote(r.id.origin, r.id, cause, List.of());
    }

    private synchronized void onOutcome(MemberId origin, Message.Outcome outcome) {
        if (protocol != CommitProtocol.TWO_PHASE_COMMIT) {
            // Only two-phase commit sends outcomes; remembering one would make this member drop the transaction.
            drop(origin, "an outcome of transaction " + outcome.seq() + ", but this group commits by total order");
            return;
        }
        TxId id = new TxId(origin, outcome.seq());
        Remote r = remotes.get(id);
        decided.put(id, outcome.commit());
        if (r == null) {
            return; // refused already, or its prepare is still on the way (it will be ignored)
        }
        if (outcome.commit() && r.voted) {
            apply(r);
        }
        unlock(r);
    }

    private void unlock(Remote r) {
        if (remotes.remove(r.id) == null) {
            return;
        }
        if (r.timeout != null) {
            r.timeout.cancel(false);
        }
        if (r.waitingFor != null) {
            r.waitingFor.waiters.remove(r);
            r.waitingFor = null;
        }
        List<Remote> resumed = new ArrayList<>();
        for (int i = 0; i < r.acquired; i++) {
            ByteKey k = r.lockKeys.get(i);
            Lock lock = locks.get(k);
            Remote next = lock.waiters.poll();
            lock.holder = next;
            if (next == null) {
                locks.remove(k);
            } else {
                next.waitingFor = null;
                next.acquired++;
                resumed.add(next);
            }
        }
        r.acquired = 0;
        finished();
        for (Remote next : resumed) {
            acquire(next);
        }
    }

    // ------------------------------------------------------------------------------------------- placement

    @Override
    public synchronized void viewInstalled(View view, long position) {
        if (group == null) {
            return; // attach() replays the view it finds
        }
        log.debug("{} installs view {} {} (primary {})", self, view.epoch(), view.members(), view.primary());
        if (view.primary()) {
            if (topology == null && viewsSincePlacement.size() >= 64) {
                viewsSincePlacement.remove(0); // no placement yet: no departure from one to record
            }
            viewsSincePlacement.add(view);
        }
        Set<MemberId> alive = new HashSet<>(view.members());
        boolean someoneLeft = !alive.containsAll(members);
        members = Set.copyOf(alive);
        knownMembers = known(view.members());
        earlyVotes.values().forEach(votes -> votes.removeIf(v -> !alive.contains(v.voter)));
        if (protocol == CommitProtocol.TOTAL_ORDER) {
            // An owner that left will not vote: this member's own yes now covers the keys it shared with it, and
            // the vote it held back goes out if it stands in for that owner now.
            for (Remote r : new ArrayList<>(remotes.values())) {
                if (r.voted && !r.voteSent && sendsVote(r)) {
                    r.voteSent = true;
                    vote(r.id.origin, r.id, r.refusal, r.voters.stream().filter(alive::contains).toList(), false);
                }
                decideOnOwnYes(r);
            }
            drain();
        }
        if (someoneLeft) {
            // An owner that left will tell nobody of later changes to the keys it served, and the others do not
            // know who cached them from it: drop every cached copy (view changes are rare) rather than keep
            // reading them until this member's next rebalance.
            nearCache.invalidateAll();
        }
        // Reads and commits waiting on members that left.
        for (ReadRequest request : reads.values()) {
            if (!alive.contains(request.target)) {
                request.reply.completeExceptionally(new IllegalStateException(request.target + " left"));
            }
        }
        for (Pending p : originated.values()) {
            if (protocol == CommitProtocol.TWO_PHASE_COMMIT) {
                for (MemberId d : p.awaitingPrepareVotes) {
                    if (!alive.contains(d)) {
                        rollback2pc(p);
                        p.outcome.completeExceptionally(new TransactionAbortedException(AbortCause.TOPOLOGY_CHANGED,
                                d + " left before voting"));
                        break;
                    }
                }
            } else {
                for (ByteKey k : p.uncovered) {
                    if (p.owners.get(k).stream().noneMatch(alive::contains)) {
                        p.outcome.completeExceptionally(new OutcomeUnknownException(
                                "every owner of a key left before voting; transaction " + p.seq
                                        + " may or may not have committed"));
                        break;
                    }
                }
                settleRefusals(p); // the other owners that left will not vote here
            }
        }
        if (protocol == CommitProtocol.TWO_PHASE_COMMIT) {
            // Blocking 2PC's known weakness: a prepared transaction whose originator died is rolled back here.
            for (Remote r : new ArrayList<>(remotes.values())) {
                if (!alive.contains(r.id.origin)) {
                    unlock(r);
                }
            }
        }
        for (Set<MemberId> s : requestors.values()) {
            s.retainAll(alive);
        }
        if (awaitingDone.retainAll(alive) && awaitingDone.isEmpty() && receiving) {
            completeRebalance();
        }
        // Every member proposes the rebalance, not only the coordinator: the first copy ordered wins and the
        // others are ignored, so neither a coordinator that fails nor one that just merged back can leave the
        // group without a placement for its view.
        if (view.primary() && (deliveredRing != null || view.size() >= minimumMembers)) {
            byte[] payload = Message.encode(new Message.Rebalance(view.epoch(), view.members()));
            multicast(view.members(), payload,
                    e -> log.debug("rebalance for view {} not sent: {}", view.epoch(), e.toString()));
        }
        multicastRecovery(view);
        if (!pendingRecoveries.isEmpty()) {
            queryMissingVotes(0); // the others may be in this view only now
        }
    }

    /**
     * This member was cut off from the majority: the others decide its pending transactions without it and may
     * move on. Its protocol state is dropped (its own pending commits end as unknown); its data stays, possibly
     * stale, and is refreshed by the rebalance when it merges back (the others send it every key it owns then,
     * and the higher version of a key wins).
     */
    @Override
    public synchronized void blocked(View view) {
        log.warn("{} is cut off from the majority ({}); dropping its pending transactions until it merges back",
                self, view.members());
        for (ReadRequest request : reads.values()) {
            request.reply.completeExceptionally(new IllegalStateException("cut off from the majority"));
        }
        abandonPendingCommits(Long.MAX_VALUE, "this member was cut off from the majority");
        dropTransactionsInProgress();
        barrier = null;
        backlog.clear();
        awaitingDone.clear();
        transferData.clear();
        transferDone.clear();
        deferredReads.clear();
        handedOver.clear();
        stale = true;
        cutOff = true;
        receiving = false;
        notifyAll();
    }

    /**
     * This member missed a placement: a "done" for {@code epoch} came from a member whose previous placement is
     * newer than this member's own. That member could complete its placement only without this one, so the group
     * excluded this member after its last placement, and this member never noticed (paused, say, and resumed just
     * as the others excluded it, it never installed a view without them, so {@link #blocked} was never called).
     * Its transactions from before {@code epoch} were resolved without it, and the votes it waits for were sent
     * while it was out: waiting for them would hold the rebalance of {@code epoch} forever. So it does what a
     * member cut off does: it drops them (its own pending commits end as unknown) and counts as stale, so its
     * data is replaced by the fresh members' copies when that rebalance completes. Rebalances and transactions of
     * {@code epoch} and later belong to the new life and stay.
     */
    private void missedPlacement(long epoch) {
        log.warn("{} missed a placement before epoch {} (its own is {}): it was excluded without noticing; dropping"
                + " its {} transactions in progress", self, epoch, topology.epoch, remotes.size());
        missedBefore = epoch;
        abandonPendingCommits(epoch, "this member was excluded from the group without noticing");
        dropTransactionsInProgress();
        awaitingDone.clear();
        transferData.keySet().removeIf(e -> e < epoch);
        transferDone.keySet().removeIf(e -> e < epoch);
        backlog.removeIf(d -> d.epoch() < epoch);
        if (barrier != null && barrier.epoch() < epoch) {
            barrier = null;
        }
        handedOver.clear();
        cutOff = deliveredEpoch < epoch; // transactions delivered before the rebalance of epoch are the old life's
        stale = true;
        receiving = false;
        notifyAll();
        if (barrier != null) {
            startRebalance(barrier);
        } else {
            resumeBacklog();
        }
    }

    /** Ends, as unknown, this member's commits certified under a placement before {@code epoch}. */
    private void abandonPendingCommits(long epoch, String why) {
        for (Pending p : originated.values()) {
            if (p.epoch < epoch) {
                p.outcome.completeExceptionally(new OutcomeUnknownException(why + " before transaction " + p.seq
                        + " was decided; it may or may not have committed"));
            }
        }
    }

    /** This member dropped the transaction without voting, and never will vote on it. */
    private void neverVotes(Remote r) {
        r.neverVotedBy(self);
    }

    private void holdInDoubt(Remote r) {
        if (inDoubt.size() >= REMEMBERED) {
            log.error("{}: more than {} transactions in doubt; {} of {} is forgotten, and if it committed, its"
                    + " writes are missing from this member's copies", self, REMEMBERED, r.id.seq, r.id.origin);
            return;
        }
        if (inDoubt.putIfAbsent(r.id, r) == null) {
            doubtsOfThisLife.add(r);
        }
    }

    /** Forgets every transaction in progress at this member, and who cached its keys. */
    private void dropTransactionsInProgress() {
        applyGate.writeLock().lock(); // waits for writes under way on the apply pool; later ones write nothing
        try {
            life++;
        } finally {
            applyGate.writeLock().unlock();
        }
        applyTails.clear();
        List<Remote> doubtful = new ArrayList<>();
        for (Remote r : remotes.values()) {
            // Not voted yet: the key's other owner may have voted yes, and the others committed on that vote.
            if (protocol == CommitProtocol.TOTAL_ORDER && !r.written
                    && (r.decided ? r.commit : !r.voted || r.refusal == null)) {
                if (!r.voted) {
                    neverVotes(r);
                }
                doubtful.add(r);
            }
            if (r.timeout != null) {
                r.timeout.cancel(false);
            }
            if (protocol == CommitProtocol.TOTAL_ORDER && r.voted && !r.decided && r.refusal == null) {
                // In doubt the question is what the others decided, and they count this member's yes like any
                // other owner's: it covers its keys. Whether another owner voted on them is still asked: if none
                // did, this yes was the only one (see resolveDoubt).
                for (ByteKey k : r.uncovered) {
                    if (r.holds(k) && r.owners.get(k).size() > 1) {
                        if (r.ownYesOnly == null) {
                            r.ownYesOnly = new HashSet<>(2);
                        }
                        r.ownYesOnly.add(k);
                    }
                }
                r.uncovered.removeIf(r::holds);
            }
            if (protocol == CommitProtocol.TOTAL_ORDER && r.voted && !r.decided && votesToRepeat.size() < REMEMBERED) {
                SentVote v = new SentVote(r.id, r.refusal, new ArrayList<>(r.voters));
                votesToRepeat.add(v);
                droppedVotes.put(r.id, v);
            }
        }
        doubtful.sort(java.util.Comparator.comparingLong(r -> r.order));
        doubtful.forEach(this::holdInDoubt);
        remotes.clear();
        queues.clear();
        locks.clear();
        earlyVotes.clear();
        runnable.clear();
        ownDestined.clear();
        unfinished = 0;
        requestors.clear();
        nearCache.invalidateAll();
    }

    private synchronized void onRebalance(Message.Rebalance r) {
        if (r.epoch() <= deliveredEpoch || r.epoch() < missedBefore || !r.members().contains(self)) {
            return;
        }
        deliveredEpoch = r.epoch();
        deliveredRing = new HashRing(r.members(), degree, virtualNodes);
        cutOff = false;
        if (barrier != null) {
            backlog.add(new Deferred(r.epoch(), () -> beginBarrier(r)));
        } else {
            beginBarrier(r);
        }
    }

    private void beginBarrier(Message.Rebalance r) {
        barrier = r;
        if (unfinished == 0) {
            startRebalance(r);
        }
    }

    /** Every transaction ordered before the rebalance has finished here: move the keys. */
    private void startRebalance(Message.Rebalance r) {
        Topology old = topology;
        log.debug("{} starts the rebalance of {} {} (placement was {}, stale {})", self, r.epoch(), r.members(),
                old == null ? 0 : old.epoch, stale);
        HashRing ring = new HashRing(r.members(), degree, virtualNodes);
        if (old != null) {
            Map<MemberId, List<Map.Entry<ByteKey, Versioned>>> outgoing = new HashMap<>();
            for (Map.Entry<ByteKey, Versioned> e : data.entrySet()) {
                List<MemberId> before = old.ring.owners(e.getKey());
                List<MemberId> after = ring.owners(e.getKey());
                for (MemberId m : after) {
                    if (!before.contains(m)) {
                        outgoing.computeIfAbsent(m, x -> new ArrayList<>()).add(Map.entry(e.getKey(), e.getValue()));
                    }
                }
                if (!after.contains(self)) {
                    handedOver.add(e.getKey());
                }
            }
            outgoing.forEach((m, entries) -> {
                for (int from = 0; from < entries.size(); from += DATA_BATCH) {
                    List<Map.Entry<ByteKey, Versioned>> part = entries.subList(from,
                            Math.min(entries.size(), from + DATA_BATCH));
                    List<ByteKey> keys = new ArrayList<>(part.size());
                    long[] versions = new long[part.size()];
                    List<byte[]> values = new ArrayList<>(part.size());
                    for (int i = 0; i < part.size(); i++) {
                        keys.add(part.get(i).getKey());
                        versions[i] = part.get(i).getValue().version();
                        values.add(part.get(i).getValue().value());
                    }
                    send(m, new Message.Data(r.epoch(), keys, versions, values));
                }
            });
        }
        // Back in the group: the votes it may be the last owner able to give (the others may wait for them before
        // they can start this very rebalance).
        for (SentVote v : votesToRepeat) {
            vote(v.id.origin, v.id, v.refusal, v.voters, false);
        }
        votesToRepeat.clear();
        // Everyone says when it has sent its part, even a member with nothing to send (it cannot know who waits).
        previousPlacement = old == null ? 0 : old.epoch;
        previousMembers = old == null ? List.of() : old.ring.members();
        previousLeft = departures(previousPlacement, previousMembers, r.epoch());
        viewsSincePlacement.removeIf(v -> v.epoch() <= r.epoch());
        byte[] done = Message.encode(new Message.Done(r.epoch(), stale ? -1 : previousPlacement, previousMembers,
                previousLeft, lost.stream().map(LostRegion::toWire).toList()));
        Map<MemberId, Message.Done> doneAlready = transferDone.getOrDefault(r.epoch(), Map.of());
        for (MemberId m : r.members()) {
            if (!m.equals(self)) {
                send(m, done);
                if (!doneAlready.containsKey(m)) {
                    awaitingDone.add(m);
                }
            }
        }
        transferData.keySet().removeIf(e -> e < r.epoch());
        transferDone.keySet().removeIf(e -> e < r.epoch());
        nearCache.invalidateAll();
        // Members that cached keys we no longer own would never hear of their changes: tell them now.
        Map<MemberId, List<ByteKey>> invalidations = new HashMap<>();
        requestors.entrySet().removeIf(e -> {
            if (ring.isOwner(self, e.getKey())) {
                return false;
            }
            for (MemberId m : e.getValue()) {
                invalidations.computeIfAbsent(m, x -> new ArrayList<>()).add(e.getKey());
            }
            return true;
        });
        invalidations.forEach((m, keys) -> send(m, new Message.Invalidate(keys)));
        receiving = true; // before the new placement is visible, so no reader sees it without its keys
        topology = new Topology(r.epoch(), ring);
        notifyAll(); // attempts waiting for a placement without an owner that left (afterPlacementChange)
        stats.rebalances.increment();
        if (awaitingDone.isEmpty()) {
            completeRebalance();
        }
    }

    /**
     * For each of {@code ring}, the epoch of the first primary view after placement {@code placement} and up to
     * {@code upTo} it was not in (0 if none). Only views up to the epoch of the rebalance being started count, so the
     * members that went through {@code placement} fresh send the same list: each installed those views (a rebalance
     * is sent in its view), unless its group delivered the rebalance before the view itself. A departure missed so
     * came after every one seen, and a member not seen leaving counts as leaving last ({@link LostRegion}), which it
     * did; the members merge what the fresh ones send ({@link #noteDepartures}).
     */
    private List<Long> departures(long placement, List<MemberId> ring, long upTo) {
        List<Long> when = new ArrayList<>(ring.size());
        for (MemberId m : ring) {
            long first = 0;
            for (View v : viewsSincePlacement) {
                if (v.epoch() > placement && v.epoch() <= upTo && !v.contains(m)) {
                    first = v.epoch();
                    break;
                }
            }
            when.add(first);
        }
        return when;
    }

    private void completeRebalance() {
        log.debug("{} completes the rebalance of {} (stale {})", self, topology.epoch, stale);
        installReceivedKeys(topology.epoch);
        completedPlacement = topology.epoch;
        receiving = false;
        barrier = null;
        notifyAll();
        List<Runnable> readsNow = new ArrayList<>(deferredReads);
        deferredReads.clear();
        readsNow.forEach(Runnable::run);
        resumeBacklog();
    }

    /** Admits what was delivered behind the barrier, up to the next rebalance that cannot start at once. */
    private void resumeBacklog() {
        while (barrier == null && !backlog.isEmpty()) {
            backlog.poll().step().run();
        }
    }

    /**
     * Takes the keys sent for this epoch. A member that was cut off from the majority, or that missed a placement
     * the others went through (it was excluded without noticing), may hold diverged data: the majority may have
     * resolved without it a transaction it applied. So only the members that went through the latest previous
     * placement without being cut off count as fresh; a member that is not fresh drops its own copies for what
     * the fresh ones send, and data from the others is ignored. If nobody is fresh, everything is merged.
     *
     * <p>Keys whose every owner under that placement left or is not fresh are lost: nobody can send them, and
     * serving them as absent would invent a value. They join the lost regions, refused until an owner is back;
     * a member that is back with copies of a lost region multicasts them ({@link #recover}).
     */
    private void installReceivedKeys(long epoch) {
        Map<MemberId, Map<ByteKey, Versioned>> received = transferData.remove(epoch);
        Map<MemberId, Message.Done> dones = transferDone.remove(epoch);
        long own = stale ? -1 : previousPlacement;
        long latest = own;
        if (dones != null) {
            for (Message.Done d : dones.values()) {
                latest = Math.max(latest, d.previousEpoch());
            }
        }
        // When nobody is fresh (latest is -1: no majority anywhere, nothing committed), all count as fresh.
        long newest = latest;
        java.util.function.Predicate<MemberId> fresh = m -> dones != null && dones.containsKey(m)
                && dones.get(m).previousEpoch() == newest;
        List<LostRegion> regions = lostRegionsAfter(own == newest, newest, dones, fresh);
        Map<ByteKey, Versioned> recovered = null;
        List<Long> answers = List.of();
        if (own != newest) {
            recovered = recoverableCopies(regions);
            answers = placementsNeverCompleted(regions);
            if (!data.isEmpty()) {
                log.warn("{} missed placements or was cut off: replacing its {} keys with the majority's copies",
                        self, data.size());
            }
            data.clear();
            // The votes for its commits of older placements were sent while it was out of the group.
            abandonPendingCommits(epoch, "this member missed a placement");
        } else {
            handedOver.forEach(data::remove);
        }
        handedOver.clear();
        if (received != null) {
            received.forEach((sender, keys) -> {
                if (fresh.test(sender)) {
                    keys.forEach(this::merge);
                }
            });
        }
        lost = regions;
        stale = false;
        if (recovered != null) {
            long placement = completedPlacement;
            List<Remote> doubts = new ArrayList<>();
            for (Remote r : doubtsOfThisLife) {
                if (r.tx.writes().stream().anyMatch(w -> r.holds(w.key()) && recoverable(placement, regions, w.key()))) {
                    doubts.add(r);
                } else {
                    inDoubt.remove(r.id); // its keys have fresh owners, which decided it themselves
                }
            }
            doubtsOfThisLife.clear();
            pendingRecoveries.add(new PendingRecovery(placement, regions, recovered, doubts, true));
            if (!doubts.isEmpty()) {
                log.warn("{} is back with copies of lost keys; {} transactions it dropped may have committed: it"
                        + " asks the others before it hands the copies over", self, doubts.size());
            }
        } else {
            doubtsOfThisLife.forEach(r -> inDoubt.remove(r.id)); // fresh owners decided them
            doubtsOfThisLife.clear();
        }
        for (long placement : answers) {
            pendingRecoveries.add(new PendingRecovery(placement, regions, new HashMap<>(), List.of(), false));
        }
        if (recovered != null || !answers.isEmpty()) {
            finishRecoveries();
            queryMissingVotes(0);
        }
    }

    /**
     * A transaction in doubt hears a vote (or that an owner never voted): decided like at a destination. Held-back
     * copies whose transactions are all decided then go out.
     */
    private void resolveDoubt(Remote r, MemberId voter, AbortCause refusal, boolean neverVoted) {
        if (r.decided || r.owners.values().stream().noneMatch(o -> o.contains(voter))) {
            return;
        }
        if (neverVoted) {
            r.decided = r.neverVotedBy(voter);
            if (!r.decided && r.uncovered.isEmpty() && r.ownYesOnly != null && r.ownYesOnly.stream()
                    .allMatch(k -> r.owners.get(k).stream().allMatch(o -> o.equals(self) || r.noVotes.contains(o)))) {
                // Every other owner of the keys only this member's yes was known on never voted and never will:
                // that yes was the only vote on them, and the others count it (the originator may have
                // acknowledged the commit on it). Every other key had a yes from another owner.
                r.decided = true;
                r.commit = true;
            }
        } else if (refusal != null) {
            r.decided = true;
        } else if (r.coveredBy(voter)) {
            r.decided = true;
            r.commit = true;
        }
        if (r.decided) {
            decided.put(r.id, r.commit);
            finishRecoveries();
        }
    }

    /**
     * Multicasts, oldest first, the held-back copies of lost keys whose transactions in doubt are all decided,
     * with the writes of those that committed applied in delivery order (each a version up, as at every owner).
     */
    private void finishRecoveries() {
        while (!pendingRecoveries.isEmpty()) {
            PendingRecovery p = pendingRecoveries.get(0);
            if (p.doubts().stream().anyMatch(r -> !r.decided)) {
                return;
            }
            pendingRecoveries.remove(0);
            int applied = 0;
            for (Remote r : p.doubts()) {
                inDoubt.remove(r.id);
                if (!r.commit) {
                    continue;
                }
                for (Message.Write w : r.tx.writes()) {
                    if (r.holds(w.key()) && recoverable(p.placement(), p.regions(), w.key())) {
                        Versioned old = p.copies().getOrDefault(w.key(), Versioned.ABSENT);
                        p.copies().put(w.key(), new Versioned(w.value(), old.version() + 1));
                        applied++;
                    }
                }
                stats.inDoubtCommitted.increment();
            }
            List<ByteKey> keys = new ArrayList<>(p.copies().keySet());
            long[] versions = new long[keys.size()];
            List<byte[]> values = new ArrayList<>(keys.size());
            for (int i = 0; i < keys.size(); i++) {
                versions[i] = p.copies().get(keys.get(i)).version();
                values.add(p.copies().get(keys.get(i)).value());
            }
            log.warn("{} is back with copies of lost keys from placement {}: multicasting its {} keys ({} writes of"
                    + " transactions it had dropped, which committed, applied first)", self, p.placement(),
                    keys.size(), applied);
            Message.Recover recovery = new Message.Recover(p.placement(), keys, versions, values, p.complete());
            unsentRecoveries.add(recovery);
            multicastRecovery(group.view(), recovery);
        }
    }

    /** Whether this member's copy of the key goes out with its recovery (as {@link #recoverableCopies} picks). */
    private boolean recoverable(long placement, List<LostRegion> regions, ByteKey key) {
        for (LostRegion region : regions) {
            if (region.placement == placement && region.takesFrom(self, key)) {
                return true;
            }
        }
        return false;
    }

    /** Multicasts this member's copies of lost keys to every member of its view, if it still has to. */
    private void multicastRecovery(View view) {
        for (Message.Recover r : unsentRecoveries) {
            multicastRecovery(view, r);
        }
    }

    private void multicastRecovery(View view, Message.Recover r) {
        if (view == null || !view.primary()) {
            return; // sent again once a primary view is installed
        }
        multicast(view.members(), Message.encode(r),
                e -> log.warn("{} could not multicast its copies of lost keys yet: {}", self, e.toString()));
    }

    /**
     * The lost regions once this rebalance completes: those the fresh members knew of (this member's own if it is
     * fresh), and the keys whose owners under the newest previous placement all left or are not fresh.
     */
    private List<LostRegion> lostRegionsAfter(boolean selfFresh, long newest, Map<MemberId, Message.Done> dones,
            java.util.function.Predicate<MemberId> fresh) {
        Set<LostRegion> regions = new LinkedHashSet<>();
        Set<MemberId> holders = new HashSet<>();
        List<MemberId> newestMembers = List.of();
        Map<MemberId, Long> left = new HashMap<>();
        if (selfFresh) {
            regions.addAll(lost);
            holders.add(self);
            newestMembers = previousMembers;
            noteDepartures(left, previousMembers, previousLeft);
        }
        if (dones != null) {
            for (Map.Entry<MemberId, Message.Done> e : dones.entrySet()) {
                if (!fresh.test(e.getKey())) {
                    continue;
                }
                holders.add(e.getKey());
                for (Message.Lost l : e.getValue().lost()) {
                    regions.add(LostRegion.of(l, degree, virtualNodes));
                }
                if (newestMembers.isEmpty()) {
                    newestMembers = e.getValue().previousMembers();
                }
                noteDepartures(left, e.getValue().previousMembers(), e.getValue().previousLeft());
            }
        }
        if (newest > 0 && !newestMembers.isEmpty()) {
            holders.retainAll(newestMembers);
            LostRegion gone = LostRegion.found(newest, new HashRing(newestMembers, degree, virtualNodes), holders,
                    left);
            if (!gone.isEmpty()) {
                log.warn("{}: no member holds a fresh copy of the {}; they are refused until an owner is back", self,
                        gone);
                regions.add(gone);
            }
        }
        regions.removeIf(LostRegion::isEmpty);
        return List.copyOf(regions);
    }

    /**
     * Adds the departures a fresh member reported (see {@link #departures}). The fresh members report the same, but
     * one may have missed a view (not installed yet, or excluded without noticing and back before any placement
     * went on without it): the earliest departure reported counts, as the views are one sequence, the same for all.
     */
    private static void noteDepartures(Map<MemberId, Long> left, List<MemberId> members, List<Long> when) {
        for (int i = 0; i < when.size() && i < members.size(); i++) {
            if (when.get(i) != 0) {
                left.merge(members.get(i), when.get(i), Math::min);
            }
        }
    }

    /**
     * This member's copies of keys it owned in lost regions of the placement its data is complete for, and that
     * are still refused ({@link LostRegion#takesFrom}): a copy no member would take would only be sent for nothing.
     */
    private Map<ByteKey, Versioned> recoverableCopies(List<LostRegion> regions) {
        Map<ByteKey, Versioned> copies = null;
        for (LostRegion region : regions) {
            if (region.placement != completedPlacement || !region.recoverableBy(self)) {
                continue;
            }
            if (copies == null) {
                copies = new HashMap<>(); // even empty: that it holds none of them is news too
            }
            for (Map.Entry<ByteKey, Versioned> e : data.entrySet()) {
                if (region.takesFrom(self, e.getKey())) {
                    copies.put(e.getKey(), e.getValue());
                }
            }
        }
        return copies;
    }

    /**
     * The placements of lost regions this member owned keys under but never completed the rebalance of (it was cut
     * off first), oldest first. It voted on nothing under them (their transactions wait behind that rebalance), so
     * it holds nothing newer than the owners that completed it, and may lack keys it gained with them: it sends no
     * copies, only that it is back ({@link Message.Recover#complete} false). Without that, a key it owned and left
     * last with would wait for it for ever ({@link LostRegion}).
     */
    private List<Long> placementsNeverCompleted(List<LostRegion> regions) {
        return regions.stream().filter(region -> region.placement > completedPlacement && region.recoverableBy(self))
                .map(region -> region.placement).distinct().sorted().toList();
    }

    private synchronized void onRecover(MemberId from, Message.Recover r) {
        if (from.equals(self)) {
            // ordered: every member delivers it at this point
            unsentRecoveries.removeIf(u -> u.placement() == r.placement() && u.complete() == r.complete()
                    && u.keys().equals(r.keys()));
        }
        if (cutOff || deliveredRing == null) {
            return; // the regions this member adopts at its next rebalance already reflect it
        }
        if (barrier != null) {
            backlog.add(new Deferred(deliveredEpoch, () -> recover(from, r)));
        } else {
            recover(from, r);
        }
    }

    /**
     * A member is back with its copies of keys lost since placement {@code r.placement()}: every member takes those
     * it owns now, at this point of the order (the higher version wins), and stops refusing the keys whose owners
     * that left last are all back (another owner that stayed after it may have committed writes its copy lacks: see
     * {@link LostRegion}).
     */
    private void recover(MemberId from, Message.Recover r) {
        List<LostRegion> regions = new ArrayList<>(lost);
        for (int i = 0; i < regions.size(); i++) {
            LostRegion region = regions.get(i);
            if (region.placement != r.placement() || !region.recoverableBy(from)) {
                continue;
            }
            if (!r.complete()) {
                regions.set(i, region.answeredBy(from)); // back, holding nothing written under the placement
                continue;
            }
            for (int k = 0; k < r.keys().size(); k++) {
                ByteKey key = r.keys().get(k);
                if (region.takesFrom(from, key) && topology.ring.isOwner(self, key)) {
                    merge(key, new Versioned(r.values().get(k), r.versions()[k]));
                }
            }
            regions.set(i, region.recoveredBy(from));
        }
        regions.removeIf(LostRegion::isEmpty);
        lost = List.copyOf(regions);
    }

    private void merge(ByteKey key, Versioned v) {
        data.merge(key, v, (a, b) -> a.version() >= b.version() ? a : b);
        stats.keysReceived.increment();
    }

    private synchronized void onData(MemberId from, Message.Data d) {
        long current = topology == null ? 0 : topology.epoch;
        if (d.epoch() < current || (d.epoch() == current && !receiving)) {
            return; // a late copy: the keys came from another former owner
        }
        Map<ByteKey, Versioned> keys = transferData.computeIfAbsent(d.epoch(), e -> new HashMap<>())
                .computeIfAbsent(from, m -> new HashMap<>());
        for (int i = 0; i < d.keys().size(); i++) {
            keys.merge(d.keys().get(i), new Versioned(d.values().get(i), d.versions()[i]),
                    (a, b) -> a.version() >= b.version() ? a : b);
        }
    }

    private synchronized void onDone(MemberId from, Message.Done d) {
        long current = topology == null ? 0 : topology.epoch;
        if (d.epoch() < current || (d.epoch() == current && !receiving)) {
            return;
        }
        transferDone.computeIfAbsent(d.epoch(), e -> new HashMap<>()).put(from, d);
        if (topology != null && d.previousEpoch() > current && d.epoch() > missedBefore) {
            missedPlacement(d.epoch()); // may start the rebalance of d.epoch(), which counts this done
            return;
        }
        if (d.epoch() == current && awaitingDone.remove(from) && awaitingDone.isEmpty()) {
            completeRebalance();
        }
    }

    // ------------------------------------------------------------------------------------------- delivery

    @Override
    public void deliverOrdered(MemberId origin, long position, byte[] payload) {
        // Partial replication uses total-order multicast and point-to-point messages only.
    }

    @Override
    public void deliverMulticast(MemberId origin, byte[] payload) {
        Message m = decodeOrDrop(origin, payload);
        if (m instanceof Message.Transaction t && !t.prepare()) {
            onTransaction(origin, t);
        } else if (m instanceof Message.Rebalance r) {
            onRebalance(r);
        } else if (m instanceof Message.Recover r) {
            onRecover(origin, r);
        } else if (m != null) {
            drop(origin, "unexpected multicast " + m.getClass().getSimpleName());
        }
    }

    @Override
    public void deliverDirect(MemberId origin, byte[] payload) {
        Message m = decodeOrDrop(origin, payload);
        if (m == null) {
            return;
        }
        if (m instanceof Message.Get g) {
            onGet(origin, g);
        } else if (m instanceof Message.Value v) {
            onValue(origin, v);
        } else if (m instanceof Message.Vote v) {
            onVote(origin, v);
        } else if (m instanceof Message.VoteQuery q) {
            onVoteQuery(origin, q);
        } else if (m instanceof Message.NoVote n) {
            onNoVote(origin, n);
        } else if (m instanceof Message.Invalidate inv) {
            onInvalidate(inv);
        } else if (m instanceof Message.Transaction t && t.prepare()) {
            onPrepare(origin, t);
        } else if (m instanceof Message.Outcome o) {
            onOutcome(origin, o);
        } else if (m instanceof Message.Data d) {
            onData(origin, d);
        } else if (m instanceof Message.Done d) {
            onDone(origin, d);
        } else {
            drop(origin, "unexpected direct message " + m.getClass().getSimpleName());
        }
    }

    private Message decodeOrDrop(MemberId origin, byte[] payload) {
        try {
            return Message.decode(payload, knownMembers);
        } catch (Message.FormatMismatch e) {
            // Not noise: no rebalance with that member can complete. Said once per member, loudly.
            if (formatMismatches.add(origin)) {
                log.error("{}: {} sent {}", self, origin, e.getMessage());
            }
            drop(origin, e.getMessage());
            return null;
        } catch (CodecException | IndexOutOfBoundsException e) {
            drop(origin, "malformed message: " + e.getMessage());
            return null;
        }
    }

    private void drop(MemberId origin, String why) {
        stats.droppedMessages.increment();
        warn("dropped a message from " + origin + ": " + why);
    }

    private synchronized void warn(String message) {
        long n = ++dropped;
        if (n <= 10 || Long.bitCount(n) == 1) {
            log.warn("{} ({} so far)", message, n);
        }
    }

    private void send(MemberId to, Message m) {
        send(to, Message.encode(m));
    }

    private void send(MemberId to, byte[] payload) {
        if (group == null) {
            synchronized (this) {
                if (group == null) {
                    unsent.add(Map.entry(to, payload));
                    return;
                }
            }
        }
        if (!queued(() -> sendNow(to, payload))) {
            sendNow(to, payload);
        }
    }

    /** Queues a send in the outbox if this thread holds the monitor and the outbox is in use (see {@link #outbox}). */
    private boolean queued(Runnable send) {
        if (Thread.holdsLock(this) && (offDeliverySteps > 0 || drainingOutbox || !outbox.isEmpty())) {
            outbox.add(send);
            return true;
        }
        return false;
    }

    private void sendNow(MemberId to, byte[] payload) {
        try {
            group.send(to, payload);
        } catch (RuntimeException e) {
            log.debug("message to {} not sent: {}", to, e.toString());
        }
    }

    /** Multicasts in total order (after the monitor is released, see {@link #outbox}); a failure is reported. */
    private void multicast(List<MemberId> to, byte[] payload, java.util.function.Consumer<RuntimeException> failed) {
        Runnable multicast = () -> {
            try {
                group.multicast(to, payload);
            } catch (RuntimeException e) {
                failed.accept(e);
            }
        };
        if (!queued(multicast)) {
            multicast.run();
        }
    }

    /**
     * Runs a step under this monitor on a thread that is not delivering for the group (an apply thread, the timer,
     * an application thread), and sends what it sends once the monitor is released: see {@link #outbox}.
     */
    private void offDeliveryThread(Runnable step) {
        if (Thread.holdsLock(this) && offDeliverySteps == 0) {
            // Within a delivery, which holds the monitor already: the group queues what it sends, as for any
            // delivery, and queuing it here would leave it to no thread.
            step.run();
            return;
        }
        try {
            synchronized (this) {
                offDeliverySteps++;
                try {
                    step.run();
                } finally {
                    offDeliverySteps--;
                }
            }
        } finally {
            if (!Thread.holdsLock(this)) { // else a step this one runs within sends it, once it lets go
                drainOutbox();
            }
        }
    }

    /** Sends what the outbox holds, in order, outside the monitor; one thread at a time. */
    private void drainOutbox() {
        synchronized (this) {
            if (drainingOutbox || outbox.isEmpty()) {
                return; // the thread draining sends what was queued, ours included
            }
            drainingOutbox = true;
        }
        Runnable next = null;
        try {
            while (true) {
                synchronized (this) {
                    next = outbox.poll();
                    if (next == null) {
                        drainingOutbox = false;
                        return;
                    }
                }
                next.run();
            }
        } finally {
            if (next != null) { // a send threw: let another thread drain the rest
                synchronized (this) {
                    drainingOutbox = false;
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
        if (applyPool != null) {
            applyPool.shutdownNow();
        }
        synchronized (this) {
            notifyAll();
        }
        for (Pending p : originated.values()) { // sent: the owners may still commit them
            p.outcome.completeExceptionally(new OutcomeUnknownException("the store closed before the outcome of"
                    + " transaction " + p.seq + " was known; its owners may still commit it"));
        }
    }

    /** What this member's commit protocol is waiting for, for diagnostics. */
    public synchronized String describeState() {
        StringBuilder sb = new StringBuilder(self.name()).append(": epoch ").append(epoch()).append(", unfinished ")
                .append(unfinished).append(", barrier ").append(barrier != null).append(", receiving ")
                .append(receiving).append(", backlog ").append(backlog.size()).append(", delivered rebalance ")
                .append(deliveredEpoch).append(", stale ").append(stale).append(", cut off ").append(cutOff)
                .append(", awaiting done from ").append(awaitingDone).append(", lost ").append(lost)
                .append(", in doubt ").append(inDoubt.size()).append(", recoveries held ")
                .append(pendingRecoveries.size())
                .append('\n');
        for (Remote r : remotes.values()) {
            sb.append("  ").append(r.id).append(" keys=").append(r.lockKeys.size()).append(" waiting=").append(r.waiting)
                    .append(" voted=").append(r.voted)
                    .append(" decided=").append(r.decided).append(" uncovered=").append(r.uncovered.size())
                    .append(" acquired=").append(r.acquired).append('\n');
        }
        for (Pending p : originated.values()) {
            if (!p.outcome.isDone()) {
                sb.append("  originated ").append(p.seq).append(": ").append(waitingFor(p)).append('\n');
            }
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return "PartitionedEngine[" + self + ", " + level + ", " + protocol + ", degree " + degree + "]";
    }

    /** A view's members and this member, to decode received member ids against (see {@link #knownMembers}). */
    private List<MemberId> known(List<MemberId> viewMembers) {
        if (viewMembers.contains(self)) {
            return List.copyOf(viewMembers);
        }
        List<MemberId> known = new ArrayList<>(viewMembers);
        known.add(self);
        return List.copyOf(known);
    }

    /**
     * The newest {@value #REMEMBERED} decisions, in primitive tables rather than a map of entries and keys (at tens
     * of thousands of decisions a second those lived just long enough to be copied by young collections), noting
     * in {@link #forgottenThroughEpoch} when one is forgotten.
     */
    private final class Decided {
        private final io.polycert.certification.RememberedDecisions remembered =
                new io.polycert.certification.RememberedDecisions(REMEMBERED);

        boolean containsKey(TxId id) {
            return remembered.contains(id.origin(), id.seq());
        }

        /** The decision, or null if none is remembered. */
        Boolean get(TxId id) {
            return remembered.get(id.origin(), id.seq());
        }

        void put(TxId id, boolean commit) {
            if (remembered.put(id.origin(), id.seq(), commit)) {
                // Transactions are decided under the placement delivered when they arrived, at most this one.
                forgottenThroughEpoch = Math.max(forgottenThroughEpoch, deliveredEpoch);
            }
        }
    }

    /** Like {@link #bounded()}, noting in {@link #forgottenThroughEpoch} that something was forgotten. */
    private <K, V> Map<K, V> forgetful() {
        return new LinkedHashMap<>(16, 0.75f, false) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                if (size() <= REMEMBERED) {
                    return false;
                }
                // Transactions are decided under the placement delivered when they arrived, at most this one.
                forgottenThroughEpoch = Math.max(forgottenThroughEpoch, deliveredEpoch);
                return true;
            }
        };
    }

    private static <K, V> Map<K, V> bounded() {
        return new LinkedHashMap<>(16, 0.75f, false) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > REMEMBERED;
            }
        };
    }

    /** Configures an engine; every member of a group must use the same settings. */
    public static final class Builder {
        private MemberId identity;
        private ConsistencyLevel level = ConsistencyLevel.SERIALIZABLE;
        private CommitProtocol protocol = CommitProtocol.TOTAL_ORDER;
        private int degree = 2;
        private int virtualNodes = 64;
        private int minimumMembers = 1;
        private long nearCacheSize = 10_000;
        private Duration lockTimeout = Duration.ofMillis(500);
        private Duration readTimeout = Duration.ofSeconds(2);
        private Duration outcomeTimeout = Duration.ofSeconds(30);
        private int outcomeYields = CertificationSettings.DEFAULT_OUTCOME_YIELDS;
        private Duration voteQueryInterval = Duration.ofSeconds(1);
        private int applyThreads;

        private Builder() {
        }

        /**
         * Threads that apply committed transactions at this member (total order only; default 0: applied on the
         * group's delivery thread). Transactions writing a common key are applied in delivery order, others in
         * parallel; validation, reads and rebalances see a key only once every earlier write of it is applied.
         */
        public Builder applyThreads(int threads) {
            if (threads < 0 || threads > 64) {
                throw new IllegalArgumentException("apply threads must be in 0..64, was " + threads);
            }
            this.applyThreads = threads;
            return this;
        }

        /** The member id the group will be joined with (required). */
        public Builder identity(MemberId identity) {
            this.identity = Objects.requireNonNull(identity, "identity");
            return this;
        }

        /** Default {@link ConsistencyLevel#SERIALIZABLE}. */
        public Builder consistency(ConsistencyLevel level) {
            this.level = Objects.requireNonNull(level, "level");
            return this;
        }

        /** Default {@link CommitProtocol#TOTAL_ORDER}. */
        public Builder protocol(CommitProtocol protocol) {
            this.protocol = Objects.requireNonNull(protocol, "protocol");
            return this;
        }

        /** How many members hold each key (default 2; capped at the group size). */
        public Builder replicationDegree(int degree) {
            if (degree < 1) {
                throw new IllegalArgumentException("replication degree must be >= 1, was " + degree);
            }
            this.degree = degree;
            return this;
        }

        /** Points per member on the hash ring (default 64): more spread keys more evenly. */
        public Builder virtualNodes(int n) {
            if (n < 1 || n > 4096) {
                throw new IllegalArgumentException("virtual nodes must be in 1..4096, was " + n);
            }
            this.virtualNodes = n;
            return this;
        }

        /** Keys are placed once the group has this many members (default 1). */
        public Builder minimumMembers(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("minimum members must be >= 1, was " + n);
            }
            this.minimumMembers = n;
            return this;
        }

        /** Entries of the near cache of keys owned by others (default 10,000; 0 disables it). */
        public Builder nearCacheSize(long entries) {
            if (entries < 0) {
                throw new IllegalArgumentException("near cache size must be >= 0, was " + entries);
            }
            this.nearCacheSize = entries;
            return this;
        }

        /** Two-phase commit: how long a prepare waits for a lock (default 500 ms). */
        public Builder lockTimeout(Duration timeout) {
            this.lockTimeout = positive(timeout, "lock timeout");
            return this;
        }

        /** How long a remote read waits for one owner before trying the next (default 2 s). */
        public Builder readTimeout(Duration timeout) {
            this.readTimeout = positive(timeout, "read timeout");
            return this;
        }

        /** How long a commit waits for its outcome before reporting it unknown (default 30 s). */
        public Builder outcomeTimeout(Duration timeout) {
            this.outcomeTimeout = positive(timeout, "outcome timeout");
            return this;
        }

        /**
         * How many times a thread waiting for its commit's outcome or a remote read yields its core, checking,
         * before it parks (default {@value CertificationSettings#DEFAULT_OUTCOME_YIELDS}; zero parks at once): see
         * {@link CertificationSettings#outcomeYields()}.
         */
        public Builder outcomeYields(int yields) {
            if (yields < 0) {
                throw new IllegalArgumentException("outcome yields cannot be negative, was " + yields);
            }
            this.outcomeYields = yields;
            return this;
        }

        /**
         * How long a destination that voted waits for the other votes before it asks the owners for them, and
         * then how often it asks again (total-order commit; default 1 s). The votes may have been lost with a
         * connection, or their owners cut off before they voted.
         */
        public Builder voteQueryInterval(Duration interval) {
            this.voteQueryInterval = positive(interval, "vote query interval");
            return this;
        }

        private static Duration positive(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive, was " + d);
            }
            return d;
        }

        public PartitionedEngine build() {
            return new PartitionedEngine(this);
        }
    }
}
