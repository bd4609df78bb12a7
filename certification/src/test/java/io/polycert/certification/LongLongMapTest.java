package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class LongLongMapTest {

    /**
     * Random puts and removes, over few keys (so tables grow, fill, and shrink back through deletions that shift
     * entries across the table's wrap-around), agree with a HashMap at every step; Long.MIN_VALUE, the free-slot
     * marker, is a key like any other.
     */
    @Property(tries = 300)
    void behavesLikeAHashMap(@ForAll long seed, @ForAll @IntRange(min = 1, max = 5_000) int operations,
            @ForAll @IntRange(min = 1, max = 2_000) int universe) {
        SplittableRandom random = new SplittableRandom(seed);
        LongLongMap map = new LongLongMap();
        Map<Long, Long> model = new HashMap<>();
        for (int op = 0; op < operations; op++) {
            long key = random.nextInt(10) == 0 ? Long.MIN_VALUE + random.nextInt(2) : random.nextLong(universe) * 7919;
            long value = random.nextLong(4);
            switch (random.nextInt(4)) {
                case 0, 1 -> assertEquals(model.put(key, value) == null, map.put(key, value), "put: key new");
                case 2 -> assertEquals(model.remove(key, value), map.remove(key, value), "remove(key, value)");
                default -> assertEquals(model.remove(key) != null, map.remove(key), "remove(key)");
            }
            assertEquals(model.size(), map.size(), "size after " + op + " operations");
            long probe = random.nextLong(universe) * 7919;
            assertEquals(model.containsKey(probe), map.containsKey(probe));
            assertEquals((long) model.getOrDefault(probe, -1L), map.get(probe, -1));
        }
        for (Map.Entry<Long, Long> e : model.entrySet()) {
            assertEquals((long) e.getValue(), map.get(e.getKey(), -1), "value of " + e.getKey());
        }
        map.clear();
        assertEquals(0, map.size());
    }
}
