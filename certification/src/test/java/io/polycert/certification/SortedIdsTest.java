package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Arrays;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class SortedIdsTest {

    /** What {@link SortedIds#distinct} must return: the ids sorted, each once. */
    private static long[] expected(long[] ids) {
        return Arrays.stream(ids).sorted().distinct().toArray();
    }

    @Property(tries = 200)
    void sortsAndDropsRepeatsLikeTheLibrarySortOnEitherPath(@ForAll @IntRange(max = 3 * SortedIds.RADIX_FROM) int n,
            @ForAll long seed, @ForAll @IntRange(min = 1, max = 64) int bits) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] ids = new long[n];
        for (int i = 0; i < n; i++) {
            // values of `bits` bits, signed, so that repeats, negatives and shared high digits all occur
            ids[i] = bits == 64 ? random.nextLong() : random.nextLong() >> (64 - bits);
        }
        long[] want = expected(ids);
        assertArrayEquals(want, SortedIds.distinct(ids.clone()));
    }

    @Test
    void sortedReversedConstantAndRotatedInputs() {
        int n = 2 * SortedIds.RADIX_FROM;
        long[] sorted = new long[n];
        long[] reversed = new long[n];
        long[] constant = new long[n];
        long[] rotated = new long[n]; // consecutive ids read from a random start: two sorted runs
        for (int i = 0; i < n; i++) {
            sorted[i] = -n + 2L * i;
            reversed[i] = Long.MAX_VALUE - i;
            constant[i] = Long.MIN_VALUE;
            rotated[i] = (i + n / 3) % n;
        }
        for (long[] ids : new long[][] {sorted, reversed, constant, rotated, {}, {42},
                {Long.MAX_VALUE, Long.MIN_VALUE, 0}}) {
            assertArrayEquals(expected(ids), SortedIds.distinct(ids.clone()), Arrays.toString(
                    Arrays.copyOf(ids, Math.min(ids.length, 4))));
        }
    }
}
