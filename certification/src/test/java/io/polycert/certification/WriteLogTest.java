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
        WriteLog log = new WriteLog(1_000, Long.MAX_VALUE, 0);
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

    @org.junit.jupiter.api.Test
    void hugeWriteSetsDropOldVersionsEarlyButKeepTheNewest() {
        WriteLog log = new WriteLog(1_000, 100, 0);
        for (int v = 1; v <= 5; v++) {
            long[] ids = new long[30];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = v * 1_000L + i;
            }
            log.committed(v, ids);
        }
        assertEquals(2, log.horizon(), "versions 3-5 (90 ids) fit in 100; 2-5 would not");
        assertEquals(true, log.writtenAfter(5_000, 4));
        assertEquals(false, log.writtenAfter(2_000, 1), "version 2's ids are forgotten");
        log.committed(6, new long[500]);
        assertEquals(5, log.horizon(), "one version larger than the bound is still kept, alone");
        assertEquals(true, log.writtenAfter(0, 5));
    }
}
