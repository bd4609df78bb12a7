package io.polycert.core;

import io.polycert.core.codec.UnregisteredTypeException;
import io.polycert.core.codec.ValueCodec;
import java.util.EnumMap;
import java.util.Map;
import java.util.Iterator;
import java.util.Objects;
import java.util.Queue;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * A multi-version software transactional memory: an object, not global state, so several can live in one JVM
 * (one per replica in tests).
 *
 * <pre>{@code
 * Stm stm = Stm.create();
 * VBox<Long> a = stm.newBox(100L), b = stm.newBox(0L);
 * stm.atomic(() -> { a.put(a.get() - 10); b.put(b.get() + 10); });
 * long total = stm.readOnly(() -> a.get() + b.get());
 * }</pre>
 *
 * <p>Transactions read a consistent snapshot. Read-only ones never block and never abort. A read-write one is
 * validated at commit against the versions committed since its snapshot; {@link #atomic} retries it on conflict,
 * up to {@link Builder#maxAttempts(int)} attempts. Old versions are dropped as soon as no running transaction can
 * read them. Nesting is flat: a block nested in a running transaction joins it.
 */
public final class Stm implements AutoCloseable {
    private final String name;
    private final int maxAttempts;
    private final IdAllocator ids;
    private final ValueCodec strictCodec;
    private final java.util.function.Consumer<VBox<?>> boxListener;
    /** Each thread's current transaction and published snapshot. */
    private final ThreadLocal<Slot> slots = ThreadLocal.withInitial(this::newSlot);
    /**
     * How many transactions, of any STM, run on this thread. Thread-confined, so STMs stay independent; it only
     * lets a box of one STM refuse to be used, outside its own STM's transaction, inside another STM's (where it
     * would silently escape that transaction, and a put would even commit on its own).
     */
    private static final ThreadLocal<int[]> TRANSACTIONS_ON_THREAD = ThreadLocal.withInitial(() -> new int[1]);
    /** Every thread's slot, scanned by the collector for the oldest snapshot in use. */
    private final Queue<Slot> allSlots = new ConcurrentLinkedQueue<>();
    private final Log log = new Log();
    private final CommitHandler handler;

    /** Newest fully written-back version: the snapshot new transactions take. */
    private final LatestVersion latest;
    /** Oldest version whose older versions may still be kept; the collector starts from here. */
    private volatile CommitRecord oldestKept;
    private final AtomicBoolean collecting = new AtomicBoolean();
    private volatile long nextCollectAt = COLLECT_EVERY;
    /** Collect garbage once this many versions were created since the last collection. */
    static final int COLLECT_EVERY = 16;
    /** Spins to wait for a record's owner to write it back before helping. */
    private static final int HELP_AFTER_SPINS = 64;
    private volatile boolean closed;

    private Stm(Builder b) {
        this.name = b.name != null ? b.name : "stm@" + Integer.toHexString(System.identityHashCode(this));
        this.maxAttempts = b.maxAttempts;
        this.ids = b.ids != null ? b.ids : IdAllocator.sequential();
        this.strictCodec = b.strictCodec;
        this.boxListener = b.boxListener;
        CommitRecord initial = CommitRecord.initial(0);
        this.latest = new LatestVersion(initial);
        this.oldestKept = initial;
        this.handler = Objects.requireNonNull(b.handlerFactory.create(log), "CommitHandler.Factory returned null");
    }

    /** An embedded, non-replicated STM with default settings. */
    public static Stm create() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    // ---- boxes ------------------------------------------------------------------------------------------

    /**
     * Creates a box. Inside a read-write transaction the box is part of its write-set and exists for other
     * transactions once it commits; outside a transaction it exists at once, visible to every snapshot.
     */
    public <T> VBox<T> newBox(T initial) {
        checkOpen();
        Transaction tx = slots.get().current;
        if (tx == null) {
            if (!handler.allowsBoxesOutsideTransactions()) {
                throw new IllegalStateException("this STM is replicated: a box created outside a transaction would"
                        + " exist on this replica only; create it inside stm.atomic(...) or use a named root");
            }
            return created(new VBox<>(this, ids.nextId(), new VBox.Body(initial, 0, null)));
        }
        VBox<T> box = created(new VBox<>(this, ids.nextId(), null));
        tx.create(box, initial);
        return box;
    }

    /**
     * A box that exists in every snapshot (with {@code initial} as its version-0 value) under an id the caller
     * chooses: for roots every replica creates alike, by name. Ids must not collide with allocated ones.
     */
    public <T> VBox<T> root(long id, T initial) {
        checkOpen();
        return created(new VBox<>(this, id, new VBox.Body(initial, 0, null)));
    }

    private <T> VBox<T> created(VBox<T> box) {
        boxListener.accept(box);
        return box;
    }

    Object read(VBox<?> box) {
        Slot slot = slots.get();
        Transaction tx = slot.current;
        if (tx != null) {
            return tx.readChecked(box);
        }
        checkNoOtherTransaction(slot, box);
        // Publish the snapshot like a transaction would, or the collector could cut the version we walk to.
        VBox.Body body;
        try {
            body = box.bodyAt(enterSnapshot(slot).version);
        } finally {
            slot.leave();
        }
        if (body == null) {
            throw new IllegalStateException(box + " has no committed value yet: the transaction that created it"
                    + " has not committed");
        }
        return body.value;
    }

    void write(VBox<?> box, Object value) {
        Slot slot = slots.get();
        Transaction tx = slot.current;
        if (tx != null) {
            tx.writeChecked(box, value);
        } else {
            checkNoOtherTransaction(slot, box);
            atomic(() -> slots.get().current.writeChecked(box, value));
        }
    }

    // ---- transactions -----------------------------------------------------------------------------------

    /**
     * Runs {@code body} in a read-write transaction and commits it, retrying on conflict. Inside a running
     * transaction, runs {@code body} as part of it (flat nesting).
     *
     * @throws TransactionAbortedException if the cause is not retryable, or after {@link Builder#maxAttempts}
     *     attempts; its message counts the causes
     */
    public <T> T atomic(Supplier<T> body) {
        Objects.requireNonNull(body, "body");
        if (slots.get().current != null) {
            return body.get();
        }
        Map<AbortCause, Integer> causes = null;
        for (int attempt = 1; ; attempt++) {
            Transaction tx = begin();
            T result;
            try {
                result = body.get();
            } catch (RuntimeException | Error e) {
                tx.abort();
                throw e;
            }
            try {
                tx.commit();
                return result;
            } catch (TransactionAbortedException e) {
                if (!e.abortCause().isRetryable()) {
                    throw e;
                }
                if (causes == null) {
                    causes = new EnumMap<>(AbortCause.class);
                }
                causes.merge(e.abortCause(), 1, Integer::sum);
                if (attempt >= maxAttempts) {
                    throw new TransactionAbortedException(e.abortCause(), "transaction gave up after " + attempt
                            + " attempts (" + describe(causes) + "); last: " + e.getMessage(), e, attempt);
                }
                backOff(attempt);
            }
        }
    }

    /** {@link #atomic(Supplier)} for code that returns nothing. */
    public void atomic(Runnable body) {
        Objects.requireNonNull(body, "body");
        atomic(() -> {
            body.run();
            return null;
        });
    }

    /**
     * Runs {@code body} in a read-only transaction: it sees one consistent snapshot, never blocks, never aborts,
     * and any write in it throws {@link ReadOnlyTransactionException}. Nested in a running transaction, it reads
     * that transaction's state (writes are refused inside the block).
     */
    public <T> T readOnly(Supplier<T> body) {
        Objects.requireNonNull(body, "body");
        Transaction outer = slots.get().current;
        if (outer instanceof ReadWriteTransaction rw) {
            rw.enterReadOnly();
            try {
                return body.get();
            } finally {
                rw.exitReadOnly();
            }
        } else if (outer != null) {
            return body.get();
        }
        Transaction tx = beginReadOnly();
        try {
            return body.get();
        } finally {
            tx.commit();
        }
    }

    /** {@link #readOnly(Supplier)} for code that returns nothing. */
    public void readOnly(Runnable body) {
        Objects.requireNonNull(body, "body");
        readOnly(() -> {
            body.run();
            return null;
        });
    }

    /**
     * Begins a read-write transaction bound to this thread; end it with {@link Transaction#commit()} or
     * {@link Transaction#abort()}.
     *
     * @throws IllegalStateException if a transaction of this STM is already running on this thread
     */
    public Transaction begin() {
        checkNotInTransaction();
        Slot slot = slots.get();
        ReadWriteTransaction tx = new ReadWriteTransaction(this, enterSnapshot(slot));
        slot.current = tx;
        slot.transactionsOnThread[0]++;
        return tx;
    }

    /** Begins a read-only transaction bound to this thread. */
    public Transaction beginReadOnly() {
        checkNotInTransaction();
        Slot slot = slots.get();
        ReadOnlyTransaction tx = new ReadOnlyTransaction(this, enterSnapshot(slot));
        slot.current = tx;
        slot.transactionsOnThread[0]++;
        return tx;
    }

    /** The transaction of this STM running on this thread, or null. */
    public Transaction currentTransaction() {
        return slots.get().current;
    }

    /** The newest committed version. */
    public long latestVersion() {
        return latestRecord().version;
    }

    /**
     * Closes the STM (and its commit handler): new transactions and commits are refused. Transactions still
     * running can only abort or fail to commit.
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            handler.close();
        }
    }

    public boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "Stm[" + name + "]";
    }

    // ---- internals --------------------------------------------------------------------------------------

    CommitHandler handler() {
        if (closed) {
            throw new StmClosedException(this + " is closed");
        }
        return handler;
    }

    /** Refuses a commit whose values could not cross the wire (only when a strict codec was configured). */
    void checkEncodable(CommitRequest request) {
        if (strictCodec == null) {
            return;
        }
        for (int i = 0; i < request.writeSetSize(); i++) {
            try {
                strictCodec.checkEncodable(request.writtenValue(i));
            } catch (UnregisteredTypeException e) {
                throw new TransactionAbortedException(AbortCause.BAD_VALUE,
                        "cannot commit the write to " + request.writtenBox(i) + ": " + e.getMessage(), e);
            }
        }
    }

    private CommitRecord latestRecord() {
        return latest.get();
    }

    private void checkOpen() {
        if (closed) {
            throw new StmClosedException(this + " is closed");
        }
    }

    private void checkNoOtherTransaction(Slot slot, VBox<?> box) {
        if (slot.transactionsOnThread[0] > 0) {
            throw new IllegalArgumentException(box + " belongs to " + this + ", but this thread runs a transaction"
                    + " of another STM: a box is read and written in its own STM's transactions only");
        }
    }

    private void checkNotInTransaction() {
        checkOpen();
        if (slots.get().current != null) {
            throw new IllegalStateException("a transaction of " + this + " is already running on this thread;"
                    + " use stm.atomic(...) to nest");
        }
    }

    /**
     * Publishes the newest snapshot in this thread's slot. The re-check closes the race with the collector: a
     * snapshot that stopped being the newest before it was published may already be collected, so we move on.
     */
    private CommitRecord enterSnapshot(Slot slot) {
        for (;;) {
            CommitRecord r = latestRecord();
            slot.snapshot = r;
            if (r == latestRecord()) {
                return r;
            }
        }
    }

    void release(Transaction tx) {
        Slot slot = slots.get();
        slot.leave();
        if (slot.current == tx) {
            slot.current = null;
            slot.transactionsOnThread[0]--;
        }
        // Mostly counted per thread, so finishing a transaction rarely reads a line other threads write; the
        // global threshold covers threads that each run only a few transactions.
        if (++slot.endedSinceCollect >= COLLECT_EVERY || latestRecord().version >= nextCollectAt) {
            slot.endedSinceCollect = 0;
            collectGarbage();
        }
    }

    private Slot newSlot() {
        Slot slot = new Slot(Thread.currentThread(), TRANSACTIONS_ON_THREAD.get());
        allSlots.add(slot);
        return slot;
    }

    /**
     * Drops versions no snapshot can read any more. With v the oldest snapshot in use (or the newest version if
     * none is), no transaction reads below v, so every record up to v lets the boxes it wrote forget what came
     * before it. Runs every {@link #COLLECT_EVERY} versions, on whichever thread gets there first.
     */
    private void collectGarbage() {
        if (!collecting.compareAndSet(false, true)) {
            return;
        }
        try {
            long limit = latestRecord().version; // read before the slots: see enterSnapshot
            nextCollectAt = limit + COLLECT_EVERY;
            for (Iterator<Slot> it = allSlots.iterator(); it.hasNext(); ) {
                Slot slot = it.next();
                Thread owner = slot.owner.get();
                if (owner == null || !owner.isAlive()) {
                    // A dead thread's transaction can never be used again (only its owner may), so its
                    // snapshot holds nothing back.
                    slot.current = null;
                    slot.snapshot = null;
                    if (owner == null) {
                        it.remove();
                    }
                    continue;
                }
                CommitRecord r = slot.snapshot;
                if (r != null) {
                    limit = Math.min(limit, r.version);
                }
            }
            CommitRecord head = oldestKept;
            while (head.version < limit) {
                CommitRecord next = head.next();
                next.dropOlderVersions();
                head = next;
            }
            oldestKept = head;
        } finally {
            collecting.set(false);
        }
    }

    /**
     * Writes back every appended record in order and returns the tail, now the latest version. A record's owner
     * is usually busy writing it back already, so we wait for it briefly before helping (helping costs both
     * threads cache misses on the same boxes).
     */
    private CommitRecord helpWriteBackAll() {
        return helpWriteBackAll(null);
    }

    /** As {@link #helpWriteBackAll()}, writing back {@code own} (this thread's record) without waiting. */
    private CommitRecord helpWriteBackAll(CommitRecord own) {
        CommitRecord r = latestRecord();
        for (CommitRecord n = r.next(); n != null; r = n, n = r.next()) {
            for (int spin = 0; n != own && spin < HELP_AFTER_SPINS && !n.isWrittenBack(); spin++) {
                Thread.onSpinWait();
            }
            n.writeBack();
            latest.compareAndSet(r, n);
        }
        return r;
    }

    /**
     * Local optimistic commit of one of our own transactions. Validation walks the records appended since the
     * snapshot and looks for boxes we read among the boxes they wrote, so it neither waits for nor helps their
     * write-back; only publishing our version needs the older ones written back first.
     */
    private long commitLocal(ReadWriteTransaction tx) {
        VBox<?>[] boxes = tx.writtenBoxes();
        Object[] values = tx.writtenValues();
        CommitRecord last = tx.snapshot;
        for (;;) {
            for (CommitRecord r = last.next(); r != null; last = r, r = r.next()) {
                VBox<?> stale = tx.firstReadAmong(r.boxes);
                if (stale != null) {
                    throw new TransactionAbortedException(AbortCause.CONFLICT, stale + " was overwritten at version "
                            + r.version + " after snapshot " + tx.snapshotVersion);
                }
            }
            CommitRecord mine = new CommitRecord(last.version + 1, boxes, values);
            if (last.tryAppend(mine)) {
                writeBackAppended(mine, last);
                helpWriteBackUpTo(mine); // a commit that returned is visible to every transaction begun after
                return mine.version;
            }
        }
    }

    /**
     * Writes back a record we just appended. If no older record still being written back touches our boxes, we
     * install ours at once, without waiting for them (versions of each box still arrive in order), and publish
     * as far as the records are written back; whoever completes the older ones publishes ours. Otherwise we go in
     * order, helping.
     */
    private void writeBackAppended(CommitRecord mine, CommitRecord predecessor) {
        CommitRecord published = latestRecord();
        if (published == predecessor) { // the common case: nothing older is pending
            mine.writeBack();
            latest.compareAndSet(predecessor, mine);
            publishWrittenBack(mine);
            return;
        }
        // (another thread may have helped ours already and published past it: then n runs off the end)
        for (CommitRecord n = latestRecord().next(); n != null && n.version < mine.version; n = n.next()) {
            if (!n.isWrittenBack() && n.overlaps(mine)) {
                helpWriteBackUpTo(mine);
                return;
            }
        }
        mine.writeBack();
        publishWrittenBack(latestRecord());
    }

    /** Writes back and publishes, in order, every record up to {@code mine} (ours: no waiting for it). */
    private void helpWriteBackUpTo(CommitRecord mine) {
        CommitRecord r = latestRecord();
        while (r.version < mine.version) {
            CommitRecord n = r.next();
            for (int spin = 0; n != mine && spin < HELP_AFTER_SPINS && !n.isWrittenBack(); spin++) {
                Thread.onSpinWait();
            }
            n.writeBack();
            latest.compareAndSet(r, n);
            r = n;
        }
    }

    /** Advances the latest version from {@code r} over records written back; stops at the first that is not. */
    private void publishWrittenBack(CommitRecord r) {
        for (CommitRecord n = r.next(); n != null && n.isWrittenBack(); r = n, n = r.next()) {
            latest.compareAndSet(r, n);
        }
    }

    private static void backOff(int attempt) {
        if (attempt < 4) {
            Thread.onSpinWait();
        } else if (attempt < 16) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(1_000L * Math.min(attempt, 1000)));
        }
    }

    private static String describe(Map<AbortCause, Integer> causes) {
        StringBuilder sb = new StringBuilder();
        causes.forEach((cause, n) -> sb.append(sb.length() == 0 ? "" : ", ").append(n).append(' ')
                .append(cause.name().toLowerCase().replace('_', ' ')));
        return sb.toString();
    }

    /** A thread's current transaction and the snapshot it reads (null when none), for the collector. */
    private static final class Slot {
        private static final VarHandle SNAPSHOT;

        static {
            try {
                SNAPSHOT = MethodHandles.lookup().findVarHandle(Slot.class, "snapshot", CommitRecord.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final WeakReference<Thread> owner;
        Transaction current;
        volatile CommitRecord snapshot;
        int endedSinceCollect;
        /** The owner's count of running transactions of any STM, kept here so no second lookup is needed. */
        final int[] transactionsOnThread;

        Slot(Thread owner, int[] transactionsOnThread) {
            this.owner = new WeakReference<>(owner);
            this.transactionsOnThread = transactionsOnThread;
        }

        /**
         * Clears the snapshot with a release store: publishing a snapshot needs a full fence (see
         * enterSnapshot), withdrawing it does not, since a collector that still sees it only keeps more.
         */
        void leave() {
            SNAPSHOT.setRelease(this, null);
        }
    }

    /** The commit log handed to the {@link CommitHandler}. */
    private final class Log implements CommitLog {

        @Override
        public long latestVersion() {
            return latestRecord().version;
        }

        @Override
        public long latestVersionOf(VBox<?> box) {
            return box.latestVersion();
        }

        @Override
        public VBox<?> firstStaleRead(CommitRequest request) {
            helpWriteBackAll();
            long snapshot = request.snapshotVersion();
            for (int i = 0, n = request.readSetSize(); i < n; i++) {
                VBox<?> box = request.readBox(i);
                if (box.latestVersion() > snapshot) {
                    return box;
                }
            }
            return null;
        }

        @Override
        public long validateAndAppend(CommitRequest request) {
            if (request instanceof ReadWriteTransaction tx && tx.stm == Stm.this) {
                return commitLocal(tx);
            }
            VBox<?>[] boxes = boxesOf(request);
            Object[] values = valuesOf(request);
            long snapshot = request.snapshotVersion();
            for (;;) {
                CommitRecord tail = helpWriteBackAll();
                // Every version up to tail is written back, so a box newer than the snapshot was overwritten.
                if (tail.version != snapshot) {
                    for (int i = 0, n = request.readSetSize(); i < n; i++) {
                        VBox<?> box = request.readBox(i);
                        long v = box.latestVersion();
                        if (v > snapshot) {
                            throw new TransactionAbortedException(AbortCause.CONFLICT, box
                                    + " was overwritten at version " + v + " after snapshot " + snapshot);
                        }
                    }
                }
                CommitRecord mine = new CommitRecord(tail.version + 1, boxes, values);
                if (tail.tryAppend(mine)) {
                    helpWriteBackUpTo(mine);
                    return mine.version;
                }
            }
        }

        @Override
        public long append(CommitRequest request) {
            return append(boxesOf(request), valuesOf(request));
        }

        @Override
        public Object latestValue(VBox<?> box) {
            VBox.Body body = box.bodyAt(latestRecord().version);
            if (body == null) {
                throw new IllegalStateException(box + " has no committed value");
            }
            return body.value;
        }

        @Override
        public VBox<?> createBox(long id) {
            return created(new VBox<>(Stm.this, id, null));
        }

        @Override
        public void installSnapshot(long version, VBox<?>[] boxes, Object[] values) {
            if (boxes.length != values.length) {
                throw new IllegalArgumentException(boxes.length + " boxes but " + values.length + " values");
            }
            checkOwnBoxes(boxes);
            // One record that writes every box: snapshots older than it keep reading the versions they read.
            CommitRecord tail = helpWriteBackAll();
            if (version <= tail.version) {
                throw new IllegalStateException("a snapshot at version " + version + " cannot be installed over"
                        + " version " + tail.version + ": it must be newer than what this STM committed");
            }
            CommitRecord snapshot = new CommitRecord(version, boxes, values);
            if (!tail.tryAppend(snapshot)) {
                throw new IllegalStateException("a transaction committed while the snapshot was installed");
            }
            helpWriteBackUpTo(snapshot);
        }

        @Override
        public long append(VBox<?>[] boxes, Object[] values) {
            if (boxes.length != values.length) {
                throw new IllegalArgumentException(boxes.length + " boxes but " + values.length + " values");
            }
            checkOwnBoxes(boxes);
            for (;;) {
                CommitRecord tail = helpWriteBackAll();
                CommitRecord mine = new CommitRecord(tail.version + 1, boxes, values);
                if (tail.tryAppend(mine)) {
                    helpWriteBackUpTo(mine);
                    return mine.version;
                }
            }
        }

        private void checkOwnBoxes(VBox<?>[] boxes) {
            for (VBox<?> box : boxes) {
                if (box.stm != Stm.this) {
                    throw new IllegalArgumentException(box + " belongs to " + box.stm + ", not to " + Stm.this);
                }
            }
        }

        private VBox<?>[] boxesOf(CommitRequest request) {
            if (request instanceof ReadWriteTransaction tx) {
                return tx.writtenBoxes();
            }
            VBox<?>[] boxes = new VBox<?>[request.writeSetSize()];
            for (int i = 0; i < boxes.length; i++) {
                boxes[i] = request.writtenBox(i);
            }
            return boxes;
        }

        private Object[] valuesOf(CommitRequest request) {
            if (request instanceof ReadWriteTransaction tx) {
                return tx.writtenValues();
            }
            Object[] values = new Object[request.writeSetSize()];
            for (int i = 0; i < values.length; i++) {
                values[i] = request.writtenValue(i);
            }
            return values;
        }
    }

    /** Settings of an {@link Stm}. */
    public static final class Builder {
        private String name;
        private int maxAttempts = 100;
        private IdAllocator ids;
        private ValueCodec strictCodec;
        private CommitHandler.Factory handlerFactory = CommitHandler.local();
        private java.util.function.Consumer<VBox<?>> boxListener = box -> { };

        private Builder() {
        }

        /** A name for logs and messages. */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** How many times {@link Stm#atomic} runs a transaction that keeps conflicting before giving up. */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** Where box ids come from (default: 1, 2, 3, ...). */
        public Builder idAllocator(IdAllocator ids) {
            this.ids = Objects.requireNonNull(ids, "ids");
            return this;
        }

        /**
         * Refuse, at commit, values this codec cannot encode, even when nothing is replicated: catches values that
         * would fail once replication is switched on. Replicating handlers always encode, so always refuse them.
         */
        public Builder strictCodec(ValueCodec codec) {
            this.strictCodec = Objects.requireNonNull(codec, "codec");
            return this;
        }

        /** Called with every box this STM creates (replication keeps a registry of them by id). */
        public Builder onBoxCreated(java.util.function.Consumer<VBox<?>> listener) {
            this.boxListener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** Who decides commits (default: {@link CommitHandler#local()}). Replication plugs in here. */
        public Builder commitHandler(CommitHandler.Factory factory) {
            this.handlerFactory = Objects.requireNonNull(factory, "factory");
            return this;
        }

        public Stm build() {
            return new Stm(this);
        }
    }
}
