package io.polycert.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class UcbOracleTest {
    /** Medians (µs) shaped like the measured bank: {read-set, NVC, BFC, VC}. BFC 20% ahead at R=1 is the hard one. */
    private static final int[][] WORKLOADS = {
            {1, 150, 120, 240}, {10, 140, 170, 240}, {100, 200, 160, 270}, {1_000, 540, 380, 500},
            {10_000, 2_700, 2_200, 1_500}, {100_000, 16_000, 13_000, 5_500}, {2_000_000, 160_000, 130_000, 9_000}};

    /** The paper's DistUCB: statistics exchanged, epochs off. */
    static UcbOracle.Builder gossipingDistUcb() {
        return UcbOracle.builder().distributed(true).epochs(Duration.ZERO);
    }

    @Test
    void picksTheBestArmInEveryBucketAfterAShortLearningPhase() {
        for (int[] w : WORKLOADS) {
            UcbOracle oracle = UcbOracle.builder().build();
            SimulatedBandit bandit = new SimulatedBandit(w[0], 0.3, w[1], w[2], w[3]);
            bandit.play(oracle, w[0], 1_000); // learning: bootstrap and exploration
            int steps = 10_000;
            double share = (double) bandit.play(oracle, w[0], steps) / steps;
            assertTrue(share >= 0.95, "chose " + bandit.best() + " for R=" + w[0] + " only " + share
                    + " of the time");
        }
    }

    @Test
    void ucb1LearnsTooWhenTheGapIsWide() {
        UcbOracle oracle = UcbOracle.builder().index(UcbIndex.UCB1).build();
        SimulatedBandit bandit = new SimulatedBandit(7, 0.3, 300, 500, 120);
        bandit.play(oracle, 100_000, 1_000);
        assertTrue(bandit.play(oracle, 100_000, 10_000) >= 9_000);
    }

    @Test
    void tunedIndexHasLessRegretThanUcb1WhenRewardsAreClose() {
        long[] regret = new long[2];
        for (UcbIndex index : new UcbIndex[] {UcbIndex.UCB1, UcbIndex.UCB1_TUNED}) {
            for (int seed = 0; seed < 5; seed++) {
                UcbOracle oracle = UcbOracle.builder().index(index).build();
                SimulatedBandit bandit = new SimulatedBandit(seed, 0.3, 150, 120, 240);
                regret[index.ordinal()] += 20_000 - bandit.play(oracle, 1, 20_000);
            }
        }
        assertTrue(regret[UcbIndex.UCB1_TUNED.ordinal()] < regret[UcbIndex.UCB1.ordinal()],
                "suboptimal choices: UCB1 " + regret[0] + ", UCB1-Tuned " + regret[1]);
    }

    @Test
    void bootstrapRunsVcUntilTheSpreadSettlesThenSetsMaxLatency() {
        UcbOracle oracle = UcbOracle.builder().bootstrap(20, 100).build();
        TransactionProfile profile = new TransactionProfile(5, 1, 8);
        // Calm latencies: sigma < 2 * mean from the start, so it stops at the minimum of 20.
        for (int i = 0; i < 19; i++) {
            assertEquals(Protocol.VC, oracle.choose(profile));
            oracle.record(Protocol.VC, profile, i % 2 == 0 ? 100_000 : 140_000, Outcome.COMMITTED);
        }
        assertTrue(Double.isNaN(oracle.maxLatencyNanos(5)));
        oracle.record(Protocol.VC, profile, 140_000, Outcome.COMMITTED);
        // mean 120 µs, sample sigma 20.5 µs
        double sigma = 20_000 * Math.sqrt(20.0 / 19);
        assertEquals(120_000 + sigma, oracle.maxLatencyNanos(5), 1);
        double[] s = oracle.mergedStatistics(5);
        assertEquals(20, s[3 * Protocol.VC.ordinal()], "bootstrap samples feed the VC arm");
        assertEquals(0, s[0]);
    }

    @Test
    void bootstrapOfDisperseLatenciesStopsAtItsBound() {
        UcbOracle oracle = UcbOracle.builder().bootstrap(20, 100).build();
        TransactionProfile profile = new TransactionProfile(50, 1, 8);
        for (int i = 0; i < 99; i++) {
            assertEquals(Protocol.VC, oracle.choose(profile));
            // one huge outlier in every 40: sigma stays above twice the mean
            oracle.record(Protocol.VC, profile, i % 40 == 0 ? 1_000_000_000L : 1_000, Outcome.COMMITTED);
            assertTrue(Double.isNaN(oracle.maxLatencyNanos(50)), "stopped early at " + i);
        }
        oracle.record(Protocol.VC, profile, 1_000, Outcome.COMMITTED);
        assertTrue(oracle.maxLatencyNanos(50) > 0);
    }

    @Test
    void bucketsLearnIndependently() {
        UcbOracle oracle = UcbOracle.builder().bootstrap(2, 2).build();
        TransactionProfile small = new TransactionProfile(3, 1, 8);
        oracle.record(Protocol.VC, small, 1000, Outcome.COMMITTED);
        oracle.record(Protocol.VC, small, 1000, Outcome.COMMITTED);
        assertTrue(oracle.maxLatencyNanos(9) > 0);
        assertTrue(Double.isNaN(oracle.maxLatencyNanos(10)));
        assertEquals(Protocol.VC, oracle.choose(new TransactionProfile(10, 1, 8)));
    }

    @Test
    void reconvergesAfterTheBestArmChanges() {
        UcbOracle oracle = UcbOracle.builder().build();
        SimulatedBandit before = new SimulatedBandit(1, 0.3, 150, 300, 400);
        before.play(oracle, 1_000, 3_000);
        assertTrue(before.play(oracle, 1_000, 1_000) > 950);
        // The network slows NVC's big messages down: now VC is best by far.
        SimulatedBandit after = new SimulatedBandit(2, 0.3, 700, 600, 300);
        after.play(oracle, 1_000, 1_500);
        assertTrue(oracle.resets(1_000) >= 1, "the shift was detected");
        int share = after.play(oracle, 1_000, 1_000);
        assertTrue(share > 950, "after the shift VC chosen " + share + "/1000");
    }

    @Test
    void learnsMaxLatencyAgainWhenEveryArmSaturates() {
        UcbOracle oracle = UcbOracle.builder().bootstrap(20, 100).build();
        new SimulatedBandit(5, 0.1, 100, 100, 100).play(oracle, 50_000, 20); // a bootstrap on fast transactions
        double first = oracle.maxLatencyNanos(50_000);
        assertTrue(first < 200_000, "bound " + first);
        // then every protocol takes ten times longer: all rewards 0
        SimulatedBandit slow = new SimulatedBandit(6, 0.3, 2_000, 3_000, 1_000);
        slow.play(oracle, 50_000, 200);
        assertTrue(oracle.maxLatencyNanos(50_000) > 500_000, "bound learned again: " + oracle.maxLatencyNanos(50_000));
        int vc = slow.play(oracle, 50_000, 2_000);
        assertTrue(vc > 1_600, "and VC is found best: " + vc + "/2000");
    }

    @Test
    void learnsMaxLatencyAgainWhenItWasLearnedOnColdCode() {
        UcbOracle oracle = UcbOracle.builder().bootstrap(20, 100).build();
        // The first transactions of a fresh JVM: milliseconds each (class loading, JIT), as measured in the bank.
        new SimulatedBandit(7, 0.3, 3_000, 3_000, 3_000).play(oracle, 1, 100);
        double cold = oracle.maxLatencyNanos(1);
        assertTrue(cold > 2_000_000, "bound " + cold);
        // Warm: tens of microseconds, BFC 30% behind NVC, VC further. Every reward is above 0.98 under the cold
        // bound, so the arms cannot be told apart until the bound is learned again.
        SimulatedBandit warm = new SimulatedBandit(8, 0.3, 28, 40, 43);
        warm.play(oracle, 1, 5_000);
        assertTrue(oracle.maxLatencyNanos(1) < 200_000, "bound learned again: " + oracle.maxLatencyNanos(1));
        int resets = oracle.resets(1);
        int nvc = warm.play(oracle, 1, 10_000);
        assertTrue(nvc >= 9_500, "NVC chosen " + nvc + "/10000");
        assertEquals(resets, oracle.resets(1), "a good bound is kept");
    }

    @Test
    void aColdBoundIsLearnedAgainEvenWhenWarmLatenciesHaveHeavyTails() {
        UcbOracle oracle = UcbOracle.builder().bootstrap(20, 100).build();
        new SimulatedBandit(10, 0.3, 700, 700, 700).play(oracle, 1, 100);
        // Warm commits about a thirtieth of the bound, with a tail (spread 0.8: one in five above twice the median)
        // that keeps breaking any run of high rewards, as in the bank (p50 28 us, p99 about 250 us).
        SimulatedBandit warm = new SimulatedBandit(11, 0.8, 30, 45, 50);
        warm.play(oracle, 1, 20_000);
        assertTrue(oracle.maxLatencyNanos(1) < 300_000, "bound learned again: " + oracle.maxLatencyNanos(1));
    }

    @Test
    void aBoundThatStaysLooseIsLearnedAgainLessAndLessOften() {
        UcbOracle oracle = UcbOracle.builder().bootstrap(20, 100).build();
        // VC's latencies really are twenty times NVC's: every re-learned bound is as loose as the first.
        SimulatedBandit bandit = new SimulatedBandit(9, 0.1, 10, 400, 200);
        bandit.play(oracle, 1, 200_000);
        int resets = oracle.resets(1);
        assertTrue(resets >= 2 && resets <= 10, "re-learned the bound " + resets + " times in 200,000 transactions");
        assertTrue(bandit.play(oracle, 1, 10_000) >= 9_500, "and still chose NVC");
    }

    @Test
    void staysPutWhenNothingChanges() {
        UcbOracle oracle = UcbOracle.builder().build();
        SimulatedBandit bandit = new SimulatedBandit(3, 0.5, 150, 120, 240);
        bandit.play(oracle, 1, 50_000);
        assertEquals(0, oracle.resets(1), "noise alone reset the learner");
    }

    @Test
    void falsePositivesEarnNothing() {
        UcbOracle oracle = UcbOracle.builder().bootstrap(2, 2).build();
        TransactionProfile p = new TransactionProfile(1, 1, 8);
        oracle.record(Protocol.VC, p, 1000, Outcome.COMMITTED);
        oracle.record(Protocol.VC, p, 1000, Outcome.COMMITTED);
        oracle.record(Protocol.BFC, p, 1, Outcome.FALSE_POSITIVE);
        oracle.record(Protocol.NVC, p, 1, Outcome.OTHER);
        double[] s = oracle.mergedStatistics(1);
        assertEquals(1, s[3 * Protocol.BFC.ordinal()]);
        assertEquals(0, s[3 * Protocol.BFC.ordinal() + 1]);
        assertEquals(0, s[3 * Protocol.NVC.ordinal()], "an abort for another reason teaches nothing");
    }

    @Test
    void gossipIsDueOncePerIntervalAndOnlyWhenDistributed() {
        AtomicLong now = new AtomicLong();
        UcbOracle local = UcbOracle.builder().clock(now::get).build();
        UcbOracle dist = gossipingDistUcb().gossipInterval(Duration.ofSeconds(10))
                .clock(now::get).build();
        now.addAndGet(Duration.ofSeconds(11).toNanos());
        assertNull(local.gossipToSend());
        assertTrue(dist.gossipToSend() != null);
        assertNull(dist.gossipToSend(), "once per interval");
        now.addAndGet(Duration.ofSeconds(10).toNanos());
        assertTrue(dist.gossipToSend() != null);
    }

    @Test
    void remoteStatisticsSpeedUpLearningAndExpire() {
        AtomicLong now = new AtomicLong();
        UcbOracle a = gossipingDistUcb().clock(now::get).bootstrap(2, 2).build();
        UcbOracle b = gossipingDistUcb().clock(now::get).bootstrap(2, 2).build();
        SimulatedBandit bandit = new SimulatedBandit(4, 0.3, 150, 120, 240);
        bandit.play(a, 1, 2_000);
        now.addAndGet(Duration.ofSeconds(10).toNanos());
        b.gossipReceived(a.gossipToSend());
        double[] merged = b.mergedStatistics(1);
        double[] own = a.mergedStatistics(1);
        assertEquals(own[3 * Protocol.BFC.ordinal()], merged[3 * Protocol.BFC.ordinal()], 1e-9);
        // b has not bootstrapped its own maxLatency yet, but after it, it exploits a's knowledge at once
        b.record(Protocol.VC, new TransactionProfile(1, 1, 8), 240_000, Outcome.COMMITTED);
        b.record(Protocol.VC, new TransactionProfile(1, 1, 8), 240_000, Outcome.COMMITTED);
        int best = bandit.play(b, 1, 100);
        assertTrue(best >= 90, "b learned from a: " + best);
        now.addAndGet(Duration.ofSeconds(31).toNanos());
        assertEquals(2, b.mergedStatistics(1)[3 * Protocol.VC.ordinal()], 1e-9, "a's statistics expired");
    }

    @Test
    void malformedGossipIsRefusedWithAClearError() {
        UcbOracle oracle = gossipingDistUcb().build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> oracle.gossipReceived(new byte[] {1, 2, 3}));
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> oracle.gossipReceived(new byte[] {9}));
        assertThrows(IllegalArgumentException.class, () -> oracle.gossipReceived(new byte[0]));
    }

    /**
     * A protocol cheap for its own transactions but costly for everyone's (VC: a vote every replica waits for).
     * Latency = own cost of the arm + 150 us times the share of the other replicas playing VC (the originator's
     * early vote costs it little; the transactions queued behind it wait). Each replica alone gains by VC (40 us
     * against 100 us whatever the others do), so replicas learning apart all end on VC (190 us); played together,
     * VC costs 190 us against NVC's 100 us, and the group settles on NVC.
     */
    private static int[] playTheGroupDilemma(Duration epochs) {
        int replicas = 3;
        AtomicLong now = new AtomicLong();
        UcbOracle[] oracles = new UcbOracle[replicas];
        for (int r = 0; r < replicas; r++) {
            // bootstrap(2, 10) applies without epochs; with them the bootstrap is three epochs
            oracles[r] = UcbOracle.builder().bootstrap(2, 10).epochs(epochs).clock(now::get).build();
        }
        double[] own = {100, 130, 40};
        Protocol[] current = {Protocol.VC, Protocol.VC, Protocol.VC};
        java.util.Random random = new java.util.Random(7);
        TransactionProfile profile = new TransactionProfile(5, 1, 8);
        int[] lastChoices = new int[Protocol.values().length];
        long position = 0;
        int steps = 30_000;
        for (int step = 0; step < steps; step++) {
            int r = step % replicas;
            Protocol p = oracles[r].choose(profile);
            current[r] = p;
            long tag = oracles[r].commitTag(profile);
            position++;
            for (UcbOracle o : oracles) {
                if (tag != 0) {
                    o.commitDelivered(position, tag);
                }
            }
            int others = r;
            double onVc = java.util.stream.IntStream.range(0, replicas)
                    .filter(o -> o != others && current[o] == Protocol.VC).count() / (double) (replicas - 1);
            double micros = (own[p.ordinal()] + 150 * onVc) * (0.8 + 0.4 * random.nextDouble());
            now.addAndGet((long) (micros * 1000 / replicas)); // the replicas commit side by side
            oracles[r].record(p, profile, (long) (micros * 1000), Outcome.COMMITTED);
            if (step >= steps - 3_000) {
                lastChoices[p.ordinal()]++;
            }
        }
        return lastChoices;
    }

    @Test
    void replicasLearningApartFallIntoTheGroupDilemma() {
        int[] chosen = playTheGroupDilemma(Duration.ZERO);
        assertTrue(chosen[Protocol.VC.ordinal()] > 2_000, "VC chosen " + chosen[Protocol.VC.ordinal()]
                + " of the last 3,000 times: each replica's own latency ranks it first");
    }

    @Test
    void epochsMakeTheGroupPlayOneArmAndSeeItsCostToAll() {
        int[] chosen = playTheGroupDilemma(Duration.ofMillis(1));
        assertTrue(chosen[Protocol.NVC.ordinal()] > 2_700, "NVC chosen only " + chosen[Protocol.NVC.ordinal()]
                + " of the last 3,000 times (BFC " + chosen[Protocol.BFC.ordinal()] + ", VC "
                + chosen[Protocol.VC.ordinal()] + ")");
    }

    /** A commit tag of bucket 0 (read-sets below 10): the epoch its sender knows, a request or not, a choice. */
    private static long tag(long epochStart, Protocol epochArm, boolean request, Protocol choice) {
        return (epochStart + 1) << 8 | (request ? 1 << 7 : 0) | (epochArm == null ? 0 : epochArm.ordinal() + 1) << 5
                | (1 + choice.ordinal());
    }

    /** Delivers {@code commits} tags naming the current epoch, 100 us apart, from position {@code from} on. */
    private static long deliver(UcbOracle oracle, AtomicLong now, long from, int commits, long start, Protocol arm) {
        for (int i = 0; i < commits; i++) {
            now.addAndGet(100_000);
            oracle.commitDelivered(from + i, tag(start, arm, false, Protocol.NVC));
        }
        return from + commits;
    }

    @Test
    void theFirstRequestDeliveredStartsTheNextEpochAndTheEndedOneIsASampleOfTheGroupsRate() {
        AtomicLong now = new AtomicLong();
        UcbOracle oracle = UcbOracle.builder().epochs(Duration.ofMillis(10)).clock(now::get).build();
        TransactionProfile small = new TransactionProfile(5, 1, 8);
        TransactionProfile large = new TransactionProfile(50_000, 1, 8);
        assertEquals(Protocol.VC, oracle.choose(small), "no epoch yet, bootstrapping: VC");
        assertEquals(tag(-1, null, true, Protocol.VC), oracle.commitTag(small), "no epoch yet: asks for one");
        oracle.commitDelivered(10, tag(-1, null, true, Protocol.VC));
        oracle.commitDelivered(11, tag(-1, null, true, Protocol.NVC)); // asks to end no epoch: one started, stale
        assertEquals(Protocol.VC, oracle.choose(small));
        assertEquals(tag(10, Protocol.VC, false, Protocol.VC), oracle.commitTag(small), "not over here: no request");
        // three epochs of VC, 10 ms and 100 commits each (the last one the next epoch's request): 100 us per commit
        long start = 10;
        long position = 12;
        for (int epoch = 0; epoch < 3; epoch++) {
            position = deliver(oracle, now, position, 99, start, Protocol.VC);
            now.addAndGet(100_000);
            oracle.choose(small);
            long request = oracle.commitTag(small);
            assertEquals(tag(start, Protocol.VC, true, Protocol.VC), request, "the request names the epoch it ends");
            oracle.commitDelivered(position, request);
            start = position++;
        }
        assertEquals(200_000, oracle.maxLatencyNanos(5), 2_000, "the bound: twice the 100 us per commit");
        // an epoch of NVC, asked for by another replica; a second request ending the same epoch changes nothing
        position = deliver(oracle, now, position, 99, start, Protocol.VC);
        now.addAndGet(100_000);
        oracle.commitDelivered(position, tag(start, Protocol.VC, true, Protocol.NVC));
        oracle.commitDelivered(position + 1, tag(start, Protocol.VC, true, Protocol.BFC));
        assertEquals(Protocol.NVC, oracle.choose(small));
        // another bucket, still bootstrapping: the group's arm there
        oracle.commitDelivered(position + 2, 1L << 7 | (1 + 4 * 3 + Protocol.NVC.ordinal()));
        assertEquals(Protocol.NVC, oracle.choose(large));
        assertEquals(0, UcbOracle.builder().build().commitTag(small), "no epochs, no tag");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> oracle.commitDelivered(1_000, 30));
        assertTrue(e.getMessage().contains("tag 30"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> oracle.commitDelivered(1_000, 0));
        assertThrows(IllegalArgumentException.class, () -> oracle.commitDelivered(1_000, -1));
        assertThrows(IllegalArgumentException.class, () -> oracle.commitDecided(0, Protocol.NVC, true),
                "an outcome whose tag names no bucket");
        assertThrows(IllegalArgumentException.class,
                () -> oracle.commitDelivered(1_000, tag(2_000, Protocol.NVC, true, Protocol.NVC)),
                "names an epoch that starts later");
        assertThrows(IllegalArgumentException.class,
                () -> oracle.commitDelivered(1_000, tag(500, null, false, Protocol.NVC)), "an epoch without an arm");
        assertThrows(IllegalArgumentException.class, () -> UcbOracle.builder().epochs(Duration.ofMillis(-1)));
    }

    @Test
    void aReplicaThatKnowsAnOlderEpochAdoptsTheOneATagNamesAndMeasuresNothingOfIt() {
        AtomicLong now = new AtomicLong();
        UcbOracle group = UcbOracle.builder().epochs(Duration.ofMillis(10)).clock(now::get).build();
        UcbOracle joiner = UcbOracle.builder().epochs(Duration.ofMillis(10)).clock(now::get).build();
        TransactionProfile small = new TransactionProfile(5, 1, 8);
        // the group is on an NVC epoch that started at 500; the joiner knows none and asks for one (stale)
        group.commitDelivered(500, tag(-1, null, true, Protocol.NVC));
        long stale = joiner.commitTag(small);
        long fromGroup = group.commitTag(small);
        for (UcbOracle o : new UcbOracle[] {group, joiner}) {
            o.commitDelivered(600, stale); // names no epoch: the joiner starts one, the group ignores it
        }
        assertEquals(Protocol.VC, joiner.choose(small), "the joiner is on an epoch of its own, for now");
        for (UcbOracle o : new UcbOracle[] {group, joiner}) {
            o.commitDelivered(601, fromGroup); // names the group's epoch (500)...
        }
        assertEquals(Protocol.VC, joiner.choose(small), "...which is older than the joiner's (600): ignored");
        // the group's next request, naming 500, starts 700 at the group; the joiner, on 600, ignores it; then a
        // group tag naming 700 is later than 600: the joiner adopts it
        now.addAndGet(Duration.ofMillis(20).toNanos());
        for (UcbOracle o : new UcbOracle[] {group, joiner}) {
            o.commitDelivered(700, tag(500, Protocol.NVC, true, Protocol.BFC));
            o.commitDelivered(701, tag(700, Protocol.BFC, false, Protocol.BFC));
        }
        assertEquals(Protocol.BFC, group.choose(small));
        assertEquals(Protocol.BFC, joiner.choose(small), "adopted the group's epoch");
        assertEquals(group.commitTag(small) >>> 7, joiner.commitTag(small) >>> 7, "both name epoch 700");
        assertTrue(joiner.describe(5).contains("1 adopted"), joiner.describe(5));
    }

    @Test
    void anEpochTheBucketSpentMostlyIdleTeachesNothing() {
        AtomicLong now = new AtomicLong();
        UcbOracle oracle = UcbOracle.builder().epochs(Duration.ofMillis(10)).clock(now::get).build();
        long position = 0;
        long start = -1;
        Protocol arm = null;
        Protocol[] arms = {Protocol.VC, Protocol.VC, Protocol.VC, Protocol.VC, Protocol.NVC, Protocol.NVC};
        for (int epoch = 0; epoch < arms.length; epoch++) {
            oracle.commitDelivered(++position, tag(start, arm, true, arms[epoch]));
            start = position;
            arm = arms[epoch];
            for (int i = 0; i < 100; i++) {
                // the first NVC epoch waits 50 ms halfway through (another workload ran, or nobody committed)
                now.addAndGet(epoch == 4 && i == 50 ? 50_000_000 : 100_000);
                oracle.commitDelivered(++position, tag(start, arm, false, arm));
            }
        }
        assertEquals(200_000, oracle.maxLatencyNanos(5), 4_000, "bootstrapped on the first three epochs");
        assertEquals(0, oracle.mergedStatistics(5)[3 * Protocol.NVC.ordinal()], 1e-9,
                "the idle NVC epoch taught nothing, and the last one has not ended");
        oracle.commitDelivered(++position, tag(start, arm, true, Protocol.NVC));
        assertEquals(1, oracle.mergedStatistics(5)[3 * Protocol.NVC.ordinal()], 1e-9, "a busy NVC epoch did");
        assertTrue(oracle.describe(5).contains("NVC/BFC/VC 3/0/4 (1 idle, 0 adopted)"), oracle.describe(5));
    }

    /**
     * Plays up to {@code epochs} epochs of 100 commits in bucket 0, epoch {@code e} on {@code armOf(e)} with
     * {@code perCommit(e)} nanoseconds between commits; returns the first epoch after which {@code done} holds, or -1.
     */
    private static int playEpochs(UcbOracle oracle, AtomicLong now, int epochs,
            java.util.function.IntFunction<Protocol> armOf, java.util.function.IntToLongFunction perCommit,
            java.util.function.Predicate<UcbOracle> done) {
        long position = 0;
        long start = -1;
        Protocol arm = null;
        for (int epoch = 0; epoch < epochs; epoch++) {
            Protocol next = armOf.apply(epoch);
            oracle.commitDelivered(++position, tag(start, arm, true, next));
            start = position;
            arm = next;
            for (int i = 0; i < 100; i++) {
                now.addAndGet(perCommit.applyAsLong(epoch));
                oracle.commitDelivered(++position, tag(start, arm, false, arm));
            }
            if (done.test(oracle)) {
                return epoch;
            }
        }
        return -1;
    }

    /**
     * Plays {@code epochs} epochs of 100 commits in bucket 0, each on the arm the oracle itself asks for, the arms
     * taking {@code perCommit} nanoseconds per commit, times a factor drawn per epoch around 1 with standard
     * deviation {@code noise}; returns how many epochs each arm got.
     */
    private static int[] playOwnChoices(UcbOracle oracle, AtomicLong now, int epochs, long[] perCommit, double noise,
            long seed) {
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        TransactionProfile small = new TransactionProfile(5, 1, 8);
        int[] played = new int[3];
        long position = 0;
        long start = -1;
        Protocol arm = null;
        for (int epoch = 0; epoch < epochs; epoch++) {
            oracle.choose(small);
            long request = oracle.commitTag(small);
            Protocol next = Protocol.values()[(int) (request & 0x1F) - 1]; // what this replica would play next
            oracle.commitDelivered(++position, tag(start, arm, true, next));
            start = position;
            arm = next;
            played[arm.ordinal()]++;
            double factor = 1 + noise * random.nextGaussian();
            for (int i = 0; i < 100; i++) {
                now.addAndGet((long) (perCommit[arm.ordinal()] * factor));
                oracle.commitDelivered(++position, tag(start, arm, false, arm));
            }
        }
        return played;
    }

    @Test
    void anArmWhoseTransactionsAbortIsChargedForItEvenWithFewOutcomesPerEpoch() {
        // NVC and BFC deliver alike, but 3 of every 4 BFC transactions abort; the outcomes of an epoch's commits are
        // told with their tags (here after only 4 of them; at R = 100,000 an epoch is short of outcomes too): the
        // arm's share is counted across epochs.
        AtomicLong now = new AtomicLong();
        UcbOracle oracle = UcbOracle.builder().epochs(Duration.ofMillis(10)).clock(now::get).build();
        TransactionProfile small = new TransactionProfile(5, 1, 8);
        int[] played = new int[3];
        long position = 0;
        long start = -1;
        Protocol arm = null;
        for (int epoch = 0; epoch < 300; epoch++) {
            oracle.choose(small);
            long request = oracle.commitTag(small);
            Protocol next = Protocol.values()[(int) (request & 0x1F) - 1];
            oracle.commitDelivered(++position, tag(start, arm, true, next));
            start = position;
            arm = next;
            if (epoch >= 150) {
                played[arm.ordinal()]++;
            }
            for (int i = 0; i < 100; i++) {
                now.addAndGet(arm == Protocol.VC ? 150_000 : 100_000);
                oracle.commitDelivered(++position, tag(start, arm, false, arm));
            }
            for (int i = 0; i < 4; i++) {
                oracle.commitDecided(tag(start, arm, false, arm), arm, arm != Protocol.BFC || i == 0);
            }
        }
        assertTrue(played[Protocol.NVC.ordinal()] >= 135, "of the last 150 epochs, NVC/BFC/VC played "
                + played[0] + "/" + played[1] + "/" + played[2]);
    }

    /** Epochs lost to slower arms over 20 phases of {@code epochs} epochs each, as a share of all epochs. */
    private static double lostEpochs(UcbIndex index, int epochs, long[] perCommit, double noise, int[] played) {
        long best = Math.min(perCommit[0], Math.min(perCommit[1], perCommit[2]));
        double lost = 0;
        for (long seed = 0; seed < 20; seed++) {
            AtomicLong now = new AtomicLong();
            UcbOracle oracle = UcbOracle.builder().index(index).epochs(Duration.ofMillis(10)).clock(now::get).build();
            int[] p = playOwnChoices(oracle, now, epochs, perCommit, noise, seed);
            for (int a = 0; a < 3; a++) {
                played[a] += p[a];
                lost += p[a] * (1 - (double) best / perCommit[a]);
            }
        }
        return lost / (20.0 * epochs);
    }

    @Test
    void gaussianKlUcbSpendsFewerOfAShortPhasesEpochsOnASlowArm() {
        // R = 100,000 in the switching benchmark: VC best, NVC 6% slower, BFC a third slower; some forty epochs
        long[] perCommit = {10_600_000, 15_400_000, 10_000_000};
        int[] tuned = new int[3];
        int[] kl = new int[3];
        double tunedLost = lostEpochs(UcbIndex.UCB1_TUNED, 40, perCommit, 0.05, tuned);
        double klLost = lostEpochs(UcbIndex.KL_UCB_GAUSSIAN, 40, perCommit, 0.05, kl);
        int bfc = Protocol.BFC.ordinal();
        System.out.printf(java.util.Locale.ROOT, "R = 100,000's shape, 40 epochs, 5%% noise: lost %.1f%% (BFC %d"
                + " epochs) with UCB1-Tuned, %.1f%% (BFC %d) with KL-UCB%n", 100 * tunedLost, tuned[bfc], 100 * klLost,
                kl[bfc]);
        assertTrue(kl[bfc] * 2 <= tuned[bfc], "epochs on BFC over 20 phases: UCB1-Tuned " + tuned[bfc] + ", KL-UCB "
                + kl[bfc]);
        assertTrue(klLost * 1.5 <= tunedLost, "share lost: UCB1-Tuned " + tunedLost + ", KL-UCB " + klLost);
    }

    @Test
    void gaussianKlUcbLosesLessThanUcb1TunedAlsoWhenEpochsAreNoisy() {
        // R = 1,000: NVC best, BFC 12% and VC 20% slower; epochs 15% apart from one another at random
        long[] perCommit = {10_000_000, 11_200_000, 12_000_000};
        for (int epochs : new int[] {40, 400}) {
            int[] played = new int[3];
            double tunedLost = lostEpochs(UcbIndex.UCB1_TUNED, epochs, perCommit, 0.15, new int[3]);
            double klLost = lostEpochs(UcbIndex.KL_UCB_GAUSSIAN, epochs, perCommit, 0.15, played);
            System.out.printf(java.util.Locale.ROOT, "R = 1,000's shape, %d epochs, 15%% noise: lost %.1f%% with"
                    + " UCB1-Tuned, %.1f%% with KL-UCB%n", epochs, 100 * tunedLost, 100 * klLost);
            assertTrue(klLost < tunedLost, epochs + " epochs, share lost: UCB1-Tuned " + tunedLost + ", KL-UCB "
                    + klLost);
            assertTrue(played[Protocol.NVC.ordinal()] > played[Protocol.BFC.ordinal()] + played[Protocol.VC.ordinal()],
                    "the best arm most of the time: " + java.util.Arrays.toString(played));
        }
    }

    @Test
    void anEpochBoundLearnedOnColdCodeIsLearnedAgainWithinAboutEightyEpochs() {
        AtomicLong now = new AtomicLong();
        UcbOracle oracle = UcbOracle.builder().epochs(Duration.ofMillis(10)).clock(now::get).build();
        // the first epochs run cold, 100 times slower; the arms alternate
        int relearned = playEpochs(oracle, now, 200, e -> e % 2 == 0 ? Protocol.NVC : Protocol.VC,
                e -> e < 3 ? 2_000_000 : 20_000, o -> o.maxLatencyNanos(5) < 100_000);
        assertTrue(relearned > 3 && relearned - 3 <= 100, "bound learned again after " + (relearned - 3)
                + " warm epochs: " + oracle.describe(5));
        assertTrue(oracle.describe(5).contains("0 times (saturated) and 1 (loose)"), oracle.describe(5));
    }

    @Test
    void anEpochShiftIsSeenWithinFiftyEpochs() {
        AtomicLong now = new AtomicLong();
        UcbOracle oracle = UcbOracle.builder().epochs(Duration.ofMillis(10)).clock(now::get).build();
        // 200 us per commit to bootstrap, then 50 us for 200 epochs, then 120 us: the workload changed
        int seen = playEpochs(oracle, now, 300, e -> Protocol.NVC, e -> e < 3 ? 200_000 : e < 203 ? 50_000 : 120_000,
                o -> o.describe(5).contains("shifts 1"));
        assertTrue(seen > 203 && seen - 203 <= 50, "shift seen after " + (seen - 203) + " epochs: "
                + oracle.describe(5));
    }

    @Test
    void builderRefusesNonsense() {
        assertThrows(IllegalArgumentException.class, () -> UcbOracle.builder().bootstrap(1, 10));
        assertThrows(IllegalArgumentException.class, () -> UcbOracle.builder().epochCommits(1));
        assertThrows(IllegalArgumentException.class, () -> UcbOracle.builder().bootstrap(20, 10));
        assertThrows(IllegalArgumentException.class, () -> UcbOracle.builder().halfLife(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> UcbOracle.builder().gossipInterval(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> UcbOracle.builder().driftShift(-1));
    }
}
