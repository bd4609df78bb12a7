package io.polycert.oracle.config;

import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import io.micronaut.context.exceptions.ConfigurationException;
import io.polycert.oracle.CostModelOracle;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import io.polycert.oracle.UcbIndex;
import io.polycert.oracle.UcbOracle;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * Creates the replica's {@link ProtocolOracle} from configuration:
 *
 * <pre>
 * polycert.oracle = dist-ucb | ucb | decision-tree | threshold | static-nvc | static-bfc | static-vc
 * polycert.ucb.index = kl-ucb (dist-ucb) | ucb1-tuned (ucb) | ucb1      polycert.ucb.gossip-interval = 10s
 * polycert.ucb.half-life = 60s                 polycert.ucb.epochs = 25ms (dist-ucb) | 0s (ucb)
 * polycert.decision-tree.model = path/to/model.json   (optional: without it, a line fitted on-line)
 * polycert.decision-tree.training-file = samples.csv  (optional: record training samples)
 * polycert.decision-tree.min-correlation = 0.5        (a model cross-validated under this is not used)
 * polycert.threshold.bfc-from = 100                   polycert.threshold.vc-from = 10000
 * </pre>
 */
@Factory
public class OracleFactory {
    static final String CHOICES = "dist-ucb, ucb, decision-tree, threshold, static-nvc, static-bfc, static-vc";

    @Singleton
    @Bean(preDestroy = "close")
    public ProtocolOracle oracle(@Value("${polycert.oracle:dist-ucb}") String kind,
            @Value("${polycert.ucb.index:}") String index,
            @Value("${polycert.ucb.gossip-interval:10s}") String gossipInterval,
            @Value("${polycert.ucb.half-life:60s}") String halfLife,
            @Value("${polycert.ucb.epochs:}") String epochs,
            @Value("${polycert.decision-tree.model:}") String model,
            @Value("${polycert.decision-tree.training-file:}") String trainingFile,
            @Value("${polycert.decision-tree.min-correlation:0.5}") double minCorrelation,
            @Value("${polycert.threshold.bfc-from:100}") int bfcFrom,
            @Value("${polycert.threshold.vc-from:10000}") int vcFrom) {
        try {
            return switch (kind.trim().toLowerCase(Locale.ROOT)) {
                case "dist-ucb", "ucb" -> {
                    UcbOracle.Builder b = UcbOracle.builder().distributed(kind.trim().equalsIgnoreCase("dist-ucb"))
                            .gossipInterval(duration("polycert.ucb.gossip-interval", gossipInterval))
                            .halfLife(duration("polycert.ucb.half-life", halfLife));
                    if (!index.isBlank()) {
                        b.index(index(index));
                    }
                    if (!epochs.isBlank()) {
                        b.epochs(duration("polycert.ucb.epochs", epochs));
                    }
                    yield b.build();
                }
                case "decision-tree" -> {
                    CostModelOracle.Builder b = CostModelOracle.builder().minModelCorrelation(minCorrelation);
                    if (!model.isBlank()) {
                        b.modelFile(Path.of(model));
                    }
                    if (!trainingFile.isBlank()) {
                        b.collectTrainingData(Path.of(trainingFile), 50, 10, 500);
                    }
                    yield b.build();
                }
                case "threshold" -> ProtocolOracle.thresholds(bfcFrom, vcFrom);
                case "static-nvc" -> ProtocolOracle.always(Protocol.NVC);
                case "static-bfc" -> ProtocolOracle.always(Protocol.BFC);
                case "static-vc" -> ProtocolOracle.always(Protocol.VC);
                default -> throw new ConfigurationException("polycert.oracle = '" + kind + "' is not an oracle; choose"
                        + " one of " + CHOICES);
            };
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException("polycert oracle settings: " + e.getMessage(), e);
        }
    }

    /** "10s", "500ms", "2m" or ISO-8601 ("PT10S"). */
    static Duration duration(String key, String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("pt")) {
                return Duration.parse(t);
            }
            if (t.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2).trim()));
            }
            if (t.endsWith("s")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(t.substring(0, t.length() - 1).trim()) * 1000));
            }
            if (t.endsWith("m")) {
                return Duration.ofSeconds(Math.round(Double.parseDouble(t.substring(0, t.length() - 1).trim()) * 60));
            }
        } catch (RuntimeException e) {
            // fall through to the error below
        }
        throw new IllegalArgumentException(key + " = '" + text + "' is not a duration (say"
                + " 10s, 500ms, 2m or PT10S)");
    }

    private static UcbIndex index(String name) {
        String wanted = name.trim().toLowerCase(Locale.ROOT);
        for (UcbIndex index : UcbIndex.values()) {
            if (index.configName().equals(wanted)) {
                return index;
            }
        }
        throw new IllegalArgumentException("polycert.ucb.index = '" + name + "' is not an index; choose one of "
                + java.util.Arrays.stream(UcbIndex.values()).map(UcbIndex::configName).toList());
    }
}
