package io.polycert.core;

import java.util.Objects;

/**
 * A transaction of one {@link Stm}, bound to the thread that began it.
 *
 * <p>Most code never sees this type: {@link Stm#atomic} and {@link Stm#readOnly} manage transactions, and
 * {@link VBox#get()} / {@link VBox#put(Object)} find the current one. Frameworks that demarcate transactions
 * themselves use {@link Stm#begin()}, {@link #commit()} and {@link #abort()}, on the thread that began it.
 */
public abstract sealed class Transaction permits ReadWriteTransaction, ReadOnlyTransaction {

    /**
     * Life cycle of a transaction. {@code OUTCOME_UNKNOWN}: its commit left this replica but the caller stopped
     * waiting ({@link CommitOutcomeUnknownException}); the group decides it all the same.
     */
    public enum Status { ACTIVE, COMMITTED, ABORTED, OUTCOME_UNKNOWN }

    final Stm stm;
    final long snapshotVersion;
    final Thread owner;
    /** The owner thread's slot in {@link #stm}: found once, at begin. */
    final Stm.Slot slot;
    Status status = Status.ACTIVE;
    /** Begun by {@link Stm#atomic} or {@link Stm#readOnly}, which end it themselves. */
    boolean managed;

    Transaction(Stm stm, Stm.Slot slot, long snapshotVersion) {
        this.stm = stm;
        this.slot = slot;
        this.snapshotVersion = snapshotVersion;
        this.owner = Thread.currentThread();
    }

    /** Whether writes are refused. Read-only transactions never block and never abort. */
    public abstract boolean isReadOnly();

    /** The version of the consistent snapshot this transaction reads. */
    public final long snapshotVersion() {
        return snapshotVersion;
    }

    public final Status status() {
        return status;
    }

    public final boolean isActive() {
        return status == Status.ACTIVE;
    }

    /**
     * The version this transaction serializes at: for a committed read-write transaction the version its writes
     * created; for one that wrote nothing, and for read-only transactions, its snapshot version.
     */
    public abstract long commitVersion();

    /** Reads {@code box} in this transaction. Same as {@link VBox#get()} on this transaction's thread. */
    @SuppressWarnings("unchecked")
    public final <T> T read(VBox<T> box) {
        checkUsable(box);
        return (T) readChecked(box);
    }

    /** Writes {@code box} in this transaction. Same as {@link VBox#put(Object)} on this transaction's thread. */
    public final <T> void write(VBox<T> box, T value) {
        checkUsable(box);
        writeChecked(box, value);
    }

    /**
     * Commits: a read-only transaction simply ends; a read-write one is certified and its writes installed.
     *
     * @throws TransactionAbortedException if certification fails; nothing was written
     * @throws IllegalStateException inside {@link Stm#atomic} or {@link Stm#readOnly}, which commit themselves
     */
    public final void commit() {
        checkUnmanaged("commit");
        commitNow();
    }

    /**
     * Ends the transaction, discarding its writes. Does nothing if it already ended.
     *
     * @throws IllegalStateException inside {@link Stm#atomic} or {@link Stm#readOnly}: throw from the block to
     *     abort it (else the rest of the block would run outside any transaction)
     */
    public final void abort() {
        checkUnmanaged("abort");
        abortNow();
    }

    abstract void commitNow();

    final void abortNow() {
        if (status == Status.ACTIVE) {
            checkOwner();
            end(Status.ABORTED);
        }
    }

    private void checkUnmanaged(String what) {
        if (managed && status == Status.ACTIVE) {
            throw new IllegalStateException("cannot " + what + " a transaction run by stm.atomic(...) or"
                    + " stm.readOnly(...): the block ends it when it returns; throw from it to abort");
        }
    }

    abstract Object readChecked(VBox<?> box);

    abstract void writeChecked(VBox<?> box, Object value);

    abstract void create(VBox<?> box, Object initial);

    final void checkUsable(VBox<?> box) {
        Objects.requireNonNull(box, "box");
        if (box.stm != stm) {
            throw new IllegalArgumentException(box + " belongs to " + box.stm + ", not to this transaction's " + stm);
        }
        checkActive();
    }

    final void checkActive() {
        if (status != Status.ACTIVE) {
            throw new IllegalStateException("transaction already " + status.name().toLowerCase().replace('_', ' ')
                    + "; begin a new one");
        }
        checkOwner();
    }

    private void checkOwner() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("transaction belongs to thread " + owner.getName()
                    + "; it can only be used, committed or aborted there");
        }
    }

    final Object readSnapshot(VBox<?> box) {
        VBox.Body body = box.bodyAt(snapshotVersion, stm.clock);
        if (body == null) {
            throw new IllegalStateException(box + " has no value in snapshot " + snapshotVersion
                    + ": it was created by a transaction that had not committed when this one began");
        }
        return body.value;
    }

    /** Releases the snapshot and unbinds the thread. */
    final void end(Status outcome) {
        status = outcome;
        stm.release(this);
    }
}
