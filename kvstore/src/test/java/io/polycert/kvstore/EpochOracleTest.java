package io.polycert.kvstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.TransactionAbortedException;
import io.polycert.core.VBox;
import io.polycert.core.testing.Await;
import io.polycert.oracle.Outcome;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import io.polycert.oracle.TransactionProfile;
import io.polycert.oracle.UcbOracle;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** DistUCB's epochs over three in-JVM replicas: the arms they play are agreed in the total order. */
class EpochOracleTest {
    private static final Pattern EPOCHS = Pattern.compile("epochs on NVC/BFC/VC (\\d+)/(\\d+)/(\\d+)");
    private static final Pattern OUTCOMES = Pattern.compile("committed (\\d+)/(\\d+), (\\d+)/(\\d+), (\\d+)/(\\d+)");
    private final ReplicaCluster cluster = new ReplicaCluster();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        pool.shutdownNow();
        cluster.close();
    }

    /** Every seventh commit of replica A carries a tag (31: no bucket) no oracle takes: dropped and logged alike. */
    private static ProtocolOracle garblingEveryFew(UcbOracle oracle) {
        AtomicInteger commits = new AtomicInteger();
        return new ProtocolOracle() {
            @Override
            public Protocol choose(TransactionProfile profile) {
                return oracle.choose(profile);
            }

            @Override
            public void record(Protocol protocol, TransactionProfile profile, long latencyNanos, Outcome outcome) {
                oracle.record(protocol, profile, latencyNanos, outcome);
            }

            @Override
            public long commitTag(TransactionProfile profile) {
                return commits.incrementAndGet() % 7 == 0 ? 31 : oracle.commitTag(profile);
            }

            @Override
            public void commitDelivered(long position, long tag) {
                oracle.commitDelivered(position, tag);
            }

            @Override
            public void commitDecided(long tag, Protocol protocol, boolean committed) {
                oracle.commitDecided(tag, protocol, committed);
            }
        };
    }

    @Test
    void everyReplicaPlaysTheArmsAgreedInTheTotalOrder() throws Exception {
        List<UcbOracle> oracles = new ArrayList<>();
        List<Replica> rs = new ArrayList<>();
        for (String n : List.of("A", "B", "C")) {
            UcbOracle oracle = UcbOracle.builder().epochs(java.time.Duration.ofMillis(2)).build();
            oracles.add(oracle);
            rs.add(cluster.start(n, n.equals("A") ? garblingEveryFew(oracle) : oracle));
        }
        VBox<Long> counter = rs.get(0).root("counter");
        rs.get(0).stm().atomic(() -> counter.put(0L));
        int perWorker = 150;
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int w = 0; w < rs.size() * 2; w++) {
            Replica r = rs.get(w % rs.size());
            int worker = w;
            workers.add(CompletableFuture.runAsync(() -> {
                SplittableRandom random = new SplittableRandom(worker);
                VBox<Long> mine = r.root("worker-" + worker);
                for (int t = 0; t < perWorker; t++) {
                    while (true) {
                        try {
                            r.stm().atomic(() -> {
                                mine.put((mine.get() == null ? 0 : mine.get()) + 1);
                                if (random.nextInt(10) == 0) {
                                    VBox<Long> shared = r.root("counter");
                                    shared.put(shared.get() + 1);
                                }
                            });
                            break;
                        } catch (TransactionAbortedException e) {
                            assertTrue(e.abortCause().isRetryable(), e.toString());
                        }
                    }
                }
            }, pool));
        }
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get();
        Await.until("replicas at the same version", () -> rs.stream()
                .mapToLong(r -> r.stm().latestVersion()).distinct().count() == 1);
        for (int w = 0; w < rs.size() * 2; w++) {
            int worker = w;
            for (Replica r : rs) {
                assertEquals(perWorker, r.stm().readOnly(() -> r.<Long>root("worker-" + worker).get()),
                        r + " lost commits of worker " + worker);
            }
        }
        // The same tags at the same positions: every replica counted the same epochs on the same arms, and heard
        // the same outcomes, which weigh the epochs' rates.
        String agreed = epochs(oracles.get(0));
        for (UcbOracle o : oracles) {
            assertEquals(agreed, epochs(o), "epochs played differ between replicas");
        }
        // The last outcomes may still be on their way (a vote reaches the others after its originator).
        Await.until("every replica heard the same outcomes", () -> oracles.stream()
                .map(EpochOracleTest::outcomes).distinct().count() == 1);
        String outcomes = outcomes(oracles.get(0));
        Matcher heard = OUTCOMES.matcher(outcomes);
        assertTrue(heard.find());
        long decided = Long.parseLong(heard.group(2)) + Long.parseLong(heard.group(4)) + Long.parseLong(heard.group(6));
        assertTrue(decided >= 100, "only " + decided + " outcomes heard: " + outcomes);
        Matcher m = EPOCHS.matcher(agreed);
        assertTrue(m.find());
        long total = Long.parseLong(m.group(1)) + Long.parseLong(m.group(2)) + Long.parseLong(m.group(3));
        // at least 32 commits and 2 ms each: at most 28 here; a fast run plays fewer, longer ones
        assertTrue(total >= 5, "only " + total + " epochs in " + rs.size() * 2 * perWorker + " commits: " + agreed);
    }

    @Test
    void aJoiningReplicaAndTheGroupAgreeOnAnEpochOnceTheyHearFromEachOther() throws Exception {
        List<UcbOracle> oracles = new ArrayList<>();
        List<Replica> rs = new ArrayList<>();
        for (String n : List.of("A", "B", "C")) {
            if (n.equals("C")) { // joins once A and B have played epochs: it takes their state, not their oracles'
                commitsEach(rs, 100);
            }
            UcbOracle oracle = UcbOracle.builder().epochs(java.time.Duration.ofMillis(2)).build();
            oracles.add(oracle);
            rs.add(cluster.start(n, oracle));
        }
        commitsEach(rs, 100);
        Await.until("replicas at the same version", () -> rs.stream()
                .mapToLong(r -> r.stm().latestVersion()).distinct().count() == 1);
        String current = current(oracles.get(0));
        assertTrue(!current.endsWith("none"), current);
        for (UcbOracle o : oracles) {
            assertEquals(current, current(o), "replicas on different epochs: " + o.describe(1));
        }
        // The joiner took the group's epoch, or (if its own first request came first) the group took the joiner's.
        long adopted = oracles.stream().mapToLong(o -> adopted(o.describe(1))).sum();
        assertTrue(adopted >= 1, "nobody adopted an epoch: " + oracles.get(2).describe(1));
    }

    private void commitsEach(List<Replica> rs, int commits) throws Exception {
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (Replica r : rs) {
            workers.add(CompletableFuture.runAsync(() -> {
                VBox<Long> mine = r.root("own-" + r);
                for (int t = 0; t < commits; t++) {
                    r.stm().atomic(() -> mine.put((mine.get() == null ? 0 : mine.get()) + 1));
                }
            }, pool));
        }
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get();
    }

    private static long adopted(String description) {
        Matcher m = Pattern.compile("(\\d+) adopted").matcher(description);
        assertTrue(m.find(), description);
        return Long.parseLong(m.group(1));
    }

    private static String current(UcbOracle oracle) {
        String d = oracle.describe(1);
        return d.substring(d.indexOf("; current ") + 2);
    }

    private static String outcomes(UcbOracle oracle) {
        Matcher m = OUTCOMES.matcher(oracle.describe(1));
        assertTrue(m.find(), oracle.describe(1));
        return m.group();
    }

    private static String epochs(UcbOracle oracle) {
        Matcher m = EPOCHS.matcher(oracle.describe(1));
        assertTrue(m.find(), oracle.describe(1));
        return m.group();
    }
}
