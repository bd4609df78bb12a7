package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.group.MemberId;
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
    void gapsThatNeverFillAreCapped() {
        // A multicast destination receives every other number of an origin that alternates between two groups.
        SeenIds seen = new SeenIds(100);
        for (long s = 2; s <= 100_000; s += 2) {
            seen.add(a, s);
        }
        assertTrue(seen.heldAbove() <= 100, "held " + seen.heldAbove());
        assertTrue(seen.contains(a, 100_000) && seen.contains(a, 99_902), "recent numbers are remembered");
        assertFalse(seen.contains(a, 99_999), "a recent gap is not taken for a delivery");
        assertFalse(seen.contains(a, 100_001));
        assertTrue(seen.contains(a, 3), "an old gap counts as seen once the cap moved past it");
    }

    @Test
    void theCapNeverMovesTheWatermarkUpToANumberStillUndelivered() {
        SeenIds seen = new SeenIds(100);
        for (long s = 2; s <= 10_000; s += 2) {
            seen.add(a, s, origin -> origin.equals(a) ? 51 : Long.MAX_VALUE); // 51 is still on its way
        }
        assertFalse(seen.contains(a, 51), "an undelivered number must not count as seen");
        assertTrue(seen.contains(a, 50), "below it the cap may move");
        seen.add(a, 51);
        for (long s = 10_002; s <= 10_400; s += 2) {
            seen.add(a, s);
        }
        assertTrue(seen.heldAbove() <= 100, "once delivered, the cap applies again: held " + seen.heldAbove());
    }

    @Test
    void aCapBelowOneIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new SeenIds(0));
    }
}
