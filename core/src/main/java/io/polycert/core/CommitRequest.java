package io.polycert.core;

/**
 * What a committing read-write transaction hands to its {@link CommitHandler}: the snapshot it ran on, the boxes
 * it read and the values it wrote. Boxes the transaction created are in the write-set with their initial value.
 *
 * <p>Part of the replication SPI. Implemented by the STM's own transactions; replication layers may implement it
 * for transactions received from other replicas.
 */
public interface CommitRequest {

    /**
     * When this attempt of the transaction began ({@link System#nanoTime()}), or -1 if unknown: with it a replication
     * layer can tell execution plus commit time, which is what a closed-loop client's throughput depends on.
     */
    default long startNanos() {
        return -1;
    }

    /** The version of the snapshot the transaction read from. */
    long snapshotVersion();

    /** Number of reads recorded (a box read twice may appear twice). */
    int readSetSize();

    /** The {@code i}-th box read. */
    VBox<?> readBox(int i);

    /** Number of distinct boxes written (including boxes created by the transaction). */
    int writeSetSize();

    /** The {@code i}-th box written. */
    VBox<?> writtenBox(int i);

    /** The value written to {@link #writtenBox(int) writtenBox(i)}. */
    Object writtenValue(int i);

    /** Whether the {@code i}-th written box was created by this transaction (it has no committed value yet). */
    default boolean isCreated(int i) {
        return writtenBox(i).latestVersion() < 0;
    }
}
