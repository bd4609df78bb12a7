package io.polycert.oracle;

/**
 * Chooses the certification protocol for each committing read-write transaction (PolyCert's Replication Protocol
 * Selector Oracle), and learns from what happened. Called on application threads: implementations must be
 * thread-safe and fast (microseconds).
 */
public interface ProtocolOracle {

    Protocol choose(TransactionProfile profile);

    /**
     * What a transaction certified with {@code protocol} cost.
     *
     * @param latencyNanos from the start of the commit until its outcome was known here
     */
    void record(Protocol protocol, TransactionProfile profile, long latencyNanos, Outcome outcome);

    /** Always the same protocol. */
    static ProtocolOracle always(Protocol protocol) {
        return new StaticOracle(protocol);
    }

    /** NVC below {@code bfcFrom} reads, BFC below {@code vcFrom}, VC from there on. */
    static ProtocolOracle thresholds(int bfcFrom, int vcFrom) {
        return new ThresholdOracle(bfcFrom, vcFrom);
    }
}
