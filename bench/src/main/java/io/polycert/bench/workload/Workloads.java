package io.polycert.bench.workload;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Workloads from one-line specs, so a member process builds the same workload as its controller:
 * {@code bank:accounts=1000,readSet=10} or {@code stmbench7:preset=small,mix=write-dominated,long=true,sm=true}.
 */
public final class Workloads {
    private Workloads() {
    }

    /**
     * @throws IllegalArgumentException naming what is wrong with {@code spec}
     */
    public static Workload fromSpec(String spec) {
        String name = nameOf(spec);
        Map<String, String> p = parametersOf(spec);
        switch (name) {
            case "bank": {
                String conflicts = p.remove("conflicts");
                String ids = p.remove("ids");
                Workload w = new BankWorkload(intParam(p, "accounts", 1000), intParam(p, "readSet", 1),
                        intParam(p, "writes", 100), conflicts == null ? BankWorkload.Conflicts.RANDOM
                                : BankWorkload.Conflicts.fromName(conflicts),
                        ids == null ? BankWorkload.Ids.DENSE : BankWorkload.Ids.fromName(ids));
                rejectUnknown(p, spec);
                return w;
            }
            case "stmbench7":
                return io.polycert.bench.stmbench7.Stmbench7Workload.fromParameters(p);
            default:
                throw new IllegalArgumentException("unknown workload '" + name + "' in '" + spec
                        + "' (known: bank, stmbench7)");
        }
    }

    /** A spec's workload name, lower case: what precedes the colon. */
    public static String nameOf(String spec) {
        int colon = spec.indexOf(':');
        return (colon < 0 ? spec : spec.substring(0, colon)).trim().toLowerCase(Locale.ROOT);
    }

    /**
     * A spec's parameters, in order: the {@code name=value} pairs after the colon.
     *
     * @throws IllegalArgumentException if a pair is not {@code name=value}
     */
    public static Map<String, String> parametersOf(String spec) {
        int colon = spec.indexOf(':');
        Map<String, String> p = new LinkedHashMap<>();
        if (colon >= 0 && colon + 1 < spec.length()) {
            for (String kv : spec.substring(colon + 1).split(",")) {
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("workload parameter '" + kv + "' is not name=value in '"
                            + spec + "'");
                }
                p.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
        }
        return p;
    }

    /** The spec that {@link #fromSpec} turns back into an equal workload. */
    public static String specOf(Workload w) {
        StringBuilder sb = new StringBuilder(w.name());
        char sep = ':';
        for (Map.Entry<String, String> e : w.parameters().entrySet()) {
            sb.append(sep).append(e.getKey()).append('=').append(e.getValue());
            sep = ',';
        }
        return sb.toString();
    }

    /**
     * Takes parameter {@code name} out of {@code p} as a whole number, or {@code defaultValue} if absent.
     *
     * @throws IllegalArgumentException if it is not a whole number
     */
    public static int intParam(Map<String, String> p, String name, int defaultValue) {
        String v = p.remove(name);
        if (v == null) {
            return defaultValue;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("workload parameter " + name + " must be a whole number, was '" + v
                    + "'");
        }
    }

    private static void rejectUnknown(Map<String, String> rest, String spec) {
        if (!rest.isEmpty()) {
            throw new IllegalArgumentException("unknown workload parameter(s) " + rest.keySet() + " in '" + spec
                    + "'");
        }
    }
}
