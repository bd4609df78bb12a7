package io.polycert.core;

import java.util.Arrays;

/** The boxes a read-write transaction read from its snapshot, in read order (duplicates possible). */
final class ReadSet {
    private VBox<?>[] boxes = new VBox<?>[8];
    private int size;

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
}
