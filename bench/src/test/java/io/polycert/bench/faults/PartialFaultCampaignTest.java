package io.polycert.bench.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.bench.faults.FaultCampaign.ScheduleResult;
import io.polycert.bench.faults.FaultSchedule.Type;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CI smoke version of the partial-replication campaign: one short schedule of each fault type against three
 * member processes, each a {@link io.polycert.kvstore.PartitionedStore} (degree 2, total order). Each must inject
 * its fault for real, recover, and end with no anomaly (history, audits, ledger, owners disagreeing) and no lost
 * acknowledged commit.
 */
class PartialFaultCampaignTest {
    private static final FaultCampaign.Options OPTIONS = FaultCampaign.Options.defaults().withSeconds(8)
            .withThreads(2).withReplications(List.of(Replication.PARTIAL));

    private static ScheduleResult run(Type type, String workload, long seed, Path dir) {
        ScheduleResult r = CheckedSchedules.run("PartialFaultCampaignTest", FaultSchedule.generate(seed, 3, type,
                workload, Replication.PARTIAL, OPTIONS.seconds(), OPTIONS.failureDetection().toMillis()), OPTIONS, dir);
        assertEquals("partial/TOM/2", r.replication());
        // Liveness counts too: a member that never recovers must fail the smoke test, not pass quietly.
        assertEquals(List.of(), r.failures(), "liveness failures (history in " + r.historyDir() + ")");
        assertTrue(r.events().stream().allMatch(e -> e.recoveryMs() >= 0), "recovered: " + r.events());
        return r;
    }

    @Test
    void killAndRestartUnderListAppend(@TempDir Path dir) {
        ScheduleResult r = run(Type.KILL, "list-append", 21, dir);
        assertTrue(r.events().get(0).evidence().contains(" is gone"), r.events().get(0).evidence());
        assertTrue(r.check().valid());
        assertTrue(r.check().edges() > 0);
    }

    @Test
    void partitionUnderTheAuditedBank(@TempDir Path dir) {
        ScheduleResult r = run(Type.PARTITION, "bank-audit", 22, dir);
        assertTrue(r.events().get(0).evidence().contains("installed a minority view"), r.events().get(0).evidence());
    }

    @Test
    void messageLossUnderListAppend(@TempDir Path dir) {
        ScheduleResult r = run(Type.LOSS, "list-append", 23, dir);
        assertTrue(r.events().get(0).evidence().contains(" dropped "), r.events().get(0).evidence());
        assertTrue(r.check().valid());
    }

    @Test
    void aSlowMemberUnderTheAuditedBank(@TempDir Path dir) {
        ScheduleResult r = run(Type.DELAY, "bank-audit", 24, dir);
        assertTrue(r.events().get(0).evidence().contains(" delayed "), r.events().get(0).evidence());
    }

    /** A graceful leave, then a fresh process that joins while the others commit: keys move twice. */
    @Test
    void aLeaveAndAJoinUnderListAppend(@TempDir Path dir) {
        ScheduleResult r = run(Type.JOIN, "list-append", 25, dir);
        assertTrue(r.events().get(0).evidence().contains(" joined after "), r.events().get(0).evidence());
        assertTrue(r.check().valid());
    }

    /**
     * A member stopped (SIGSTOP) for about as long as failure detection takes to exclude it, and continued around
     * the moment the others exclude it, never installs a view without them, so it keeps the transactions queued
     * before the pause, which the others resolved without it. Before the fix the rebalance of the merged view waited
     * behind them forever at that member while the others waited for its "done" (7 of 8 runs of this schedule,
     * campaign seed 202: 2 of 6). Now the others' "done" messages, which carry a newer previous placement than its
     * own, tell it that it missed a placement, and it drops them as a member cut off into a minority does.
     */
    @Test
    void aMemberPausedUntilItIsExcludedDoesNotBlockTheRebalance(@TempDir Path dir) {
        FaultSchedule schedule = new FaultSchedule(300, 3, "list-append", Replication.PARTIAL, Type.PAUSE, 12,
                List.of(new FaultSchedule.Event(Type.PAUSE, 3000, 3100, List.of(1), 0, 0, 0, 0)));
        ScheduleResult r = CheckedSchedules.run("PartialFaultCampaignTest", schedule, OPTIONS.withSeconds(12), dir);
        assertEquals(List.of(), r.failures(), "liveness failures (history in " + r.historyDir() + ")");
    }

    @Test
    void eachScheduleSeedPicksItsReplicationAndKeepsItsFaults() {
        List<Type> types = List.of(Type.values());
        List<String> workloads = List.of("list-append", "bank-audit");
        List<Replication> both = List.of(Replication.values());
        int partial = 0;
        for (long seed = 0; seed < 50; seed++) {
            FaultSchedule mixed = FaultSchedule.generate(seed, 0, types, workloads, both, 40, 2000);
            assertEquals(mixed, FaultSchedule.generate(seed, 0, types, workloads, both, 40, 2000));
            FaultSchedule full = FaultSchedule.generate(seed, 0, types, workloads, 40, 2000);
            assertEquals(Replication.FULL, full.replication());
            // The replication is drawn apart: a seed injects the same faults whatever the replication.
            assertEquals(full.events(), mixed.events());
            assertEquals(full.type(), mixed.type());
            assertEquals(full.workload(), mixed.workload());
            assertEquals(full.members(), mixed.members());
            partial += mixed.replication() == Replication.PARTIAL ? 1 : 0;
        }
        assertTrue(partial > 10 && partial < 40, "both replications picked: " + partial + " partial of 50");
    }

    @Test
    void theTableHasARowPerFaultAndReplication() {
        FaultSchedule kill = FaultSchedule.generate(1, 3, Type.KILL, "list-append", 20, 2000);
        FaultCampaign.Report report = new FaultCampaign.Report(List.of(
                result(kill, "full", new long[] {5, 6, 7}), result(kill, "partial/TOM/2", new long[3]),
                result(kill, "partial/TOM/2", new long[3])));
        String[] lines = report.table().split("\n");
        assertEquals(3, lines.length, report.table());
        assertTrue(lines[0].contains("replication") && lines[0].contains("NVC/BFC/VC"), lines[0]);
        assertTrue(lines[1].matches("kill +full +1 .* 5/6/7 .*"), lines[1]);
        assertTrue(lines[2].matches("kill +partial/TOM/2 +2 .* 200 .* - .*"), lines[2]);
    }

    private static ScheduleResult result(FaultSchedule schedule, String replication, long[] byProtocol) {
        return new ScheduleResult(schedule, replication, 100, 10, 1, byProtocol, null, List.of(), 0, 0, 0, List.of(),
                List.of(), 10, null, null);
    }

    @Test
    void badReplicationSettingsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> Replication.fromName("half"));
        assertThrows(IllegalArgumentException.class, () -> Replication.protocol("paxos"));
        assertEquals(io.polycert.certification.partial.CommitProtocol.TWO_PHASE_COMMIT, Replication.protocol("2pc"));
        assertThrows(IllegalArgumentException.class, () -> OPTIONS.withDegree(4));
        assertThrows(IllegalArgumentException.class, () -> OPTIONS.withReplications(List.of()));
        assertEquals("partial/2PC/3", OPTIONS.withProtocol(io.polycert.certification.partial.CommitProtocol
                .TWO_PHASE_COMMIT).withDegree(3).replicationLabel(Replication.PARTIAL));
    }
}
