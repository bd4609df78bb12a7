package io.polycert.oracle;

/**
 * Where a committed transaction's time went, measured by the replication manager at its originator: what the
 * cost-model oracle learns from (PolyCert's eq. 1-3). Durations in nanoseconds; -1 where not applicable.
 *
 * @param profile the transaction's sizes
 * @param executionNanos running the transaction before its commit (-1 if the STM cannot say)
 * @param messageBytes size of the atomic-broadcast commit message
 * @param marshalNanos encoding the message, Bloom filter excluded
 * @param bloomBuildNanos building the Bloom filter (BFC)
 * @param validationNanos certifying the transaction (every replica for NVC and BFC, the originator for VC)
 * @param broadcastNanos from broadcasting the message to delivering it here (atomic broadcast self-delivery)
 * @param voteNanos from broadcasting the vote to delivering it here (VC's uniform reliable broadcast)
 */
public record CommitTimings(Protocol protocol, TransactionProfile profile, long executionNanos, int messageBytes, long marshalNanos,
        long bloomBuildNanos, long validationNanos, long broadcastNanos, long voteNanos) {

    public int readSetSize() {
        return profile.readSetSize();
    }
}
