package io.polycert.bench.faults;

import io.polycert.bench.workload.Workload;
import io.polycert.kvstore.Replica;

/**
 * A workload that a fault campaign drives beyond the {@link Workload} life cycle: it learns which member it runs
 * at, and answers workload commands ({@code workload ARGS...} in the member-process protocol).
 */
public interface FaultWorkload extends Workload {

    /**
     * Tells the workload which member of the run it serves (a member process runs a single replica, whose
     * {@link Workload.Slot} says member 0 of 1). Called once, before any client.
     */
    void attach(int member);

    /**
     * Runs one workload command at {@code replica} and returns its one-line result.
     *
     * @throws IllegalArgumentException for an unknown command or bad arguments
     */
    String command(Replica replica, String[] args) throws InterruptedException;
}
