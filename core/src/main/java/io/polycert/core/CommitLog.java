package io.polycert.core;

/**
 * The versions of one {@link Stm}, as seen by a {@link CommitHandler}: how to validate a transaction against what
 * committed after its snapshot, and how to install a write-set atomically as the next version.
 *
 * <p>Each install creates exactly one version, numbered one above the previous; readers never see part of it.
 * When a single thread installs versions in a delivery order shared by all replicas, every replica numbers its
 * versions identically, which is what makes snapshot versions meaningful across replicas.
 */
public interface CommitLog {

    /** The newest version fully installed and visible to new transactions. */
    long latestVersion();

    /** The newest committed version of {@code box}; -1 if it has none yet. */
    long latestVersionOf(VBox<?> box);

    /** The value of {@code box} at the latest version (for state transfer, by the thread that installs versions). */
    Object latestValue(VBox<?> box);

    /**
     * The first box in the request's read-set that was overwritten after the request's snapshot, judged against
     * every version installed so far; null if the read-set is still valid.
     */
    VBox<?> firstStaleRead(CommitRequest request);

    /**
     * Optimistic local commit: validates the read-set and installs the write-set as one new version, lock-free
     * (threads committing at the same time help each other write back).
     *
     * @return the new version
     * @throws TransactionAbortedException with cause {@link AbortCause#CONFLICT} if a read is stale
     */
    long validateAndAppend(CommitRequest request);

    /** Installs the request's write-set as a new version without validating it (the caller certified it). */
    long append(CommitRequest request);

    /** Installs a write-set given as parallel arrays (for example one received from another replica). */
    long append(VBox<?>[] boxes, Object[] values);

    /**
     * A box with the given id and no value yet, for a box another replica created: the write-set that creates it
     * gives its first value.
     */
    VBox<?> createBox(long id);

    /**
     * Installs the group's state, the boxes' values as of {@code version}, which must be newer than this STM's
     * latest and becomes it: for a replica that joins a running group, or that comes back from a minority view
     * (a minority commits nothing, so its state is a prefix of the group's). Transactions running on older
     * snapshots keep reading them.
     */
    void installSnapshot(long version, VBox<?>[] boxes, Object[] values);
}
