package io.polycert.bench.faults;

import io.polycert.core.TransactionAbortedException;
import java.util.function.Supplier;

/**
 * The transactional store a fault workload's clients run over, so that one client implementation (and one history
 * format) serves full replication ({@link ReplicaFaultStore}, a {@link io.polycert.kvstore.Replica}) and partial
 * replication ({@link PartitionedFaultStore}, a {@link io.polycert.kvstore.PartitionedStore}).
 *
 * <p>Every transaction is <em>one attempt</em>, never retried here: the history must record each attempt and how
 * it ended.
 */
public interface FaultStore {

    /** One named value of the store, read and written inside a transaction of {@link #attempt}. */
    interface Register<V> {
        /** Its value in the running transaction; null when absent. */
        V get();

        /** Sets its value in the running transaction (never null). */
        void put(V value);
    }

    /**
     * Runs {@code body} as one read-write transaction attempt and commits it.
     *
     * @throws TransactionAbortedException if it aborted: nothing it wrote is visible anywhere
     * @throws RuntimeException anything else: its outcome is unknown (for example
     *     {@link io.polycert.certification.partial.OutcomeUnknownException})
     */
    <T> T attempt(Supplier<T> body);

    /**
     * Runs {@code body} as one read-only transaction attempt (partial replication validates multi-key read-only
     * transactions under serializable, so it may abort).
     *
     * @throws TransactionAbortedException if it aborted
     */
    <T> T readOnly(Supplier<T> body);

    /** The register named {@code name}, the same on every member. Cheap; clients may cache it. */
    <V> Register<V> register(String name);

    /** True once the store was closed: clients then stop quietly. */
    boolean isClosed();

    /** This member, for messages. */
    String self();

    /**
     * Runs {@code body} until it commits, retrying aborts whose cause is retryable (up to {@code attempts}
     * attempts): for setting up and reading the final state, never for the clients' operations.
     *
     * @throws TransactionAbortedException if it aborted for good
     */
    default <T> T untilCommitted(boolean readOnly, int attempts, Supplier<T> body) {
        for (int attempt = 1; ; attempt++) {
            try {
                return readOnly ? readOnly(body) : attempt(body);
            } catch (TransactionAbortedException e) {
                if (!e.abortCause().isRetryable() || attempt >= attempts) {
                    throw e;
                }
            }
            try {
                Thread.sleep(Math.min(200, 5L * attempt)); // conflicts and rebalances pass; do not spin
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while retrying a transaction", e);
            }
        }
    }
}
