package io.polycert.kvstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.certification.partial.CommitProtocol;
import io.polycert.certification.partial.ConsistencyLevel;
import io.polycert.certification.partial.KeyUnavailableException;
import io.polycert.core.AbortCause;
import io.polycert.core.CommitOutcomeUnknownException;
import io.polycert.core.ReadOnlyTransactionException;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.codec.UnregisteredTypeException;
import io.polycert.core.testing.Await;
import io.polycert.core.testing.History;
import io.polycert.core.group.MemberId;
import io.polycert.core.testing.SerializationGraphChecker;
import io.polycert.gcs.JGroupsGroup;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PartitionedStoreTest {
    private PartitionedCluster cluster;
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void keysLiveOnTheirOwnersAndEveryMemberReadsThem() throws Exception {
        cluster = PartitionedCluster.of(ConsistencyLevel.SERIALIZABLE, CommitProtocol.TOTAL_ORDER).start(4);
        PartitionedStore first = cluster.members.get(0);
        cluster.writeIndexedKeys(40);
        // The commit returned once decided; every owner applies it within about a message delay.
        Await.until("every owner applied the 40 writes", () -> cluster.members.stream()
                .mapToInt(PartitionedStore::ownedKeys).sum() == 80);
        for (int i = 0; i < 40; i++) {
            assertEquals((long) i, cluster.agreedValue("m", "k" + i, 2));
            for (PartitionedStore s : cluster.members) {
                if (!s.owners("m", "k" + i).contains(s.self())) {
                    assertNull(s.ownedValue("m", "k" + i), "a non-owner holds k" + i);
                }
                TxMap<String, Long> view = s.map("m");
                assertEquals((long) i, view.get("k" + i), "read of k" + i + " at " + s.self());
            }
        }

        PartitionedStore other = cluster.members.get(3);
        TxMap<String, Long> otherMap = other.map("m");
        other.atomic(() -> otherMap.remove("k7"));
        // Every member, the remover included, sees it within a message delay (PARTIAL.md: reading your own writes
        // in a later transaction is not promised; the owners apply asynchronously and near caches are invalidated).
        Await.until("k7 removed everywhere", () -> cluster.members.stream().allMatch(s -> s.map("m").get("k7") == null));
        assertTrue(first.map("m").containsKey("k8"));
    }

    @Test
    void misuseGetsClearErrors() throws Exception {
        cluster = PartitionedCluster.of(ConsistencyLevel.SERIALIZABLE, CommitProtocol.TOTAL_ORDER).start(2);
        PartitionedStore s = cluster.members.get(0);
        TxMap<Object, Object> map = s.map("m");
        assertThrows(IllegalStateException.class, () -> map.put("a", 1L), "put outside a transaction");
        assertThrows(UnregisteredTypeException.class, () -> s.atomic(() -> map.put("a", new Object())));
        assertThrows(UnregisteredTypeException.class, () -> s.atomic(() -> map.put(new Object(), 1L)));
        assertThrows(NullPointerException.class, () -> s.atomic(() -> map.put("a", null)));
        assertThrows(ReadOnlyTransactionException.class, () -> s.readOnly(() -> {
            map.put("a", 1L);
            return null;
        }));
        assertThrows(IllegalArgumentException.class, () -> s.map(""));
        assertNull(map.get("a"), "nothing was written");
    }

    /** Under every level, random reads and writes on 6 members leave every key's owners holding one value. */
    @ParameterizedTest
    @CsvSource({"READ_COMMITTED", "REPEATABLE_READ", "REPEATABLE_READ_WRITE_SKEW_CHECK", "SERIALIZABLE"})
    void ownersAgreeUnderEveryLevel(ConsistencyLevel level) throws Exception {
        cluster = PartitionedCluster.of(level, CommitProtocol.TOTAL_ORDER).start(6);
        int keys = 40;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong committed = new AtomicLong();
        List<Future<?>> workers = new ArrayList<>();
        for (PartitionedStore s : cluster.members) {
            SplittableRandom random = new SplittableRandom(workers.size());
            workers.add(pool.submit(() -> {
                TxMap<Integer, Long> map = s.map("r");
                while (!stop.get()) {
                    int[] picked = random.ints(4, 0, keys).toArray();
                    long value = random.nextLong();
                    s.atomic(() -> {
                        for (int i = 0; i < picked.length; i++) {
                            if (i % 2 == 0) {
                                map.get(picked[i]);
                            } else {
                                map.put(picked[i], value);
                            }
                        }
                    });
                    committed.incrementAndGet();
                }
                return null;
            }));
        }
        Thread.sleep(1_500);
        stop.set(true);
        for (Future<?> f : workers) {
            f.get(60, TimeUnit.SECONDS);
        }
        // The final values are unknown (read committed may lose updates): wait until the owners have applied the
        // last commits, which is when their agreement stops changing.
        cluster.awaitSettledAgreement("r", java.util.stream.IntStream.range(0, keys).boxed().toList(), 2);
        assertTrue(committed.get() > 50, "only " + committed.get() + " transactions committed");
    }

    /** Transfers between accounts keep the total, and every account's owners agree, for each protocol. */
    @ParameterizedTest
    @CsvSource({"SERIALIZABLE, TOTAL_ORDER", "REPEATABLE_READ_WRITE_SKEW_CHECK, TOTAL_ORDER",
            "SERIALIZABLE, TWO_PHASE_COMMIT", "REPEATABLE_READ_WRITE_SKEW_CHECK, TWO_PHASE_COMMIT"})
    void bankInvariantHolds(ConsistencyLevel level, CommitProtocol protocol) throws Exception {
        cluster = PartitionedCluster.of(level, protocol).start(5);
        int accounts = 20;
        openAccounts(cluster.members.get(0), accounts);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong transfers = new AtomicLong();
        Map<Integer, Long> acknowledgedDelta = new java.util.concurrent.ConcurrentHashMap<>();
        List<Future<?>> workers = new ArrayList<>();
        for (PartitionedStore s : cluster.members) {
            for (int w = 0; w < 2; w++) {
                long seed = workers.size();
                workers.add(pool.submit(() -> transfer(s, accounts, seed, stop, transfers, acknowledgedDelta, null)));
            }
        }
        Thread.sleep(2_500);
        stop.set(true);
        for (Future<?> f : workers) {
            f.get(60, TimeUnit.SECONDS);
        }
        // Each transfer was acknowledged or gave up having written nothing, so every balance is known. Waiting for
        // it, not for agreement: a transfer's last owners apply it after it returned (docs/PARTIAL.md).
        cluster.awaitValues("bank", balances(accounts, acknowledgedDelta), 2);
        long total = 0;
        for (int i = 0; i < accounts; i++) {
            total += (Long) cluster.agreedValue("bank", i, 2);
        }
        assertEquals(100L * accounts, total, "money was created or lost");
        for (PartitionedStore s : cluster.members) {
            if (level == ConsistencyLevel.SERIALIZABLE) {
                assertEquals(100L * accounts, audit(s, accounts), "audit at " + s.self()); // validated: exact
            } else {
                // RR+WS validates no read-only transaction: a near-cached balance may be a message delay old.
                Await.until("an audit at " + s.self() + " that sees the total",
                        () -> audit(s, accounts) == 100L * accounts);
            }
        }
        assertTrue(transfers.get() > 50, "only " + transfers.get() + " transfers committed");
    }

    /** Under serializable, the history of random read-modify-write transactions has no cycle. */
    @ParameterizedTest
    @CsvSource({"TOTAL_ORDER", "TWO_PHASE_COMMIT"})
    void serializableHistoryHasNoCycle(CommitProtocol protocol) throws Exception {
        cluster = PartitionedCluster.of(ConsistencyLevel.SERIALIZABLE, protocol).start(4);
        int keys = 48;
        History history = new History();
        Map<String, Map<Long, Long>> previousValue = new java.util.concurrent.ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Future<?>> workers = new ArrayList<>();
        AtomicLong unique = new AtomicLong();
        for (PartitionedStore s : cluster.members) {
            for (int w = 0; w < 2; w++) {
                String worker = s.self().name() + "." + w;
                SplittableRandom random = new SplittableRandom(worker.hashCode());
                workers.add(pool.submit(() -> {
                    TxMap<Long, Long> map = s.map("reg");
                    for (int t = 0; !stop.get(); t++) {
                        String name = worker + "/" + t;
                        boolean readOnly = random.nextInt(4) == 0;
                        long[] picked = random.longs(2 + random.nextInt(3), 0, keys).distinct().toArray();
                        History.Recorder[] rec = new History.Recorder[1];
                        Map<Long, Long> before = new HashMap<>();
                        s.atomic(() -> {
                            rec[0] = new History.Recorder(name);
                            before.clear();
                            for (long k : picked) {
                                Long v = map.get(k);
                                long value = v == null ? History.INITIAL_VALUE : v;
                                rec[0].read(k, value);
                                if (!readOnly && random.nextBoolean()) {
                                    long next = unique.incrementAndGet();
                                    map.put(k, next);
                                    rec[0].write(k, next);
                                    before.put(k, value);
                                }
                            }
                        });
                        History.Txn txn = rec[0].committedAt(0);
                        history.add(txn);
                        previousValue.put(name, Map.copyOf(before));
                    }
                    return null;
                }));
            }
        }
        Thread.sleep(2_500);
        stop.set(true);
        for (Future<?> f : workers) {
            f.get(60, TimeUnit.SECONDS);
        }
        // Every write read its key first, so each key's versions form a chain from the initial value.
        Map<Long, Map<Long, Long>> positionOfValue = new HashMap<>();
        Map<Long, Long> latest = new HashMap<>();
        Map<Long, Map<Long, Long>> nextOf = new HashMap<>();
        for (History.Txn txn : history.txns()) {
            for (History.Op w : txn.writes()) {
                long previous = previousValue.get(txn.name()).get(w.key());
                Long clash = nextOf.computeIfAbsent(w.key(), k -> new HashMap<>()).put(previous, w.value());
                assertNull(clash, "two committed transactions overwrote value " + previous + " of key " + w.key()
                        + ": a lost update");
            }
        }
        for (long k = 0; k < keys; k++) {
            Map<Long, Long> chain = nextOf.getOrDefault(k, Map.of());
            Map<Long, Long> positions = new HashMap<>();
            long value = History.INITIAL_VALUE;
            long position = 0;
            while (chain.containsKey(value)) {
                value = chain.get(value);
                positions.put(value, ++position);
            }
            assertEquals(chain.size(), positions.size(), "versions of key " + k + " do not form one chain");
            latest.put(k, value == History.INITIAL_VALUE ? null : value);
            positionOfValue.put(k, positions);
        }
        cluster.awaitValues("reg", latest, 2); // the owners end at the last version of each key
        SerializationGraphChecker.Result result = SerializationGraphChecker.check(history.txns(),
                (txn, key) -> txn.writes().stream().filter(w -> w.key() == key).findFirst()
                        .map(w -> positionOfValue.get(key).get(w.value())).orElseThrow());
        result.assertSerializable();
        // 2PC makes little progress here (cross-owner deadlocks wait for the lock timeout): a smaller floor.
        int floor = protocol == CommitProtocol.TWO_PHASE_COMMIT ? 15 : 50;
        assertTrue(history.size() > floor, "only " + history.size() + " transactions committed");
    }

    /** Under RR+WS, concurrent increments of shared counters are never lost. */
    @Test
    void writeSkewCheckLosesNoUpdate() throws Exception {
        cluster = PartitionedCluster.of(ConsistencyLevel.REPEATABLE_READ_WRITE_SKEW_CHECK,
                CommitProtocol.TOTAL_ORDER).start(4);
        AtomicLong increments = new AtomicLong();
        Map<Integer, Long> incrementsOf = new java.util.concurrent.ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Future<?>> workers = new ArrayList<>();
        for (PartitionedStore s : cluster.members) {
            for (int w = 0; w < 2; w++) {
                SplittableRandom random = new SplittableRandom(workers.size());
                workers.add(pool.submit(() -> {
                    TxMap<Integer, Long> counters = s.map("c");
                    while (!stop.get()) {
                        int k = random.nextInt(4);
                        s.atomic(() -> {
                            Long v = counters.get(k);
                            counters.put(k, (v == null ? 0 : v) + 1);
                        });
                        increments.incrementAndGet();
                        incrementsOf.merge(k, 1L, Long::sum);
                    }
                    return null;
                }));
            }
        }
        Thread.sleep(2_000);
        stop.set(true);
        for (Future<?> f : workers) {
            f.get(60, TimeUnit.SECONDS);
        }
        cluster.awaitValues("c", counters(4, incrementsOf), 2);
        long sum = 0;
        for (int k = 0; k < 4; k++) {
            Object v = cluster.agreedValue("c", k, 2);
            sum += v == null ? 0 : (Long) v;
        }
        assertEquals(increments.get(), sum, "increments were lost");
        long conflicts = cluster.members.stream()
                .mapToLong(s -> s.statistics().aborts(io.polycert.core.AbortCause.CONFLICT)).sum();
        assertTrue(conflicts > 0, "8 threads on 4 counters never conflicted: the check did not run");
    }

    /**
     * A member joins and then one crashes while transfers run: no acknowledged transfer is lost, the total holds
     * and every key's owners agree under the final placement.
     */
    // 2PC too: its bug here (docs/PARTIAL.md, "Known bugs": about one run in six under load applied a transfer
    // twice or lost one, 2026-11-23/24) was not seen in 44 runs on 2026-11-25; if it comes back, this shows it.
    @ParameterizedTest
    @CsvSource({"TOTAL_ORDER", "TWO_PHASE_COMMIT"})
    void membershipChangesUnderLoadLoseNothing(CommitProtocol protocol) throws Exception {
        membershipChangesUnderLoad(protocol, false);
    }

    /** A member cut off long enough to be excluded merges back while transfers run: nothing lost. */
    @ParameterizedTest
    @CsvSource({"TOTAL_ORDER", "TWO_PHASE_COMMIT"})
    void partitionedMemberMergesBackLosingNothing(CommitProtocol protocol) throws Exception {
        membershipChangesUnderLoad(protocol, true);
    }

    /**
     * API misuse (issue 8): a commit at a member cut off into a minority is refused at once (NOT_IN_MAJORITY, not
     * retried) and changes nothing, there or anywhere once it merges back.
     */
    @Test
    void aCommitInAMinorityIsRefusedAndChangesNothing() throws Exception {
        cluster = PartitionedCluster.of(ConsistencyLevel.SERIALIZABLE, CommitProtocol.TOTAL_ORDER).start(3);
        int accounts = 10;
        openAccounts(cluster.members.get(0), accounts);
        PartitionedStore cut = cluster.members.get(2);
        ((JGroupsGroup) cut.group()).discard().discardAll(true);
        Await.until("the cut member in a minority view", () -> !cut.view().primary());
        TxMap<Integer, Long> bank = cut.map("bank");
        long start = System.nanoTime();
        TransactionAbortedException refused = assertThrows(TransactionAbortedException.class,
                () -> cut.atomic(() -> bank.put(0, 7L)));
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(AbortCause.NOT_IN_MAJORITY, refused.abortCause(), refused.toString());
        assertTrue(tookMs < 5_000, "refused only after " + tookMs + " ms"); // no waiting for a placement first
        ((JGroupsGroup) cut.group()).discard().discardAll(false);
        Await.until("one view of three again", () -> cluster.members.stream().allMatch(m -> m.view().primary()
                && m.view().size() == 3));
        cluster.awaitSettled();
        cluster.awaitValues("bank", balances(accounts, Map.of()), 2);
    }

    /**
     * Waits up to 60 s for the workers. A worker still busy after 10 s is most likely stuck in a commit waiting
     * for its outcome (30 s at most): each member's protocol state is printed then, while it still shows why.
     */
    private void awaitWorkers(List<Future<?>> workers) throws Exception {
        long printAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < printAt && !workers.stream().allMatch(Future::isDone)) {
            Thread.sleep(100);
        }
        if (!workers.stream().allMatch(Future::isDone)) {
            cluster.members.forEach(m -> System.out.println("stuck worker; " + m.describeState()));
        }
        for (Future<?> f : workers) {
            f.get(50, TimeUnit.SECONDS);
        }
    }

    private void membershipChangesUnderLoad(CommitProtocol protocol, boolean isolateInsteadOfCrash)
            throws Exception {
        cluster = PartitionedCluster.of(ConsistencyLevel.SERIALIZABLE, protocol).start(4);
        int accounts = 30;
        openAccounts(cluster.members.get(0), accounts);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong transfers = new AtomicLong();
        List<PartitionedStore> clients = List.of(cluster.members.get(0), cluster.members.get(1));
        List<Future<?>> workers = new ArrayList<>();
        Map<Integer, Long> expectedDelta = new java.util.concurrent.ConcurrentHashMap<>();
        List<int[]> unknown = java.util.Collections.synchronizedList(new ArrayList<>());
        for (PartitionedStore s : clients) {
            for (int w = 0; w < 2; w++) {
                long seed = workers.size();
                workers.add(pool.submit(() -> transfer(s, accounts, seed, stop, transfers, expectedDelta, unknown)));
            }
        }
        Thread.sleep(700);
        PartitionedStore joiner = cluster.join();
        Thread.sleep(700);
        if (isolateInsteadOfCrash) {
            // Cut one member off long enough to be excluded, then let it merge back.
            PartitionedStore cut = cluster.members.get(3);
            ((JGroupsGroup) cut.group()).discard().discardAll(true);
            Thread.sleep(4_000);
            ((JGroupsGroup) cut.group()).discard().discardAll(false);
        } else {
            cluster.crash(cluster.members.get(3));
        }
        Thread.sleep(1_000);
        stop.set(true);
        awaitWorkers(workers);
        cluster.awaitSettled();
        cluster.awaitValuesAmong("bank", possibleBalances(accounts, expectedDelta, unknown), 2);
        long total = 0;
        for (int i = 0; i < accounts; i++) {
            total += (Long) cluster.agreedValue("bank", i, 2);
        }
        assertEquals(100L * accounts, total, "money was created or lost across the membership changes");
        assertTrue(transfers.get() > 20, "only " + transfers.get() + " transfers committed");
        // The rebalance of the join may be skipped when the crash's overtakes it; either way keys moved.
        assertTrue(cluster.members.get(0).statistics().rebalances() >= 2);
        assertTrue(joiner.ownedKeys() > 0, "the joiner received no key");
    }

    /**
     * Beyond the replication's tolerance: both owners of some keys (degree 2) are cut off together. The majority
     * must refuse those keys, written or not (nobody left can tell), and serve every other key as before; once the
     * owners merge back with their copies, the keys are served again with the values they had.
     */
    @Test
    void keysWhoseOwnersAreAllCutOffAreRefusedUntilTheyComeBack() throws Exception {
        cluster = PartitionedCluster.of(ConsistencyLevel.SERIALIZABLE, CommitProtocol.TOTAL_ORDER).start(5);
        PartitionedStore writer = cluster.members.get(0);
        cluster.writeIndexedKeys(100);
        // Both owners of each key hold it before the cut: owners that agree may still both be without it.
        cluster.awaitValues("m", PartitionedCluster.indexedValues(100), 2);
        // Cut off the two owners of k<lostIndex>; member 0 is never one of them (it stays to read).
        int lostIndex = -1;
        List<MemberId> cut = null;
        for (int i = 0; i < 100 && cut == null; i++) {
            List<MemberId> owners = writer.owners("m", "k" + i);
            if (!owners.contains(writer.self())) {
                lostIndex = i;
                cut = owners;
            }
        }
        List<MemberId> lostOwners = cut;
        String lostKey = "k" + lostIndex;
        String sharedKey = firstKey(writer, "k", 100, o -> o.stream().filter(lostOwners::contains).count() == 1);
        String neverWrittenLost = firstKey(writer, "new", 10_000, lostOwners::containsAll);
        String neverWrittenKept = firstKey(writer, "new", 10_000, o -> o.stream().noneMatch(lostOwners::contains));
        List<PartitionedStore> cutOff = cluster.members.stream().filter(s -> lostOwners.contains(s.self())).toList();
        List<PartitionedStore> majority = cluster.members.stream().filter(s -> !cutOff.contains(s)).toList();
        cutOff.forEach(s -> ((JGroupsGroup) s.group()).discard().discardAll(true));
        Await.until("the majority rebalanced without the two owners", () -> majority.stream()
                .allMatch(s -> s.view().size() == 3 && s.isReady() && s.placementEpoch() == s.view().epoch()));

        for (PartitionedStore s : majority) {
            TxMap<String, Long> m = s.map("m");
            KeyUnavailableException read = assertThrows(KeyUnavailableException.class, () -> m.get(lostKey));
            assertEquals(AbortCause.OWNERS_UNAVAILABLE, read.abortCause());
            assertTrue(read.getMessage().contains("map 'm', key '" + lostKey + "'")
                    && read.getMessage().contains("left the group or was cut off"), read.getMessage());
            assertThrows(KeyUnavailableException.class, () -> m.get(neverWrittenLost),
                    "a key never written is refused too when its owners are gone: nobody can tell it was not");
            assertThrows(KeyUnavailableException.class, () -> s.atomic(() -> m.put(lostKey, -1L)),
                    "a blind write of a lost key");
            assertThrows(KeyUnavailableException.class, () -> s.atomic(() -> {
                m.put(sharedKey, -1L);
                m.put(lostKey, -1L);
            }), "a transaction touching a lost key and a kept one");
            assertNull(m.get(neverWrittenKept), "a key never written whose owners stayed is simply absent");
        }
        TxMap<String, Long> m = writer.map("m");
        assertEquals(Long.parseLong(sharedKey.substring(1)), m.get(sharedKey), "a key one owner of which stayed");
        writer.atomic(() -> m.put(sharedKey, m.get(sharedKey) + 1000));

        cutOff.forEach(s -> ((JGroupsGroup) s.group()).discard().discardAll(false));
        cluster.awaitSettled();
        for (PartitionedStore s : cluster.members) {
            TxMap<String, Long> each = s.map("m");
            String[] lastRead = {"nothing yet"};
            try {
                Await.until("the owners' copies are back at " + s.self(), () -> {
                    try {
                        Long v = each.get(lostKey);
                        lastRead[0] = "read " + v;
                        return v != null;
                    } catch (KeyUnavailableException e) {
                        lastRead[0] = "refused: " + e.getMessage();
                        return false;
                    }
                });
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; " + lostKey + " last " + lastRead[0] + "\n"
                        + cluster.members.stream().map(PartitionedStore::describeState).toList(), e);
            }
            assertEquals((long) lostIndex, each.get(lostKey), "the value written before the cut, at " + s.self());
            assertNull(each.get(neverWrittenLost));
        }
        writer.atomic(() -> m.put(lostKey, m.get(lostKey) + 1));
        // The lost key written again, and the write the majority made while its owners were away.
        cluster.awaitValues("m", Map.of(lostKey, (long) lostIndex + 1,
                sharedKey, Long.parseLong(sharedKey.substring(1)) + 1000), 2);
    }

    private static String firstKey(PartitionedStore s, String prefix, int limit,
            java.util.function.Predicate<List<MemberId>> owners) {
        for (int i = 0; i < limit; i++) {
            if (owners.test(s.owners("m", prefix + i))) {
                return prefix + i;
            }
        }
        throw new AssertionError("no key " + prefix + "0.." + limit + " has the owners wanted");
    }

    /**
     * Parallel apply (2 apply threads per member) across a join: under the certifying levels concurrent increments
     * of 6 shared counters lose none (validation and the rebalance see every earlier write); under read committed,
     * each worker's own key ends at the last value it wrote. Owners agree either way.
     */
    @ParameterizedTest
    @CsvSource({"SERIALIZABLE", "REPEATABLE_READ_WRITE_SKEW_CHECK", "READ_COMMITTED"})
    void parallelApplyKeepsOrderPerKeyAcrossAJoin(ConsistencyLevel level) throws Exception {
        cluster = new PartitionedCluster(b -> b.consistency(level).replicationDegree(2).applyThreads(2)).start(4);
        boolean certifies = level != ConsistencyLevel.READ_COMMITTED;
        int workers = 8;
        AtomicBoolean stop = new AtomicBoolean();
        Map<Integer, Long> lastWritten = new java.util.concurrent.ConcurrentHashMap<>();
        AtomicLong increments = new AtomicLong();
        Map<Integer, Long> incrementsOf = new java.util.concurrent.ConcurrentHashMap<>();
        List<Future<?>> running = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            int worker = w;
            PartitionedStore s = cluster.members.get(w % 4);
            running.add(pool.submit(() -> {
                TxMap<Integer, Long> map = s.map("c");
                for (long n = 1; !stop.get(); n++) {
                    long value = n;
                    try {
                        if (certifies) {
                            int key = (int) ((worker + n) % 6);
                            s.atomic(() -> {
                                Long v = map.get(key);
                                map.put(key, v == null ? 1 : v + 1);
                            });
                            increments.incrementAndGet();
                            incrementsOf.merge(key, 1L, Long::sum);
                        } else {
                            s.atomic(() -> map.put(100 + worker, value));
                            lastWritten.put(100 + worker, value);
                        }
                    } catch (TransactionAbortedException e) {
                        // gave up after retries (a rebalance under load): nothing was written
                    }
                }
                return null;
            }));
        }
        Thread.sleep(800);
        cluster.join();
        Thread.sleep(1_000);
        stop.set(true);
        for (Future<?> f : running) {
            f.get(60, TimeUnit.SECONDS);
        }
        cluster.awaitSettled();
        cluster.awaitValues("c", certifies ? counters(6, incrementsOf) : lastWritten, 2);
        if (certifies) {
            long total = 0;
            for (int k = 0; k < 6; k++) {
                Object v = cluster.agreedValue("c", k, 2);
                total += v == null ? 0 : (Long) v;
            }
            assertEquals(increments.get(), total, "increments lost or doubled with parallel apply");
            assertTrue(increments.get() > 20, "only " + increments.get() + " increments committed");
        } else {
            assertEquals(workers, lastWritten.size(), "every worker committed");
        }
    }

    private void openAccounts(PartitionedStore s, int accounts) {
        TxMap<Integer, Long> bank = s.map("bank");
        s.atomic(() -> {
            for (int i = 0; i < accounts; i++) {
                bank.put(i, 100L);
            }
        });
        // Not agreedValue: right after the commit returns, both owners of an account may still hold nothing, and
        // agree on it (2PC: 72 of 200 openings in a probe), before one of them applies the opening.
        cluster.awaitValues("bank", balances(accounts, Map.of()), 2);
    }

    /** Each account's balance once the acknowledged transfers are applied (each opened with 100). */
    private static Map<Integer, Long> balances(int accounts, Map<Integer, Long> acknowledgedDelta) {
        Map<Integer, Long> balances = new HashMap<>();
        for (int i = 0; i < accounts; i++) {
            balances.put(i, 100 + acknowledgedDelta.getOrDefault(i, 0L));
        }
        return balances;
    }

    /** Counters 0..n-1 once the acknowledged increments are applied (null: never incremented, so absent). */
    private static Map<Integer, Long> counters(int n, Map<Integer, Long> incrementsOf) {
        Map<Integer, Long> counters = new HashMap<>();
        for (int k = 0; k < n; k++) {
            counters.put(k, incrementsOf.get(k));
        }
        return counters;
    }

    private static long audit(PartitionedStore s, int accounts) {
        TxMap<Integer, Long> bank = s.map("bank");
        return s.atomic(() -> {
            long sum = 0;
            for (int i = 0; i < accounts; i++) {
                sum += bank.get(i);
            }
            return sum;
        });
    }

    /**
     * Transfers one unit between random accounts until stopped; records the acknowledged ones if asked. With
     * {@code unknown}, a transfer whose outcome the store reports unknown (a member it needed left: it may have
     * committed) is recorded there, as long as the store said so before {@link #STALL}; a longer wait is a stall,
     * and fails the test as without {@code unknown}.
     */
    private static Void transfer(PartitionedStore s, int accounts, long seed, AtomicBoolean stop,
            AtomicLong transfers, Map<Integer, Long> acknowledgedDelta, List<int[]> unknown) {
        TxMap<Integer, Long> bank = s.map("bank");
        SplittableRandom random = new SplittableRandom(seed);
        while (!stop.get()) {
            int from = random.nextInt(accounts);
            int to = (from + 1 + random.nextInt(accounts - 1)) % accounts;
            long started = System.nanoTime();
            try {
                s.atomic(() -> {
                    long a = bank.get(from);
                    long b = bank.get(to);
                    bank.put(from, a - 1);
                    bank.put(to, b + 1);
                });
                transfers.incrementAndGet();
                if (acknowledgedDelta != null) {
                    acknowledgedDelta.merge(from, -1L, Long::sum);
                    acknowledgedDelta.merge(to, 1L, Long::sum);
                }
            } catch (TransactionAbortedException e) {
                // gave up after retries: nothing was written
            } catch (CommitOutcomeUnknownException e) {
                if (unknown == null || System.nanoTime() - started >= STALL.toNanos()) {
                    throw e;
                }
                unknown.add(new int[] {from, to});
            }
        }
        return null;
    }

    /** A commit that waited this long for its outcome is a stall, whatever the store then says. */
    private static final java.time.Duration STALL = java.time.Duration.ofSeconds(10);

    /** The balances for every combination of the unknown transfers' outcomes (the acknowledged ones applied). */
    private static List<Map<Integer, Long>> possibleBalances(int accounts, Map<Integer, Long> acknowledgedDelta,
            List<int[]> unknown) {
        assertTrue(unknown.size() <= 6, unknown.size() + " transfers with an unknown outcome: more than a member"
                + " leaving explains");
        List<Map<Integer, Long>> outcomes = new ArrayList<>();
        for (int committed = 0; committed < 1 << unknown.size(); committed++) {
            Map<Integer, Long> balances = balances(accounts, acknowledgedDelta);
            for (int u = 0; u < unknown.size(); u++) {
                if ((committed & 1 << u) != 0) {
                    balances.merge(unknown.get(u)[0], -1L, Long::sum);
                    balances.merge(unknown.get(u)[1], 1L, Long::sum);
                }
            }
            outcomes.add(balances);
        }
        return outcomes;
    }
}
