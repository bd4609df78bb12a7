package io.polycert.bench;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Minimal {@code --name value} / {@code --name=value} parsing with clear errors. */
final class Args {
    private final Map<String, String> values = new HashMap<>();

    /** Thrown for a bad command line; the message is meant for the user. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    Args(List<String> args, Set<String> known) throws UsageException {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (!a.startsWith("--")) {
                throw new UsageException("unexpected argument '" + a + "'");
            }
            String name;
            String value;
            int eq = a.indexOf('=');
            if (eq > 0) {
                name = a.substring(2, eq);
                value = a.substring(eq + 1);
            } else {
                name = a.substring(2);
                if (i + 1 >= args.size()) {
                    throw new UsageException("option --" + name + " needs a value");
                }
                value = args.get(++i);
            }
            if (!known.contains(name)) {
                throw new UsageException("unknown option --" + name + " (known: --" + String.join(", --", known) + ")");
            }
            values.put(name, value);
        }
    }

    int intValue(String name, int defaultValue, int min, int max) throws UsageException {
        String v = values.get(name);
        if (v == null) {
            return defaultValue;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n < min || n > max) {
                throw new UsageException("--" + name + " must be between " + min + " and " + max + ", was " + n);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " must be a whole number, was '" + v + "'");
        }
    }

    double doubleValue(String name, double defaultValue, double min, double max) throws UsageException {
        String v = values.get(name);
        if (v == null) {
            return defaultValue;
        }
        try {
            double d = Double.parseDouble(v.trim());
            if (!(d >= min && d <= max)) {
                throw new UsageException("--" + name + " must be between " + min + " and " + max + ", was " + v);
            }
            return d;
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " must be a number, was '" + v + "'");
        }
    }

    String string(String name, String defaultValue) {
        return values.getOrDefault(name, defaultValue);
    }

    boolean flag(String name) throws UsageException {
        String v = values.get(name);
        if (v == null) {
            return false;
        }
        if (!v.equals("true") && !v.equals("false")) {
            throw new UsageException("--" + name + " must be true or false, was '" + v + "'");
        }
        return Boolean.parseBoolean(v);
    }

    int[] intList(String name, int[] defaultValue, int min, int max) throws UsageException {
        String v = values.get(name);
        if (v == null) {
            return defaultValue;
        }
        String[] parts = v.split(",");
        int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                out[i] = Integer.parseInt(parts[i].trim());
            } catch (NumberFormatException e) {
                throw new UsageException("--" + name + " must be comma-separated whole numbers, was '" + v + "'");
            }
            if (out[i] < min || out[i] > max) {
                throw new UsageException("--" + name + " values must be between " + min + " and " + max);
            }
        }
        return out;
    }

    /** A comma-separated list, each item one of {@code allowed} (if non-null). */
    List<String> stringList(String name, List<String> defaultValue, List<String> allowed) throws UsageException {
        String v = values.get(name);
        if (v == null) {
            return defaultValue;
        }
        List<String> out = new java.util.ArrayList<>();
        for (String part : v.split(",")) {
            String item = part.trim();
            if (item.isEmpty()) {
                throw new UsageException("--" + name + " has an empty item: '" + v + "'");
            }
            if (allowed != null && !allowed.contains(item)) {
                throw new UsageException("--" + name + ": unknown '" + item + "' (known: " + String.join(", ",
                        allowed) + ")");
            }
            out.add(item);
        }
        return out;
    }

    static Map<String, String> describe(String... pairs) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put(pairs[i], pairs[i + 1]);
        }
        return m;
    }
}
