package io.polycert.bench.faults;

import io.polycert.certification.partial.CommitProtocol;
import java.util.Locale;

/**
 * How a fault campaign's members hold the data: every member everything (a {@link io.polycert.kvstore.Replica},
 * certified by NVC, BFC or VC) or each key on a few owners (a {@link io.polycert.kvstore.PartitionedStore}).
 */
public enum Replication {
    FULL,
    PARTIAL;

    /**
     * @throws IllegalArgumentException for a name other than {@code full} or {@code partial}
     */
    public static Replication fromName(String name) {
        for (Replication r : values()) {
            if (r.label().equals(name.trim().toLowerCase(Locale.ROOT))) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown replication '" + name + "' (known: full, partial)");
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The commit protocol named {@code total-order} (or {@code tom}) or {@code two-phase-commit} (or {@code 2pc}).
     *
     * @throws IllegalArgumentException for any other name
     */
    public static CommitProtocol protocol(String name) {
        switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "total-order":
            case "tom":
                return CommitProtocol.TOTAL_ORDER;
            case "two-phase-commit":
            case "2pc":
                return CommitProtocol.TWO_PHASE_COMMIT;
            default:
                throw new IllegalArgumentException("unknown commit protocol '" + name + "' (known: total-order,"
                        + " two-phase-commit)");
        }
    }

    /** The option value of a protocol: {@code total-order} or {@code two-phase-commit}. */
    public static String protocolName(CommitProtocol protocol) {
        return protocol == CommitProtocol.TOTAL_ORDER ? "total-order" : "two-phase-commit";
    }

    /** A short label for tables: {@code TOM} or {@code 2PC}. */
    public static String shortName(CommitProtocol protocol) {
        return protocol == CommitProtocol.TOTAL_ORDER ? "TOM" : "2PC";
    }
}
