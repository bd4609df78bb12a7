package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.group.MemberId;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class SeenIdsTest {
    private final MemberId a = new MemberId(0, 1, "A");
    private final MemberId b = new MemberId(0, 2, "B");

    @Test
    void contiguousNumbersHoldNothingAboveTheWatermark() {
        SeenIds seen = new SeenIds(10);
        for (long s = 1; s <= 1000; s++) {
            seen.add(a, s);
        }
        seen.add(b, 2);
        seen.add(b, 1);
        assertEquals(0, seen.heldAbove());
        assertTrue(seen.contains(a, 1) && seen.contains(a, 1000) && seen.contains(b, 2));
        assertFalse(seen.contains(a, 1001));
    }

    @Test
    void gapsThatNeverFillStayWithinTheWindow() {
        // A multicast destination receives every other number of an origin that alternates between two groups.
        SeenIds seen = new SeenIds(100);
        for (long s = 2; s <= 100_000; s += 2) {
            seen.add(a, s);
        }
        // the watermark trails by a window to a window and a half: 50 to 75 of the even numbers above it
        assertTrue(seen.heldAbove() >= 50 && seen.heldAbove() <= 75, "held " + seen.heldAbove());
        assertTrue(seen.contains(a, 100_000) && seen.contains(a, 99_902), "recent numbers are remembered");
        assertFalse(seen.contains(a, 99_999), "a recent gap is not taken for a delivery");
        assertFalse(seen.contains(a, 100_001));
        assertTrue(seen.contains(a, 3), "an old gap counts as seen once the window moved past it");
    }

    @Test
    void theWindowNeverMovesTheWatermarkUpToANumberStillUndelivered() {
        SeenIds seen = new SeenIds(100);
        for (long s = 2; s <= 10_000; s += 2) {
            seen.add(a, s, origin -> origin.equals(a) ? 51 : Long.MAX_VALUE); // 51 is still on its way
        }
        assertFalse(seen.contains(a, 51), "an undelivered number must not count as seen");
        assertTrue(seen.contains(a, 50), "below it the watermark may move");
        seen.add(a, 51);
        for (long s = 10_002; s <= 10_400; s += 2) {
            seen.add(a, s);
        }
        assertTrue(seen.heldAbove() <= 75, "once delivered, the window applies again: held " + seen.heldAbove());
    }

    @Test
    void aDestinationOfPartOfTheNumbersAsksForTheUndeliveredOnlyOnceInAWhile() {
        // Past the window every delivery here passes it; the caller's answer costs a look through all it holds.
        SeenIds seen = new SeenIds(100);
        int[] asked = {0};
        for (long s = 2; s <= 100_000; s += 2) {
            seen.add(a, s, origin -> {
                asked[0]++;
                return Long.MAX_VALUE;
            });
        }
        assertTrue(asked[0] <= 100_000 / 50 + 1, "asked " + asked[0] + " times");
        assertTrue(asked[0] >= 100_000 / 150, "the window still moves: asked " + asked[0] + " times");
        assertFalse(seen.contains(a, 100_000 - 99), "a gap within the window is not taken for a delivery");
    }

    @Test
    void aNumberAbsurdlyFarUpNeitherLoopsNorTakesTheHeap() {
        SeenIds seen = new SeenIds(100);
        seen.add(a, 1);
        long corrupt = Long.MAX_VALUE / 2;
        assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> seen.add(a, corrupt, origin -> 2)); // 2 held undelivered: the watermark may not pass it...
        assertTrue(seen.contains(a, corrupt));
        assertTrue(seen.contains(a, 2), "...unless the number is more than MAX_SPAN further up");
        assertFalse(seen.contains(a, corrupt - 1));
        seen.add(a, corrupt + 1_000, origin -> corrupt - 5);
        assertFalse(seen.contains(a, corrupt - 5), "within MAX_SPAN the undelivered number still holds it back");
    }

    @Test
    void aWindowOutsideItsBoundsIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new SeenIds(0));
        assertThrows(IllegalArgumentException.class, () -> new SeenIds((int) (SeenIds.MAX_SPAN / 2) + 1));
        new SeenIds((int) (SeenIds.MAX_SPAN / 2));
    }

    /**
     * An origin's numbers reach a destination in order, some not at all (addressed elsewhere), and are delivered a
     * little out of order: every delivered number is seen, and no number within the window below the newest is
     * taken for seen unless it was delivered, whatever the gaps (the bitmap grows, wraps and is cleared).
     */
    @Property(tries = 200)
    void deliveredNumbersAreSeenAndRecentGapsAreNot(@ForAll long seed,
            @ForAll @IntRange(min = 1, max = 300) int window, @ForAll @IntRange(min = 1, max = 3_000) int count) {
        SplittableRandom random = new SplittableRandom(seed);
        SeenIds seen = new SeenIds(window);
        Set<Long> delivered = new HashSet<>();
        long next = 0;
        long newest = 0;
        long held = -1; // a number received but delivered only later (Skeen's order), which the watermark respects
        for (int i = 0; i < count; i++) {
            next += 1 + (random.nextInt(4) == 0 ? random.nextInt(3 * window) : random.nextInt(3));
            if (held < 0 && random.nextInt(50) == 0) {
                held = next;
                continue;
            }
            long heldNow = held;
            seen.add(a, next, o -> heldNow < 0 ? Long.MAX_VALUE : heldNow);
            delivered.add(next);
            newest = next;
            if (held >= 0 && random.nextInt(20) == 0) {
                seen.add(a, held);
                delivered.add(held);
                held = -1;
            }
            for (long d : delivered) {
                if (d > newest - window) {
                    assertTrue(seen.contains(a, d), "delivered " + d + ", newest " + newest);
                }
            }
            if (i % 64 == 0) { // and no recent gap is taken for seen, along the way as at the end
                for (long s = Math.max(1, newest - window + 1); s <= newest; s++) {
                    assertEquals(delivered.contains(s), seen.contains(a, s), "number " + s + ", newest " + newest);
                }
            }
        }
        for (long d : delivered) {
            assertTrue(seen.contains(a, d), "delivered " + d);
        }
        for (long s = Math.max(1, newest - window + 1); s <= newest + 5; s++) {
            assertEquals(delivered.contains(s), seen.contains(a, s), "number " + s + ", newest " + newest);
        }
        if (held >= 0) {
            assertFalse(seen.contains(a, held), "the held number " + held + " is not taken for seen");
        }
    }
}
