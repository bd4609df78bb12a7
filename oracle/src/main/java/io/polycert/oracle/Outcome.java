package io.polycert.oracle;

/** How a certified transaction ended, as reported to the oracle. */
public enum Outcome {
    COMMITTED,
    /** Aborted by a real conflict. */
    CONFLICT,
    /** Aborted because the Bloom filter could not rule out a conflict that was not there. */
    FALSE_POSITIVE,
    /** Aborted for another reason (replica left, bad value, too large). */
    OTHER
}
