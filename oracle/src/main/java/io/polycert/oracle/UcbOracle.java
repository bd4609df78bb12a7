package io.polycert.oracle;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * PolyCert's on-line learning oracle: a multi-armed bandit per read-set-size bucket (see {@link ReadSetBuckets}),
 * whose arms are NVC, BFC and VC and whose reward is a commit's latency mapped to [0, 1]:
 * {@code R(t) = (maxLatency - min(maxLatency, t)) / maxLatency}.
 *
 * <p><b>maxLatency</b> is self-tuned as in the paper, per bucket: the first transactions of a bucket run VC, whose
 * latency hardly depends on the read-set, until the standard deviation of their latencies is below twice their
 * mean (at least {@code bootstrapMin}, at most {@code bootstrapMax} transactions); then maxLatency = mean + sigma
 * (the paper's mean * (1 + sigma), with sigma read as relative to the mean so the rule is unit-free), and those
 * samples become the VC arm's first rewards. Per bucket rather than once, because a global bound learned on small
 * transactions saturates (reward 0 for every arm) on huge ones.
 * A bucket learns its bound again when it proves wrong either way: every arm beyond it (rewards of 0 in a row), or
 * every arm far below it (a recent mean reward above 0.9 for long, typically a bound learned on cold code).
 *
 * <p><b>Changing workloads</b>: a bucket's statistics fade with a half-life in time (default 60 s), so old
 * evidence weighs less and less whatever the transaction rate; and a lasting shift of an arm's recent rewards away
 * from its long-run mean cuts the bucket's evidence back, so it learns again quickly.
 *
 * <p><b>DistUCB</b> ({@link Builder#distributed}) plays epochs (below) by default. With epochs off, the paper's
 * DistUCB: every {@code gossipInterval} the replica piggybacks its own
 * per-bucket statistics (count, sum and sum of squares of rewards per arm) on a commit broadcast. Receivers keep
 * the latest statistics of each other replica, by sequence number, and score arms on their own statistics plus
 * those: the paper's weighted-mean merge, without its double counting: a repeated, reordered or echoed message
 * changes nothing, and only a replica's own samples travel. Statistics not refreshed for three intervals (a replica
 * that left) are dropped.
 *
 * <p><b>Epochs</b> ({@link Builder#epochs}): the replicas play the same arm of a bucket at the same time, and the
 * reward is the group's commit rate. Every commit message carries its bucket, the bucket's epoch as its replica
 * knows it (where in the total order it started, and its arm) and what that replica's bandit would play next
 * ({@link #commitTag}). Once a replica has seen the epoch last its length (from its delivery of the epoch's start)
 * and hold at least {@link Builder#epochCommits} commits (default {@value #EPOCH_MIN_COMMITS}), its messages also
 * ask for the next epoch; the first such
 * request delivered starts it, on the requester's choice, at the same place of the total order on every replica,
 * and later requests naming the ended epoch change nothing. A replica that knows an older epoch than a tag names
 * (it joined, came back from a minority, or its oracle was swapped) adopts the named one, so replicas agree again
 * after the first tag delivered from the others, with no state transferred.
 * At an epoch's end each replica records one sample for the epoch's arm: the time per commit of the whole group
 * over the epoch (its duration here over the bucket's deliveries in it, scaled by the share of the group's recent
 * transactions on that arm that committed, which every replica hears alike through {@link #commitDecided}). So every
 * replica learns from the same epochs, and per-replica statistics are not exchanged. The bootstrap counts epochs
 * (three). Why: a protocol's cost is not all in its own transactions. A VC transaction is cheap for its
 * originator, but its vote is work and waiting on every replica; with replicas on different arms, the
 * originator's rewards rank VC first while the group runs slower (measured: one replica chose VC for 94% of its
 * transactions where static VC ran at 0.53-0.63 of static NVC). Played together and rewarded by the
 * group's rate, an arm is charged what it costs everyone. An epoch in which the bucket stood idle for half its
 * time or more teaches nothing. The limit: the reward is throughput, so under a load light enough for every arm to
 * keep up, the arms look alike and latency is not seen; with epochs off, rewards are latencies again.
 *
 * <p>Thread-safe; {@code choose}, {@code record}, {@code commitTag} and {@code commitDelivered} lock one bucket
 * briefly.
 */
public final class UcbOracle implements ProtocolOracle {
    private static final int ARMS = Protocol.values().length;
    private static final int VC = Protocol.VC.ordinal();
    private static final byte GOSSIP_FORMAT = 1;
    /** Smoothing of the recent-reward average that detects a shift: about the last 256 rewards. */
    private static final double DRIFT_ALPHA = 1.0 / 256;
    /**
     * Rewards of 0 in a row after which maxLatency is learned again: every arm is beyond it (a bootstrap on unusually
     * fast transactions, or the workload grew), and the bandit can no longer tell them apart.
     */
    private static final int SATURATED_AFTER = 100;
    /**
     * The other way round: the bucket's recent mean reward (a moving average over about {@code 1/DRIFT_ALPHA}
     * rewards, whatever the arm) at or above {@code LOOSE_REWARD} for {@code LOOSE_AFTER} rewards in a row means the
     * bound is about ten times what the arms take, so their rewards differ in the third decimal and noise decides.
     * It happens when the bootstrap ran on cold code: a replica's first transactions (class loading, JIT) took
     * milliseconds where later ones take tens of microseconds (measured: bounds of 3.7 and 25.6 ms for commits of
     * about 30 us, and whole rounds on a protocol 0.6x as fast as the best). Then maxLatency is learned again. An
     * average, not a run of high rewards: latency tails (one commit in ten at twice the median) break any run. If
     * the new bound is not at least half as tight, an arm really is that much faster than VC: wait twice as long
     * before trying again, so the bucket does not keep re-learning.
     */
    private static final double LOOSE_REWARD = 0.9;
    private static final int LOOSE_AFTER = 1000;
    private static final int LOOSE_AFTER_MAX = 1 << 24;
    /** A commit tag's low bits: 1 + bucket * 3 + arm. */
    private static final int CHOICE_BITS = 5;
    /** Then the arm of the epoch the sender knows, plus 1 (0: none), in two bits. */
    private static final int EPOCH_ARM_SHIFT = CHOICE_BITS;
    /** Then one bit: the sender asks for the next epoch. */
    private static final int REQUEST_BIT = EPOCH_ARM_SHIFT + 2;
    /** Then the rest: where the sender's epoch started, plus 1 (0: none). */
    private static final int EPOCH_START_SHIFT = REQUEST_BIT + 1;
    /**
     * DistUCB's epoch length: of 10, 25 and 100 ms, 25 had the best worst phase in the switching benchmark
     * (ORACLE.md): some forty to a 1 s turn, and about 2,000 commits each at R = 1 there.
     */
    public static final Duration DEFAULT_EPOCH = Duration.ofMillis(25);
    /** By default an epoch ends only once it holds this many commits: a rate over fewer is noise. */
    static final int EPOCH_MIN_COMMITS = 32;
    /** Outcomes on an arm below which its committed share is taken as 1 rather than guessed from a few. */
    private static final int EPOCH_MIN_OUTCOMES = 8;
    /**
     * An arm's committed share is counted over about this many of the group's latest outcomes on it (both counts
     * halve when they reach it). The group's, which every replica hears alike, so that every replica draws the same
     * sample from an epoch: with each weighing by its own transactions' outcomes (about 10 an epoch at R = 100,000,
     * half of them aborts) the replicas' bandits drifted apart, and the group played whatever the first request
     * asked for. Over many epochs, because an epoch's own outcomes are too few to weigh its rate by.
     */
    private static final int SHARE_WINDOW = 256;
    /**
     * The reset rules counted in epochs, which come some 40 a second where transactions come by thousands: a bound
     * learned on cold code (the first epochs after start-up took 1.9 ms per commit where later ones took 10-20 us,
     * measured) would otherwise stand for some 1,600 epochs, every arm rewarded about 0.98 and VC played 30% of the
     * time. So with epochs the recent means (the bucket's, and each arm's for the shift test) average about 16
     * samples; the saturated rule fires after 20 zero rewards, the loose one after 40 in a row at 0.9 or more (about
     * 80 epochs from a reset, the mean climbing first), and a shift after 32 + 16.
     */
    private static final double EPOCH_RECENT_ALPHA = 1.0 / 16;
    private static final int EPOCH_SATURATED_AFTER = 20;
    private static final int EPOCH_LOOSE_AFTER = 40;
    /**
     * With epochs the bootstrap is three epochs: the spread rule settles there (three rates never spread twice their
     * mean), so a longer maximum would never be reached.
     */
    private static final int EPOCH_BOOTSTRAP = 3;

    private final UcbIndex index;
    private final boolean distributed;
    private final long gossipIntervalNanos;
    private final int bootstrapMin;
    private final int bootstrapMax;
    private final long halfLifeNanos;
    private final double driftShift;
    private final LongSupplier clock;
    /** How long an epoch lasts at least; 0 when each replica plays its own choice. */
    private final long epochNanos;
    /** The reset and shift rules' settings, per transaction or per epoch (see {@link #EPOCH_RECENT_ALPHA}). */
    private final double recentAlpha;
    private final int epochMinCommits;
    private final int saturatedAfter;
    private final int looseAfterFirst;
    private final Bucket[] buckets = new Bucket[ReadSetBuckets.COUNT];
    /** Identifies this oracle's gossip, so an echo of it is recognized. */
    private final long instance = ThreadLocalRandom.current().nextLong();
    private final AtomicLong gossipSequence = new AtomicLong();
    private final AtomicLong lastGossipNanos;
    /** Latest statistics of every other replica, replaced as a whole (copy on write) under {@code this}. */
    private volatile Map<Long, RemoteStatistics> remote = Map.of();

    private UcbOracle(Builder b) {
        this.distributed = b.distributed;
        this.gossipIntervalNanos = b.gossipInterval.toNanos();
        this.epochNanos = (b.epoch != null ? b.epoch : b.distributed ? DEFAULT_EPOCH : Duration.ZERO).toNanos();
        this.index = b.index != null ? b.index : epochNanos > 0 ? UcbIndex.KL_UCB_GAUSSIAN : UcbIndex.UCB1_TUNED;
        this.bootstrapMin = epochNanos > 0 ? EPOCH_BOOTSTRAP : b.bootstrapMin;
        this.bootstrapMax = epochNanos > 0 ? EPOCH_BOOTSTRAP : b.bootstrapMax;
        this.recentAlpha = epochNanos > 0 ? EPOCH_RECENT_ALPHA : DRIFT_ALPHA;
        this.epochMinCommits = b.epochCommits;
        this.saturatedAfter = epochNanos > 0 ? EPOCH_SATURATED_AFTER : SATURATED_AFTER;
        this.looseAfterFirst = epochNanos > 0 ? EPOCH_LOOSE_AFTER : LOOSE_AFTER;
        this.halfLifeNanos = b.halfLife.toNanos();
        // An epoch's reward spans twice the bootstrap's time per commit (see bootstrapSample), so the same change of
        // latency moves it half as much as a transaction's.
        this.driftShift = epochNanos > 0 ? b.driftShift / 2 : b.driftShift;
        this.clock = b.clock;
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = new Bucket(bootstrapMax, looseAfterFirst);
        }
        this.lastGossipNanos = new AtomicLong(clock.getAsLong());
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Settings of a {@link UcbOracle}; the defaults are what the switching benchmark found best. */
    public static final class Builder {
        /** Null: KL-UCB (Gaussian) with epochs, UCB1-Tuned without. */
        private UcbIndex index;
        private boolean distributed;
        private Duration gossipInterval = Duration.ofSeconds(10);
        private int bootstrapMin = 20;
        private int bootstrapMax = 100;
        private Duration halfLife = Duration.ofSeconds(60);
        private double driftShift = 0.15;
        private LongSupplier clock = System::nanoTime;
        /** Null: {@link #DEFAULT_EPOCH} for DistUCB, none for UCB. */
        private Duration epoch;
        private int epochCommits = EPOCH_MIN_COMMITS;

        private Builder() {
        }

        /** The arm-scoring rule (default: Gaussian KL-UCB when playing epochs, UCB1-Tuned otherwise). */
        public Builder index(UcbIndex index) {
            this.index = Objects.requireNonNull(index, "index");
            return this;
        }

        /**
         * DistUCB (default off): learn with the other replicas, by epochs played together (default, see
         * {@link #epochs}) or, with epochs off, by exchanging statistics every {@link #gossipInterval}.
         */
        public Builder distributed(boolean distributed) {
            this.distributed = distributed;
            return this;
        }

        /** How often DistUCB piggybacks this replica's statistics (default 10 s). */
        public Builder gossipInterval(Duration interval) {
            if (interval == null || interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("gossip interval must be positive, got " + interval);
            }
            this.gossipInterval = interval;
            return this;
        }

        /**
         * Bounds of the VC bootstrap that sets a bucket's maxLatency (default 20 to 100 transactions). With epochs
         * the bootstrap counts epochs instead (three), and this setting does not apply.
         */
        public Builder bootstrap(int minTransactions, int maxTransactions) {
            if (minTransactions < 2 || maxTransactions < minTransactions || maxTransactions > 100_000) {
                throw new IllegalArgumentException("bootstrap needs 2 <= min <= max <= 100,000 transactions, got "
                        + minTransactions + " and " + maxTransactions);
            }
            this.bootstrapMin = minTransactions;
            this.bootstrapMax = maxTransactions;
            return this;
        }

        /** How fast old statistics fade: their weight halves every {@code halfLife} (default 60 s). */
        public Builder halfLife(Duration halfLife) {
            if (halfLife == null || halfLife.toMillis() < 1) {
                throw new IllegalArgumentException("half-life must be at least 1 ms, got " + halfLife);
            }
            this.halfLife = halfLife;
            return this;
        }

        /**
         * The least shift of an arm's recent mean reward that counts as a change of workload (default 0.15; with
         * epochs half of it, as their rewards span twice the latencies; it must also stand six standard errors clear
         * of the noise, for about 256 samples in a row, or 16 epochs).
         * {@code Double.POSITIVE_INFINITY} disables it.
         */
        public Builder driftShift(double shift) {
            if (!(shift > 0)) {
                throw new IllegalArgumentException("drift shift must be positive, got " + shift);
            }
            this.driftShift = shift;
            return this;
        }

        /**
         * Replicas play the same arm of a bucket for epochs of at least {@code length}, agreed in the total order,
         * and learn from the group's commit rate (see the class comment); zero lets each replica play its own
         * choice and learn from its own latencies. Default: {@link #DEFAULT_EPOCH} with {@link #distributed},
         * zero without. An epoch should be much longer than a commit: transactions chosen before a switch certify
         * after it.
         */
        public Builder epochs(Duration length) {
            if (length == null || length.isNegative()) {
                throw new IllegalArgumentException("epoch length must be zero (off) or positive, got " + length);
            }
            this.epoch = length;
            return this;
        }

        /**
         * The fewest commits an epoch holds before it may end (default {@value #EPOCH_MIN_COMMITS}): where commits
         * are slow, this rather than the length sets how long an epoch lasts, and so how many epochs there are to
         * learn from.
         */
        public Builder epochCommits(int commits) {
            if (commits < 2) {
                throw new IllegalArgumentException("an epoch must hold at least 2 commits to measure a rate, got "
                        + commits);
            }
            this.epochCommits = commits;
            return this;
        }

        /**
         * The time source, in nanoseconds, for epochs, fading and gossip (default {@code System::nanoTime}). Tests
         * give a fake one; a benchmark that runs contenders in turns on one cluster gives each oracle a clock that
         * stands still between its turns, so that what the oracle sees is its own load, as in production.
         */
        public Builder clock(LongSupplier nanoTime) {
            this.clock = Objects.requireNonNull(nanoTime, "clock");
            return this;
        }

        public UcbOracle build() {
            return new UcbOracle(this);
        }
    }

    /** One bucket's bandit: per arm a count and the sums of rewards and squared rewards (fractional once faded). */
    private static final class Bucket {
        final double[] n = new double[ARMS];
        final double[] sum = new double[ARMS];
        final double[] sumSq = new double[ARMS];
        final double[] recentMean = new double[ARMS];
        final int[] recentCount = new int[ARMS];
        /** Consecutive rewards of 0 (latency at or beyond maxLatency), whatever the arm. */
        int zeroRun;
        /** Recent mean reward, whatever the arm; rewards in a row it has stayed at or above LOOSE_REWARD. */
        double recentReward;
        int looseRun;
        int looseAfter;
        /** The bound last found loose (NaN if none): the next bootstrap is compared with it. */
        double looseBound = Double.NaN;
        /** Consecutive samples the recent average has spent beyond the shift threshold. */
        final int[] beyond = new int[ARMS];
        /** NaN while bootstrapping. */
        double maxLatency = Double.NaN;
        final long[] bootstrapSamples;
        /** Each sample's arm: VC, or with epochs whatever the group played (the bound is the group's rate). */
        final int[] bootstrapArms;
        int bootstrapCount;
        /** Remote statistics received before this instant predate a reset of this bucket and are ignored. */
        long resetAt = Long.MIN_VALUE;
        /** When the statistics were last faded. */
        long fadedAt;
        boolean fadedOnce;
        /** Bound re-learnings and shift cuts, for {@code describe}. */
        int saturatedResets;
        int looseResets;
        int shifts;
        /** What {@code choose} returned for this bucket: per arm, and VC while bootstrapping. */
        final long[] chosen = new long[ARMS];
        long bootstrapChosen;
        /** What this replica's bandit would play now: its proposal for the next epoch. */
        int proposal = VC;
        /**
         * Where in the total order the epoch the group plays started (-1 until one is delivered), when this replica
         * delivered that start, and the epoch's arm.
         */
        long epochStart = -1;
        long epochStartedAt;
        int epochArm = -1;
        /** False for an epoch adopted from another replica's tag: its start was not seen here. */
        boolean epochMeasured;
        long adoptedEpochs;
        /** The bucket's commits delivered in the epoch, and this replica's own outcomes on the epoch's arm. */
        long epochDelivered;
        /** When the bucket's last commit was delivered here, and the longest wait between two in the epoch. */
        long lastDeliveredAt;
        long longestGap;
        /** The group's recent outcomes per arm, for the arm's committed share (see {@link #SHARE_WINDOW}). */
        final int[] decided = new int[ARMS];
        final int[] committed = new int[ARMS];
        final long[] epochsPlayed = new long[ARMS];
        /** Epochs that taught nothing: the bucket stood idle for half of one or more. */
        long idleEpochs;

        Bucket(int bootstrapMax, int looseAfter) {
            this.looseAfter = looseAfter;
            bootstrapSamples = new long[bootstrapMax];
            bootstrapArms = new int[bootstrapMax];
        }

        void clear(long now) {
            Arrays.fill(n, 0);
            Arrays.fill(sum, 0);
            Arrays.fill(sumSq, 0);
            Arrays.fill(recentCount, 0);
            Arrays.fill(beyond, 0);
            zeroRun = 0;
            looseRun = 0;
            recentReward = 0;
            maxLatency = Double.NaN;
            bootstrapCount = 0;
            resetAt = now;
        }
    }

    /** The latest statistics of one other replica: [bucket][arm * 3 + {n, sum, sumSq}]. */
    private record RemoteStatistics(long sequence, long receivedAt, double[][] buckets) {
    }

    // ---------------------------------------------------------------------------------------------------------

    @Override
    public Protocol choose(TransactionProfile profile) {
        int b = ReadSetBuckets.of(profile.readSetSize());
        Bucket bucket = buckets[b];
        synchronized (bucket) { // merged() takes it again: one acquisition for the choice and its count
            double[] merged = merged(b, true);
            Protocol best = merged == null ? Protocol.VC : best(merged);
            bucket.proposal = best.ordinal();
            Protocol chosen = epochNanos > 0 && bucket.epochArm >= 0 ? Protocol.values()[bucket.epochArm] : best;
            if (merged == null) {
                bucket.bootstrapChosen++;
            } else {
                bucket.chosen[chosen.ordinal()]++;
            }
            return chosen;
        }
    }

    /**
     * With epochs: {@code (start of the bucket's epoch as this replica knows it + 1) << 8 | ended << 7 | (its arm +
     * 1) << 5 | (1 + bucket * 3 + this replica's choice)}, where {@code ended} says the epoch is over here (or none
     * has started): a request to start the next one on that choice.
     */
    @Override
    public long commitTag(TransactionProfile profile) {
        if (epochNanos == 0) {
            return 0;
        }
        int b = ReadSetBuckets.of(profile.readSetSize());
        Bucket bucket = buckets[b];
        synchronized (bucket) {
            long start = bucket.epochStart;
            boolean over = start < 0 || (clock.getAsLong() - bucket.epochStartedAt >= epochNanos
                    && bucket.epochDelivered >= epochMinCommits);
            return (start + 1) << EPOCH_START_SHIFT | (over ? 1L << REQUEST_BIT : 0)
                    | (bucket.epochArm + 1) << EPOCH_ARM_SHIFT | (1 + b * ARMS + bucket.proposal);
        }
    }

    /**
     * With epochs: counts the bucket's commit. A tag naming a later epoch than this replica knows (it joined, came
     * back, or missed the start) makes it adopt that epoch, unmeasured. A request naming the current epoch ends it
     * (a sample for its arm) and starts the next on the requester's choice; one naming an earlier epoch changes
     * nothing. All of it is decided by what is delivered, in order, so replicas that agree stay agreed, and one that
     * does not is brought in by the first tag it sees from the others.
     */
    @Override
    public void commitDelivered(long position, long tag) {
        if (epochNanos == 0) {
            return;
        }
        int choice = choiceOf(tag);
        int namedArm = (int) ((tag >>> EPOCH_ARM_SHIFT) & 3) - 1;
        boolean request = (tag & (1L << REQUEST_BIT)) != 0;
        long named = (tag >>> EPOCH_START_SHIFT) - 1;
        if (choice == 0 || position < 0 || named >= position
                || namedArm >= ARMS || (named >= 0) != (namedArm >= 0)) {
            throw new IllegalArgumentException("oracle epoch tag " + tag + " at position " + position
                    + " names no bucket and arm, or an epoch not started yet");
        }
        Bucket bucket = buckets[(choice - 1) / ARMS];
        long now = clock.getAsLong();
        synchronized (bucket) {
            bucket.epochDelivered++;
            if (bucket.epochStart >= 0) {
                bucket.longestGap = Math.max(bucket.longestGap, now - bucket.lastDeliveredAt);
            }
            bucket.lastDeliveredAt = now;
            if (named > bucket.epochStart) {
                startEpoch(bucket, named, namedArm, now, false); // its start happened without us: not measured
                bucket.adoptedEpochs++;
            }
            if (!request || named != bucket.epochStart) {
                return;
            }
            if (bucket.epochArm >= 0 && bucket.epochMeasured) {
                endEpoch(bucket, now);
            }
            startEpoch(bucket, position, (choice - 1) % ARMS, now, true);
            bucket.epochsPlayed[bucket.epochArm]++;
        }
    }

    /** With epochs: counts the outcome for the arm's committed share, the same at every replica. */
    @Override
    public void commitDecided(long tag, Protocol protocol, boolean committed) {
        if (epochNanos == 0) {
            return;
        }
        int choice = choiceOf(tag);
        if (choice == 0) {
            throw new IllegalArgumentException("oracle epoch tag " + tag + " names no bucket");
        }
        Bucket bucket = buckets[(choice - 1) / ARMS];
        int arm = protocol.ordinal();
        synchronized (bucket) {
            if (bucket.decided[arm] >= SHARE_WINDOW) { // halve both first: committed stays at most decided
                bucket.decided[arm] /= 2;
                bucket.committed[arm] /= 2;
            }
            bucket.decided[arm]++;
            bucket.committed[arm] += committed ? 1 : 0;
        }
    }

    /** A tag's {@code 1 + bucket * 3 + choice}, or 0 if the tag names no bucket and arm. */
    private static int choiceOf(long tag) {
        int choice = (int) (tag & ((1 << CHOICE_BITS) - 1));
        return tag < 0 || choice < 1 || choice > ReadSetBuckets.COUNT * ARMS ? 0 : choice;
    }

    private static void startEpoch(Bucket bucket, long position, int arm, long now, boolean measured) {
        bucket.epochStart = position;
        bucket.epochStartedAt = now;
        bucket.epochArm = arm;
        bucket.epochMeasured = measured;
        bucket.epochDelivered = 0;
        bucket.longestGap = 0;
    }

    /**
     * The ended epoch's sample: the group's time per commit over it. None if the bucket stood idle for half the
     * epoch or more (no commits to make, or other work on the replicas): that time says nothing of the arm.
     */
    private void endEpoch(Bucket bucket, long now) {
        int arm = bucket.epochArm;
        double committedShare = bucket.decided[arm] >= EPOCH_MIN_OUTCOMES
                ? (double) bucket.committed[arm] / bucket.decided[arm] : 1;
        double commits = bucket.epochDelivered * committedShare;
        long elapsed = now - bucket.epochStartedAt;
        if (elapsed <= 0 || bucket.epochDelivered == 0 || (commits <= 0 && Double.isNaN(bucket.maxLatency))) {
            return; // nothing measured, or no rate to bootstrap a bound on
        }
        if (bucket.longestGap * 2 >= elapsed) {
            bucket.idleEpochs++;
            return;
        }
        learn(bucket, bucket.epochArm, commits > 0 ? (long) (elapsed / commits) : Long.MAX_VALUE,
                Outcome.COMMITTED);
    }

    /** The bucket's statistics plus the other replicas', [arm * 3 + {n, sum, sumSq}]; null while bootstrapping. */
    private double[] merged(int b, boolean nullWhileBootstrapping) {
        Bucket bucket = buckets[b];
        double[] merged = new double[3 * ARMS];
        synchronized (bucket) {
            if (nullWhileBootstrapping && Double.isNaN(bucket.maxLatency)) {
                return null;
            }
            for (int a = 0; a < ARMS; a++) {
                merged[3 * a] = bucket.n[a];
                merged[3 * a + 1] = bucket.sum[a];
                merged[3 * a + 2] = bucket.sumSq[a];
            }
            addRemote(b, bucket.resetAt, merged);
        }
        return merged;
    }

    private Protocol best(double[] merged) {
        double total = 0;
        for (int a = 0; a < ARMS; a++) {
            total += merged[3 * a];
        }
        int best = 0;
        double bestScore = Double.NEGATIVE_INFINITY;
        double pooled = index == UcbIndex.KL_UCB_GAUSSIAN ? UcbIndex.pooledVariance(merged) : Double.NaN;
        for (int a = 0; a < ARMS; a++) {
            double ni = merged[3 * a];
            double mean = ni > 0 ? merged[3 * a + 1] / ni : 0;
            double variance = ni > 0 ? merged[3 * a + 2] / ni - mean * mean : 0;
            double score = index.score(mean, variance, ni, total, pooled);
            if (score > bestScore) {
                bestScore = score;
                best = a;
            }
        }
        return Protocol.values()[best];
    }

    private void addRemote(int b, long notBefore, double[] into) {
        if (!distributed || epochNanos > 0) {
            return;
        }
        long expired = clock.getAsLong() - 3 * gossipIntervalNanos;
        for (RemoteStatistics r : remote.values()) {
            if (r.receivedAt() > notBefore && r.receivedAt() > expired && r.buckets()[b] != null) {
                double[] s = r.buckets()[b];
                for (int i = 0; i < into.length; i++) {
                    into[i] += s[i];
                }
            }
        }
    }

    @Override
    public void record(Protocol protocol, TransactionProfile profile, long latencyNanos, Outcome outcome) {
        if (outcome == Outcome.OTHER) {
            return; // not the protocol's doing (the replica left, a value could not be encoded)
        }
        Bucket bucket = buckets[ReadSetBuckets.of(profile.readSetSize())];
        int arm = protocol.ordinal();
        synchronized (bucket) {
            if (epochNanos > 0) {
                return; // the epoch's sample is the group's rate, weighed by the group's outcomes (commitDecided)
            }
            learn(bucket, arm, latencyNanos, outcome);
        }
    }

    /** One sample for an arm of the bucket (under its lock): the bootstrap's, or a reward and the reset rules. */
    private void learn(Bucket bucket, int arm, long latencyNanos, Outcome outcome) {
        if (Double.isNaN(bucket.maxLatency)) {
            if ((arm == VC || epochNanos > 0) && outcome != Outcome.FALSE_POSITIVE) {
                bootstrapSample(bucket, arm, latencyNanos);
            }
            return;
        }
        // A false positive wasted the whole commit: BFC earns nothing. A real conflict aborts under any
        // protocol, so it is rewarded for its latency like a commit.
        double reward = outcome == Outcome.FALSE_POSITIVE ? 0 : reward(bucket.maxLatency, latencyNanos);
        add(bucket, arm, reward);
        bucket.zeroRun = reward > 0 ? 0 : bucket.zeroRun + 1;
        bucket.recentReward += recentAlpha * (reward - bucket.recentReward);
        bucket.looseRun = bucket.recentReward >= LOOSE_REWARD ? bucket.looseRun + 1 : 0;
        if (bucket.zeroRun >= saturatedAfter) {
            bucket.saturatedResets++;
            bucket.clear(clock.getAsLong()); // every arm beyond maxLatency: learn the bound again
            return;
        }
        if (bucket.looseRun >= bucket.looseAfter) {
            bucket.looseResets++;
            bucket.looseBound = bucket.maxLatency;
            bucket.clear(clock.getAsLong()); // every arm far below maxLatency: learn the bound again
            return;
        }
        detectShift(bucket, arm, reward);
    }

    private static double reward(double maxLatency, long latencyNanos) {
        return (maxLatency - Math.min(maxLatency, latencyNanos)) / maxLatency;
    }

    private void bootstrapSample(Bucket bucket, int arm, long latencyNanos) {
        bucket.bootstrapArms[bucket.bootstrapCount] = arm;
        bucket.bootstrapSamples[bucket.bootstrapCount++] = latencyNanos;
        int count = bucket.bootstrapCount;
        double mean = 0;
        for (int i = 0; i < count; i++) {
            mean += bucket.bootstrapSamples[i];
        }
        mean /= count;
        double var = 0;
        for (int i = 0; i < count; i++) {
            double d = bucket.bootstrapSamples[i] - mean;
            var += d * d;
        }
        double sigma = Math.sqrt(var / (count - (count > 1 ? 1 : 0)));
        boolean settled = count >= bootstrapMin && sigma < 2 * mean;
        if (settled || count >= bootstrapMax) {
            // Epochs' times per commit are rates, calm from one epoch to the next: mean + sigma would sit just above
            // the bootstrap's arm, and every arm slower by more than sigma would earn 0, all alike. Twice the mean
            // keeps arms up to twice as slow apart (the bootstrap's arm then earns about 1/2).
            bucket.maxLatency = Math.max(1, epochNanos > 0 ? 2 * mean : mean + sigma);
            if (!Double.isNaN(bucket.looseBound)) {
                bucket.looseAfter = bucket.maxLatency > bucket.looseBound / 2
                        ? Math.min(LOOSE_AFTER_MAX, 2 * bucket.looseAfter) : looseAfterFirst;
                bucket.looseBound = Double.NaN;
            }
            for (int i = 0; i < count; i++) {
                add(bucket, bucket.bootstrapArms[i], reward(bucket.maxLatency, bucket.bootstrapSamples[i]));
            }
        }
    }

    private void add(Bucket bucket, int arm, double reward) {
        fade(bucket);
        bucket.n[arm]++;
        bucket.sum[arm] += reward;
        bucket.sumSq[arm] += reward * reward;
    }

    /** Weighs the statistics down by 2^(-elapsed / half-life), in steps of a tenth of the half-life. */
    private void fade(Bucket bucket) {
        long now = clock.getAsLong();
        if (!bucket.fadedOnce) {
            bucket.fadedOnce = true;
            bucket.fadedAt = now;
            return;
        }
        long elapsed = now - bucket.fadedAt;
        if (elapsed < halfLifeNanos / 10) {
            return;
        }
        double factor = Math.pow(0.5, (double) elapsed / halfLifeNanos);
        for (int a = 0; a < ARMS; a++) {
            bucket.n[a] *= factor;
            bucket.sum[a] *= factor;
            bucket.sumSq[a] *= factor;
        }
        bucket.fadedAt = now;
    }

    /**
     * Detects a shift: an arm's recent rewards (a moving average over about {@code 1/DRIFT_ALPHA} samples) staying
     * far from its long-run mean for as many samples in a row. Then the bucket's evidence is cut to a twentieth
     * (means kept), so new rewards count at once, and the other replicas' older statistics are set aside. Latencies
     * come in bursts (collections, neighbours' load), so the test is deliberately slow to fire, and firing wrongly
     * costs only some exploration.
     */
    private void detectShift(Bucket bucket, int arm, double reward) {
        int seen = ++bucket.recentCount[arm];
        bucket.recentMean[arm] = seen == 1 ? reward : bucket.recentMean[arm] + recentAlpha * (reward
                - bucket.recentMean[arm]);
        if (seen < 2 / recentAlpha) {
            return;
        }
        double mean = bucket.sum[arm] / bucket.n[arm];
        double sd = Math.sqrt(Math.max(0, bucket.sumSq[arm] / bucket.n[arm] - mean * mean));
        double noise = sd * Math.sqrt(recentAlpha / (2 - recentAlpha));
        if (Math.abs(bucket.recentMean[arm] - mean) <= Math.max(driftShift, 6 * noise)) {
            bucket.beyond[arm] = 0;
            return;
        }
        if (++bucket.beyond[arm] < 1 / recentAlpha) {
            return;
        }
        bucket.shifts++;
        long now = clock.getAsLong();
        for (int a = 0; a < ARMS; a++) {
            bucket.n[a] *= 0.05;
            bucket.sum[a] *= 0.05;
            bucket.sumSq[a] *= 0.05;
            bucket.recentCount[a] = 0;
            bucket.beyond[a] = 0;
        }
        bucket.resetAt = now;
    }

    // ---------------------------------------------------------------------------------------------------------
    // DistUCB gossip

    @Override
    public byte[] gossipToSend() {
        if (!distributed || epochNanos > 0) { // with epochs every replica learns from the same samples already
            return null;
        }
        long now = clock.getAsLong();
        long last = lastGossipNanos.get();
        if (now - last < gossipIntervalNanos || !lastGossipNanos.compareAndSet(last, now)) {
            return null;
        }
        ByteBuffer out = ByteBuffer.allocate(1 + 8 + 8 + 1 + ReadSetBuckets.COUNT * (1 + 3 * ARMS * 8));
        out.put(GOSSIP_FORMAT).putLong(instance).putLong(gossipSequence.incrementAndGet());
        int countAt = out.position();
        out.put((byte) 0);
        int count = 0;
        for (int b = 0; b < buckets.length; b++) {
            Bucket bucket = buckets[b];
            synchronized (bucket) {
                if (bucket.n[0] + bucket.n[1] + bucket.n[2] == 0) {
                    continue;
                }
                out.put((byte) b);
                for (int a = 0; a < ARMS; a++) {
                    out.putDouble(bucket.n[a]).putDouble(bucket.sum[a]).putDouble(bucket.sumSq[a]);
                }
                count++;
            }
        }
        out.put(countAt, (byte) count);
        byte[] bytes = new byte[out.position()];
        out.flip().get(bytes);
        return bytes;
    }

    @Override
    public void gossipReceived(byte[] gossip) {
        if (!distributed || epochNanos > 0) { // latencies from replicas without epochs: another scale
            return;
        }
        ByteBuffer in = ByteBuffer.wrap(gossip);
        RemoteStatistics stats;
        long sender;
        try {
            if (in.get() != GOSSIP_FORMAT) {
                throw new IllegalArgumentException("unknown oracle gossip format " + gossip[0]);
            }
            sender = in.getLong();
            long sequence = in.getLong();
            int count = in.get();
            if (count < 0 || count > ReadSetBuckets.COUNT) {
                throw new IllegalArgumentException("oracle gossip with " + count + " buckets");
            }
            double[][] perBucket = new double[ReadSetBuckets.COUNT][];
            for (int i = 0; i < count; i++) {
                int b = in.get();
                if (b < 0 || b >= ReadSetBuckets.COUNT || perBucket[b] != null) {
                    throw new IllegalArgumentException("oracle gossip names bucket " + b + " twice or out of range");
                }
                double[] s = new double[3 * ARMS];
                for (int a = 0; a < ARMS; a++) {
                    double n = in.getDouble();
                    double sum = in.getDouble();
                    double sumSq = in.getDouble();
                    // rewards lie in [0, 1]: so do their sums relative to the count
                    if (!(n >= 0 && n <= 1e12 && sum >= 0 && sum <= n && sumSq >= 0 && sumSq <= n)) {
                        throw new IllegalArgumentException("oracle gossip with impossible statistics n=" + n
                                + " sum=" + sum + " sumSq=" + sumSq);
                    }
                    s[3 * a] = n;
                    s[3 * a + 1] = sum;
                    s[3 * a + 2] = sumSq;
                }
                perBucket[b] = s;
            }
            if (in.hasRemaining()) {
                throw new IllegalArgumentException("oracle gossip has " + in.remaining() + " trailing bytes");
            }
            stats = new RemoteStatistics(sequence, clock.getAsLong(), perBucket);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated oracle gossip of " + gossip.length + " bytes", e);
        }
        if (sender == instance) {
            return; // our own statistics, echoed: already counted
        }
        synchronized (this) {
            RemoteStatistics known = remote.get(sender);
            if (known != null && known.sequence() >= stats.sequence()) {
                return; // a repeat or an older message
            }
            Map<Long, RemoteStatistics> next = new HashMap<>();
            long expired = stats.receivedAt() - 3 * gossipIntervalNanos;
            remote.forEach((k, v) -> {
                if (v.receivedAt() > expired) {
                    next.put(k, v);
                }
            });
            next.put(sender, stats);
            remote = Map.copyOf(next);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Introspection (tests, benchmarks)

    /** The bucket's merged statistics, [arm * 3 + {n, sum, sumSq}], as {@code choose} sees them. */
    double[] mergedStatistics(int readSetSize) {
        return merged(ReadSetBuckets.of(readSetSize), false);
    }

    /** The bucket's maxLatency in nanoseconds, or NaN while it bootstraps. */
    double maxLatencyNanos(int readSetSize) {
        Bucket bucket = buckets[ReadSetBuckets.of(readSetSize)];
        synchronized (bucket) {
            return bucket.maxLatency;
        }
    }

    /** How often the bucket was reset: its bound learned again (either rule) or its evidence cut by a shift. */
    int resets(int readSetSize) {
        Bucket bucket = buckets[ReadSetBuckets.of(readSetSize)];
        synchronized (bucket) {
            return bucket.saturatedResets + bucket.looseResets + bucket.shifts;
        }
    }

    /**
     * What the bandit of one read-set bucket knows: its maxLatency, each arm's weight of evidence and mean reward
     * (this replica's plus the others'), what {@code choose} returned for it (VC while bootstrapping apart), and how
     * often each rule reset it. For logs and benchmarks.
     */
    public String describe(int readSetSize) {
        int b = ReadSetBuckets.of(readSetSize);
        double[] s = merged(b, false);
        StringBuilder out = new StringBuilder("bucket ").append(ReadSetBuckets.label(b)).append(": maxLatency ");
        double max = maxLatencyNanos(readSetSize);
        out.append(Double.isNaN(max) ? "bootstrapping" : String.format(java.util.Locale.ROOT, "%.0f us", max / 1000));
        for (Protocol p : Protocol.values()) {
            int a = p.ordinal();
            out.append(String.format(java.util.Locale.ROOT, ", %s n=%.0f mean=%.3f", p, s[3 * a],
                    s[3 * a] > 0 ? s[3 * a + 1] / s[3 * a] : Double.NaN));
        }
        Bucket bucket = buckets[b];
        synchronized (bucket) {
            out.append(String.format(java.util.Locale.ROOT,
                    "; chose NVC/BFC/VC %d/%d/%d and %d times bootstrapping; bound learned again %d times"
                            + " (saturated) and %d (loose); shifts %d",
                    bucket.chosen[0], bucket.chosen[1], bucket.chosen[2], bucket.bootstrapChosen,
                    bucket.saturatedResets, bucket.looseResets, bucket.shifts));
            if (epochNanos > 0) {
                out.append(String.format(java.util.Locale.ROOT,
                        "; epochs on NVC/BFC/VC %d/%d/%d (%d idle, %d adopted); committed %d/%d, %d/%d, %d/%d;"
                                + " current %s", bucket.epochsPlayed[0], bucket.epochsPlayed[1],
                        bucket.epochsPlayed[2], bucket.idleEpochs, bucket.adoptedEpochs, bucket.committed[0],
                        bucket.decided[0], bucket.committed[1], bucket.decided[1], bucket.committed[2],
                        bucket.decided[2], bucket.epochArm < 0 ? "none" : Protocol.values()[bucket.epochArm]
                                + " from position " + bucket.epochStart));
            }
            return out.toString();
        }
    }

    @Override
    public String toString() {
        return (distributed ? "dist-ucb" : "ucb") + "(" + index.configName()
                + (epochNanos > 0 ? ", epochs of " + Duration.ofNanos(epochNanos).toMillis() + " ms" : "") + ")";
    }
}
