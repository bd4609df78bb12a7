package io.polycert.core;

/**
 * Decides whether a read-write transaction commits: the hook through which replication takes over commits.
 *
 * <p>The STM calls {@link #commit} from the committing thread once the transaction's code has finished. An
 * implementation certifies the transaction (locally, or across replicas) and either installs its writes through
 * the {@link CommitLog} it was created with and returns the new version, or throws
 * {@link TransactionAbortedException} having changed nothing. The default handler validates and installs locally.
 */
public interface CommitHandler extends AutoCloseable {

    /**
     * Certifies and, if it holds, installs the transaction's writes.
     *
     * @return the version at which the writes became visible
     * @throws TransactionAbortedException if the transaction must not commit; no box was changed
     * @throws CommitOutcomeUnknownException if the transaction left this replica but its outcome is not known in
     *     time: it may still commit
     */
    long commit(CommitRequest request);

    /**
     * Whether boxes may be created outside transactions. A replicating handler says no: such a box would exist on
     * one replica only.
     */
    default boolean allowsBoxesOutsideTransactions() {
        return true;
    }

    /**
     * Whether this handler reads {@link CommitRequest#startNanos()}. If not, transactions do not time their
     * start (a clock read each) and report -1.
     */
    default boolean usesStartTimes() {
        return false;
    }

    /** Releases the handler's resources; called by {@link Stm#close()}. */
    @Override
    default void close() {
    }

    /** Creates the handler for one {@link Stm}, given the log through which it installs versions. */
    @FunctionalInterface
    interface Factory {
        CommitHandler create(CommitLog log);
    }

    /** The embedded, non-replicated handler: lock-free validation and write-back in this JVM. */
    static Factory local() {
        return log -> log::validateAndAppend;
    }
}
