package io.polycert.certification;

import java.util.Arrays;

/**
 * A map from long to long by open addressing (linear probing, deletion by shifting back): what the certifier looks
 * up and updates for every delivered commit, without the boxed key and value and the node per entry that a
 * {@code HashMap<Long, Long>} costs (three objects, hence cache misses, per lookup). Grows at half full, shrinks
 * at an eighth. Not thread-safe.
 */
final class LongLongMap {
    /** Marks a free slot; the key itself is kept aside, so any long can be a key. */
    private static final long FREE = Long.MIN_VALUE;
    private static final int MIN_CAPACITY = 16;

    private long[] keys;
    private long[] values;
    private int mask;
    private int size;
    private boolean hasFreeKey;
    private long freeKeyValue;

    LongLongMap() {
        allocate(MIN_CAPACITY);
    }

    int size() {
        return size + (hasFreeKey ? 1 : 0);
    }

    boolean containsKey(long key) {
        return key == FREE ? hasFreeKey : keys[find(key)] != FREE;
    }

    /** The value of {@code key}, or {@code missing} if it has none. */
    long get(long key, long missing) {
        if (key == FREE) {
            return hasFreeKey ? freeKeyValue : missing;
        }
        int i = find(key);
        return keys[i] == FREE ? missing : values[i];
    }

    /** Maps {@code key} to {@code value}; whether the key is new (one probe, where a check and a put take two). */
    boolean put(long key, long value) {
        if (key == FREE) {
            boolean added = !hasFreeKey;
            hasFreeKey = true;
            freeKeyValue = value;
            return added;
        }
        int i = find(key);
        values[i] = value;
        if (keys[i] != FREE) {
            return false;
        }
        keys[i] = key;
        if (++size > (mask + 1) >> 1) {
            rehash((mask + 1) << 1);
        }
        return true;
    }

    /** Removes {@code key} if it maps to {@code value} (like {@link java.util.Map#remove(Object, Object)}). */
    boolean remove(long key, long value) {
        if (key == FREE) {
            if (hasFreeKey && freeKeyValue == value) {
                hasFreeKey = false;
                return true;
            }
            return false;
        }
        int i = find(key);
        if (keys[i] == FREE || values[i] != value) {
            return false;
        }
        removeAt(i);
        return true;
    }

    /** Removes {@code key}; whether it was there. */
    boolean remove(long key) {
        if (key == FREE) {
            boolean had = hasFreeKey;
            hasFreeKey = false;
            return had;
        }
        int i = find(key);
        if (keys[i] == FREE) {
            return false;
        }
        removeAt(i);
        return true;
    }

    void clear() {
        allocate(MIN_CAPACITY);
        size = 0;
        hasFreeKey = false;
    }

    /** The slot holding {@code key}, or the free slot where it would go. */
    private int find(long key) {
        int i = slot(key);
        for (long k; (k = keys[i]) != FREE && k != key; i = (i + 1) & mask) {
            // probe on
        }
        return i;
    }

    private int slot(long key) {
        long h = key * 0x9E3779B97F4A7C15L; // ids are often consecutive: spread them over the table
        return (int) (h ^ (h >>> 32)) & mask;
    }

    /**
     * Empties slot {@code i} and moves back the entries after it that probing would no longer reach: an entry
     * moves into the hole unless its home slot lies after the hole, up to where the entry sits (cyclically).
     */
    private void removeAt(int i) {
        size--;
        for (int j = (i + 1) & mask; keys[j] != FREE; j = (j + 1) & mask) {
            int home = slot(keys[j]);
            boolean homeInHoleToJ = i <= j ? home > i && home <= j : home > i || home <= j;
            if (!homeInHoleToJ) {
                keys[i] = keys[j];
                values[i] = values[j];
                i = j;
            }
        }
        keys[i] = FREE;
        if (size < (mask + 1) >> 3 && mask + 1 > MIN_CAPACITY) {
            rehash((mask + 1) >> 1);
        }
    }

    private void rehash(int capacity) {
        long[] oldKeys = keys;
        long[] oldValues = values;
        allocate(capacity);
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != FREE) {
                int j = find(oldKeys[i]);
                keys[j] = oldKeys[i];
                values[j] = oldValues[i];
            }
        }
    }

    private void allocate(int capacity) {
        keys = new long[capacity];
        Arrays.fill(keys, FREE);
        values = new long[capacity];
        mask = capacity - 1;
    }
}
