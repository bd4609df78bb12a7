package io.polycert.core;

import java.util.Arrays;

/**
 * A transaction's pending writes, one entry per box, in first-write order. Small write-sets are searched
 * linearly; past {@link #LINEAR_LIMIT} an open-addressing index from box id to entry is built. Every read of a
 * read-write transaction looks here first, so for the write-sets of 10^5 boxes that long traversals make, the
 * index avoids boxing and identity hashing (a box's id is a plain long field).
 */
final class WriteSet {
    private static final int LINEAR_LIMIT = 16;

    private VBox<?>[] boxes = new VBox<?>[4];
    private Object[] values = new Object[4];
    private int size;
    /** Entry index + 1 per slot (0: empty), at the slot the box's id hashes to or the next free one. */
    private int[] index;

    int size() {
        return size;
    }

    VBox<?> box(int i) {
        return boxes[i];
    }

    Object value(int i) {
        return values[i];
    }

    int indexOf(VBox<?> box) {
        if (index == null) {
            for (int i = 0; i < size; i++) {
                if (boxes[i] == box) {
                    return i;
                }
            }
            return -1;
        }
        int mask = index.length - 1;
        for (int slot = slotOf(box.id(), mask); ; slot = (slot + 1) & mask) {
            int entry = index[slot] - 1;
            if (entry < 0) {
                return -1;
            }
            if (boxes[entry] == box) { // ids are unique within an STM, but identity is what counts
                return entry;
            }
        }
    }

    void put(VBox<?> box, Object value) {
        int i = indexOf(box);
        if (i >= 0) {
            values[i] = value;
            return;
        }
        if (size == boxes.length) {
            boxes = Arrays.copyOf(boxes, size * 2);
            values = Arrays.copyOf(values, size * 2);
        }
        boxes[size] = box;
        values[size] = value;
        size++;
        if (index != null) {
            if (size * 2 > index.length) {
                rebuildIndex(index.length * 2);
            } else {
                insert(size - 1);
            }
        } else if (size > LINEAR_LIMIT) {
            rebuildIndex(64);
        }
    }

    private void rebuildIndex(int capacity) {
        index = new int[capacity];
        for (int k = 0; k < size; k++) {
            insert(k);
        }
    }

    private void insert(int entry) {
        int mask = index.length - 1;
        int slot = slotOf(boxes[entry].id(), mask);
        while (index[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        index[slot] = entry + 1;
    }

    /** Ids are mostly sequential: spread them so that runs of ids do not make runs of occupied slots. */
    private static int slotOf(long id, int mask) {
        long h = id * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }

    VBox<?>[] boxesCopy() {
        return Arrays.copyOf(boxes, size);
    }

    Object[] valuesCopy() {
        return Arrays.copyOf(values, size);
    }

    /** The boxes, in entries 0 to size - 1 (the array may be longer); not a copy. */
    VBox<?>[] boxes() {
        return boxes;
    }

    /** The values, in entries 0 to size - 1 (the array may be longer); not a copy. */
    Object[] values() {
        return values;
    }
}
