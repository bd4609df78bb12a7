package io.polycert.core;

import io.polycert.core.codec.UnregisteredTypeException;
import io.polycert.core.codec.ValueCodec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.List;
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
    /** Whether transactions note when they began (a nanoTime call each): only if the handler uses it. */
    private final boolean timesStarts;

    /**
     * The newest version taken by a commit; new transactions read it as their snapshot. A commit takes its
     * version only once its pending bodies sit on all its boxes, so a snapshot never sees part of a commit.
     */
    final PaddedLong clock = new PaddedLong();
    /** No snapshot older than this is in use or can start: versions older than the one it sees can go. */
    private final PaddedLong keepFrom = new PaddedLong();
    /**
     * 1 while a thread scans the slots. Padded like the clock: it is written at every collection, and next to
     * read-mostly objects (the handler) it would make every other thread miss on them.
     */
    private final PaddedLong collecting = new PaddedLong();
    /** The clock at the previous collection (read and written under {@link #collecting}). */
    private final PaddedLong clockAtLastCollection = new PaddedLong();
    /** Set while a write-set is installed through the {@link CommitLog}: installs must come one at a time. */
    private final AtomicBoolean installing = new AtomicBoolean();
    /** A thread collects after this many of its transactions, or once its snapshot moved this many versions. */
    static final int COLLECT_EVERY = 16;
    /** Spins to let a writer past its locking phase finish before aborting it. */
    private static final int ABORT_AFTER_SPINS = 64;
    private volatile boolean closed;

    private Stm(Builder b) {
        this.name = b.name != null ? b.name : "stm@" + Integer.toHexString(System.identityHashCode(this));
        this.maxAttempts = b.maxAttempts;
        this.ids = b.ids != null ? b.ids : IdAllocator.sequential();
        this.strictCodec = b.strictCodec;
        this.boxListener = b.boxListener;
        clockAtLastCollection.set(-1);
        this.handler = Objects.requireNonNull(b.handlerFactory.create(log), "CommitHandler.Factory returned null");
        this.timesStarts = handler.usesStartTimes();
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
            body = box.bodyAt(enterSnapshot(slot), clock);
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
        Slot slot = slots.get();
        if (slot.current != null) {
            return body.get();
        }
        Map<AbortCause, Integer> causes = null;
        for (int attempt = 1; ; attempt++) {
            checkOpen();
            Transaction tx = begin(slot);
            tx.managed = true;
            T result;
            try {
                result = body.get();
            } catch (RuntimeException | Error e) {
                tx.abortNow();
                throw e;
            }
            try {
                tx.commitNow();
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
        tx.managed = true;
        try {
            return body.get();
        } finally {
            tx.commitNow();
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
        Slot slot = slots.get();
        checkNotInTransaction(slot);
        return begin(slot);
    }

    private Transaction begin(Slot slot) {
        ReadWriteTransaction tx = new ReadWriteTransaction(this, slot, enterSnapshot(slot),
                timesStarts ? System.nanoTime() : -1);
        slot.current = tx;
        slot.transactionsOnThread[0]++;
        return tx;
    }

    /** Begins a read-only transaction bound to this thread. */
    public Transaction beginReadOnly() {
        Slot slot = slots.get();
        checkNotInTransaction(slot);
        ReadOnlyTransaction tx = new ReadOnlyTransaction(this, slot, enterSnapshot(slot));
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
        return clock.get();
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

    private void checkNotInTransaction(Slot slot) {
        checkOpen();
        if (slot.current != null) {
            throw new IllegalStateException("a transaction of " + this + " is already running on this thread;"
                    + " use stm.atomic(...) to nest");
        }
    }

    /**
     * Publishes the newest version in this thread's slot and returns it as the snapshot. The re-check closes the
     * race with the collector: one that read the clock after ours moved on may have scanned the slot before we
     * published, and decided that our snapshot's versions could go, so we take the newer version instead.
     */
    private long enterSnapshot(Slot slot) {
        for (;;) {
            long version = clock.get();
            slot.snapshot = version;
            if (clock.get() == version) {
                return version;
            }
        }
    }

    void release(Transaction tx) {
        Slot slot = tx.slot;
        slot.leave();
        if (slot.current == tx) {
            slot.current = null;
            slot.transactionsOnThread[0]--;
        }
        // Counted per thread, so finishing a transaction reads no line other threads write. The distance its
        // snapshot moved covers threads that each run only a few transactions while others commit many.
        long snapshot = tx.snapshotVersion;
        if (++slot.endedSinceCollect >= COLLECT_EVERY || snapshot - slot.snapshotAtCollect >= COLLECT_EVERY) {
            slot.endedSinceCollect = 0;
            slot.snapshotAtCollect = snapshot;
            collectGarbage(slot);
        }
    }

    private Slot newSlot() {
        Slot slot = new Slot(Thread.currentThread(), TRANSACTIONS_ON_THREAD.get());
        allSlots.add(slot);
        return slot;
    }

    /**
     * Finds the oldest snapshot in use (or the clock, if none is), below which no transaction can read, and lets
     * the versions this thread committed forget the versions before them. Runs every {@link #COLLECT_EVERY}
     * transactions of a thread, or when its snapshot moved that many versions; the scan runs on one thread at a
     * time. Each thread trims its own versions; the scan also trims those of dead threads, and, once nothing has
     * committed for a whole collection period, those of every thread, so a quiet STM keeps one version of every
     * box.
     */
    private void collectGarbage(Slot mine) {
        if (collecting.compareAndSet(0, 1)) {
            try {
                long now = clock.get(); // read before the slots: see enterSnapshot
                long limit = now;
                List<Slot> dead = null;
                for (Slot slot : allSlots) {
                    Thread owner = slot.owner.get();
                    if (owner == null || !owner.isAlive()) {
                        // A dead thread's transaction can never be used again (only its owner may): its snapshot
                        // holds nothing back, and the collector trims its versions in its place (below).
                        if (dead == null) {
                            dead = new ArrayList<>();
                        }
                        dead.add(slot);
                    } else {
                        limit = Math.min(limit, slot.snapshot);
                    }
                }
                if (limit > keepFrom.get()) {
                    keepFrom.set(limit);
                }
                boolean quiet = now == clockAtLastCollection.get();
                clockAtLastCollection.set(now);
                if (dead != null) {
                    for (Slot slot : dead) {
                        slot.current = null;
                        slot.trimRetired(limit); // the owner is gone and collectors run one at a time
                        if (!slot.hasRetired()) { // else some version may still be read: trim it later
                            allSlots.remove(slot);
                        }
                    }
                }
                if (quiet) {
                    for (Slot slot : allSlots) {
                        if (slot != mine) {
                            slot.cutRetired(limit);
                        }
                    }
                }
            } finally {
                collecting.set(0);
            }
        }
        mine.keepFrom = keepFrom.get();
        mine.trimRetired(mine.keepFrom);
    }

    // ---- committing -------------------------------------------------------------------------------------
    //
    // A commit pushes a pending body (owned by its Commit) onto each box it writes, takes a version from the
    // clock, validates its reads against what committed between its snapshot and that version, and marks itself
    // committed; then it finishes its bodies. A pending head acts as the box's lock, held for a few instructions;
    // a commit that finds another's pending head helps it along (finishes or removes it once decided) or, if it
    // is still undecided, aborts it: nobody ever waits for a thread that may be descheduled. See Commit.

    /** Local optimistic commit of a transaction of this STM, or of a request naming its boxes. */
    private long commitLocal(CommitRequest request, VBox<?>[] boxes, Object[] values, int n, Slot slot) {
        long snapshot = request.snapshotVersion();
        Commit commit = new Commit(false);
        VBox.Body[] pending = new VBox.Body[n];
        int pushed = 0;
        try {
            for (; pushed < n; pushed++) {
                pending[pushed] = push(boxes[pushed], values[pushed], commit);
            }
            if (!commit.compareAndSet(Commit.LOCKING, Commit.LOCKED)) {
                throw overtaken();
            }
            long version = clock.incrementAndGet();
            if (version == snapshot + 1 && commit.compareAndSet(Commit.LOCKED, Commit.committed(version))) {
                finish(pending, version, slot); // nothing committed since our snapshot: nothing to validate
                return version;
            }
            if (!commit.compareAndSet(Commit.LOCKED, Commit.versioned(version))) {
                long state = commit.state(); // a reader gave us a version first, or a writer aborted us
                if (state == Commit.ABORTED) {
                    throw overtaken();
                }
                version = Commit.versionOf(state);
            }
            if (version != snapshot + 1) { // else nothing committed in between
                VBox<?> stale = firstOverwritten(request, snapshot, version, commit);
                if (stale != null) {
                    throw new TransactionAbortedException(AbortCause.CONFLICT, stale + " was overwritten after"
                            + " snapshot " + snapshot);
                }
            }
            if (!commit.compareAndSet(Commit.versioned(version), Commit.committed(version))) {
                throw overtaken();
            }
            finish(pending, version, slot);
            return version;
        } catch (RuntimeException e) { // an abort, or a write-set naming a box twice
            abandon(commit, boxes, pending, pushed);
            throw e;
        }
    }

    private static TransactionAbortedException overtaken() {
        return new TransactionAbortedException(AbortCause.CONFLICT, "a concurrent transaction needed a box this"
                + " one writes, or read one at a version this one would have written, before it could commit");
    }

    /** Pushes a pending body of {@code commit} onto {@code box}, helping or aborting whoever is in the way. */
    private VBox.Body push(VBox<?> box, Object value, Commit commit) {
        VBox.Body mine = new VBox.Body(value, commit);
        int spins = 0;
        for (;;) {
            if (commit.state() == Commit.ABORTED) {
                throw overtaken();
            }
            VBox.Body head = box.head();
            Commit other = head == null ? null : head.owner();
            if (other == commit) { // else an install would wait for itself for ever, and a commit abort itself
                throw new IllegalArgumentException(box + " is named twice in one write-set");
            }
            if (other != null) {
                spins = clearWay(box, head, other, spins);
                continue;
            }
            mine.next = head;
            if (box.casHead(head, mine)) {
                return mine;
            }
        }
    }

    /**
     * Deals with a pending head of another commit: removes it if that commit aborted, finishes it if it
     * committed, lets an install (which cannot abort) or a commit past its locking phase finish for a few spins,
     * and otherwise aborts it.
     *
     * @return the spins so far
     */
    private int clearWay(VBox<?> box, VBox.Body head, Commit other, int spins) {
        long state = other.state();
        if (state == Commit.ABORTED) {
            box.casHead(head, head.next);
        } else if (Commit.isCommitted(state)) {
            head.finish(Commit.versionOf(state));
        } else if (other.certified || (state != Commit.LOCKING && spins < ABORT_AFTER_SPINS)) {
            Thread.onSpinWait();
            return spins + 1;
        } else {
            other.compareAndSet(state, Commit.ABORTED);
        }
        return spins;
    }

    /**
     * The first box the request read that a commit overwrote after {@code snapshot} and before {@code version}
     * (this commit's), or null. Commits still undecided before {@code version} are aborted by versionAtMost.
     * A box whose versions end before one at or below the snapshot counts as overwritten: the collector cut the
     * version read, so it cannot be shown valid. This STM's own transactions never meet that (their published
     * snapshot keeps the version they read); a request whose snapshot nobody holds can.
     */
    private VBox<?> firstOverwritten(CommitRequest request, long snapshot, long version, Commit commit) {
        for (int i = 0, n = request.readSetSize(); i < n; i++) {
            VBox<?> box = request.readBox(i);
            boolean valid = false;
            for (VBox.Body b = box.head(); b != null; b = b.next) {
                Commit owner = b.owner();
                long v;
                if (owner == null) {
                    v = b.version;
                } else if (owner == commit) {
                    continue; // our own write of a box we read
                } else if ((v = owner.versionAtMost(version, clock)) == Commit.INVISIBLE) {
                    continue;
                }
                if (v <= snapshot) {
                    valid = true; // the version we read (or an older one)
                    break;
                }
                if (v < version) {
                    return box;
                }
            }
            if (!valid) {
                return box;
            }
        }
        return null;
    }

    /** Aborts {@code commit} (if nobody did) and takes its pending bodies off their boxes. */
    private static void abandon(Commit commit, VBox<?>[] boxes, VBox.Body[] pending, int pushed) {
        for (long state = commit.state(); state != Commit.ABORTED; state = commit.state()) {
            if (Commit.isCommitted(state)) {
                throw new IllegalStateException("a committed transaction cannot be abandoned");
            }
            commit.compareAndSet(state, Commit.ABORTED);
        }
        for (int i = 0; i < pushed; i++) {
            boxes[i].casHead(pending[i], pending[i].next); // fails harmlessly if a helper removed it already
        }
    }

    /**
     * Finishes our bodies at {@code version} and cuts, below each, the versions no snapshot can read any more;
     * bodies that keep older versions are remembered in the slot, to be trimmed when the oldest snapshot moves.
     */
    private void finish(VBox.Body[] pending, long version, Slot slot) {
        long keep = slot.keepFrom;
        for (VBox.Body b : pending) {
            b.finish(version);
            for (VBox.Body x = b; x != null; x = x.next) {
                if (x.version <= keep) {
                    x.next = null;
                    break;
                }
            }
            if (b.next != null) {
                slot.retire(b, keepFrom);
            }
        }
    }

    /**
     * Installs a write-set certified elsewhere as the next version, or (for a snapshot) as {@code version}. The
     * version is chosen after the bodies are pushed and published with the commit's state before the clock
     * moves, so a reader either sees it in {@code LOCKING} (and its snapshot is older) or knows its version; and
     * versions come out one above the previous, as replicas need. Installs come one at a time and not while local
     * commits run (a replicating handler installs every commit itself).
     */
    private long install(VBox<?>[] boxes, Object[] values, long version) {
        if (boxes.length != values.length) {
            throw new IllegalArgumentException(boxes.length + " boxes but " + values.length + " values");
        }
        checkOwnBoxes(boxes);
        if (!installing.compareAndSet(false, true)) {
            throw new IllegalStateException("write-sets are installed through the CommitLog by one thread at a"
                    + " time (the replication layer's delivery order); another install is running");
        }
        try {
            long previous = clock.get();
            if (version >= 0 && version <= previous) {
                throw new IllegalStateException("a snapshot at version " + version + " cannot be installed over"
                        + " version " + previous + ": it must be newer than what this STM committed");
            }
            Commit commit = new Commit(true);
            VBox.Body[] pending = new VBox.Body[boxes.length];
            int pushed = 0;
            try {
                for (; pushed < boxes.length; pushed++) {
                    pending[pushed] = push(boxes[pushed], values[pushed], commit);
                }
            } catch (RuntimeException | Error e) { // nobody else may abort an install: undo it ourselves
                abandon(commit, boxes, pending, pushed);
                throw e;
            }
            long v = version >= 0 ? version : clock.get() + 1;
            commit.setCommitted(v);
            boolean alone = clock.compareAndSet(v == version ? previous : v - 1, v);
            Slot slot = slots.get();
            slot.keepFrom = keepFrom.get(); // the installing thread may run no transactions that would refresh it
            finish(pending, v, slot);
            if (!alone) {
                throw new IllegalStateException("a local commit ran while a write-set was installed: version " + v
                        + " may now be shared by two commits; installs must not run alongside local commits");
            }
            return v;
        } finally {
            installing.set(false);
        }
    }

    private void checkOwnBoxes(VBox<?>[] boxes) {
        for (VBox<?> box : boxes) {
            if (box.stm != this) {
                throw new IllegalArgumentException(box + " belongs to " + box.stm + ", not to " + this);
            }
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

    /**
     * A thread's current transaction, the snapshot it reads (NONE when none), for the collector, and the bodies
     * it committed that still keep older versions.
     */
    static final class Slot {
        private static final VarHandle SNAPSHOT;
        static final long NONE = Long.MAX_VALUE;
        /** A list of remembered bodies grown past this (a long snapshot held them) is let go once empty. */
        private static final int RETIRED_KEPT_CAPACITY = 1024;

        static {
            try {
                SNAPSHOT = MethodHandles.lookup().findVarHandle(Slot.class, "snapshot", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final WeakReference<Thread> owner;
        Transaction current;
        volatile long snapshot = NONE;
        int endedSinceCollect;
        /** The snapshot of the transaction that last made this thread collect. */
        long snapshotAtCollect;
        /**
         * {@link Stm#keepFrom} as of this thread's last collection. Commits cut below it rather than read the
         * shared value each time: an older mark only keeps a few more versions until the next collection.
         */
        long keepFrom;
        /** The owner's count of running transactions of any STM, kept here so no second lookup is needed. */
        final int[] transactionsOnThread;
        /**
         * The bodies this thread committed that still keep older versions, from {@code retiredHead} to
         * {@code retiredCount}, in commit order and so by version: trimming takes a prefix. None is ever dropped
         * before it is cut, so a box written rarely does not keep the versions a long snapshot held back. Changed
         * by the owner only, or by the collector once the owner is dead; the collector otherwise reads them racily
         * and only cuts (see cutRetired).
         */
        private VBox.Body[] retired = new VBox.Body[16];
        private int retiredHead;
        private int retiredCount;

        Slot(Thread owner, int[] transactionsOnThread) {
            this.owner = new WeakReference<>(owner);
            this.transactionsOnThread = transactionsOnThread;
        }

        /**
         * Clears the snapshot with a release store: publishing a snapshot needs a full fence (see
         * enterSnapshot), withdrawing it does not, since a collector that still sees it only keeps more.
         */
        void leave() {
            SNAPSHOT.setRelease(this, NONE);
        }

        void retire(VBox.Body body, PaddedLong mark) {
            if (retiredCount == retired.length) {
                keepFrom = mark.get(); // a full buffer is worth a fresh look at the shared mark
                trimRetired(keepFrom);
                if (retiredHead > 0) {
                    int live = retiredCount - retiredHead;
                    System.arraycopy(retired, retiredHead, retired, 0, live);
                    Arrays.fill(retired, live, retiredCount, null);
                    retiredHead = 0;
                    retiredCount = live;
                }
                if (retiredCount == retired.length) {
                    // A long snapshot holds these versions back; the list costs a reference per body it keeps.
                    retired = Arrays.copyOf(retired, retired.length * 2);
                }
            }
            retired[retiredCount++] = body;
        }

        boolean hasRetired() {
            return retiredCount > retiredHead;
        }

        /**
         * The collector's pass over another thread's remembered bodies: cuts the older versions of those at
         * {@code keep} or before, leaving the array to its owner. Racing the owner is harmless: any finished body
         * at or before {@code keep} may lose its older versions, and an entry missed now is cut later.
         */
        void cutRetired(long keep) {
            VBox.Body[] bodies = retired;
            for (int i = Math.max(0, retiredHead), n = Math.min(retiredCount, bodies.length); i < n; i++) {
                VBox.Body b = bodies[i];
                if (b != null && b.owner() == null && b.version <= keep) {
                    b.next = null;
                }
            }
        }

        /**
         * Owner only: cuts the older versions of every remembered body at {@code keep} or before, and forgets it.
         * The bodies are in version order, so this stops at the first one that is newer.
         */
        void trimRetired(long keep) {
            int i = retiredHead;
            while (i < retiredCount && retired[i].version <= keep) {
                retired[i].next = null;
                retired[i++] = null;
            }
            if (i == retiredCount) {
                retiredHead = 0;
                retiredCount = 0;
                if (retired.length > RETIRED_KEPT_CAPACITY) {
                    retired = new VBox.Body[16];
                }
            } else {
                retiredHead = i;
            }
        }
    }

    /** The commit log handed to the {@link CommitHandler}. */
    private final class Log implements CommitLog {

        @Override
        public long latestVersion() {
            return clock.get();
        }

        @Override
        public long latestVersionOf(VBox<?> box) {
            return box.latestVersion();
        }

        @Override
        public VBox<?> firstStaleRead(CommitRequest request) {
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
                // The transaction's slot only on its own thread: a handler may validate from another one.
                Slot slot = Thread.currentThread() == tx.owner ? tx.slot : slots.get();
                return commitLocal(tx, tx.writeSet().boxes(), tx.writeSet().values(), tx.writeSetSize(), slot);
            }
            VBox<?>[] boxes = boxesOf(request);
            checkOwnBoxes(boxes);
            return commitLocal(request, boxes, valuesOf(request), boxes.length, slots.get());
        }

        @Override
        public long append(CommitRequest request) {
            return install(boxesOf(request), valuesOf(request), -1);
        }

        @Override
        public Object latestValue(VBox<?> box) {
            VBox.Body body = box.bodyAt(clock.get(), clock);
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
            if (version < 0) {
                throw new IllegalArgumentException("a snapshot's version cannot be negative: " + version);
            }
            install(boxes, values, version);
        }

        @Override
        public long append(VBox<?>[] boxes, Object[] values) {
            return install(boxes, values, -1);
        }

        private VBox<?>[] boxesOf(CommitRequest request) {
            if (request instanceof ReadWriteTransaction tx) {
                return tx.writeSet().boxesCopy();
            }
            VBox<?>[] boxes = new VBox<?>[request.writeSetSize()];
            for (int i = 0; i < boxes.length; i++) {
                boxes[i] = request.writtenBox(i);
            }
            return boxes;
        }

        private Object[] valuesOf(CommitRequest request) {
            if (request instanceof ReadWriteTransaction tx) {
                return tx.writeSet().valuesCopy();
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
