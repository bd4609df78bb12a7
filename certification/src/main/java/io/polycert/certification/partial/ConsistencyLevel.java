package io.polycert.certification.partial;

/**
 * What a partially replicated transaction is guaranteed, weakest first. The first three are those of Ruivo's
 * TOM-based protocol (and Infinispan); {@link #SERIALIZABLE} goes beyond it. docs/PARTIAL.md compares their cost.
 */
public enum ConsistencyLevel {
    /** Every read returns a committed value; two reads of one key may differ. No certification. */
    READ_COMMITTED,
    /** A key read twice in a transaction returns the same value (the first read is kept). No certification. */
    REPEATABLE_READ,
    /**
     * Repeatable read, and a transaction that wrote a key it had read aborts if that key changed in between
     * (no lost updates). The owners of the written keys check and vote.
     */
    REPEATABLE_READ_WRITE_SKEW_CHECK,
    /**
     * Serializable: the owners of every key read or written validate the versions read (P-Store style), and
     * read-only transactions that read more than one key are certified too.
     */
    SERIALIZABLE;

    /**
     * The level named in configuration or on a command line: {@code read-committed}, {@code repeatable-read},
     * {@code write-skew-check} or {@code serializable} (case-insensitive; the constant names work too).
     *
     * @throws IllegalArgumentException naming the accepted names
     */
    public static ConsistencyLevel fromName(String name) {
        String n = name.trim().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        return switch (n) {
            case "read-committed" -> READ_COMMITTED;
            case "repeatable-read" -> REPEATABLE_READ;
            case "write-skew-check", "repeatable-read-write-skew-check" -> REPEATABLE_READ_WRITE_SKEW_CHECK;
            case "serializable" -> SERIALIZABLE;
            default -> throw new IllegalArgumentException("consistency '" + name + "' is not read-committed,"
                    + " repeatable-read, write-skew-check or serializable");
        };
    }

    /** Whether reads are kept for the rest of the transaction. */
    boolean repeatableReads() {
        return this != READ_COMMITTED;
    }

    /** Whether owners validate read versions and vote. */
    boolean certifies() {
        return this == REPEATABLE_READ_WRITE_SKEW_CHECK || this == SERIALIZABLE;
    }
}
