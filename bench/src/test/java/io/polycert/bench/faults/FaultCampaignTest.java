package io.polycert.bench.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * Short fault schedules against three member processes: a kill and restart, a partition, and a slow member under
 * the audited bank. Each must inject its fault for real and end with no anomaly and no lost commit.
 */
class FaultCampaignTest {
    private static final FaultCampaign.Options OPTIONS = FaultCampaign.Options.defaults().withSeconds(14)
            .withThreads(2);

    private static ScheduleResult run(Type type, String workload, long seed, Path dir) {
        ScheduleResult r = CheckedSchedules.run("FaultCampaignTest", FaultSchedule.generate(seed, 3, type, workload,
                OPTIONS.seconds(), OPTIONS.failureDetection().toMillis()), OPTIONS, dir);
        assertTrue(r.protocolsMixed(), "one protocol only: " + java.util.Arrays.toString(r.byProtocol()));
        return r;
    }

    @Test
    void killAndRestartUnderListAppend(@TempDir Path dir) {
        ScheduleResult r = run(Type.KILL, "list-append", 11, dir);
        assertEquals(List.of(), r.failures());
        assertTrue(r.events().stream().allMatch(e -> e.recoveryMs() >= 0), "recovered: " + r.events());
        assertTrue(r.events().get(0).evidence().contains(" is gone"), r.events().get(0).evidence());
        assertTrue(r.check().valid());
        assertTrue(r.check().edges() > 0);
    }

    /**
     * Safety only: the partitioned member does not rejoin today (a PolyCert bug, reproduced in
     * {@link MinorityRejoinTest}); the harness reports that as a liveness failure and replaces the member, and the
     * whole history must still check clean. Once fixed, assert no failures here too.
     */
    @Test
    void partitionUnderListAppend(@TempDir Path dir) {
        ScheduleResult r = run(Type.PARTITION, "list-append", 12, dir);
        assertTrue(r.events().get(0).evidence().contains("installed a minority view"), r.events().get(0).evidence());
        assertTrue(r.check().valid());
    }

    @Test
    void aSlowMemberUnderTheAuditedBank(@TempDir Path dir) {
        ScheduleResult r = run(Type.DELAY, "bank-audit", 13, dir);
        assertEquals(List.of(), r.failures());
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
