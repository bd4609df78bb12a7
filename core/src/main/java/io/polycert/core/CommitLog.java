package io.polycert.core;

/**
 * The versions of one {@link Stm}, as seen by a {@link CommitHandler}: how to validate a transaction against what
 * committed after its snapshot, and how to install a write-set atomically as the next version.
 *
 * <p>A log is used in one of two ways. An embedded STM commits with {@link #validateAndAppend}, from any number of
 * threads at once. A replicating {@link CommitHandler} installs every commit itself, with {@link #append} and
 * {@link #installSnapshot}, from one thread at a time and never alongside {@code validateAndAppend}: then each
 * install creates exactly one version, numbered one above the previous, and when that thread follows a delivery
 * order shared by all replicas, every replica numbers its versions identically, which is what makes snapshot
 * versions meaningful across replicas. (Mixing the two concurrently is refused when detected: versions could then
 * repeat.) Readers never see part of a commit or install, never wait and never abort.
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
     * Optimistic local commit: validates the read-set and installs the write-set as one new version. Threads
     * committing at the same time never wait for one another for long: one that finds another's commit in its way
     * finishes it if it is decided and aborts it if not.
     *
     * <p>A request that is not a transaction of this STM holds no snapshot: if the versions it read were collected
     * meanwhile, its read cannot be shown valid and counts as stale.
     *
     * @return the new version
     * @throws TransactionAbortedException with cause {@link AbortCause#CONFLICT} if a read is stale
     * @throws IllegalArgumentException if the write-set names a box twice (nothing is installed)
     */
    long validateAndAppend(CommitRequest request);

    /**
     * Installs the request's write-set as the next version without validating it (the caller certified it).
     *
     * @throws IllegalStateException if another install runs at the same time, or a local commit ran alongside
     * @throws IllegalArgumentException if the write-set names a box twice (nothing is installed)
     */
    long append(CommitRequest request);

    /**
     * Installs a write-set given as parallel arrays (for example one received from another replica).
     *
     * @throws IllegalArgumentException if the write-set names a box twice (nothing is installed)
     */
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
