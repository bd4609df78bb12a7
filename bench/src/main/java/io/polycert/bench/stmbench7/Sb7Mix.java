package io.polycert.bench.stmbench7;

import java.util.Arrays;
import java.util.stream.Collectors;

/** STMBench7's workload mixes: the share of read-only operations. */
public enum Sb7Mix {
    /** 90% read-only operations. */
    READ_DOMINATED("read-dominated", 90),
    /** 60% read-only operations. */
    READ_WRITE("read-write", 60),
    /** 10% read-only operations. */
    WRITE_DOMINATED("write-dominated", 10);

    private final String label;
    private final int readOnlyPercent;

    Sb7Mix(String label, int readOnlyPercent) {
        this.label = label;
        this.readOnlyPercent = readOnlyPercent;
    }

    /** {@code read-dominated}, {@code read-write} or {@code write-dominated}, as the original's {@code -w r|rw|w}. */
    public String label() {
        return label;
    }

    /** The original's {@code ReadOnlyOperationsRatio}. */
    public int readOnlyPercent() {
        return readOnlyPercent;
    }

    /**
     * The mix called {@code name} ({@link #label()}; the original's short names {@code r}, {@code rw}, {@code w}
     * are accepted too).
     *
     * @throws IllegalArgumentException listing the valid names
     */
    public static Sb7Mix fromName(String name) {
        for (Sb7Mix m : values()) {
            if (m.label.equals(name)) {
                return m;
            }
        }
        if ("r".equals(name)) {
            return READ_DOMINATED;
        }
        if ("rw".equals(name)) {
            return READ_WRITE;
        }
        if ("w".equals(name)) {
            return WRITE_DOMINATED;
        }
        throw new IllegalArgumentException("unknown STMBench7 mix '" + name + "' (valid: "
                + Arrays.stream(values()).map(Sb7Mix::label).collect(Collectors.joining(", ")) + ")");
    }

    @Override
    public String toString() {
        return label;
    }
}
