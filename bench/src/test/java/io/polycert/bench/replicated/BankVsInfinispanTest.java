package io.polycert.bench.replicated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BankVsInfinispanTest {

    @Test
    void peerRepliesAreParsedStrictly() {
        Map<String, String> f = InfinispanPeer.fields("result commits=12 aborts=0 seconds=1.000 p50us=3", "result");
        assertEquals("12", f.get("commits"));
        assertEquals("1.000", f.get("seconds"));
        assertThrows(IllegalStateException.class, () -> InfinispanPeer.fields("total 5 expected 5", "result"));
        assertThrows(IllegalStateException.class, () -> InfinispanPeer.fields("result commits", "result"));
    }

    @Test
    void aMissingPeerBuildSaysHowToBuildIt(@TempDir Path empty) {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> InfinispanPeer.start(empty, 3, 100, empty.resolve("peer.log")));
        assertTrue(e.getMessage().contains("not built") && e.getMessage().contains("mvnw"), e.getMessage());
    }

    /** The smoke version: a short run of both stores, turns alternating, the ratio and the raw broadcast printed. */
    @Test
    void bothStoresRunSideBySide(@TempDir Path out) throws Exception {
        Path peer = Path.of("infinispan-peer", "target"); // built before bench by the reactor
        assumeTrue(Files.isRegularFile(peer.resolve("peer-classpath.txt")),
                "the Infinispan peer is built by the full reactor build (./mvnw verify), not by -pl bench");
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        List<BankVsInfinispan.Row> rows = new BankVsInfinispan(new BankVsInfinispan.Options(3, 200,
                List.of("nvc"), 0.3, 1, 2, 0.5, peer, out), new PrintStream(text, true, StandardCharsets.UTF_8)).run();
        String printed = text.toString(StandardCharsets.UTF_8);
        assertEquals(List.of("nvc", "infinispan"), rows.stream().map(BankVsInfinispan.Row::contender).toList(),
                printed);
        for (BankVsInfinispan.Row r : rows) {
            assertEquals(2, r.committedPerSecond().length, r.contender() + " ran every round");
            assertTrue(r.median() > 0, r.contender() + " committed nothing\n" + printed);
        }
        assertTrue(printed.contains("x Infinispan") && printed.contains("PolyCert uniform AB"), printed);
        assertEquals(5, Files.readString(out.resolve("bank-vs-infinispan.csv")).lines().count(),
                "a header and a line per contender and round");
        assertTrue(Files.readString(out.resolve("bank-vs-infinispan.json")).contains("\"aborts_per_second\""));
        assertTrue(printed.matches("(?s).*vs Infinispan \\d+\\.\\d+\\.\\d+.*"),
                "the version the peer runs, as it reported it\n" + printed);
    }
}
