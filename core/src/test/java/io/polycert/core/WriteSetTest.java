package io.polycert.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** The write-set against a LinkedHashMap: the same entries, values and first-write order, through the index too. */
class WriteSetTest {
    private static final Stm STM = Stm.create();

    @Property(tries = 200)
    void behavesLikeAnInsertionOrderedMap(@ForAll @Size(max = 3000) List<@IntRange(max = 700) Integer> puts,
            @ForAll @IntRange(min = 1, max = 1_000_000) int idStride) {
        List<VBox<Integer>> boxes = new ArrayList<>();
        for (int i = 0; i <= 700; i++) {
            boxes.add(STM.root(1_000_000_000L + (long) i * idStride, 0)); // ids in runs and spread out
        }
        WriteSet writes = new WriteSet();
        Map<VBox<?>, Object> expected = new LinkedHashMap<>();
        for (int k = 0; k < puts.size(); k++) {
            VBox<Integer> box = boxes.get(puts.get(k));
            writes.put(box, k);
            expected.put(box, k);
        }
        assertEquals(expected.size(), writes.size());
        int i = 0;
        for (Map.Entry<VBox<?>, Object> e : expected.entrySet()) {
            assertSame(e.getKey(), writes.box(i));
            assertEquals(e.getValue(), writes.value(i));
            assertEquals(i, writes.indexOf(e.getKey()));
            i++;
        }
        for (VBox<Integer> box : boxes) {
            assertEquals(expected.containsKey(box), writes.indexOf(box) >= 0);
        }
    }
}
