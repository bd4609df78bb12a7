package io.polycert.bench.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Smoke version of the local STM comparison: every STM runs every mix and keeps the bank invariant. */
class LocalStmComparisonTest {

    @Test
    void smokeRunCoversEveryStmAndMix() throws Exception {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        List<LocalStmComparison.Row> rows = new LocalStmComparison(
                new LocalStmComparison.Options(2, 100, 0.05, 0.1, 1, false, false),
                new PrintStream(buffer, true, StandardCharsets.UTF_8)).run();
        assertEquals(9, rows.size());
        rows.forEach(r -> assertTrue(r.medianTxPerSecond() > 0, r.toString()));
        assertTrue(buffer.toString(StandardCharsets.UTF_8).contains("/Multiverse"));
    }

    @Test
    void disjointTransfersKeepEachStmsInvariantAndSayHowTheyRan() throws Exception {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        List<LocalStmComparison.Row> rows = new LocalStmComparison(
                new LocalStmComparison.Options(2, 10, 0.05, 0.1, 2, true, false),
                new PrintStream(buffer, true, StandardCharsets.UTF_8)).run();
        assertEquals(9, rows.size());
        String output = buffer.toString(StandardCharsets.UTF_8);
        assertTrue(output.contains("transfers within each thread's share"), output);
        assertTrue(output.contains("ratios within each round"), output);
    }

    @Test
    void disjointTransfersNeedTwoAccountsPerThread() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new LocalStmComparison.Options(4, 7, 1, 1, 1, true, false));
        assertTrue(e.getMessage().contains("7 accounts, 4 threads"), e.getMessage());
    }

    @Test
    void theClockedPeerRunsBesideTheOthersAndIsPrintedWithItsCost() throws Exception {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        List<LocalStmComparison.Row> rows = new LocalStmComparison(
                new LocalStmComparison.Options(2, 100, 0.05, 0.1, 2, false, true),
                new PrintStream(buffer, true, StandardCharsets.UTF_8)).run();
        assertEquals(12, rows.size());
        assertEquals(List.of("PolyCert", "ScalaSTM", "Multiverse", "Multiverse+clock"),
                rows.subList(0, 4).stream().map(LocalStmComparison.Row::stm).toList());
        rows.forEach(r -> assertTrue(r.medianTxPerSecond() > 0, r.toString()));
        String output = buffer.toString(StandardCharsets.UTF_8);
        assertTrue(output.contains("/Multiverse+clock"), output);
        assertTrue(output.contains("what the shared clock costs Multiverse"), output);
    }

    @Test
    void theClockTicksOncePerTransferAndNotForSums() {
        ClockedBank bank = new ClockedBank(new MultiverseBank(4, 10));
        bank.transfer(0, 1, 3);
        bank.transfer(2, 3, 4);
        assertEquals(40, bank.sum(0, 4));
        assertEquals(2, bank.ticks());
        assertEquals(7, bank.sum(0, 1));
        assertEquals(14, bank.sum(3, 1));
        assertEquals(2, bank.ticks());
        assertEquals("Multiverse+clock", bank.name());
    }

    @Test
    void roundRatiosPairTheSameRound() {
        assertArrayEquals(new double[] {2.0, 0.5}, LocalStmComparison.ratios(new double[] {4, 1}, new double[] {2, 2}));
    }

    /** The full comparison recorded in docs/ (opt-in: ./mvnw -Pbench -pl bench -am verify). */
    @Test
    @Tag("bench")
    void fullComparison() throws Exception {
        new LocalStmComparison(LocalStmComparison.Options.defaults(), System.out).run();
    }
}
