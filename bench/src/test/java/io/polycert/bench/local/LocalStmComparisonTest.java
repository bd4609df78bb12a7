package io.polycert.bench.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
        String output = buffer.toString(StandardCharsets.UTF_8);
        assertTrue(output.contains("/Multiverse "), output);
        assertFalse(output.contains("clock"), output);
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
        assertEquals(15, rows.size());
        assertEquals(List.of("PolyCert", "ScalaSTM", "Multiverse", "Multiverse+clock", "Multiverse+time"),
                rows.subList(0, 5).stream().map(LocalStmComparison.Row::stm).toList());
        rows.forEach(r -> assertTrue(r.medianTxPerSecond() > 0, r.toString()));
        String output = buffer.toString(StandardCharsets.UTF_8);
        assertTrue(output.contains("/Multiverse+clock"), output);
        assertTrue(output.contains("what the shared clock costs Multiverse"), output);
        assertTrue(output.contains("what reading the system clock costs Multiverse (Multiverse+time / Multiverse"),
                output);
    }

    /** Synthetic rounds, so the printed figures are known: the clocked peer at 0.5 then 1.0 of the plain one. */
    @Test
    void theClockCostLinePairsTheClockedPeerWithItsPlainSelfRoundByRound() {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        LocalStmComparison comparison = new LocalStmComparison(LocalStmComparison.Options.defaults(),
                new PrintStream(buffer, true, StandardCharsets.UTF_8));
        comparison.print(List.of(
                new LocalStmComparison.Row("m", "PolyCert", 3, new double[] {3, 3}),
                new LocalStmComparison.Row("m", "ScalaSTM", 6, new double[] {6, 1}),
                new LocalStmComparison.Row("m", "Multiverse", 3, new double[] {4, 2}),
                new LocalStmComparison.Row("m", "Multiverse+clock", 2, new double[] {2, 2})), 4);
        List<String> lines = buffer.toString(StandardCharsets.UTF_8).lines().toList();
        int title = lines.indexOf("what the shared clock costs Multiverse (Multiverse+clock / Multiverse, within"
                + " each round):");
        assertTrue(title > 0, String.join("\n", lines));
        String cost = lines.get(title + 1);
        assertTrue(cost.matches("m +0\\.75 +0\\.50 1\\.00"), cost);
        String ratios = lines.stream().filter(l -> l.startsWith("m ") && l.contains("|")).findFirst().orElseThrow();
        assertTrue(ratios.endsWith(" 0.50 3.00 | 0.75 1.50 | 1.50 1.50"), ratios);
        String header = lines.stream().filter(l -> l.startsWith("mix ")).findFirst().orElseThrow();
        String table = lines.get(lines.indexOf(header) + 1);
        assertEquals(header.length(), table.length(), "the table's columns line up with its header");
    }

    @Test
    void theTimedPeerDelegatesEveryOperation() {
        TimedBank bank = new TimedBank(new MultiverseBank(3, 10));
        bank.transfer(0, 2, 4);
        assertEquals(6, bank.sum(0, 1));
        assertEquals(30, bank.sum(0, 3));
        assertEquals("Multiverse+time", bank.name());
        assertEquals(3, bank.accounts());
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
