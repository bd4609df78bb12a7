package io.polycert.bench.faults;

import io.polycert.bench.workload.Workload;
import io.polycert.kvstore.Replica;
import java.util.List;

/**
 * A workload that a fault campaign drives beyond the {@link Workload} life cycle: it runs over any
 * {@link FaultStore} (full or partial replication), learns which member it runs at, and answers workload commands
 * ({@code workload ARGS...} in the member-process protocol). The {@link Workload} methods, which take a
 * {@link Replica}, run the store-level ones over a {@link ReplicaFaultStore}.
 */
public interface FaultWorkload extends Workload {

    /**
     * Tells the workload which member of the run it serves (a member process runs a single replica, whose
     * {@link Workload.Slot} says member 0 of 1). Called once, before any client.
     */
    void attach(int member);

    /** Creates the initial state through {@code store} (at one member) and returns once it committed. */
    void populate(FaultStore store);

    /**
     * True once this member can read the whole initial state (under partial replication its owners apply the
     * populating commit within about a message delay of its commit).
     */
    boolean populated(FaultStore store);

    /** A client for one thread at {@code store}. */
    Client client(FaultStore store, Slot slot);

    /**
     * Checks the workload's invariants through {@code store} and returns a digest of its state.
     *
     * @throws IllegalStateException naming the broken invariant
     */
    long check(FaultStore store);

    /**
     * Runs one workload command at {@code store} and returns its one-line result.
     *
     * @throws IllegalArgumentException for an unknown command or bad arguments
     */
    String command(FaultStore store, String[] args) throws InterruptedException;

    /**
     * The names of every register that may hold data, given the largest key the history mentions (-1 if none):
     * what an owner-by-owner comparison of the final state must cover.
     */
    List<String> registers(long maxKey);

    @Override
    default void populate(Replica replica) {
        populate(new ReplicaFaultStore(replica));
    }

    @Override
    default Client client(Replica replica, long seed) {
        return client(replica, new Slot(0, 1, 0, 1, seed));
    }

    @Override
    default Client client(Replica replica, Slot slot) {
        return client(new ReplicaFaultStore(replica), slot);
    }

    @Override
    default long check(Replica replica) {
        return check(new ReplicaFaultStore(replica));
    }

    /** {@link #command(FaultStore, String[])} at a replica. */
    default String command(Replica replica, String[] args) throws InterruptedException {
        return command(new ReplicaFaultStore(replica), args);
    }
}
