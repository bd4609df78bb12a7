package io.polycert.kvstore;

import io.polycert.core.testing.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.AbortCause;
import io.polycert.core.Stm;
import io.polycert.core.Transaction;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.VBox;
import io.polycert.core.testing.History;
import io.polycert.core.testing.SerializationGraphChecker;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Full replication over three in-JVM replicas: agreement, serializability, the bank invariant, failures. */
class ReplicatedStmTest {
    private final ReplicaCluster cluster = new ReplicaCluster();
    /** Workers block on commits: they need threads of their own, not the (1-thread here) common pool. */
    private final java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        pool.shutdownNow();
        cluster.close();
    }

    @SuppressWarnings("unchecked")
    private static VBox<VBox<Long>[]> openAccounts(Replica r, int n, long initial) {
        VBox<VBox<Long>[]> accounts = r.root("accounts");
        r.stm().atomic(() -> {
            if (accounts.get() == null) {
                VBox<Long>[] a = new VBox[n];
                for (int i = 0; i < n; i++) {
                    a[i] = r.stm().newBox(initial);
                }
                accounts.put(a);
            }
        });
        return accounts;
    }

    private static void awaitSameVersion(List<Replica> replicas) {
        Await.until("replicas at the same version", () -> replicas.stream()
                .mapToLong(r -> r.stm().latestVersion()).distinct().count() == 1);
    }

    @Test
    void mixedProtocolsKeepReplicasIdenticalAndHistoriesSerializable() throws Exception {
        List<Replica> rs = new ArrayList<>();
        for (String n : List.of("A", "B", "C")) {
            rs.add(cluster.start(n, ReplicaCluster.randomOracle(n.hashCode())));
        }
        VBox<VBox<Long>[]> root = openAccounts(rs.get(0), 12, History.INITIAL_VALUE);
        Await.until("accounts everywhere", () -> rs.stream().allMatch(r -> r.stm().readOnly(
                () -> r.<VBox<Long>[]>root("accounts").get()) != null));
        History history = new History();
        AtomicLong unique = new AtomicLong();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int w = 0; w < rs.size() * 2; w++) {
            Replica r = rs.get(w % rs.size());
            int worker = w;
            workers.add(CompletableFuture.runAsync(() -> {
                SplittableRandom random = new SplittableRandom(worker);
                VBox<VBox<Long>[]> accounts = r.root("accounts");
                for (int t = 0; t < 150; t++) {
                    boolean readOnly = random.nextInt(4) == 0;
                    while (true) {
                        History.Recorder rec = new History.Recorder(r + "/" + worker + "." + t);
                        Transaction tx = readOnly ? r.stm().beginReadOnly() : r.stm().begin();
                        VBox<Long>[] a = accounts.get();
                        int ops = 1 + random.nextInt(6);
                        for (int o = 0; o < ops; o++) {
                            VBox<Long> box = a[random.nextInt(a.length)];
                            if (!readOnly && random.nextInt(3) == 0) {
                                long v = unique.incrementAndGet();
                                box.put(v);
                                rec.write(box.id(), v);
                            } else {
                                rec.read(box.id(), box.get());
                            }
                        }
                        try {
                            tx.commit();
                            history.add(rec.committedAt(tx.commitVersion()));
                            break;
                        } catch (TransactionAbortedException e) {
                            assertTrue(e.abortCause().isRetryable(), e.toString());
                        }
                    }
                }
            }, pool));
        }
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get();
        awaitSameVersion(rs);
        long h = ReplicaCluster.stateHash(rs.get(0), root);
        for (Replica r : rs) {
            assertEquals(h, ReplicaCluster.stateHash(r, r.root("accounts")), r + " diverged");
        }
        SerializationGraphChecker.check(history).assertSerializable();
        long used = 0;
        for (Protocol p : Protocol.values()) {
            long c = 0;
            for (Replica r : rs) {
                c += r.statistics().of(p).committed();
            }
            assertTrue(c > 0, "no transaction committed with " + p);
            used += c;
        }
        assertTrue(used > 100, "too few commits: " + used);
    }

    @Test
    void bankTotalHoldsAtEveryReplicaUnderConcurrentAudits() throws Exception {
        List<Replica> rs = new ArrayList<>();
        for (String n : List.of("A", "B", "C")) {
            rs.add(cluster.start(n, ReplicaCluster.randomOracle(n.hashCode() * 7L)));
        }
        int accounts = 50;
        openAccounts(rs.get(1), accounts, 100);
        Await.until("accounts everywhere", () -> rs.stream().allMatch(r -> r.stm().readOnly(
                () -> r.<VBox<Long>[]>root("accounts").get()) != null));
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int w = 0; w < 6; w++) {
            Replica r = rs.get(w % 3);
            int worker = w;
            workers.add(CompletableFuture.runAsync(() -> {
                SplittableRandom random = new SplittableRandom(worker * 31L);
                Stm stm = r.stm();
                VBox<VBox<Long>[]> root = r.root("accounts");
                for (int t = 0; t < 200; t++) {
                    if (worker % 2 == 0) {
                        long total = stm.readOnly(() -> {
                            long s = 0;
                            for (VBox<Long> b : root.get()) {
                                s += b.get();
                            }
                            return s;
                        });
                        assertEquals(100L * accounts, total, "an audit at " + r + " saw a wrong total");
                    } else {
                        int from = random.nextInt(accounts);
                        int to = random.nextInt(accounts);
                        long amount = random.nextInt(20);
                        stm.atomic(() -> {
                            VBox<Long>[] a = root.get();
                            a[from].put(a[from].get() - amount);
                            a[to].put(a[to].get() + amount);
                        });
                    }
                }
            }, pool));
        }
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get();
        awaitSameVersion(rs);
        for (Replica r : rs) {
            long total = r.stm().readOnly(() -> {
                long s = 0;
                for (VBox<Long> b : r.<VBox<Long>[]>root("accounts").get()) {
                    s += b.get();
                }
                return s;
            });
            assertEquals(100L * accounts, total, r + " broke the invariant");
        }
    }

    @Test
    void aJoiningReplicaGetsEveryBoxAndFollows() throws Exception {
        Replica a = cluster.start("A", ProtocolOracle.always(Protocol.NVC));
        Replica b = cluster.start("B", ProtocolOracle.always(Protocol.BFC));
        VBox<VBox<Long>[]> root = openAccounts(a, 20, 10);
        CompletableFuture<Void> load = CompletableFuture.runAsync(() -> {
            SplittableRandom random = new SplittableRandom(5);
            for (int t = 0; t < 400; t++) {
                int i = random.nextInt(20);
                int j = random.nextInt(20);
                Replica r = t % 2 == 0 ? a : b;
                r.stm().atomic(() -> {
                    VBox<Long>[] acc = r.<VBox<Long>[]>root("accounts").get();
                    acc[i].put(acc[i].get() - 1);
                    acc[j].put(acc[j].get() + 1);
                });
            }
        }, pool);
        Thread.sleep(100);
        Replica c = cluster.start("C", ProtocolOracle.always(Protocol.VC));
        load.get();
        c.stm().atomic(() -> {
            VBox<Long>[] acc = c.<VBox<Long>[]>root("accounts").get();
            acc[0].put(acc[0].get() + 5);
            acc[1].put(acc[1].get() - 5);
        });
        awaitSameVersion(List.of(a, b, c));
        long h = ReplicaCluster.stateHash(a, root);
        assertEquals(h, ReplicaCluster.stateHash(b, b.root("accounts")));
        assertEquals(h, ReplicaCluster.stateHash(c, c.root("accounts")));
    }

    @Test
    void boxesOutsideTransactionsAreRefusedAndBadValuesAbortCleanly() {
        Replica a = cluster.start("A", ProtocolOracle.always(Protocol.NVC));
        IllegalStateException outside = assertThrows(IllegalStateException.class, () -> a.stm().newBox(1L));
        assertTrue(outside.getMessage().contains("inside stm.atomic"), outside.getMessage());
        VBox<Object> root = a.root("x");
        TransactionAbortedException bad = assertThrows(TransactionAbortedException.class,
                () -> a.stm().atomic(() -> root.put(new StringBuilder("no codec for me"))));
        assertEquals(AbortCause.BAD_VALUE, bad.abortCause());
        assertEquals(null, a.stm().readOnly(root::get));
        assertEquals(0, a.stm().latestVersion());
    }
}
