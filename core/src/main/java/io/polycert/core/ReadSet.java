package io.polycert.core;

import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/** The boxes a read-write transaction read from its snapshot, in read order (duplicates possible). */
final class ReadSet {
    private VBox<?>[] boxes = new VBox<?>[8];
    private int size;
    /** Built on the first membership test of a large set; reads end before commit, so it stays valid. */
    private Set<VBox<?>> index;

    void add(VBox<?> box) {
        if (size == boxes.length) {
            boxes = Arrays.copyOf(boxes, size * 2);
        }
        boxes[size++] = box;
    }

    int size() {
        return size;
    }

    VBox<?> get(int i) {
        return boxes[i];
    }

    boolean contains(VBox<?> box) {
        if (size <= 16) {
            for (int i = 0; i < size; i++) {
                if (boxes[i] == box) {
                    return true;
                }
            }
            return false;
        }
        if (index == null) {
            index = Collections.newSetFromMap(new IdentityHashMap<>(size * 2));
            for (int i = 0; i < size; i++) {
                index.add(boxes[i]);
            }
        }
        return index.contains(box);
    }
}
