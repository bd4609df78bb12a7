package io.polycert.bench.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bank's transfer ledger against final balances: what it must accept and what it must report. */
class TransferLedgerTest {
    private static final long INITIAL = 1000;

    /** Two clients: 0 -> 1 committed, 1 -> 2 aborted, 2 -> 0 unknown, 0 -> 2 invoked when its process died. */
    private static void writeLedgers(Path dir) {
        try (TransferLedger a = new TransferLedger(dir, 0, 11, 0);
                TransferLedger b = new TransferLedger(dir, 1, 12, 0)) {
            a.committed(a.invoke(0, 1));
            a.aborted(a.invoke(1, 2), "CONFLICT");
            b.unknown(b.invoke(2, 0));
            b.invoke(0, 2);
        }
    }

    @Test
    void balancesTheRecordsExplainAreValidWhicheverWayTheUnknownsWent(@TempDir Path dir) {
        writeLedgers(dir);
        long[][] outcomes = {
            {INITIAL - 1, INITIAL + 1, INITIAL}, // neither unknown applied
            {INITIAL, INITIAL + 1, INITIAL - 1}, // 2 -> 0 applied
            {INITIAL - 2, INITIAL + 1, INITIAL + 1}, // 0 -> 2 applied
            {INITIAL - 1, INITIAL + 1, INITIAL}, // both
        };
        for (long[] balances : outcomes) {
            TransferLedger.Check c = TransferLedger.check(dir, balances, INITIAL);
            assertTrue(c.valid(), c.problems().toString());
            assertEquals(1, c.committed());
            assertEquals(1, c.aborted());
            assertEquals(2, c.unknown());
        }
    }

    @Test
    void anAcknowledgedTransferMissingFromTheBalancesIsReported(@TempDir Path dir) {
        writeLedgers(dir);
        TransferLedger.Check c = TransferLedger.check(dir, new long[] {INITIAL, INITIAL, INITIAL}, INITIAL);
        assertFalse(c.valid());
        assertEquals(1, c.problems().size(), c.problems().toString()); // account 1 lacks its credit
        assertTrue(c.problems().get(0).startsWith("account 1 holds 1000, the recorded transfers allow 1001"),
                c.problems().get(0));
    }

    @Test
    void anAbortedTransferThatWasAppliedIsReported(@TempDir Path dir) {
        writeLedgers(dir);
        // 0 -> 1 committed and 1 -> 2 applied although reported aborted; the unknowns did not apply.
        TransferLedger.Check c = TransferLedger.check(dir, new long[] {INITIAL - 1, INITIAL, INITIAL + 1},
                INITIAL);
        assertEquals(1, c.problems().size(), c.problems().toString()); // account 1; account 2 is within 0 -> 2
        assertTrue(c.problems().get(0).startsWith("account 1 holds 1000"), c.problems().get(0));
    }

    @Test
    void malformedAndOrphanLinesAreReportedNotSkipped(@TempDir Path dir) throws IOException {
        writeLedgers(dir);
        Files.writeString(dir.resolve("bank-m2-p13-t0.ledger"), "I 1 0 7\nC 9\nI 2 0 1\nX 2\n",
                StandardOpenOption.CREATE);
        TransferLedger.Check c = TransferLedger.check(dir, new long[] {INITIAL - 1, INITIAL + 1, INITIAL},
                INITIAL);
        assertEquals(3, c.problems().size(), c.problems().toString());
        assertTrue(c.problems().get(0).contains("no such account"), c.problems().get(0));
        assertTrue(c.problems().get(1).contains("never invoked"), c.problems().get(1));
        assertTrue(c.problems().get(2).contains("unknown record"), c.problems().get(2));
    }

    @Test
    void aLineCutShortByAKillIsIgnored(@TempDir Path dir) throws IOException {
        writeLedgers(dir);
        Files.writeString(dir.resolve("bank-m0-p11-t0.ledger"), "C", StandardOpenOption.APPEND);
        TransferLedger.Check c = TransferLedger.check(dir, new long[] {INITIAL - 1, INITIAL + 1, INITIAL},
                INITIAL);
        assertTrue(c.valid(), c.problems().toString());
    }
}
