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

    /** The newest body whose version is at most {@code version}, or null if none is that old. */
    Body bodyAt(long version) {
        Body b = body;
        while (b != null && b.version > version) {
            b = b.next;
        }
        return b;
    }

    /** Version of the newest committed value; -1 if the box has no committed value yet. */
    long latestVersion() {
        Body b = body;
        return b == null ? -1 : b.version;
    }

    /**
     * Installs {@code value} as {@code version} unless an equal or newer version is already there. Idempotent, so
     * several threads helping the same write-back race harmlessly.
     *
     * @return the body holding {@code version}, or null if a newer version already covers it (then whoever
     *     completed this version's write-back has it)
     */
    Body install(Object value, long version) {
        for (;;) {
            Body head = body;
            if (head != null && head.version >= version) {
                return head.version == version ? head : null;
            }
            Body mine = new Body(value, version, head);
            if (BODY.compareAndSet(this, head, mine)) {
                return mine;
            }
        }
    }

    /** Number of versions kept (for tests of garbage collection). */
    int versionCount() {
        int n = 0;
        for (Body b = body; b != null; b = b.next) {
            n++;
        }
        return n;
    }

    /** One committed version. Published by the CAS on {@code body}; {@code next} is only ever cut, never relinked. */
    static final class Body {
        final Object value;
        final long version;
        Body next;

        Body(Object value, long version, Body next) {
            this.value = value;
            this.version = version;
            this.next = next;
        }
    }
}
