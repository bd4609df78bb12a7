package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class WriteLogTest {

    /** Both ways of certifying a read-set (scan the reads, or scan the recent writes) reach the same decision. */
    @Property(tries = 200)
    void readWrittenAfterAgreesWithAPerReadCheck(@ForAll @IntRange(min = 0, max = 3_000) int reads,
            @ForAll @IntRange(min = 1, max = 200) int versions, @ForAll @IntRange(min = 1, max = 20) int perVersion,
            @ForAll long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long universe = 1 + random.nextInt(50_000);
        WriteLog log = new WriteLog(1_000, 0);
        for (int v = 1; v <= versions; v++) {
            long[] ids = new long[perVersion];
            for (int i = 0; i < perVersion; i++) {
                ids[i] = random.nextLong(universe);
            }
            log.committed(v, ids);
        }
        long[] readIds = random.longs(reads, 0, universe).sorted().distinct().toArray();
        long snapshot = random.nextLong(versions + 1);
        boolean expected = Arrays.stream(readIds).anyMatch(id -> log.writtenAfter(id, snapshot));
        Long found = log.readWrittenAfter(readIds, snapshot);
        assertEquals(expected, found != null);
        if (found != null) {
            assertEquals(true, log.writtenAfter(found, snapshot), "the reported read was overwritten");
            assertEquals(true, Arrays.binarySearch(readIds, found) >= 0, "the reported id was read");
        }
    }
}
