package io.polycert.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void helpListsCommandsAndOptions() {
        assertEquals(0, run("--help"));
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("stm-compare") && text.contains("--threads"), text);
    }

    @Test
    void badArgumentsExitNonZeroWithAClearMessage() {
        assertEquals(2, run("demo", "--threads", "zero"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--threads must be a whole number"));
        assertEquals(2, run("nonsense"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown command 'nonsense'"));
        assertEquals(2, run("demo", "--bogus", "1"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown option --bogus"));
        assertEquals(2, run("demo", "--seconds"));
    }

    @Test
    void badFaultCampaignReplicationOptionsExitWithStatus2() {
        assertEquals(2, run("faults", "--replication", "half"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--replication must be one of full, partial, mixed"));
        assertEquals(2, run("faults", "--replication", "partial", "--protocol", "paxos"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--protocol must be one of"));
        assertEquals(2, run("faults", "--replication", "partial", "--degree", "4"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--degree must be between 1 and 3"));
        assertEquals(2, run("faults", "--keep", "/tmp/a,b"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--keep must be a directory without commas"));
        assertEquals(2, run("faults", "--keep"));
    }

    @Test
    void badNetworkOptionsExitWithStatus2() {
        assertEquals(2, run("bank", "--network", "fast"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--network: network must be none, gigabit or like"));
        assertEquals(2, run("bank", "--network", "99999999999mbit/5us"));
        assertEquals(2, run("bank", "--network", "5mbit/5us"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("10 to 1,000,000 Mbit/s"));
        assertEquals(2, run("stmbench7", "--runner", "processes", "--network", "gigabit"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--network emulates links between members in one"));
        assertEquals(2, run("bank-vs-infinispan", "--network", "gigabit"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--network applies to bank, oracle"));
    }

    @Test
    void localDemoRunsAndChecksTheInvariant() {
        assertEquals(0, run("local-demo", "--seconds", "0.3", "--accounts", "50"));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("invariant holds"));
    }

    @Test
    void replicatedDemoRunsAndChecksTheInvariantAtEveryReplica() {
        assertEquals(0, run("demo", "--seconds", "1", "--accounts", "300"));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(3, text.split("invariant holds", -1).length - 1, text);
    }

    @Test
    void oracleBenchmarkSmoke(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        assertEquals(0, run("oracle", "--read-sets", "1,100", "--phase", "1", "--training", "0.5", "--accounts", "300",
                "--twins", "true", "--wall-clock", "true", "--epoch-commits", "8", "--shadows", "true", "--out",
                dir.toString()));
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("bank invariant checked at every replica"), text);
        assertTrue(text.contains("twin-nvc") && text.contains("twin-vc"), text);
        assertTrue(text.contains("dist-ucb-wall") && text.contains("dist-ucb-8"), text);
        assertTrue(text.contains("shadow-dist-ucb") && text.contains("shadow-decision-tree"), text);
        assertTrue(java.util.regex.Pattern.compile("a perfect oracle .*: R=1 [0-9.]+\\+-[0-9.]+ \\((nvc|bfc|vc)\\);"
                + " R=100 [0-9.]+\\+-[0-9.]+ \\((nvc|bfc|vc)\\); worst [0-9.]+").matcher(text).find(), text);
        assertTrue(java.util.regex.Pattern.compile("DistUCB: worst phase [0-9.]+\\+-[0-9.]+ of the best static")
                .matcher(text).find(), text);
        assertTrue(text.contains("dist-ucb") && text.contains("dist-ucb-gossip") && text.contains("decision-tree")
                && text.contains("R=100") && text.contains("epochs on NVC/BFC/VC"), text);
        assertTrue(text.contains("forward selection") || text.contains("training failed"), text);
        for (String file : new String[] {"timeline.csv", "fig5-oracle-normalized.png", "fig7-oracle-over-time.png",
                "samples.csv"}) {
            assertTrue(java.nio.file.Files.exists(dir.resolve(file)), file);
        }
    }
}
