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
     * @param latencyNanos from the start of the transaction's execution (of its commit where the STM cannot say)
     *     until its outcome was known here: what a closed-loop client's throughput depends on
     */
    void record(Protocol protocol, TransactionProfile profile, long latencyNanos, Outcome outcome);

    /** Called once the replica has joined its group: the oracle may start monitoring it. */
    default void attach(OracleContext context) {
    }

    /** Where a committed transaction's time went (cost-model oracles learn from it). Called on committing threads. */
    default void observe(CommitTimings timings) {
    }

    /** Stops whatever the oracle runs in the background (monitor threads, sample files). */
    default void close() {
    }

    /**
     * Statistics this oracle wants carried to the other replicas on this replica's next commit broadcast (DistUCB),
     * or null when none are due. Called on committing threads; cheap when nothing is due.
     */
    default byte[] gossipToSend() {
        return null;
    }

    /**
     * Statistics another replica's oracle sent with {@link #gossipToSend()}, in delivery order. Repeats and
     * this oracle's own statistics must change nothing.
     *
     * @throws IllegalArgumentException if the bytes are not valid statistics (the caller drops and logs them)
     */
    default void gossipReceived(byte[] gossip) {
    }

    /**
     * A number this oracle wants carried on the commit message of the transaction it just chose a protocol for, seen
     * by every replica's oracle (this one's too) through {@link #commitDelivered}, in total order: how replicas agree
     * on something at the same place in the stream (DistUCB's epochs: which arm the group plays next). Called on
     * committing threads, right after {@code choose}; 0 means nothing to say, and a negative tag is not sent.
     */
    default long commitTag(TransactionProfile profile) {
        return 0;
    }

    /**
     * A non-zero {@link #commitTag} of some replica's commit message, at the message's place in the total order
     * (the same on every replica). Called on the delivery thread: it must be quick.
     *
     * @throws IllegalArgumentException if the tag means nothing to this oracle (the caller drops and logs it; the
     *     transaction is certified as usual)
     */
    default void commitDelivered(long position, long tag) {
    }

    /**
     * The outcome of certification for the commit message that carried {@code tag} (delivered to
     * {@link #commitDelivered} before), certified by {@code protocol}. Every replica decides the same transactions
     * alike and in the same order, so every replica's oracle hears the same outcomes. Called on the delivery thread:
     * it must be quick.
     *
     * @throws IllegalArgumentException if the tag means nothing to this oracle (the caller logs it)
     */
    default void commitDecided(long tag, Protocol protocol, boolean committed) {
    }

    /** Always the same protocol. */
    static ProtocolOracle always(Protocol protocol) {
        return new StaticOracle(protocol);
    }

    /** NVC below {@code bfcFrom} reads, BFC below {@code vcFrom}, VC from there on. */
    static ProtocolOracle thresholds(int bfcFrom, int vcFrom) {
        return new ThresholdOracle(bfcFrom, vcFrom);
    }

    /** UCB1-Tuned bandits per read-set bucket, learning from this replica's transactions alone. */
    static ProtocolOracle ucb() {
        return UcbOracle.builder().build();
    }

    /**
     * DistUCB: UCB bandits the replicas play together, one arm per read-set bucket for epochs of 25 ms agreed in the
     * total order, rewarded by the group's commit rate (see {@link UcbOracle}).
     */
    static ProtocolOracle distUcb() {
        return UcbOracle.builder().distributed(true).build();
    }
}
