package io.polycert.core;

/**
 * Why a transaction did not commit. The cause decides whether {@link Stm#atomic} retries it.
 */
public enum AbortCause {
    /** A value the transaction read was overwritten by a transaction that committed first. */
    CONFLICT(true),
    /**
     * Bloom-filter certification could not rule out a conflict: possibly a false positive of the filter,
     * counted apart from real conflicts.
     */
    BLOOM_FILTER_FALSE_POSITIVE(true),
    /** A written value cannot cross the wire: its type is not on the codec's allow-list. */
    BAD_VALUE(false),
    /** The commit message would exceed the configured maximum size. */
    TOO_LARGE(false),
    /** This replica is not in a partition holding a majority of the last view, so it cannot commit. */
    NOT_IN_MAJORITY(false),
    /**
     * The replica was not in its group: the transaction was never sent, or the group aborted it while the replica
     * was away. (A replica closed while a commit waits reports {@link CommitOutcomeUnknownException} instead: the
     * group may still commit that transaction.)
     */
    REPLICA_LEFT(false),
    /**
     * The membership changed while the transaction ran (partial replication: the owners of its keys moved), so
     * it was certified against a stale placement and refused everywhere alike.
     */
    TOPOLOGY_CHANGED(true),
    /** Two-phase commit only: a lock the transaction needed stayed held by another for the lock timeout. */
    LOCK_TIMEOUT(true),
    /** Two-phase commit only: waiting for a lock would have closed a cycle of waiting transactions. */
    DEADLOCK(true),
    /** The application aborted the transaction, or its code threw. */
    EXPLICIT(false),
    /**
     * Partial replication: every owner of a key the transaction touches left the group or was cut off, so no
     * member holds a fresh copy of it; running again succeeds only once one of them is back.
     */
    OWNERS_UNAVAILABLE(false);

    private final boolean retryable;

    AbortCause(boolean retryable) {
        this.retryable = retryable;
    }

    /** Whether running the transaction again may succeed. */
    public boolean isRetryable() {
        return retryable;
    }
}
