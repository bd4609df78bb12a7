package io.polycert.bench.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.bench.faults.FaultCampaign.ScheduleResult;
import io.polycert.bench.faults.FaultSchedule.Type;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CI smoke version of the full-replication campaign: one short schedule of each fault type against three member
 * processes (a kill and restart, a pause, a partition, message loss, a slow member, a graceful leave and a join
 * under load). Each must inject its fault for real, recover, and end with no anomaly, no lost acknowledged commit
 * and no liveness failure.
 */
class FaultCampaignTest {
    private static final FaultCampaign.Options OPTIONS = FaultCampaign.Options.defaults().withSeconds(14)
            .withThreads(2);

    private static ScheduleResult run(Type type, String workload, long seed, Path dir) {
        ScheduleResult r = CheckedSchedules.run("FaultCampaignTest", FaultSchedule.generate(seed, 3, type, workload,
                OPTIONS.seconds(), OPTIONS.failureDetection().toMillis()), OPTIONS, dir);
        // The campaign's default oracle picks NVC, BFC or VC at random: each must have certified commits.
        assertTrue(java.util.Arrays.stream(r.byProtocol()).allMatch(c -> c > 0), "a protocol unused: "
                + java.util.Arrays.toString(r.byProtocol()));
        // Liveness counts too: a member that never recovers must fail the smoke test, not pass quietly.
        assertEquals(List.of(), r.failures(), "liveness failures (history in " + r.historyDir() + ")");
        assertTrue(r.events().stream().allMatch(e -> e.recoveryMs() >= 0), "recovered: " + r.events());
        return r;
    }

    @Test
    void killAndRestartUnderListAppend(@TempDir Path dir) {
        ScheduleResult r = run(Type.KILL, "list-append", 11, dir);
        assertTrue(r.events().get(0).evidence().contains(" is gone"), r.events().get(0).evidence());
        assertTrue(r.check().valid());
        assertTrue(r.check().edges() > 0);
    }

    /** The minority member rejoins once healed (it could not before the fix MinorityRejoinTest reproduces). */
    @Test
    void partitionUnderListAppend(@TempDir Path dir) {
        ScheduleResult r = run(Type.PARTITION, "list-append", 12, dir);
        assertTrue(r.events().get(0).evidence().contains("installed a minority view"), r.events().get(0).evidence());
        assertTrue(r.check().valid());
    }

    @Test
    void aSlowMemberUnderTheAuditedBank(@TempDir Path dir) {
        run(Type.DELAY, "bank-audit", 13, dir);
    }

    @Test
    void aPausedMemberUnderListAppend(@TempDir Path dir) {
        ScheduleResult r = run(Type.PAUSE, "list-append", 14, dir);
        assertTrue(r.events().get(0).evidence().contains("state 'T'"), r.events().get(0).evidence());
        assertTrue(r.check().valid());
    }

    @Test
    void messageLossUnderTheAuditedBank(@TempDir Path dir) {
        ScheduleResult r = run(Type.LOSS, "bank-audit", 15, dir);
        // injected (checked for every event) means DISCARD was counted dropping messages; the evidence says how many
        assertTrue(r.events().get(0).evidence().contains(" dropped "), r.events().get(0).evidence());
    }

    /** A graceful leave, then a fresh process that joins by state transfer while the others commit. */
    @Test
    void aLeaveAndAJoinUnderListAppend(@TempDir Path dir) {
        ScheduleResult r = run(Type.JOIN, "list-append", 16, dir);
        assertTrue(r.events().get(0).evidence().contains(" joined after "), r.events().get(0).evidence());
        assertTrue(r.check().valid());
    }

    /**
     * The harness's own test: members that record aborted transfers as committed (two lies each, a test-only
     * parameter of the workload) must make the schedule unsafe, through the same ledger check and balances the
     * clean schedules pass.
     */
    @Test
    void transfersRecordedAsCommittedButAbortedAreReported(@TempDir Path dir) {
        FaultSchedule schedule = new FaultSchedule(17, 3, "bank-audit:lies=2", Replication.FULL, Type.DELAY, 8,
                List.of(new FaultSchedule.Event(Type.DELAY, 2000, 2000, List.of(1), 0, 0, 20, 5)));
        ScheduleResult r = FaultCampaign.runSchedule(schedule, OPTIONS.withSeconds(8), dir, System.err);
        assertNull(r.error(), "harness error: " + r.error());
        assertFalse(r.safe(), "the lies went unnoticed");
        assertTrue(r.anomalies().stream().allMatch(a -> a.startsWith("ledger: account ")), r.anomalies().toString());
    }

    @Test
    void schedulesAreReproducibleFromTheirSeed() {
        List<Type> types = List.of(Type.values());
        List<String> workloads = List.of("list-append", "bank-audit");
        for (long seed = 0; seed < 50; seed++) {
            FaultSchedule a = FaultSchedule.generate(seed, 0, types, workloads, 40, 2000);
            FaultSchedule b = FaultSchedule.generate(seed, 0, types, workloads, 40, 2000);
            assertEquals(a, b);
            assertTrue(a.members() >= 3 && a.members() <= 5);
            assertFalse(a.events().isEmpty());
            for (FaultSchedule.Event e : a.events()) {
                for (int t : e.targets()) {
                    assertTrue(t >= 0 && t < a.members());
                }
                if (e.type() == Type.PARTITION) {
                    assertTrue(e.targets().size() * 2 < a.members(), "a minority: " + e);
                }
            }
        }
        assertEquals(FaultCampaign.Options.defaults().schedule(3), FaultCampaign.Options.defaults().withSeed(2)
                .schedule(2));
    }

    /** The long campaign: every fault type, both workloads. Run with -DexcludedGroups= -Dgroups=bench. */
    @Test
    @Tag("bench")
    void longCampaign(@TempDir Path dir) {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8);
        int status = FaultCampaign.run(FaultCampaign.Options.defaults().withSchedules(12).withSeconds(45)
                .withMembers(0).withWorkDir(dir), new PrintStream(new TeeStream(out, System.err), true,
                        StandardCharsets.UTF_8));
        assertEquals(0, status, text.toString(StandardCharsets.UTF_8));
    }

    private static final class TeeStream extends java.io.OutputStream {
        private final java.io.OutputStream a;
        private final java.io.OutputStream b;

        TeeStream(java.io.OutputStream a, java.io.OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int c) throws java.io.IOException {
            a.write(c);
            b.write(c);
        }

        @Override
        public void write(byte[] buf, int off, int len) throws java.io.IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }
    }
}
