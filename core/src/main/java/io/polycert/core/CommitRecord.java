package io.polycert.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One committed version: the write-set of the transaction that created it, and a link to the next version.
 *
 * <p>The records form a singly linked list in version order (JVSTM's commit queue). A committing transaction
 * appends its record with one CAS on the tail's {@code next}; any thread that finds records not yet written back
 * helps write them back, in order, before it goes on. A record also counts the transactions that use it as their
 * snapshot, which tells the garbage collector when older versions can go.
 */
final class CommitRecord {
    private static final VarHandle NEXT;
    private static final VarHandle RUNNING;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            NEXT = lookup.findVarHandle(CommitRecord.class, "next", CommitRecord.class);
            RUNNING = lookup.findVarHandle(CommitRecord.class, "running", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final long version;
    final VBox<?>[] boxes;
    final Object[] values;
    private volatile CommitRecord next;
    private volatile boolean writtenBack;
    /** Transactions whose snapshot is this version. */
    @SuppressWarnings("unused") // accessed through RUNNING
    private volatile int running;

    CommitRecord(long version, VBox<?>[] boxes, Object[] values) {
        this.version = version;
        this.boxes = boxes;
        this.values = values;
    }

    static CommitRecord initial(long version) {
        CommitRecord r = new CommitRecord(version, new VBox<?>[0], new Object[0]);
        r.writtenBack = true;
        return r;
    }

    CommitRecord next() {
        return next;
    }

    boolean tryAppend(CommitRecord successor) {
        return NEXT.compareAndSet(this, null, successor);
    }

    /** Installs this record's values in their boxes; safe to run from several threads at once. */
    void writeBack() {
        if (writtenBack) {
            return;
        }
        VBox<?>[] bs = boxes;
        Object[] vs = values;
        for (int i = 0; i < bs.length; i++) {
            bs[i].install(vs[i], version);
        }
        writtenBack = true;
    }

    /** Called once no snapshot older than this version exists: older versions of the boxes written here go. */
    void dropOlderVersions() {
        for (VBox<?> b : boxes) {
            b.dropVersionsBefore(version);
        }
    }

    void enter() {
        RUNNING.getAndAdd(this, 1);
    }

    void leave() {
        RUNNING.getAndAdd(this, -1);
    }

    boolean unused() {
        return (int) RUNNING.getVolatile(this) == 0;
    }
}
