package io.polycert.certification;

import io.polycert.core.group.MemberId;
import java.util.HashMap;
import java.util.Map;

/**
 * The outcomes of the last {@code capacity} transactions a replica decided, by origin and transaction id; the
 * oldest decided is forgotten first. Every delivered commit is checked against it (a replay would otherwise wait
 * for a vote forever), so a lookup is one read of a window of bytes per origin over its transaction numbers
 * ({@link NumberWindow}), not a walk through the nodes, keys and member ids of a {@code LinkedHashMap} of 100,000
 * entries. Nor does it make objects that live a few seconds:
 * at tens of thousands of decisions a second, a {@code LinkedHashMap}'s entries and keys outlived young collections,
 * were copied and then promoted (PARTIAL.md, "Decisions remembered in primitive tables"). One thread only. Public for
 * partial replication's engine (another package); not needed by applications.
 */
public final class RememberedDecisions {
    /** What a visit of {@link #forEach} sees, oldest decided first. */
    public interface Visitor {
        void decided(MemberId origin, long txId, boolean commit);
    }

    private static final byte ABORT = 1;
    private static final byte COMMIT = 2;

    private final int capacity;
    /** Per origin, transaction id to {@link #COMMIT} or {@link #ABORT}. */
    private final Map<MemberId, NumberWindow> byOrigin = new HashMap<>();
    /** Decisions in the order they were first made, a ring from {@code oldest}, grown up to {@code capacity}. */
    private MemberId[] ringOrigins = new MemberId[64];
    private long[] ringIds = new long[64];
    private int oldest;
    private int size;

    public RememberedDecisions(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
    }

    public int size() {
        return size;
    }

    public boolean contains(MemberId origin, long txId) {
        NumberWindow ids = byOrigin.get(origin);
        return ids != null && ids.get(txId) != 0;
    }

    /** The decision, or null if none is remembered. */
    public Boolean get(MemberId origin, long txId) {
        NumberWindow ids = byOrigin.get(origin);
        byte v = ids == null ? 0 : ids.get(txId);
        return v == 0 ? null : v == COMMIT;
    }

    /**
     * Records a decision; one decided before keeps its place in the order and takes the new outcome. Returns
     * whether the oldest decision was forgotten to make room.
     */
    public boolean put(MemberId origin, long txId, boolean commit) {
        NumberWindow ids = byOrigin.computeIfAbsent(origin, o -> new NumberWindow());
        if (!ids.put(txId, commit ? COMMIT : ABORT)) {
            return false; // decided before: same place in the order, new outcome
        }
        boolean forgot = size == capacity;
        if (forgot) {
            forgetOldest();
        } else if (size == ringIds.length) {
            grow();
        }
        int at = (oldest + size) % ringIds.length;
        ringOrigins[at] = origin;
        ringIds[at] = txId;
        size++;
        return forgot;
    }

    public void clear() {
        byOrigin.clear();
        ringOrigins = new MemberId[64];
        ringIds = new long[64];
        oldest = 0;
        size = 0;
    }

    /** Every remembered decision, oldest first. */
    public void forEach(Visitor visitor) {
        for (int i = 0; i < size; i++) {
            int at = (oldest + i) % ringIds.length;
            MemberId origin = ringOrigins[at];
            visitor.decided(origin, ringIds[at], byOrigin.get(origin).get(ringIds[at]) == COMMIT);
        }
    }

    private void forgetOldest() {
        MemberId origin = ringOrigins[oldest];
        NumberWindow ids = byOrigin.get(origin);
        ids.remove(ringIds[oldest]);
        if (ids.size() == 0) {
            byOrigin.remove(origin); // members that left stop costing anything
        }
        ringOrigins[oldest] = null;
        oldest = (oldest + 1) % ringIds.length;
        size--;
    }

    private void grow() {
        int length = (int) Math.min(capacity, 2L * ringIds.length);
        MemberId[] origins = new MemberId[length];
        long[] ids = new long[length];
        for (int i = 0; i < size; i++) {
            int at = (oldest + i) % ringIds.length;
            origins[i] = ringOrigins[at];
            ids[i] = ringIds[at];
        }
        ringOrigins = origins;
        ringIds = ids;
        oldest = 0;
    }

}
