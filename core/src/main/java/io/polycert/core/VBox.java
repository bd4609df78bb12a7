package io.polycert.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A transactional location holding the history of its committed values (a versioned box).
 *
 * <p>Inside a transaction of its {@link Stm}, {@link #get()} returns the value as of the transaction's snapshot
 * (or the transaction's own pending write) and {@link #put(Object)} records a write that becomes visible when the
 * transaction commits. Outside a transaction, {@code get()} returns the latest committed value and {@code put}
 * runs as a transaction of its own.
 *
 * <p>Each box has an {@linkplain #id() id} that is unique across the replicas of a cluster, so replicas can name
 * it in commit messages. Boxes are created with {@link Stm#newBox(Object)}.
 *
 * @param <T> the type of the value
 */
public final class VBox<T> {
    // A VarHandle (standard since Java 9) instead of an AtomicReference keeps a box at one object.
    private static final VarHandle BODY;

    static {
        try {
            BODY = MethodHandles.lookup().findVarHandle(VBox.class, "body", Body.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Stm stm;
    private final long id;
    /** Newest committed version first; null until the creating transaction commits. */
    private volatile Body body;

    VBox(Stm stm, long id, Body initial) {
        this.stm = stm;
        this.id = id;
        this.body = initial;
    }

    /** The value in the current transaction of this box's {@link Stm}, or the latest committed value. */
    @SuppressWarnings("unchecked")
    public T get() {
        return (T) stm.read(this);
    }

    /** Writes in the current transaction, or commits the write as a transaction of its own. */
    public void put(T value) {
        stm.write(this, value);
    }

    /** Replica-wide unique identifier. */
    public long id() {
        return id;
    }

    @Override
    public String toString() {
        return "VBox#" + id;
    }

    // ---- multi-version internals -------------------------------------------------------------------------

    Body head() {
        return body;
    }

    boolean casHead(Body expected, Body next) {
        return BODY.compareAndSet(this, expected, next);
    }

    /** The newest body committed at {@code version} or before, or null if none is that old. Never waits. */
    Body bodyAt(long version, PaddedLong clock) {
        for (Body b = body; b != null; b = b.next) {
            Commit owner = b.owner();
            if (owner == null ? b.version <= version : owner.versionAtMost(version, clock) <= version) {
                return b;
            }
        }
        return null;
    }

    /** Version of the newest committed value; -1 if the box has no committed value yet. Reads only. */
    long latestVersion() {
        for (Body b = body; b != null; b = b.next) {
            Commit owner = b.owner();
            long v = owner == null ? b.version : owner.committedVersion();
            if (v >= 0) {
                return v;
            }
        }
        return -1;
    }

    /** Number of versions kept, pending ones included (for tests of garbage collection). */
    int versionCount() {
        int n = 0;
        for (Body b = body; b != null; b = b.next) {
            n++;
        }
        return n;
    }

    /**
     * One version. A commit pushes it as the head with {@code owner} set (pending: its state says whether and at
     * which version it is visible); once the commit is decided, {@code version} is set and {@code owner} cleared.
     * Only the head can be pending: a commit pushes onto a finished head only. {@code next} is only ever cut by
     * the collector, never relinked.
     */
    static final class Body {
        private static final VarHandle OWNER;

        static {
            try {
                OWNER = MethodHandles.lookup().findVarHandle(Body.class, "owner", Commit.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final Object value;
        /** Valid once {@code owner} is null (written before owner is cleared, read after it is seen null). */
        long version;
        /**
         * Read with acquire, cleared with release (see {@link #owner()}); set plainly when constructed, since a
         * body is published by the CAS that makes it a box's head.
         */
        @SuppressWarnings("unused")
        private Commit owner;
        Body next;

        /** A committed version. */
        Body(Object value, long version, Body next) {
            this.value = value;
            this.version = version;
            this.next = next;
        }

        /** A pending version of {@code owner}. */
        Body(Object value, Commit owner) {
            this.value = value;
            this.owner = owner;
        }

        /** The commit deciding this body, or null once it is finished (then {@link #version} is valid). */
        Commit owner() {
            return (Commit) OWNER.getAcquire(this);
        }

        /** Marks this pending body committed at {@code version}; idempotent, so helpers may race. */
        void finish(long version) {
            this.version = version;
            OWNER.setRelease(this, null);
        }
    }
}
