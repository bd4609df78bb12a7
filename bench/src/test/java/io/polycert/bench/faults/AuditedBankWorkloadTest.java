package io.polycert.bench.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A wrong audit total is never lost, even when the member cannot write it down. */
class AuditedBankWorkloadTest {
    private static final long PID = ProcessHandle.current().pid();

    @TempDir
    Path dir;

    @Test
    void aRecordedWrongTotalIsInTheMembersFile() throws Exception {
        AuditedBankWorkload workload = new AuditedBankWorkload(10, 1, 20, dir);
        workload.attach(2);
        workload.badAudit(9_999, 10_000);

        assertEquals(1, AuditedBankWorkload.badAudits(dir).size());
        assertEquals(0, AuditedBankWorkload.unrecordedBadAudits(dir, 2, PID, badCount(workload)));
    }

    @Test
    void aWrongTotalThatCouldNotBeWrittenIsStillCounted() throws Exception {
        Path unwritable = dir.resolve("not-a-directory");
        Files.writeString(unwritable, "a file where the member expects its history directory");
        AuditedBankWorkload workload = new AuditedBankWorkload(10, 1, 20, unwritable);
        workload.attach(2);
        workload.badAudit(9_999, 10_000);
        workload.badAudit(10_001, 10_000);

        assertEquals(0, AuditedBankWorkload.badAudits(dir).size(), "nothing could be written");
        assertEquals(2, AuditedBankWorkload.unrecordedBadAudits(dir, 2, PID, badCount(workload)));
    }

    @Test
    void anotherProcessesFileDoesNotCoverThisOnesWrongTotals() throws Exception {
        // an earlier process of the same member (killed and restarted) wrote one line
        Files.writeString(dir.resolve("audit-m2-p1.log"), "BAD 1 9999 10000\n");
        Path unwritable = dir.resolve("not-a-directory");
        Files.writeString(unwritable, "");
        AuditedBankWorkload workload = new AuditedBankWorkload(10, 1, 20, unwritable);
        workload.attach(2);
        workload.badAudit(9_999, 10_000);

        assertEquals(1, AuditedBankWorkload.unrecordedBadAudits(dir, 2, PID, badCount(workload)));
    }

    /** The BAD field of the workload's {@code stats} command, as the campaign reads it. */
    private static long badCount(AuditedBankWorkload workload) throws InterruptedException {
        return Long.parseLong(workload.command((FaultStore) null, new String[] {"stats"}).trim().split(" ")[1]);
    }
}
