package io.polycert.bench.stmbench7;

import io.polycert.bench.workload.Workload;
import io.polycert.core.Stm;
import io.polycert.core.codec.ValueCodec;
import io.polycert.kvstore.Replica;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * STMBench7 (Guerraoui, Kapalka, Vitek, EuroSys 2007), after its v1.2 Java implementation, over fully
 * replicated PolyCert: a CAD-like structure (a module with a manual, a tree of complex assemblies, base
 * assemblies using shared composite parts, each with a document and a graph of atomic parts) and the original's
 * 45 operations (long traversals, short traversals, operations, structure modifications), picked with the
 * original's weights for the chosen mix.
 *
 * <pre>{@code
 * Workload w = new Stmbench7Workload(Sb7Parameters.small(), Sb7Mix.READ_WRITE, true, true);
 * // every replica built with w.codec(); w.populate(replica0); once replica r applied it:
 * Workload.Client c = w.client(r, 42);
 * String op = c.next(); // e.g. "ST6"
 * }</pre>
 *
 * See README-sb7.md for how the replicated version differs from the original.
 */
public final class Stmbench7Workload implements Workload {
    private static final ValueCodec CODEC = Model.codec();

    private final Sb7Parameters parameters;
    private final Sb7Mix mix;
    private final boolean longTraversals;
    private final boolean structureModifications;
    private final OperationMix operationMix;

    /**
     * @param parameters the structure's size and seed
     * @param mix the share of read-only operations
     * @param longTraversals whether long traversals run (the original's {@code -l}; its default: on)
     * @param structureModifications whether structure modifications run (the original's {@code -s}; default on)
     */
    public Stmbench7Workload(Sb7Parameters parameters, Sb7Mix mix, boolean longTraversals,
            boolean structureModifications) {
        this.parameters = Objects.requireNonNull(parameters, "parameters");
        this.mix = Objects.requireNonNull(mix, "mix");
        this.longTraversals = longTraversals;
        this.structureModifications = structureModifications;
        this.operationMix = new OperationMix(mix, longTraversals, structureModifications);
    }

    /**
     * The workload described by {@link #parameters()}-style settings: {@code preset} ({@code full} or
     * {@code small}; default {@code small}), {@code mix} (default {@code read-write}), {@code longTraversals}
     * (or {@code long}; default {@code true}), {@code structureModifications} (or {@code sm}; default
     * {@code true}), {@code seed} (default {@value Sb7Parameters#DEFAULT_SEED}).
     *
     * @throws IllegalArgumentException naming an unknown setting or a bad value
     */
    public static Stmbench7Workload fromParameters(Map<String, String> settings) {
        Map<String, String> rest = new LinkedHashMap<>(settings);
        Sb7Parameters params = Sb7Parameters.preset(take(rest, "small", "preset"));
        String seed = take(rest, null, "seed");
        if (seed != null) {
            try {
                params = params.withSeed(Long.parseLong(seed));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("STMBench7 seed must be a whole number, was '" + seed + "'");
            }
        }
        Sb7Mix mix = Sb7Mix.fromName(take(rest, Sb7Mix.READ_WRITE.label(), "mix"));
        boolean longTraversals = bool(take(rest, "true", "longTraversals", "long"), "longTraversals");
        boolean sm = bool(take(rest, "true", "structureModifications", "sm"), "structureModifications");
        if (!rest.isEmpty()) {
            throw new IllegalArgumentException("unknown STMBench7 setting(s) " + rest.keySet() + " (valid: preset,"
                    + " mix, longTraversals, structureModifications, seed)");
        }
        return new Stmbench7Workload(params, mix, longTraversals, sm);
    }

    private static String take(Map<String, String> settings, String defaultValue, String... names) {
        String value = defaultValue;
        for (String name : names) {
            String v = settings.remove(name);
            if (v != null) {
                value = v;
            }
        }
        return value;
    }

    private static boolean bool(String value, String name) {
        if ("true".equalsIgnoreCase(value)) {
            return true;
        }
        if ("false".equalsIgnoreCase(value)) {
            return false;
        }
        throw new IllegalArgumentException("STMBench7 setting " + name + " must be true or false, was '" + value
                + "'");
    }

    /** The names of the operations, by category, in the original's order. */
    public static Map<String, List<String>> operationNamesByCategory() {
        Map<String, List<String>> byCategory = new LinkedHashMap<>();
        for (Sb7Op.Category c : Sb7Op.Category.values()) {
            List<String> names = new ArrayList<>();
            for (Sb7Op op : Sb7Op.values()) {
                if (op.category == c) {
                    names.add(op.label);
                }
            }
            byCategory.put(c.label, List.copyOf(names));
        }
        return Collections.unmodifiableMap(byCategory);
    }

    /** The names of the read-only operations (they run in {@code stm.readOnly}). */
    public static Set<String> readOnlyOperationNames() {
        Set<String> names = new LinkedHashSet<>();
        for (Sb7Op op : Sb7Op.values()) {
            if (op.readOnly) {
                names.add(op.label);
            }
        }
        return Collections.unmodifiableSet(names);
    }

    /** The chance that a client picks operation {@code name} with this workload's mix (0 if it is switched off). */
    public double probabilityOf(String name) {
        return operationMix.probability(Sb7Op.byLabel(name));
    }

    public Sb7Parameters structureParameters() {
        return parameters;
    }

    public Sb7Mix mix() {
        return mix;
    }

    @Override
    public String name() {
        return "stmbench7";
    }

    @Override
    public Map<String, String> parameters() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("preset", parameters.presetName());
        m.put("mix", mix.label());
        m.put("longTraversals", Boolean.toString(longTraversals));
        m.put("structureModifications", Boolean.toString(structureModifications));
        m.put("seed", Long.toString(parameters.seed()));
        return m;
    }

    @Override
    public ValueCodec codec() {
        return CODEC;
    }

    @Override
    public void populate(Replica replica) {
        Populator.populate(replica, parameters);
    }

    @Override
    public Client client(Replica replica, long seed) {
        return new Sb7Client(Structure.attach(replica, parameters), operationMix, new SplittableRandom(seed));
    }

    @Override
    public long check(Replica replica) {
        // attach's read-only transaction joins this one: the whole check reads one snapshot
        return replica.stm().readOnly(() -> Checker.check(Structure.attach(replica, parameters)));
    }

    @Override
    public String toString() {
        return "stmbench7[" + parameters.presetName() + ", " + mix.label() + ", long traversals "
                + (longTraversals ? "on" : "off") + ", structure modifications "
                + (structureModifications ? "on" : "off") + "]";
    }

    /** One client thread: picks an operation by the mix and runs it in a transaction of the right kind. */
    static final class Sb7Client implements Client {
        private final Stm stm;
        private final OperationMix mix;
        private final SplittableRandom random;
        private final Operations operations;
        private volatile String kind;

        Sb7Client(Structure structure, OperationMix mix, SplittableRandom random) {
            this.stm = structure.stm;
            this.mix = mix;
            this.random = random;
            this.operations = new Operations(structure, random);
        }

        @Override
        public String next() {
            Sb7Op op = mix.choose(random);
            kind = op.label;
            run(op);
            return op.label;
        }

        @Override
        public String kind() {
            return kind;
        }

        /** Runs {@code op} in {@code stm.readOnly} or {@code stm.atomic}; returns the operation's result. */
        int run(Sb7Op op) {
            if (op.readOnly) {
                return stm.readOnly(() -> operations.run(op));
            }
            return stm.atomic(() -> operations.run(op));
        }

        /** Runs the operation named {@code name} (for tests). */
        int run(String name) {
            return run(Sb7Op.byLabel(name));
        }
    }
}
