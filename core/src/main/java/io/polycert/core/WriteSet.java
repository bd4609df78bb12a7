package io.polycert.core;

import java.util.Arrays;
import java.util.IdentityHashMap;

/**
 * A transaction's pending writes, one entry per box, in first-write order. Small write-sets are searched
 * linearly; an identity index is built once the set grows past {@link #LINEAR_LIMIT}.
 */
final class WriteSet {
    private static final int LINEAR_LIMIT = 16;

    private VBox<?>[] boxes = new VBox<?>[4];
    private Object[] values = new Object[4];
    private int size;
    private IdentityHashMap<VBox<?>, Integer> index;

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
        if (index != null) {
            Integer i = index.get(box);
            return i == null ? -1 : i;
        }
        for (int i = 0; i < size; i++) {
            if (boxes[i] == box) {
                return i;
            }
        }
        return -1;
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
            index.put(box, size - 1);
        } else if (size > LINEAR_LIMIT) {
            index = new IdentityHashMap<>(size * 4);
            for (int k = 0; k < size; k++) {
                index.put(boxes[k], k);
            }
        }
    }

    VBox<?>[] boxesCopy() {
        return Arrays.copyOf(boxes, size);
    }

    Object[] valuesCopy() {
        return Arrays.copyOf(values, size);
    }
}
