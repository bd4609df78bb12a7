package io.polycert.gcs;

import java.util.Arrays;

/**
 * A set of longs that empties in constant time, for work that fills a set, reads it and starts over many times a
 * second (total-order multicast's delivery pass collects the conflict keys of the messages it passes): no boxed
 * key, no node, no table per pass. Open addressing; a slot is in use when its stamp is the current one, so
 * {@link #clear} only moves the stamp on.
 */
final class LongScratchSet {
    private long[] keys = new long[64];
    private int[] stamps = new int[64];
    private int stamp = 1;
    private int size;

    void clear() {
        size = 0;
        if (++stamp == 0) { // wrapped after 2^32 clears: old stamps could come back into use
            Arrays.fill(stamps, 0);
            stamp = 1;
        }
    }

    int size() {
        return size;
    }

    boolean contains(long key) {
        int mask = keys.length - 1;
        for (int i = slot(key, mask); stamps[i] == stamp; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return true;
            }
        }
        return false;
    }

    /** Adds {@code key}; false if it was there. */
    boolean add(long key) {
        int mask = keys.length - 1;
        int i = slot(key, mask);
        for (; stamps[i] == stamp; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return false;
            }
        }
        keys[i] = key;
        stamps[i] = stamp;
        if (++size * 2 > keys.length) {
            grow();
        }
        return true;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldStamps = stamps;
        int oldStamp = stamp;
        keys = new long[oldKeys.length * 2];
        stamps = new int[oldKeys.length * 2];
        stamp = 1;
        int mask = keys.length - 1;
        for (int j = 0; j < oldKeys.length; j++) {
            if (oldStamps[j] == oldStamp) {
                int i = slot(oldKeys[j], mask);
                while (stamps[i] == stamp) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[j];
                stamps[i] = stamp;
            }
        }
    }

    private static int slot(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L; // keys may be hashes already, or small and sequential
        return (int) (h >>> 32) & mask;
    }
}
