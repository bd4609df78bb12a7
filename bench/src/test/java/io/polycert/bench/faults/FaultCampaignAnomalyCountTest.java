package io.polycert.bench.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.polycert.bench.faults.ListAppendChecker.Anomaly;
import io.polycert.bench.faults.ListAppendChecker.Result;
import java.io.PrintStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The campaign's "anomalies" figure counts anomalies, not the kinds of them (found by review). */
class FaultCampaignAnomalyCountTest {

    @Test
    void aScheduleCountsEveryAnomalyNotEveryKind() {
        ListAppendCheckerTest.H h = new ListAppendCheckerTest.H();
        StringBuilder seen = new StringBuilder();
        for (int i = 1; i <= 57; i++) { // 57 aborted appends, all read: 57 G1a
            h.aborted("1:" + i);
            seen.append(i == 1 ? "" : ".").append(i);
        }
        // and an unknown append a read saw, missing from the final read: a lost (observed) commit
        Result check = h.ok("", "1=" + seen).unknown("2:1000").ok("", "2=1000").fin(0, "1=" + seen).check();
        assertEquals(57, check.count(Anomaly.G1A));
        assertEquals(1, check.lostObserved());

        FaultCampaign.Options options = FaultCampaign.Options.defaults();
        FaultCampaign.Run run = new FaultCampaign.Run(options.schedule(0), options, Path.of("unused"),
                new PrintStream(OutputStream.nullOutputStream()));
        run.anomalies(check);
        run.anomaly("wrong audit total: 99");
        assertEquals(3, run.anomalies.size(), "one line per kind: G1a, lost commit, the audit");
        assertEquals(59, run.anomalyCount);

        FaultCampaign.ScheduleResult r = new FaultCampaign.ScheduleResult(options.schedule(0), "full", 0, 0, 0,
                new long[3], check, List.copyOf(run.anomalies), run.anomalyCount, 0, 0, List.of(), List.of(), 0, null,
                null);
        assertEquals(59, new FaultCampaign.Report(List.of(r)).anomalies());
    }
}
