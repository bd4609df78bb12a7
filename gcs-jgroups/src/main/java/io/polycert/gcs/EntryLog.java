package io.polycert.gcs;

import java.util.Arrays;

/**
 * The entries of the total order a member holds: a contiguous run of sequence numbers from {@link #first()} to
 * {@link #last()}, in a ring buffer. Entries stay until every member of the view has them (they may be needed to
 * recover after a crash), then {@link #discardUpTo} drops them.
 */
final class EntryLog {
    private Entry[] ring = new Entry[1024];
    /** Per slot of {@link #ring}: payload bytes appended since the last reset, up to and including that entry. */
    private long[] appendedUpTo = new long[1024];
    private int head; // index of first()
    private int size;
    private long first = 1;
    /** Payload bytes appended since the last reset, and of those, the bytes up to first() - 1. */
    private long appended;
    private long appendedBeforeFirst;

    long first() {
        return first;
    }

    /** Highest sequence number held, or first() - 1 when empty. */
    long last() {
        return first + size - 1;
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    Entry get(long seq) {
        if (seq < first || seq > last()) {
            return null;
        }
        return ring[slot(seq)];
    }

    /**
     * Payload bytes of the entries held after {@code seq}: what a member that holds everything up to {@code seq}
     * lacks of this log (all of it, if {@code seq} is before the log).
     */
    long bytesAfter(long seq) {
        if (seq >= last()) {
            return 0;
        }
        return appended - (seq < first ? appendedBeforeFirst : appendedUpTo[slot(seq)]);
    }

    /** Appends the entry for {@code last() + 1}. */
    void append(Entry e) {
        if (e.seq() != last() + 1) {
            throw new IllegalStateException("entry " + e.seq() + " does not follow " + last());
        }
        if (size == ring.length) {
            Entry[] bigger = new Entry[ring.length * 2];
            long[] biggerTotals = new long[ring.length * 2];
            for (int i = 0; i < size; i++) {
                bigger[i] = ring[(head + i) & (ring.length - 1)];
                biggerTotals[i] = appendedUpTo[(head + i) & (ring.length - 1)];
            }
            ring = bigger;
            appendedUpTo = biggerTotals;
            head = 0;
        }
        int slot = (head + size) & (ring.length - 1);
        ring[slot] = e;
        appended += e.payload().length;
        appendedUpTo[slot] = appended;
        size++;
    }

    void discardUpTo(long seq) {
        while (size > 0 && first <= seq) {
            appendedBeforeFirst = appendedUpTo[head];
            ring[head] = null;
            head = (head + 1) & (ring.length - 1);
            first++;
            size--;
        }
    }

    /** Drops every entry after {@code seq}. */
    void truncateAfter(long seq) {
        while (size > 0 && last() > seq) {
            ring[(head + size - 1) & (ring.length - 1)] = null;
            size--;
        }
        appended = size == 0 ? appendedBeforeFirst : appendedUpTo[slot(last())];
    }

    /** Empties the log; the next entry appended must be {@code nextSeq}. */
    void reset(long nextSeq) {
        Arrays.fill(ring, null);
        head = 0;
        size = 0;
        first = nextSeq;
        appended = 0;
        appendedBeforeFirst = 0;
    }

    private int slot(long seq) {
        return (int) ((head + (seq - first)) & (ring.length - 1));
    }
}
