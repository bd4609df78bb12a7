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

    /**
     * How remembered decisions use the map: numbers in order from a random start (negative ones and the free-slot
     * marker included), some skipped, the oldest removed past a window, so the table grows and entries shift back
     * across its wrap-around; it agrees with a HashMap at every step.
     */
    @Property(tries = 200)
    void aSlidingWindowOfNumbersInOrderBehavesLikeAHashMap(@ForAll long seed,
            @ForAll @IntRange(min = 1, max = 3_000) int window) {
        SplittableRandom random = new SplittableRandom(seed);
        LongLongMap map = new LongLongMap();
        Map<Long, Long> model = new HashMap<>();
        java.util.ArrayDeque<Long> order = new java.util.ArrayDeque<>();
        long next = random.nextBoolean() ? Long.MIN_VALUE - random.nextInt(50) : random.nextLong();
        for (int op = 0; op < 10_000; op++) {
            next += 1 + (random.nextInt(4) == 0 ? random.nextInt(5) : 0);
            assertEquals(model.containsKey(next), map.containsKey(next), "contains " + next);
            assertEquals(model.put(next, (long) op) == null, map.put(next, op), "put " + next);
            order.add(next);
            if (order.size() > window) {
                long oldest = order.poll();
                assertEquals(model.remove(oldest) != null, map.remove(oldest), "remove " + oldest);
            }
            assertEquals(model.size(), map.size(), "size after " + op + " operations");
        }
        for (Map.Entry<Long, Long> e : model.entrySet()) {
            assertEquals((long) e.getValue(), map.get(e.getKey(), -1), "value of " + e.getKey());
        }
    }
}
