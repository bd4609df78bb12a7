package io.polycert.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One committed version: the write-set of the transaction that created it, and a link to the next version.
 *
 * <p>The records form a singly linked list in version order (JVSTM's commit queue). A committing transaction
 * appends its record with one CAS on the tail's {@code next}; any thread that finds records not yet written back
 * helps write them back. Versions of one box are always installed in order: a record is written back after every
 * older record that writes one of its boxes, so no box gets a newer value before an older one. The latest
 * version new transactions read advances only over records written back, in order.
 */
final class CommitRecord {
    private static final VarHandle NEXT;

    static {
        try {
            NEXT = MethodHandles.lookup().findVarHandle(CommitRecord.class, "next", CommitRecord.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final long version;
    final VBox<?>[] boxes;
    final Object[] values;
    /** The body each box got for this version, filled by the write-back, so collection never searches a chain. */
    private final VBox.Body[] bodies;
    private volatile CommitRecord next;
    private volatile boolean writtenBack;

    CommitRecord(long version, VBox<?>[] boxes, Object[] values) {
        this.version = version;
        this.boxes = boxes;
        this.values = values;
        this.bodies = new VBox.Body[boxes.length];
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

    /** Whether this record and {@code other} write a common box (conservatively true for large write-sets). */
    boolean overlaps(CommitRecord other) {
        if ((long) boxes.length * other.boxes.length > 64) {
            return true;
        }
        for (VBox<?> a : boxes) {
            for (VBox<?> b : other.boxes) {
                if (a == b) {
                    return true;
                }
            }
        }
        return false;
    }

    boolean isWrittenBack() {
        return writtenBack;
    }

    /**
     * Installs this record's values in their boxes; safe to run from several threads at once. The caller must
     * know that every older record writing one of these boxes is written back.
     */
    void writeBack() {
        if (writtenBack) {
            return;
        }
        VBox<?>[] bs = boxes;
        Object[] vs = values;
        for (int i = 0; i < bs.length; i++) {
            VBox.Body b = bs[i].install(vs[i], version);
            if (b != null) {
                bodies[i] = b; // every helper finds the same body, so racing writes agree
            }
        }
        writtenBack = true; // publishes bodies[] too
    }

    /**
     * Called once no snapshot older than this version exists (so the record is written back): the versions its
     * boxes had before it can go. Constant work per box, however far behind the collector is.
     */
    void dropOlderVersions() {
        for (VBox.Body b : bodies) {
            if (b != null) {
                b.next = null;
            }
        }
    }

}
