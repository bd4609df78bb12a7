package io.polycert.bench.workload;

import io.polycert.oracle.CostModelOracle;
import io.polycert.oracle.ModelTree;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import io.polycert.oracle.UcbIndex;
import io.polycert.oracle.UcbOracle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The protocols and oracles a benchmark can run, by name: each call to {@link #oracle} gives one replica its own
 * fresh oracle, so member processes and in-JVM replicas build the same contender from the same name.
 */
public final class Contenders {
    /** Every name {@link #oracle} accepts. */
    public static final List<String> NAMES = List.of("nvc", "bfc", "vc", "threshold", "ucb", "ucb1", "dist-ucb",
            "dist-ucb-tuned", "dist-ucb-gossip", "decision-tree");
    /** The static protocols, then the adaptive oracles: what the STMBench7 benchmark runs by default. */
    public static final List<String> DEFAULT = List.of("nvc", "bfc", "vc", "ucb", "dist-ucb", "decision-tree");

    private Contenders() {
    }

    /**
     * A fresh oracle for one replica.
     *
     * @param name one of {@link #NAMES} (case-insensitive)
     * @param gossipInterval DistUCB's gossip period
     * @param model a trained model for {@code decision-tree}, or null to fit broadcast latency on-line
     * @throws IllegalArgumentException for an unknown name, listing the known ones
     */
    public static ProtocolOracle oracle(String name, Duration gossipInterval, Path model) {
        return oracle(name, gossipInterval, model, System::nanoTime);
    }

    /**
     * A fresh oracle for one replica, whose bandit (if it has one) reads time from {@code clock}: a benchmark that
     * runs contenders in turns on one cluster stops it between the contender's turns.
     */
    public static ProtocolOracle oracle(String name, Duration gossipInterval, Path model, LongSupplier clock) {
        switch (name.toLowerCase(Locale.ROOT)) {
            case "nvc":
                return ProtocolOracle.always(Protocol.NVC);
            case "bfc":
                return ProtocolOracle.always(Protocol.BFC);
            case "vc":
                return ProtocolOracle.always(Protocol.VC);
            case "threshold":
                return ProtocolOracle.thresholds(100, 10_000);
            case "ucb":
                return UcbOracle.builder().clock(clock).build();
            case "ucb1":
                return UcbOracle.builder().clock(clock).index(UcbIndex.UCB1).build();
            case "dist-ucb":
                return UcbOracle.builder().clock(clock).distributed(true).gossipInterval(gossipInterval).build();
            case "dist-ucb-tuned": // DistUCB's epochs scored by UCB1-Tuned, their index until 2026-12-06
                return UcbOracle.builder().clock(clock).distributed(true).index(UcbIndex.UCB1_TUNED)
                        .gossipInterval(gossipInterval).build();
            case "dist-ucb-gossip": // the paper's DistUCB: no epochs, statistics exchanged
                return UcbOracle.builder().clock(clock).distributed(true).epochs(Duration.ZERO)
                        .gossipInterval(gossipInterval).build();
            case "decision-tree":
                CostModelOracle.Builder b = CostModelOracle.builder();
                if (model != null) {
                    try {
                        b.model(ModelTree.load(model));
                    } catch (IOException e) {
                        throw new UncheckedIOException("cannot read the decision-tree model " + model, e);
                    }
                }
                return b.build();
            default:
                checkKnown(name);
                throw new AssertionError(name + " is known but has no oracle");
        }
    }

    /**
     * @throws IllegalArgumentException for an unknown name, listing the known ones
     */
    public static void checkKnown(String name) {
        if (!NAMES.contains(name.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("unknown protocol or oracle '" + name + "' (known: "
                    + String.join(", ", NAMES) + ")");
        }
    }

    /** True for the names of adaptive oracles (not one fixed protocol). */
    public static boolean adaptive(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return !(n.equals("nvc") || n.equals("bfc") || n.equals("vc"));
    }
}
