package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BloomLookupForecastTest {

    @Test
    void countsTheIdsWrittenSinceASnapshotExactlyWithinTheSpan() {
        BloomLookupForecast f = new BloomLookupForecast(10);
        for (long v = 11; v <= 110; v++) {
            f.committed(v, (int) (v % 3)); // 0, 1 or 2 ids a version
        }
        long expected = 0;
        for (long v = 51; v <= 110; v++) {
            expected += v % 3;
        }
        assertEquals(expected, f.writtenSince(50));
        assertEquals(0, f.writtenSince(110));
        assertEquals(0, f.writtenSince(500), "a snapshot ahead of the certifier");
        assertEquals(110, f.latest());
    }

    @Test
    void extrapolatesBeyondTheSpanAtTheAverageOfWhatItKeeps() {
        BloomLookupForecast f = new BloomLookupForecast(0);
        int versions = BloomLookupForecast.SPAN * 3;
        for (long v = 1; v <= versions; v++) {
            f.committed(v, 5);
        }
        assertEquals(5L * (BloomLookupForecast.SPAN - 1), f.writtenSince(versions - BloomLookupForecast.SPAN + 1));
        assertEquals(5L * (versions - 10), f.writtenSince(10));
    }

    @Test
    void restartsItsCountsAfterAStateTransfer() {
        BloomLookupForecast f = new BloomLookupForecast(0);
        for (long v = 1; v <= 20; v++) {
            f.committed(v, 4);
        }
        f.restart(1_000);
        assertEquals(0, f.writtenSince(1_000));
        f.committed(1_001, 3);
        assertEquals(3, f.writtenSince(1_000));
        assertEquals(1_001, f.latest());
    }

    @Test
    void aCommitEncodedBeforeAStateTransferIsNotSampled() {
        BloomLookupForecast f = new BloomLookupForecast(0);
        long encodedAt = f.latest();
        f.restart(100_000); // the state of version 100,000 came while the commit was in flight
        f.committed(100_001, 1);
        f.observeCommit(encodedAt);
        assertEquals(BloomLookupForecast.MIN_LOOKUPS, f.expectedLookups(f.latest()));
    }

    @Test
    void aSlowCommitWidensTheNextFiltersAtOnceAndAQuietSpellNarrowsThemAgain() {
        BloomLookupForecast f = new BloomLookupForecast(0);
        long v = 0;
        for (int i = 0; i < 50; i++) { // commits that see one other write in flight
            long encodedAt = f.latest();
            f.committed(++v, 1);
            f.observeCommit(encodedAt);
        }
        int quiet = f.expectedLookups(f.latest());
        assertEquals(BloomLookupForecast.MIN_LOOKUPS, quiet, "one write in flight: the floor");

        long encodedAt = f.latest();
        for (int i = 0; i < 200; i++) { // one commit during which 200 others were certified
            f.committed(++v, 1);
        }
        f.observeCommit(encodedAt);
        int afterBurst = f.expectedLookups(f.latest());
        assertTrue(afterBurst >= 200, "the next filter is sized for at least that many, was " + afterBurst);

        for (int i = 0; i < 100; i++) {
            long at = f.latest();
            f.committed(++v, 1);
            f.observeCommit(at);
        }
        assertTrue(f.expectedLookups(f.latest()) < 20, "back near the floor, was " + f.expectedLookups(f.latest()));
    }

    @Test
    void addsTheWritesSinceTheSnapshotToTheForecast() {
        BloomLookupForecast f = new BloomLookupForecast(0);
        for (long v = 1; v <= 100; v++) {
            f.committed(v, 2);
        }
        assertEquals(2 * 60 + BloomLookupForecast.MIN_LOOKUPS, f.expectedLookups(40),
                "no commit observed yet: the forecast in flight starts at the floor");
    }
}
