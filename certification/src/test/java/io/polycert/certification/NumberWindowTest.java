package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class NumberWindowTest {
    private static final long SPAN = 4_096;

    /**
     * An origin's numbers as a member sees them: mostly in order with gaps, some late, now and then a stray one far
     * off (negative, huge, or at the edge of the ring's widest span, here 4,096 numbers), the oldest forgotten past a
     * window and others removed at random; at every step the window answers as a HashMap does.
     */
    @Property(tries = 300)
    void behavesLikeAHashMap(@ForAll long seed, @ForAll @IntRange(min = 1, max = 1_000) int window,
            @ForAll @IntRange(min = 0, max = 6) int gapBits) {
        SplittableRandom random = new SplittableRandom(seed);
        NumberWindow numbers = new NumberWindow(SPAN);
        Map<Long, Byte> model = new HashMap<>();
        ArrayDeque<Long> order = new ArrayDeque<>();
        long next = random.nextInt(3) == 0 ? 0 : random.nextLong(1L << 40);
        for (int op = 0; op < 5_000; op++) {
            long n = switch (random.nextInt(40)) {
                case 0 -> random.nextLong(); // anywhere, negative included
                case 1 -> next + SPAN + random.nextInt(3) - 1; // at the edge of the widest span
                case 2, 3, 4 -> next - random.nextInt(100); // late
                default -> next += 1 + random.nextInt(1 << gapBits); // in order, with gaps
            };
            byte state = (byte) (1 + random.nextInt(127));
            assertEquals(model.put(n, state) == null, numbers.put(n, state), "put " + n);
            order.add(n);
            if (order.size() > window) {
                long oldest = order.poll();
                assertEquals(model.remove(oldest) != null, numbers.remove(oldest), "remove oldest " + oldest);
            }
            if (random.nextInt(10) == 0) {
                long gone = next - random.nextInt(window + 1);
                assertEquals(model.remove(gone) != null, numbers.remove(gone), "remove " + gone);
            }
            long probe = random.nextInt(8) == 0 ? random.nextLong() : next - random.nextInt(2 * window + 2);
            assertEquals((byte) model.getOrDefault(probe, (byte) 0), numbers.get(probe), "get " + probe);
            assertEquals((byte) model.getOrDefault(n, (byte) 0), numbers.get(n), "get " + n);
            assertEquals(model.size(), numbers.size(), "size after " + op + " operations");
        }
        for (Map.Entry<Long, Byte> e : model.entrySet()) {
            assertEquals((byte) e.getValue(), numbers.get(e.getKey()), "state of " + e.getKey());
        }
        for (long n : order) {
            numbers.remove(n);
        }
        assertEquals(0, numbers.size(), "empty once all are removed");
    }

    @Test
    void aStateOfZeroOrBelowIsRefused() {
        NumberWindow numbers = new NumberWindow();
        assertThrows(IllegalArgumentException.class, () -> numbers.put(1, (byte) 0));
        assertThrows(IllegalArgumentException.class, () -> numbers.put(1, (byte) -1));
        assertThrows(IllegalArgumentException.class, () -> new NumberWindow(NumberWindow.MAX_SPAN + 1));
    }

    /**
     * Memory follows the numbers held, whatever numbers arrive: spread far apart they go to the side table, and a
     * ring that spanned many numbers shrinks once few are left.
     */
    @Test
    void theRingTakesSpaceInProportionToTheNumbersHeld() {
        NumberWindow sparse = new NumberWindow();
        for (long n = 0; n < 1_000; n++) {
            sparse.put(n * 1_000, (byte) 1); // 1,000 apart: sparser than one in DENSITY
        }
        assertEquals(1_000, sparse.size());
        assertTrue(sparse.ringLength() <= 2 * NumberWindow.DENSE_FLOOR, "ring of " + sparse.ringLength());
        NumberWindow dense = new NumberWindow();
        for (long n = 0; n < 100_000; n++) {
            dense.put(n, (byte) 2);
        }
        assertTrue(dense.ringLength() >= 100_000 && dense.ringLength() <= 2 * 100_000, "ring of " + dense.ringLength());
        for (long n = 0; n < 99_990; n++) {
            dense.remove(n);
        }
        assertEquals(10, dense.size());
        assertTrue(dense.ringLength() <= 64, "ring of " + dense.ringLength() + " for the last 10");
        for (long n = 99_990; n < 100_000; n++) {
            assertEquals(2, dense.get(n));
        }
    }

    /** A number far beyond the others goes to the side table: the ring does not grow to span it. */
    @Test
    void aStrayNumberDoesNotStretchTheRing() {
        NumberWindow numbers = new NumberWindow();
        numbers.put(10, (byte) 1);
        numbers.put(10 + (1L << 40), (byte) 2);
        numbers.put(Long.MAX_VALUE, (byte) 3);
        numbers.put(-5, (byte) 4);
        assertEquals(1, numbers.get(10));
        assertEquals(2, numbers.get(10 + (1L << 40)));
        assertEquals(3, numbers.get(Long.MAX_VALUE));
        assertEquals(4, numbers.get(-5));
        assertEquals(4, numbers.size());
        assertEquals(64, numbers.ringLength(), "the ring holds 10 only");
        assertEquals(true, numbers.remove(10 + (1L << 40)));
        assertEquals(0, numbers.get(10 + (1L << 40)));
    }
}
