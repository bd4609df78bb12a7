package io.polycert.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.testing.History;
import io.polycert.core.testing.SerializationGraphChecker;
import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Review stress tests for the STM's concurrency: exact snapshot reads under out-of-order write-back, serializable
 * histories of mixed workloads (overlapping and disjoint write-sets, blind writes, created boxes, explicit
 * demarcation, long read-only transactions, replicated-style appends), and regression tests for the bugs a review
 * found (reads outside transactions racing the collector, commits returning before they were visible to other
 * threads, collection never triggered by short-lived threads or blocked by dead ones, ended transactions pinning
 * later commits).
 */
class ReviewStressTest {

    // ---- helpers --------------------------------------------------------------------------------------------

    private static int slotCount(Stm stm) {
        try {
            Field f = Stm.class.getDeclaredField("allSlots");
            f.setAccessible(true);
            return ((Collection<?>) f.get(stm)).size();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /** Whether some commit is in flight on one of {@code boxes}: its pending body sits on the box. */
    private static boolean hasPendingCommit(List<? extends VBox<?>> boxes) {
        for (VBox<?> box : boxes) {
            VBox.Body head = box.head();
            if (head != null && head.owner() != null) {
                return true;
            }
        }
        return false;
    }

    private static void assertNoCommitLeftPending(java.util.Collection<? extends VBox<?>> boxes) {
        assertTrue(!hasPendingCommit(new ArrayList<>(boxes)), "a commit was left pending on a box");
    }

    /**
     * Suspends the committer at random moments until it is caught in the middle of a commit: its pending bodies
     * on its boxes. Then runs {@code whileStalled} and resumes it. Thread.suspend still works on JDK 17
     * (it was degraded to throw only in JDK 20); suspension happens at a handshake, and the STM holds no monitors.
     *
     * @return whether such a moment was found before the deadline
     */
    @SuppressWarnings("removal")
    private static boolean whileStalledMidCommit(Committer committer, long millis, Runnable whileStalled)
            throws InterruptedException {
        Thread t = committer.thread();
        long deadline = System.nanoTime() + millis * 1_000_000L;
        Random random = new Random(42);
        while (System.nanoTime() < deadline) {
            t.suspend();
            try {
                if (hasPendingCommit(committer.boxes())) {
                    whileStalled.run();
                    return true;
                }
            } finally {
                t.resume();
            }
            LockSupport.parkNanos(random.nextInt(20_000));
        }
        return false;
    }

    /** A thread committing to boxes of its own. */
    private record Committer(Thread thread, List<VBox<Long>> boxes) {
    }

    /** A thread committing, until {@code stop}, to 8 boxes of its own (8 pending bodies per commit). */
    private static Committer startCommitter(Stm stm, AtomicBoolean stop) {
        List<VBox<Long>> xs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            xs.add(stm.newBox(0L));
        }
        Thread o = new Thread(() -> {
            long i = 0;
            while (!stop.get()) {
                long v = ++i;
                stm.atomic(() -> xs.forEach(x -> x.put(v)));
            }
        });
        o.start();
        return new Committer(o, xs);
    }

    static Thread runInNewThread(Runnable r) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                r.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.start();
        t.join();
        if (failure.get() != null) {
            throw new AssertionError("thread failed", failure.get());
        }
        return t;
    }

    /**
     * A transaction from "another replica": read-set and write-set given explicitly. {@code onRead}, if any, runs
     * whenever validation asks for a read box (tests use it to act between a commit's version and its validation).
     */
    record ForeignRequest(long snapshotVersion, VBox<?>[] reads, VBox<?>[] writes, Object[] values, Runnable onRead)
            implements CommitRequest {
        ForeignRequest(long snapshotVersion, VBox<?>[] reads, VBox<?>[] writes, Object[] values) {
            this(snapshotVersion, reads, writes, values, null);
        }

        @Override
        public int readSetSize() {
            return reads.length;
        }

        @Override
        public VBox<?> readBox(int i) {
            if (onRead != null) {
                onRead.run();
            }
            return reads[i];
        }

        @Override
        public int writeSetSize() {
            return writes.length;
        }

        @Override
        public VBox<?> writtenBox(int i) {
            return writes[i];
        }

        @Override
        public Object writtenValue(int i) {
            return values[i];
        }
    }

    /** A committed transaction and the snapshot it read from. */
    record Rec(History.Txn txn, long snapshot) {
    }

    /**
     * Every read must return exactly the value of the newest write to that key with order (commit version) at most
     * the reader's snapshot: catches out-of-order installs, partially visible commits and collected versions.
     */
    private static List<String> checkReadsMatchSnapshots(List<Rec> recs) {
        Map<Long, TreeMap<Long, Long>> versions = new HashMap<>();
        for (Rec r : recs) {
            for (History.Op w : r.txn().writes()) {
                Long previous = versions.computeIfAbsent(w.key(), k -> new TreeMap<>()).put(r.txn().order(), w.value());
                if (previous != null) {
                    return List.of("two writes of key " + w.key() + " at version " + r.txn().order());
                }
            }
        }
        List<String> problems = new ArrayList<>();
        for (Rec r : recs) {
            for (History.Op read : r.txn().reads()) {
                TreeMap<Long, Long> vs = versions.get(read.key());
                Map.Entry<Long, Long> e = vs == null ? null : vs.floorEntry(r.snapshot());
                long expected = e == null ? History.INITIAL_VALUE : e.getValue();
                if (expected != read.value() && problems.size() < 10) {
                    problems.add(r.txn().name() + " at snapshot " + r.snapshot() + " read " + read.value()
                            + " from key " + read.key() + ", expected " + expected + " (versions " + vs + ")");
                }
            }
        }
        return problems;
    }

    // ---- passing coverage -----------------------------------------------------------------------------------

    /**
     * Six threads on few boxes: read-modify-writes with overlapping write-sets, blind writes, thread-private
     * write-sets (fast-path write-back out of order), box creation, explicit begin/commit, long read-only
     * transactions that re-read everything, foreign requests through the generic validation path and blind
     * foreign writes. (Installs, which replication runs on one thread with no local commits, have their own test.) Checks exact snapshot reads, serializability, the final state, that every
     * record ends up published, and that a full collection leaves one version per box.
     */
    @Test
    void mixedWorkloadReadsExactSnapshotsAndIsSerializable() throws Exception {
        for (long seed = 1; seed <= 4; seed++) {
            runMixedWorkload(seed);
        }
    }

    private void runMixedWorkload(long seed) throws Exception {
        AtomicReference<CommitLog> logRef = new AtomicReference<>();
        Stm stm = Stm.builder().maxAttempts(10_000).commitHandler(log -> {
            logRef.set(log);
            return log::validateAndAppend;
        }).build();
        CommitLog log = logRef.get();
        int threads = 6;
        int shared = 4;
        int txnsPerThread = 2500;
        List<VBox<Long>> boxes = new ArrayList<>();
        for (int i = 0; i < shared; i++) {
            boxes.add(stm.newBox(History.INITIAL_VALUE));
        }
        List<VBox<Long>> privates = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            privates.add(stm.newBox(History.INITIAL_VALUE));
        }
        VBox<Long> registry = stm.newBox(History.INITIAL_VALUE); // id of the newest created box
        Map<Long, VBox<Long>> created = new ConcurrentHashMap<>();
        List<Rec> recs = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicLong unique = new AtomicLong();

        ConcurrentHistoryTest.runThreads(threads, thread -> {
            Random random = new Random(seed * 1000 + thread);
            VBox<Long> mine = privates.get(thread);
            for (int t = 0; t < txnsPerThread; t++) {
                String name = "t" + thread + "." + t;
                int kind = random.nextInt(100);
                History.Recorder[] rec = new History.Recorder[1];
                Transaction[] txh = new Transaction[1];
                if (kind < 20) { // read-modify-write, overlapping
                    int n = 1 + random.nextInt(3);
                    int[] which = random.ints(n, 0, shared).toArray();
                    stm.atomic(() -> {
                        txh[0] = stm.currentTransaction();
                        rec[0] = new History.Recorder(name);
                        for (int b : which) {
                            VBox<Long> box = boxes.get(b);
                            rec[0].read(box.id(), box.get());
                            long v = unique.incrementAndGet();
                            box.put(v);
                            rec[0].write(box.id(), v);
                        }
                    });
                } else if (kind < 32) { // blind writes
                    int b = random.nextInt(shared);
                    stm.atomic(() -> {
                        txh[0] = stm.currentTransaction();
                        rec[0] = new History.Recorder(name);
                        long v = unique.incrementAndGet();
                        boxes.get(b).put(v);
                        rec[0].write(boxes.get(b).id(), v);
                    });
                } else if (kind < 50) { // disjoint write-set: private box, plus a read of a shared one
                    int b = random.nextInt(shared);
                    stm.atomic(() -> {
                        txh[0] = stm.currentTransaction();
                        rec[0] = new History.Recorder(name);
                        rec[0].read(boxes.get(b).id(), boxes.get(b).get());
                        rec[0].read(mine.id(), mine.get());
                        long v = unique.incrementAndGet();
                        mine.put(v);
                        rec[0].write(mine.id(), v);
                    });
                } else if (kind < 56) { // create a box and publish it in the registry (blind)
                    stm.atomic(() -> {
                        txh[0] = stm.currentTransaction();
                        rec[0] = new History.Recorder(name);
                        long v = unique.incrementAndGet();
                        VBox<Long> nb = stm.newBox(v);
                        created.put(nb.id(), nb);
                        rec[0].write(nb.id(), v);
                        registry.put(nb.id());
                        rec[0].write(registry.id(), nb.id());
                    });
                } else if (kind < 64) { // update the newest created box
                    stm.atomic(() -> {
                        txh[0] = stm.currentTransaction();
                        rec[0] = new History.Recorder(name);
                        long id = registry.get();
                        rec[0].read(registry.id(), id);
                        if (id != 0) {
                            VBox<Long> nb = created.get(id);
                            rec[0].read(id, nb.get());
                            long v = unique.incrementAndGet();
                            nb.put(v);
                            rec[0].write(id, v);
                        }
                    });
                } else if (kind < 76) { // explicit demarcation, manual retry
                    int a = random.nextInt(shared);
                    int b = random.nextInt(shared);
                    for (;;) {
                        Transaction tx = stm.begin();
                        History.Recorder r = new History.Recorder(name);
                        r.read(boxes.get(a).id(), boxes.get(a).get());
                        Thread.yield();
                        r.read(boxes.get(b).id(), boxes.get(b).get());
                        long v = unique.incrementAndGet();
                        boxes.get(b).put(v);
                        r.write(boxes.get(b).id(), v);
                        try {
                            tx.commit();
                        } catch (TransactionAbortedException e) {
                            assertEquals(AbortCause.CONFLICT, e.abortCause());
                            continue;
                        }
                        rec[0] = r;
                        txh[0] = tx;
                        break;
                    }
                } else if (kind < 88) { // long read-only transaction re-reading everything
                    Transaction tx = stm.beginReadOnly();
                    History.Recorder r = new History.Recorder(name);
                    long[] first = new long[shared + threads + 1];
                    for (int i = 0; i < shared; i++) {
                        first[i] = boxes.get(i).get();
                        r.read(boxes.get(i).id(), first[i]);
                    }
                    for (int i = 0; i < threads; i++) {
                        first[shared + i] = privates.get(i).get();
                        r.read(privates.get(i).id(), first[shared + i]);
                    }
                    long id = registry.get();
                    r.read(registry.id(), id);
                    long createdValue = 0;
                    if (id != 0) {
                        createdValue = created.get(id).get();
                        r.read(id, createdValue);
                    }
                    for (int pass = 0; pass < 3; pass++) {
                        if (random.nextBoolean()) {
                            Thread.yield();
                        } else {
                            LockSupport.parkNanos(random.nextInt(200_000));
                        }
                        for (int i = 0; i < shared; i++) {
                            assertEquals(first[i], boxes.get(i).get(), name + " re-read shared " + i);
                        }
                        for (int i = 0; i < threads; i++) {
                            assertEquals(first[shared + i], privates.get(i).get(), name + " re-read private " + i);
                        }
                        assertEquals(id, registry.get());
                        if (id != 0) {
                            assertEquals(createdValue, created.get(id).get());
                        }
                    }
                    tx.commit();
                    rec[0] = r;
                    txh[0] = tx;
                } else if (kind < 94) { // foreign request through the generic validation path
                    int a = random.nextInt(shared);
                    int b = random.nextInt(shared);
                    for (;;) {
                        Transaction ro = stm.beginReadOnly();
                        History.Recorder r = new History.Recorder(name);
                        r.read(boxes.get(a).id(), boxes.get(a).get());
                        r.read(boxes.get(b).id(), boxes.get(b).get());
                        long snapshot = ro.snapshotVersion();
                        ro.commit();
                        long v = unique.incrementAndGet();
                        r.write(boxes.get(a).id(), v);
                        try {
                            long version = log.validateAndAppend(new ForeignRequest(snapshot,
                                    new VBox<?>[] {boxes.get(a), boxes.get(b)}, new VBox<?>[] {boxes.get(a)},
                                    new Object[] {v}));
                            recs.add(new Rec(r.committedAt(version), snapshot));
                            break;
                        } catch (TransactionAbortedException e) {
                            assertEquals(AbortCause.CONFLICT, e.abortCause());
                        }
                    }
                    continue;
                } else { // blind write of a foreign request (aborted only if a concurrent commit overtakes it)
                    int a = random.nextInt(shared);
                    History.Recorder r = new History.Recorder(name);
                    long v = unique.incrementAndGet();
                    r.write(boxes.get(a).id(), v);
                    for (;;) {
                        try {
                            long version = log.validateAndAppend(new ForeignRequest(stm.latestVersion(),
                                    new VBox<?>[0], new VBox<?>[] {boxes.get(a)}, new Object[] {v}));
                            recs.add(new Rec(r.committedAt(version), version));
                            break;
                        } catch (TransactionAbortedException e) {
                            assertEquals(AbortCause.CONFLICT, e.abortCause());
                        }
                    }
                    continue;
                }
                Transaction tx = txh[0];
                assertSame(Transaction.Status.COMMITTED, tx.status());
                recs.add(new Rec(rec[0].committedAt(tx.commitVersion()), tx.snapshotVersion()));
            }
        });
        assertEquals(threads * txnsPerThread, recs.size());

        // every appended record was published
        List<VBox<?>> everyBox = new ArrayList<>(created.values());
        everyBox.addAll(boxes);
        everyBox.addAll(privates);
        everyBox.add(registry);
        assertNoCommitLeftPending(everyBox);

        List<String> problems = checkReadsMatchSnapshots(recs);
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        History history = new History();
        recs.forEach(r -> history.add(r.txn()));
        SerializationGraphChecker.check(history).assertSerializable();

        // final state: each box holds its newest write
        Map<Long, VBox<Long>> all = new HashMap<>(created);
        boxes.forEach(b -> all.put(b.id(), b));
        privates.forEach(b -> all.put(b.id(), b));
        all.put(registry.id(), registry);
        Map<Long, TreeMap<Long, Long>> writes = new HashMap<>();
        for (Rec r : recs) {
            for (History.Op w : r.txn().writes()) {
                writes.computeIfAbsent(w.key(), k -> new TreeMap<>()).put(r.txn().order(), w.value());
            }
        }
        stm.readOnly(() -> writes.forEach((key, vs) -> {
            VBox<Long> box = all.get(key);
            if (box != null) { // created boxes of aborted attempts are not in the history
                assertEquals(vs.lastEntry().getValue(), box.get(), "final value of key " + key);
            }
        }));

        // a collection period with nothing committed, and no reader left, leaves exactly one version of every box
        for (int i = 0; i < 2 * Stm.COLLECT_EVERY; i++) {
            stm.readOnly(() -> { });
        }
        for (VBox<Long> box : all.values()) {
            if (writes.containsKey(box.id()) || box.id() <= shared + threads + 1) {
                assertEquals(1, box.versionCount(), box + " kept old versions");
            }
        }
    }

    /**
     * Many threads, two boxes always written together (blindly or read-modify-write) while others commit to
     * private boxes (disjoint write-sets, written back out of order): read-only transactions never see one box of
     * a commit without the other, a thread reads its own last commit, and its snapshots never go backwards.
     */
    @Test
    void pairsWrittenTogetherAreNeverSeenTornAndOwnWritesAreVisible() throws Exception {
        Stm stm = Stm.create();
        VBox<Long> a = stm.newBox(0L);
        VBox<Long> b = stm.newBox(0L);
        AtomicLong counter = new AtomicLong();
        int threads = 8;
        List<VBox<Long>> privates = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            privates.add(stm.newBox(0L));
        }
        long end = System.nanoTime() + 3_000_000_000L;
        ConcurrentHistoryTest.runThreads(threads, thread -> {
            Random random = new Random(thread);
            long lastSnapshot = 0;
            long lastOwn = 0;
            while (System.nanoTime() < end) {
                int kind = random.nextInt(4);
                if (kind == 0) {
                    long v = counter.incrementAndGet();
                    stm.atomic(() -> {
                        a.put(v);
                        b.put(v);
                    });
                } else if (kind == 1) {
                    stm.atomic(() -> {
                        long v = Math.max(a.get(), b.get()) + 1_000_000_000L;
                        a.put(v);
                        b.put(v);
                    });
                } else if (kind == 2) {
                    long v = ++lastOwn;
                    stm.atomic(() -> privates.get(thread).put(v));
                    assertEquals(v, stm.readOnly(() -> privates.get(thread).get()), "read-your-writes");
                } else {
                    long[] seen = stm.readOnly(() -> {
                        long x = a.get();
                        if (random.nextInt(8) == 0) {
                            Thread.yield();
                        }
                        return new long[] {x, b.get(), a.get(), stm.currentTransaction().snapshotVersion()};
                    });
                    assertEquals(seen[0], seen[1], "torn read");
                    assertEquals(seen[0], seen[2], "snapshot changed");
                    assertTrue(seen[3] >= lastSnapshot, "snapshot went back from " + lastSnapshot + " to " + seen[3]);
                    lastSnapshot = seen[3];
                }
            }
        });
        for (int i = 0; i < 2 * Stm.COLLECT_EVERY; i++) { // a collection period with nothing committed
            stm.readOnly(() -> { });
        }
        assertEquals(1, a.versionCount());
        assertEquals(1, b.versionCount());
    }

    /**
     * Large read-sets and large write-sets (past WriteSet's linear limit, so its index is used) mixed with small
     * transactions, with explicit begin/commit from several threads and read-only audits in between.
     */
    @Test
    void largeReadAndWriteSetsStayExactAndSerializable() throws Exception {
        Stm stm = Stm.create();
        int boxCount = 48;
        List<VBox<Long>> boxes = new ArrayList<>();
        for (int i = 0; i < boxCount; i++) {
            boxes.add(stm.newBox(History.INITIAL_VALUE));
        }
        List<Rec> recs = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicLong unique = new AtomicLong();
        int threads = 4;
        ConcurrentHistoryTest.runThreads(threads, thread -> {
            Random random = new Random(77 + thread);
            for (int t = 0; t < 600; t++) {
                String name = "t" + thread + "." + t;
                int kind = random.nextInt(10);
                boolean readOnly = kind >= 8;
                int reads = kind < 3 ? 20 + random.nextInt(10) : 1 + random.nextInt(3);
                int writes = readOnly ? 0 : kind < 5 ? 17 + random.nextInt(10) : 1 + random.nextInt(2);
                int[] readIdx = random.ints(reads, 0, boxCount).toArray();
                int[] writeIdx = random.ints(writes, 0, boxCount).toArray();
                for (;;) {
                    Transaction tx = readOnly ? stm.beginReadOnly() : stm.begin();
                    History.Recorder r = new History.Recorder(name);
                    for (int i : readIdx) {
                        r.read(boxes.get(i).id(), boxes.get(i).get());
                    }
                    if (random.nextInt(4) == 0) {
                        Thread.yield();
                    }
                    for (int i : writeIdx) {
                        long v = unique.incrementAndGet();
                        boxes.get(i).put(v);
                        r.write(boxes.get(i).id(), v);
                    }
                    try {
                        tx.commit();
                    } catch (TransactionAbortedException e) {
                        assertEquals(AbortCause.CONFLICT, e.abortCause());
                        continue;
                    }
                    recs.add(new Rec(r.committedAt(tx.commitVersion()), tx.snapshotVersion()));
                    break;
                }
            }
        });
        List<String> problems = checkReadsMatchSnapshots(recs);
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        History history = new History();
        recs.forEach(r -> history.add(r.txn()));
        SerializationGraphChecker.check(history).assertSerializable();
        assertNoCommitLeftPending(boxes);
    }

    /**
     * Replication's way of committing: one thread installs write-sets (as in delivery order) while other threads
     * run read-only transactions. Versions come out one above the previous, and every read returns exactly the
     * newest install at or before its snapshot, including installs caught half-pushed.
     */
    @Test
    void installsAreNumberedInOrderAndSeenWhole() throws Exception {
        AtomicReference<CommitLog> logRef = new AtomicReference<>();
        Stm stm = Stm.builder().commitHandler(log -> {
            logRef.set(log);
            return request -> {
                throw new IllegalStateException("nothing commits locally in this test");
            };
        }).build();
        CommitLog log = logRef.get();
        int boxCount = 12;
        List<VBox<Long>> boxes = new ArrayList<>();
        for (int i = 0; i < boxCount; i++) {
            boxes.add(stm.newBox(History.INITIAL_VALUE));
        }
        int installs = 20_000;
        List<Rec> recs = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong unique = new AtomicLong();
        ConcurrentHistoryTest.runThreads(4, thread -> {
            Random random = new Random(500 + thread);
            if (thread == 0) {
                try {
                    for (int t = 0; t < installs; t++) {
                        int[] which = random.ints(1 + random.nextInt(5), 0, boxCount).distinct().toArray();
                        VBox<?>[] ws = new VBox<?>[which.length];
                        Object[] vs = new Object[which.length];
                        History.Recorder r = new History.Recorder("install." + t);
                        for (int k = 0; k < which.length; k++) {
                            ws[k] = boxes.get(which[k]);
                            vs[k] = unique.incrementAndGet();
                            r.write(ws[k].id(), (Long) vs[k]);
                        }
                        long before = stm.latestVersion();
                        long version = log.append(ws, vs);
                        assertEquals(before + 1, version, "an install's version");
                        recs.add(new Rec(r.committedAt(version), version));
                    }
                } finally {
                    done.set(true);
                }
                return;
            }
            int n = 0;
            while (!done.get()) {
                Transaction tx = stm.beginReadOnly();
                History.Recorder r = new History.Recorder("read." + thread + "." + n++);
                for (int i : random.ints(1 + random.nextInt(boxCount), 0, boxCount).toArray()) {
                    r.read(boxes.get(i).id(), boxes.get(i).get());
                }
                tx.commit();
                recs.add(new Rec(r.committedAt(tx.commitVersion()), tx.snapshotVersion()));
            }
        });
        assertEquals(installs, stm.latestVersion());
        List<String> problems = checkReadsMatchSnapshots(recs);
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        assertNoCommitLeftPending(boxes);
    }

    // ---- bug demonstrations -----------------------------------------------------------------------------------

    /**
     * Stm.read outside a transaction reads {@code latest} and then walks the box's versions without publishing
     * a snapshot in its slot, so the collector may cut the version it is walking to.
     */
    @Test
    void nonTransactionalGetNeverFailsWhileWritersCommit() throws Exception {
        Stm stm = Stm.create();
        VBox<Long> x = stm.newBox(0L);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong reads = new AtomicLong();
        List<Thread> all = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            all.add(new Thread(() -> {
                long n = 0;
                try {
                    while (!stop.get()) {
                        x.get();
                        n++;
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    stop.set(true);
                } finally {
                    reads.addAndGet(n);
                }
            }));
        }
        for (int i = 0; i < 2; i++) {
            all.add(new Thread(() -> {
                long v = 0;
                while (!stop.get()) {
                    long next = ++v;
                    x.put(next);
                }
            }));
        }
        all.forEach(Thread::start);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!stop.get() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        stop.set(true);
        for (Thread t : all) {
            t.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("a plain VBox.get() failed after " + reads.get() + " reads", failure.get());
        }
    }

    /**
     * A commit that returned must be visible to a transaction begun afterwards on another thread (strict
     * serializability / linearizability, and the javadoc "get() returns the latest committed value"). Here thread O
     * is caught between appending its record and writing it back; thread A then commits a write to an unrelated box
     * y and returns; thread B, started after A finished, still reads the old y and an older latestVersion.
     */
    @Test
    void commitThatReturnedIsVisibleToTransactionsBegunLaterOnOtherThreads() throws Exception {
        Stm stm = Stm.create();
        VBox<Long> y = stm.newBox(0L);
        AtomicBoolean stop = new AtomicBoolean();
        Committer o = startCommitter(stm, stop);
        long[] commitVersion = new long[1];
        long[] seenValue = new long[1];
        long[] seenLatest = new long[1];
        try {
            boolean caught = whileStalledMidCommit(o, 15_000, () -> {
                try {
                    runInNewThread(() -> {
                        Transaction tx = stm.begin();
                        y.put(1L);
                        tx.commit(); // returns: the write is committed
                        commitVersion[0] = tx.commitVersion();
                    });
                    runInNewThread(() -> { // begins after the commit above returned (Thread.join)
                        seenValue[0] = stm.readOnly(y::get);
                        seenLatest[0] = stm.latestVersion();
                    });
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            });
            assertTrue(caught, "never caught a commit in the middle of its write-back");
        } finally {
            stop.set(true);
            o.thread().join();
        }
        assertTrue(seenLatest[0] >= commitVersion[0], "latestVersion() " + seenLatest[0]
                + " on another thread after a commit at version " + commitVersion[0] + " returned");
        assertEquals(1L, seenValue[0], "a transaction begun after the commit returned did not see it");
    }

    /**
     * Same cause, worse symptom: a box created by a transaction that committed and returned, handed to another
     * thread, cannot be read there at all (IllegalStateException "has no committed value yet").
     */
    @Test
    void boxCreatedByACommittedTransactionIsReadableOnAnotherThread() throws Exception {
        Stm stm = Stm.create();
        AtomicBoolean stop = new AtomicBoolean();
        Committer o = startCommitter(stm, stop);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try {
            boolean caught = whileStalledMidCommit(o, 15_000, () -> {
                try {
                    AtomicReference<VBox<Long>> handedOver = new AtomicReference<>();
                    runInNewThread(() -> handedOver.set(stm.atomic(() -> stm.newBox(7L))));
                    Thread reader = new Thread(() -> {
                        try {
                            assertEquals(7L, handedOver.get().get());
                            assertEquals(7L, stm.readOnly(() -> handedOver.get().get()));
                        } catch (Throwable e) {
                            failure.set(e);
                        }
                    });
                    reader.start();
                    reader.join();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            });
            assertTrue(caught, "never caught a commit in the middle of its write-back");
        } finally {
            stop.set(true);
            o.thread().join();
        }
        if (failure.get() != null) {
            throw new AssertionError("reading a box whose creating transaction had returned", failure.get());
        }
    }

    /** The same without suspending threads: writers publish what they committed, checkers read it back. */
    @Test
    void commitThatReturnedIsVisibleToOtherThreadsStress() throws Exception {
        Stm stm = Stm.create();
        int writers = 6;
        List<VBox<Long>> own = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
            own.add(stm.newBox(0L));
        }
        AtomicLongArray published = new AtomicLongArray(writers);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<String> violation = new AtomicReference<>();
        List<Thread> all = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int me = w;
            all.add(new Thread(() -> {
                long v = 0;
                while (!stop.get()) {
                    long next = ++v;
                    stm.atomic(() -> own.get(me).put(next));
                    published.set(me, next); // the commit returned: tell the world
                    Thread.yield(); // do something else before the next transaction
                }
            }));
        }
        for (int c = 0; c < 2; c++) {
            int seed = c;
            all.add(new Thread(() -> {
                Random random = new Random(seed);
                while (!stop.get()) {
                    int w = random.nextInt(writers);
                    long p = published.get(w);
                    long seen = stm.readOnly(() -> own.get(w).get());
                    if (seen < p) {
                        violation.compareAndSet(null, "writer " + w + " published " + p + " after its commit"
                                + " returned, a later read-only transaction saw " + seen);
                        stop.set(true);
                    }
                }
            }));
        }
        all.forEach(Thread::start);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!stop.get() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        stop.set(true);
        for (Thread t : all) {
            t.join();
        }
        assertNull(violation.get());
    }

    /**
     * A commit handler that certifies on a worker thread (as a replication layer may) commits a local transaction
     * through {@link CommitLog#validateAndAppend}; {@code lastCommit} is then recorded in the worker's slot, not in
     * the transaction's thread, so that thread's next transaction can miss its own write. Here a committer calling
     * the log directly is caught in the middle of a commit, its pending bodies on its boxes.
     */
    @Test
    void readYourWritesHoldsWhenTheHandlerCommitsOnAnotherThread() throws Exception {
        AtomicReference<CommitLog> logRef = new AtomicReference<>();
        ExecutorService worker = Executors.newSingleThreadExecutor();
        Stm stm = Stm.builder().commitHandler(log -> {
            logRef.set(log);
            return request -> {
                try {
                    return worker.submit(() -> log.validateAndAppend(request)).get();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            };
        }).build();
        CommitLog log = logRef.get();
        List<VBox<Long>> xs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            xs.add(stm.newBox(0L));
        }
        VBox<Long> y = stm.newBox(0L);
        AtomicBoolean stop = new AtomicBoolean();
        Thread direct = new Thread(() -> {
            long i = 0;
            VBox<?>[] boxes = xs.toArray(new VBox<?>[0]);
            while (!stop.get()) {
                Object[] values = new Object[boxes.length];
                java.util.Arrays.fill(values, ++i);
                log.validateAndAppend(new ForeignRequest(stm.latestVersion(), new VBox<?>[0], boxes, values));
            }
        });
        direct.start();
        long[] seen = {-1};
        try {
            boolean caught = whileStalledMidCommit(new Committer(direct, xs), 15_000, () -> {
                try {
                    runInNewThread(() -> {
                        stm.atomic(() -> y.put(1L));
                        seen[0] = stm.readOnly(y::get); // same thread, right after its commit
                    });
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            });
            assertTrue(caught, "never caught the direct committer mid-commit");
        } finally {
            stop.set(true);
            direct.join();
            worker.shutdownNow();
        }
        assertEquals(1L, seen[0], "a thread did not read its own committed write");
    }

    /**
     * Collection is triggered by a per-thread count of ended transactions, so when every thread runs fewer than
     * COLLECT_EVERY transactions (a thread per request, virtual threads) it never runs: versions and slots pile up.
     */
    @Test
    void shortLivedThreadsStillTriggerCollection() throws Exception {
        Stm stm = Stm.create();
        VBox<Long> x = stm.newBox(0L);
        int n = 2000;
        for (int i = 1; i <= n; i++) {
            long v = i;
            runInNewThread(() -> x.put(v));
        }
        assertEquals(n, (long) x.get());
        int versions = x.versionCount();
        int slots = slotCount(stm);
        assertTrue(versions <= Stm.COLLECT_EVERY + 2, "after " + n + " single-commit threads the box keeps "
                + versions + " versions and the STM " + slots + " slots of dead threads");
        // A dead thread's slot stays only until the collector has trimmed its versions.
        assertTrue(slots <= Stm.COLLECT_EVERY + 2, "after " + n + " single-commit threads the STM keeps " + slots
                + " slots");
    }

    /**
     * A thread that ends without ending its transaction keeps its snapshot published forever: the collector only
     * drops slots of dead threads whose snapshot is null, and the slot's Transaction (slot.current.owner) keeps the
     * Thread strongly reachable anyway, so its WeakReference never clears. From then on nothing is ever collected.
     */
    @Test
    void deadThreadWithOpenTransactionDoesNotPinVersionsForever() throws Exception {
        Stm stm = Stm.create();
        VBox<Long> x = stm.newBox(0L);
        runInNewThread(stm::beginReadOnly); // e.g. a worker killed by an error between begin() and commit()
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        for (long i = 1; i <= 2000; i++) {
            long v = i;
            stm.atomic(() -> x.put(v));
        }
        assertTrue(x.versionCount() <= Stm.COLLECT_EVERY + 2,
                "versions kept after the only reader's thread died: " + x.versionCount());
    }

    /**
     * An ended Transaction keeps its snapshot CommitRecord, whose next links reach every later record with its
     * values and bodies: holding one finished transaction object retains every value committed since.
     */
    @Test
    void endedTransactionDoesNotRetainLaterCommits() throws Exception {
        Stm stm = Stm.create();
        VBox<Object> x = stm.newBox(null);

        // control: without a retained transaction, an overwritten value becomes unreachable
        WeakReference<Object> control = commitThenOverwrite(stm, x);
        assertTrue(collected(control), "control: the overwritten value should be collectable");

        Transaction kept = stm.beginReadOnly();
        kept.commit(); // ended; a framework might still hold it (request context, last-transaction diagnostics)
        WeakReference<Object> ref = commitThenOverwrite(stm, x);
        boolean gone = collected(ref);
        Reference.reachabilityFence(kept);
        assertTrue(gone, "a value overwritten " + (4 * Stm.COLLECT_EVERY) + " versions ago is still reachable"
                + " (box keeps " + x.versionCount() + " versions): retained through kept.snapshot.next...values");
    }

    private static WeakReference<Object> commitThenOverwrite(Stm stm, VBox<Object> x) {
        Object big = new byte[1 << 20];
        WeakReference<Object> ref = new WeakReference<>(big);
        x.put(big);
        big = null;
        for (int i = 0; i < 4 * Stm.COLLECT_EVERY; i++) {
            x.put(i);
        }
        return ref;
    }

    private static boolean collected(WeakReference<?> ref) throws InterruptedException {
        for (int i = 0; i < 10 && ref.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        return ref.get() == null;
    }
}
