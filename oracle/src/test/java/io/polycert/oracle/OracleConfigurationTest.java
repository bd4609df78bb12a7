package io.polycert.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.context.ApplicationContext;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OracleConfigurationTest {

    @ParameterizedTest
    @CsvSource({"dist-ucb, 'dist-ucb(kl-ucb, epochs of 25 ms)'", "ucb, ucb(ucb1-tuned)", "static-nvc, static-nvc",
            "static-bfc, static-bfc", "static-vc, static-vc", "threshold, 'threshold(bfc>=100, vc>=10000)'",
            "decision-tree, decision-tree(on-line line fit)"})
    void configurationPicksTheOracle(String kind, String expected) {
        try (ApplicationContext context = ApplicationContext.run(Map.of("polycert.oracle", kind))) {
            assertEquals(expected, context.getBean(ProtocolOracle.class).toString());
        }
    }

    @Test
    void defaultIsDistUcbAndSettingsApply() {
        try (ApplicationContext context = ApplicationContext.run()) {
            assertEquals("dist-ucb(kl-ucb, epochs of 25 ms)", context.getBean(ProtocolOracle.class).toString());
        }
        try (ApplicationContext context = ApplicationContext.run(Map.of("polycert.oracle", "ucb",
                "polycert.ucb.index", "ucb1"))) {
            assertEquals("ucb(ucb1)", context.getBean(ProtocolOracle.class).toString());
        }
        try (ApplicationContext context = ApplicationContext.run(Map.of("polycert.ucb.gossip-interval", "500ms",
                "polycert.ucb.epochs", "0s"))) {
            assertEquals("dist-ucb(ucb1-tuned)", context.getBean(ProtocolOracle.class).toString());
        }
        try (ApplicationContext context = ApplicationContext.run(Map.of("polycert.ucb.epochs", "100ms"))) {
            assertEquals("dist-ucb(kl-ucb, epochs of 100 ms)", context.getBean(ProtocolOracle.class).toString());
        }
        try (ApplicationContext context = ApplicationContext.run(Map.of("polycert.ucb.index", "ucb1-tuned"))) {
            assertEquals("dist-ucb(ucb1-tuned, epochs of 25 ms)", context.getBean(ProtocolOracle.class).toString());
        }
        try (ApplicationContext context = ApplicationContext.run(Map.of("polycert.oracle", "ucb",
                "polycert.ucb.index", " KL-UCB "))) {
            assertEquals("ucb(kl-ucb)", context.getBean(ProtocolOracle.class).toString());
        }
    }

    @Test
    void aModelCrossValidatedUnderTheMinimumIsNotUsed(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("model.json");
        ModelTree.fromJson("""
                {"format": "polycert-model-tree", "version": 2, "target": "ab_latency_us", "features": ["msgSize"],
                 "crossValidation": {"correlation": 0.2},
                 "nodes": [{"id": 0, "intercept": 50, "coefficients": [0.01]}]}
                """).save(file);
        try (ApplicationContext context = ApplicationContext.run(Map.of("polycert.oracle", "decision-tree",
                "polycert.decision-tree.model", file.toString()))) {
            String oracle = context.getBean(ProtocolOracle.class).toString();
            assertTrue(oracle.contains("on-line line fit; ModelTree") && oracle.contains("not used"), oracle);
        }
        try (ApplicationContext context = ApplicationContext.run(Map.of("polycert.oracle", "decision-tree",
                "polycert.decision-tree.model", file.toString(), "polycert.decision-tree.min-correlation", "0.1"))) {
            String oracle = context.getBean(ProtocolOracle.class).toString();
            assertEquals("decision-tree(ModelTree(ab_latency_us, 1 nodes, 1 leaves, features [msgSize]))", oracle);
        }
        try (ApplicationContext context = ApplicationContext.run(Map.of("polycert.oracle", "decision-tree",
                "polycert.decision-tree.min-correlation", "2"))) {
            RuntimeException e = assertThrows(RuntimeException.class, () -> context.getBean(ProtocolOracle.class));
            assertTrue(rootMessage(e).contains("minModelCorrelation lies within [-1, 1], got 2.0"), rootMessage(e));
        }
    }

    @Test
    void unknownOracleIsAClearError() {
        try (ApplicationContext context = ApplicationContext.run(Map.of("polycert.oracle", "magic"))) {
            RuntimeException e = assertThrows(RuntimeException.class,
                    () -> context.getBean(ProtocolOracle.class));
            assertTrue(rootMessage(e).contains("'magic' is not an oracle"), rootMessage(e));
        }
        try (ApplicationContext context = ApplicationContext.run(Map.of("polycert.oracle", "ucb",
                "polycert.ucb.index", "ucb7"))) {
            RuntimeException e = assertThrows(RuntimeException.class,
                    () -> context.getBean(ProtocolOracle.class));
            assertTrue(rootMessage(e).contains("ucb7"), rootMessage(e));
        }
        try (ApplicationContext context = ApplicationContext.run(Map.of("polycert.oracle", "dist-ucb",
                "polycert.ucb.gossip-interval", "often"))) {
            RuntimeException e = assertThrows(RuntimeException.class, () -> context.getBean(ProtocolOracle.class));
            assertTrue(rootMessage(e).contains("'often' is not a duration"), rootMessage(e));
        }
        try (ApplicationContext context = ApplicationContext.run(Map.of("polycert.ucb.epochs", "-3s"))) {
            RuntimeException e = assertThrows(RuntimeException.class, () -> context.getBean(ProtocolOracle.class));
            assertTrue(rootMessage(e).contains("epoch length"), rootMessage(e));
        }
    }

    private static String rootMessage(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            b.append(t.getMessage()).append(" / ");
        }
        return b.toString();
    }
}
