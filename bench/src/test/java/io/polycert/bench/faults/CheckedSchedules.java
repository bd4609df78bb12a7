package io.polycert.bench.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.bench.faults.FaultCampaign.EventResult;
import io.polycert.bench.faults.FaultCampaign.ScheduleResult;
import java.nio.file.Path;

/** Runs one fault schedule in a test and asserts what every smoke schedule must show. */
final class CheckedSchedules {
    private CheckedSchedules() {
    }

    /**
     * Runs {@code schedule}: no harness error, no anomaly, no lost acknowledged commit, every fault seen to take
     * effect, more than 50 commits. Liveness failures are printed; callers assert on them.
     */
    static ScheduleResult run(String test, FaultSchedule schedule, FaultCampaign.Options options, Path dir) {
        long t0 = System.nanoTime();
        ScheduleResult r = FaultCampaign.runSchedule(schedule, options, dir, System.err);
        System.err.printf("%s: %s took %.1f s%n", test, schedule, (System.nanoTime() - t0) / 1e9);
        assertNull(r.error(), "harness error: " + r.error());
        assertTrue(r.anomalies().isEmpty(), "anomalies: " + r.anomalies() + " (history in " + r.historyDir() + ")");
        assertEquals(0, r.lostAcknowledged());
        assertFalse(r.events().isEmpty());
        for (EventResult e : r.events()) {
            assertTrue(e.injected(), "fault not seen to take effect: " + e);
        }
        for (String f : r.failures()) {
            System.err.println(test + ": liveness failure in " + schedule + ": " + f);
        }
        assertTrue(r.committed() > 50, "too few commits: " + r.committed());
        return r;
    }
}
