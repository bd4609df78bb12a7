package io.polycert.kvstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.ReadOnlyTransactionException;
import io.polycert.core.Stm;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.codec.UnregisteredTypeException;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.testing.Await;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The fully replicated {@link TxMap}: replication, removal, the bank invariant, bad input, state transfer. */
class ReplicatedTxMapTest {
    private final ReplicaCluster cluster = new ReplicaCluster();
    /** Workers block on commits: they need threads of their own. */
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        pool.shutdownNow();
        cluster.close();
    }

    private static void awaitSameVersion(List<Replica> replicas) {
        Await.until("replicas at the same version", () -> replicas.stream()
                .mapToLong(r -> r.stm().latestVersion()).distinct().count() == 1);
    }

    @Test
    void keyIdsAreDeterministicNegativeAndDistinct() {
        ValueCodec codec = ValueCodec.standard();
        byte[] k1 = codec.toBytes(1);
        assertEquals(ReplicaIds.keyId("accounts", k1), ReplicaIds.keyId("accounts", codec.toBytes(1)));
        assertTrue(ReplicaIds.keyId("accounts", k1) < 0);
        assertTrue(ReplicaIds.keyId("", new byte[0]) < 0);
        assertNotEquals(ReplicaIds.keyId("accounts", k1), ReplicaIds.keyId("accounts", codec.toBytes(2)));
        assertNotEquals(ReplicaIds.keyId("accounts", k1), ReplicaIds.keyId("balances", k1));
        assertNotEquals(ReplicaIds.keyId("accounts", k1), ReplicaIds.keyId("accounts", codec.toBytes(1L)));
        // the separator keeps name/key boundaries apart: "ab" + [c] is not "a" + [b, c]
        assertNotEquals(ReplicaIds.keyId("ab", new byte[] {'c'}), ReplicaIds.keyId("a", new byte[] {'b', 'c'}));
        assertNotEquals(ReplicaIds.rootId("accounts"), ReplicaIds.keyId("accounts", new byte[0]));
        java.util.Set<Long> ids = new java.util.HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            assertTrue(ids.add(ReplicaIds.keyId("m", codec.toBytes(i))), "collision at " + i);
        }
    }

    @Test
    void aPutOnOneReplicaIsVisibleOnTheOthersAndRemovesToo() {
        Replica a = cluster.start("A", ProtocolOracle.always(Protocol.NVC));
        Replica b = cluster.start("B", ProtocolOracle.always(Protocol.BFC));
        Replica c = cluster.start("C", ProtocolOracle.always(Protocol.VC));
        TxMap<String, Long> onA = a.map("balances");
        assertEquals("balances", onA.name());
        a.stm().atomic(() -> {
            onA.put("alice", 10L);
            onA.put("bob", 20L);
            assertEquals(10L, onA.get("alice"), "a transaction reads its own writes");
        });
        for (Replica r : List.of(a, b, c)) {
            TxMap<String, Long> m = r.map("balances");
            Await.until("alice and bob on " + r, () -> Long.valueOf(10L).equals(m.get("alice"))
                    && Long.valueOf(20L).equals(m.get("bob")));
            assertTrue(r.stm().readOnly(() -> m.containsKey("alice")));
            assertFalse(m.containsKey("carol"));
            assertNull(r.<String, Long>map("other").get("alice"), "maps of other names are independent");
        }

        TxMap<String, Long> onB = b.map("balances");
        b.stm().atomic(() -> {
            onB.remove("alice");
            onB.remove("nobody"); // absent: nothing happens
            assertNull(onB.get("alice"));
            assertFalse(onB.containsKey("alice"));
            onB.put("bob", onB.get("bob") + 1);
        });
        for (Replica r : List.of(a, b, c)) {
            TxMap<String, Long> m = r.map("balances");
            Await.until("alice removed on " + r, () -> !m.containsKey("alice")
                    && Long.valueOf(21L).equals(m.get("bob")));
        }
        // A removed key can be put again.
        c.stm().atomic(() -> c.<String, Long>map("balances").put("alice", 5L));
        Await.until("alice back on A", () -> Long.valueOf(5L).equals(onA.get("alice")));
    }

    @Test
    void transfersKeepTheBankTotalOnEveryReplica() throws Exception {
        List<Replica> rs = new ArrayList<>();
        for (String n : List.of("A", "B", "C")) {
            rs.add(cluster.start(n, ReplicaCluster.randomOracle(n.hashCode() * 13L)));
        }
        int accounts = 20;
        long initial = 100;
        long expected = accounts * initial;
        TxMap<Integer, Long> first = rs.get(0).map("bank");
        rs.get(0).stm().atomic(() -> {
            for (int i = 0; i < accounts; i++) {
                first.put(i, initial);
            }
        });
        for (Replica r : rs) {
            TxMap<Integer, Long> m = r.map("bank");
            Await.until("accounts on " + r, () -> m.get(accounts - 1) != null);
        }
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong committed = new AtomicLong();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int w = 0; w < 9; w++) {
            Replica r = rs.get(w % rs.size());
            int worker = w;
            workers.add(CompletableFuture.runAsync(() -> {
                SplittableRandom random = new SplittableRandom(worker * 31L + 7);
                Stm stm = r.stm();
                TxMap<Integer, Long> bank = r.map("bank");
                while (running.get()) {
                    if (worker % 3 == 2) { // an auditor
                        long total = stm.readOnly(() -> {
                            long s = 0;
                            for (int i = 0; i < accounts; i++) {
                                s += bank.get(i);
                            }
                            return s;
                        });
                        assertEquals(expected, total, "an audit at " + r + " saw a wrong total");
                        continue;
                    }
                    int from = random.nextInt(accounts);
                    int to = random.nextInt(accounts);
                    long amount = random.nextInt(1, 30);
                    try {
                        stm.atomic(() -> {
                            bank.put(from, bank.get(from) - amount);
                            bank.put(to, bank.get(to) + amount);
                        });
                        committed.incrementAndGet();
                    } catch (TransactionAbortedException e) {
                        assertTrue(e.abortCause().isRetryable(), e.toString()); // gave up under contention
                    }
                }
            }, pool));
        }
        Thread.sleep(2_500);
        running.set(false);
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get();
        assertTrue(committed.get() > 50, "too few transfers committed: " + committed.get());
        awaitSameVersion(rs);
        long[] reference = null;
        for (Replica r : rs) {
            TxMap<Integer, Long> bank = r.map("bank");
            long[] balances = r.stm().readOnly(() -> {
                long[] b = new long[accounts];
                for (int i = 0; i < accounts; i++) {
                    b[i] = bank.get(i);
                }
                return b;
            });
            assertEquals(expected, java.util.Arrays.stream(balances).sum(), r + " broke the invariant");
            if (reference == null) {
                reference = balances;
            } else {
                assertArrayEquals(reference, balances, r + " diverged");
            }
        }
    }

    @Test
    void unencodableKeysAndValuesAreRefusedAndNothingIsWritten() {
        Replica a = cluster.start("A", ProtocolOracle.always(Protocol.NVC));
        TxMap<Object, Object> m = a.map("things");
        assertThrows(UnregisteredTypeException.class, () -> a.stm().atomic(() -> m.put(1, new Object())));
        assertThrows(UnregisteredTypeException.class, () -> a.stm().atomic(() -> m.put(new Object(), 1L)));
        assertThrows(UnregisteredTypeException.class, () -> a.stm().atomic(() -> m.remove(new StringBuilder())));
        // a good write earlier in the same transaction goes with it
        assertThrows(UnregisteredTypeException.class, () -> a.stm().atomic(() -> {
            m.put(2, "fine");
            m.put(3, new Object());
        }));
        assertEquals(0, a.stm().latestVersion(), "nothing committed");
        assertNull(m.get(1));
        assertNull(m.get(2));
        assertFalse(m.containsKey(3));
    }

    @Test
    void writesNeedAReadWriteTransactionAndNonNullArguments() {
        Replica a = cluster.start("A", ProtocolOracle.always(Protocol.NVC));
        TxMap<String, Long> m = a.map("m");
        IllegalStateException put = assertThrows(IllegalStateException.class, () -> m.put("k", 1L));
        assertTrue(put.getMessage().contains("transaction"), put.getMessage());
        assertThrows(IllegalStateException.class, () -> m.remove("k"));
        assertEquals(0, a.stm().latestVersion(), "a write outside a transaction committed nothing");

        assertThrows(ReadOnlyTransactionException.class, () -> a.stm().readOnly(() -> m.put("k", 1L)));
        assertThrows(ReadOnlyTransactionException.class, () -> a.stm().readOnly(() -> m.remove("k")));

        NullPointerException nullKey = assertThrows(NullPointerException.class,
                () -> a.stm().atomic(() -> m.put(null, 1L)));
        assertTrue(nullKey.getMessage().contains("key"), nullKey.getMessage());
        NullPointerException nullValue = assertThrows(NullPointerException.class,
                () -> a.stm().atomic(() -> m.put("k", null)));
        assertTrue(nullValue.getMessage().contains("value"), nullValue.getMessage());
        assertThrows(NullPointerException.class, () -> m.get(null));

        assertThrows(NullPointerException.class, () -> a.map(null));
        assertThrows(IllegalArgumentException.class, () -> a.map(""));
        assertEquals(0, a.stm().latestVersion());
    }

    @Test
    void aReplicaJoiningLaterSeesTheExistingEntries() {
        Replica a = cluster.start("A", ProtocolOracle.always(Protocol.NVC));
        Replica b = cluster.start("B", ProtocolOracle.always(Protocol.BFC));
        TxMap<Integer, String> onA = a.map("names");
        a.stm().atomic(() -> {
            for (int i = 0; i < 50; i++) {
                onA.put(i, "v" + i);
            }
        });
        TxMap<Integer, String> onB = b.map("names");
        b.stm().atomic(() -> onB.remove(7));
        awaitSameVersion(List.of(a, b));

        Replica c = cluster.start("C", ProtocolOracle.always(Protocol.VC));
        TxMap<Integer, String> onC = c.map("names");
        c.stm().readOnly(() -> {
            for (int i = 0; i < 50; i++) {
                assertEquals(i == 7 ? null : "v" + i, onC.get(i), "key " + i + " on the joiner");
            }
        });
        // ...and takes part from then on.
        c.stm().atomic(() -> onC.put(7, onC.get(6) + "!"));
        for (Replica r : List.of(a, b)) {
            TxMap<Integer, String> m = r.map("names");
            Await.until("C's write on " + r, () -> "v6!".equals(m.get(7)));
        }
    }
}
