package io.polycert.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.polycert.core.testing.History;
import io.polycert.core.testing.SerializationGraphChecker;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Random concurrent histories on a real {@link Stm}: every history of committed transactions must have an acyclic
 * serialization graph, read-only snapshots must be consistent, and money in a bank must neither appear nor vanish.
 */
class ConcurrentHistoryTest {

    record Workload(int threads, int boxes, int txnsPerThread, int maxOps, int readOnlyPercent, long seed) {
    }

    @Provide
    Arbitrary<Workload> workloads() {
        return Combinators.combine(
                Arbitraries.integers().between(2, 4),
                Arbitraries.integers().between(2, 8),
                Arbitraries.integers().between(20, 300),
                Arbitraries.integers().between(1, 6),
                Arbitraries.integers().between(0, 50),
                Arbitraries.longs()).as(Workload::new);
    }

    @Property(tries = 40)
    void committedHistoriesAreSerializable(@ForAll("workloads") Workload w) throws Exception {
        Stm stm = Stm.create();
        List<VBox<Long>> boxes = new ArrayList<>();
        for (int i = 0; i < w.boxes(); i++) {
            boxes.add(stm.newBox(History.INITIAL_VALUE));
        }
        History history = new History();
        AtomicLong uniqueValues = new AtomicLong();
        AtomicLong conflicts = new AtomicLong();
        runThreads(w.threads(), thread -> {
            Random random = new Random(w.seed() * 31 + thread);
            for (int t = 0; t < w.txnsPerThread(); t++) {
                boolean readOnly = random.nextInt(100) < w.readOnlyPercent();
                int ops = 1 + random.nextInt(w.maxOps());
                int[] boxOf = new int[ops];
                boolean[] isWrite = new boolean[ops];
                for (int o = 0; o < ops; o++) {
                    boxOf[o] = random.nextInt(w.boxes());
                    isWrite[o] = !readOnly && random.nextBoolean();
                }
                String name = "t" + thread + "." + t;
                for (int attempt = 0; ; attempt++) {
                    History.Recorder rec = new History.Recorder(name);
                    Transaction tx = readOnly ? stm.beginReadOnly() : stm.begin();
                    for (int o = 0; o < ops; o++) {
                        VBox<Long> box = boxes.get(boxOf[o]);
                        if (isWrite[o]) {
                            long v = uniqueValues.incrementAndGet();
                            box.put(v);
                            rec.write(box.id(), v);
                        } else {
                            rec.read(box.id(), box.get());
                        }
                        if (random.nextInt(4) == 0) {
                            Thread.yield(); // widen the windows for conflicts
                        }
                    }
                    try {
                        tx.commit();
                        history.add(rec.committedAt(tx.commitVersion()));
                        break;
                    } catch (TransactionAbortedException e) {
                        assertEquals(AbortCause.CONFLICT, e.abortCause());
                        conflicts.incrementAndGet();
                    }
                }
            }
        });
        assertEquals(w.threads() * w.txnsPerThread(), history.size());
        SerializationGraphChecker.check(history).assertSerializable();
        Statistics.label("conflicts").collect(conflicts.get() == 0 ? "none" : "some");
        Statistics.label("conflicts").coverage(c -> c.check("some").percentage(p -> p > 20));
    }

    @Property(tries = 15)
    void bankTotalIsConstantAndAuditsSeeConsistentSnapshots(
            @ForAll("workloads") Workload w) throws Exception {
        Stm stm = Stm.create();
        int accounts = w.boxes() * 4;
        List<VBox<Long>> balance = new ArrayList<>();
        for (int i = 0; i < accounts; i++) {
            balance.add(stm.newBox(1000L));
        }
        long expected = 1000L * accounts;
        runThreads(w.threads() + 1, thread -> {
            Random random = new Random(w.seed() + thread);
            for (int t = 0; t < w.txnsPerThread() * 4; t++) {
                if (thread == 0 || random.nextInt(100) < w.readOnlyPercent()) {
                    long total = stm.readOnly(() -> balance.stream().mapToLong(VBox::get).sum());
                    assertEquals(expected, total, "an audit saw an inconsistent snapshot");
                } else {
                    int from = random.nextInt(accounts);
                    int to = random.nextInt(accounts);
                    long amount = random.nextInt(50);
                    stm.atomic(() -> {
                        balance.get(from).put(balance.get(from).get() - amount);
                        balance.get(to).put(balance.get(to).get() + amount);
                    });
                }
            }
        });
        assertEquals(expected, (long) stm.readOnly(() -> balance.stream().mapToLong(VBox::get).sum()));
    }

    /**
     * Long read-only transactions re-read every box while writers churn and the collector runs: each read must
     * still find the snapshot's version, and all boxes (always written together) must agree.
     */
    @Property(tries = 10)
    void collectorNeverDropsAVersionALiveSnapshotNeeds(@ForAll("workloads") Workload w) throws Exception {
        Stm stm = Stm.create();
        List<VBox<Long>> boxes = new ArrayList<>();
        for (int i = 0; i < w.boxes(); i++) {
            boxes.add(stm.newBox(0L));
        }
        runThreads(w.threads() + 1, thread -> {
            Random random = new Random(w.seed() ^ thread);
            for (int t = 0; t < w.txnsPerThread(); t++) {
                if (thread % 2 == 0) {
                    stm.readOnly(() -> {
                        long first = boxes.get(0).get();
                        for (int pass = 0; pass < 1 + random.nextInt(3); pass++) {
                            for (VBox<Long> b : boxes) {
                                assertEquals(first, b.get());
                            }
                            Thread.yield();
                        }
                    });
                } else {
                    long v = random.nextLong();
                    stm.atomic(() -> boxes.forEach(b -> b.put(v)));
                }
            }
        });
    }

    interface ThreadBody {
        void run(int thread) throws Exception;
    }

    static void runThreads(int n, ThreadBody body) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CyclicBarrier start = new CyclicBarrier(n);
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int thread = i;
                done.add(CompletableFuture.runAsync(() -> {
                    try {
                        start.await();
                        body.run(thread);
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                }, pool));
            }
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
        } finally {
            pool.shutdownNow();
        }
    }
}
