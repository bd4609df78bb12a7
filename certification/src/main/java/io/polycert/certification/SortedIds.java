package io.polycert.certification;

import java.util.Arrays;

/**
 * Sorts a transaction's read ids and drops repeats, as every commit does before it is broadcast (NVC sends the
 * ids as sorted deltas, VC's early validation searches them).
 *
 * <p>Ids of boxes created together are consecutive and come nearly sorted; ids hashed from names (a
 * {@code TxMap}'s keys, named roots) are scattered over 64 bits, and {@link Arrays#sort(long[])} then takes
 * about 5 ms for 100,000 of them on the benchmark machine, a third or more of such a VC commit's latency. Above
 * {@link #RADIX_FROM} ids an LSD radix sort on 11-bit digits does it in a fixed six passes, each skipped when
 * all ids share that digit.
 */
final class SortedIds {
    /** Below this many ids the comparison sort is as fast (n log n against six passes of n + 2048; measured). */
    static final int RADIX_FROM = 4_096;
    /** Up to this many descents the input is a few sorted runs, which the library's sort merges. */
    private static final int FEW_RUNS = 64;
    private static final int DIGIT_BITS = 11;
    private static final int BUCKETS = 1 << DIGIT_BITS;

    private SortedIds() {
    }

    /** {@code ids}, sorted ascending without repeats; may reorder {@code ids} itself. */
    static long[] distinct(long[] ids) {
        int descents = descents(ids);
        if (descents > 0) {
            // The library's sort merges a few sorted runs in linear time (consecutive ids read from a random start
            // are two runs): the radix sort is for ids in no order.
            if (ids.length < RADIX_FROM || descents <= FEW_RUNS) {
                Arrays.sort(ids);
            } else {
                ids = radixSort(ids);
            }
        }
        int n = 0;
        for (int i = 0; i < ids.length; i++) {
            if (i == 0 || ids[i] != ids[i - 1]) {
                ids[n++] = ids[i];
            }
        }
        return n == ids.length ? ids : Arrays.copyOf(ids, n);
    }

    /** Places where an id is smaller than the one before it: one fewer than the sorted runs. */
    private static int descents(long[] ids) {
        int descents = 0;
        for (int i = 1; i < ids.length; i++) {
            if (ids[i] < ids[i - 1]) {
                descents++;
            }
        }
        return descents;
    }

    /** Stable LSD radix sort of signed longs, on digits of the value with its sign bit flipped: negatives first. */
    private static long[] radixSort(long[] ids) {
        long[] from = ids;
        long[] to = new long[ids.length];
        int[] count = new int[BUCKETS];
        for (int shift = 0; shift < Long.SIZE; shift += DIGIT_BITS) {
            Arrays.fill(count, 0);
            for (long id : from) {
                count[digit(id, shift)]++;
            }
            if (count[digit(from[0], shift)] == from.length) {
                continue; // every id has this digit: the pass would not move anything
            }
            for (int b = 0, position = 0; b < BUCKETS; b++) {
                int c = count[b];
                count[b] = position;
                position += c;
            }
            for (long id : from) {
                to[count[digit(id, shift)]++] = id;
            }
            long[] swap = from;
            from = to;
            to = swap;
        }
        return from;
    }

    private static int digit(long id, int shift) {
        return (int) (((id ^ Long.MIN_VALUE) >>> shift) & (BUCKETS - 1));
    }
}
