package io.polycert.bench.process;

import io.polycert.bench.faults.MemberFaults;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;

/**
 * What one member process serves: a full replica ({@link ReplicaMember}) or a member of partial replication
 * ({@link PartitionedMember}), with the commands of the member-process protocol that depend on which.
 *
 * @param <L> its client load
 */
abstract class MemberNode<L extends AutoCloseable> {
    /** The running client load, or null. */
    protected L load;

    abstract View view();

    abstract MemberId self();

    /** Fault-injection controls over this member's group (its stack built with fault injection). */
    abstract MemberFaults attachFaults();

    /**
     * Runs one command (its words, the command first, lower-cased) and returns its result.
     *
     * @return null if this kind of member has no such command
     * @throws IllegalArgumentException for bad arguments
     */
    abstract String execute(String[] words) throws InterruptedException;

    /** The commands {@link #execute} knows, for error messages. */
    abstract String commands();

    /** Leaves the group (the load is stopped). */
    protected abstract void leave();

    /** Stops the client load, if one runs. */
    protected final void stopLoad() {
        if (load != null) {
            try {
                load.close();
            } catch (Exception e) {
                throw new IllegalStateException("stopping the load failed: " + e, e);
            }
            load = null;
        }
    }

    /** Stops the load and leaves the group, going as far as it can if a step fails. */
    final void close() {
        closeInOrder(this::stopLoad, this::leave);
    }

    /** Runs every step even if an earlier one failed (printing why): closing must go as far as it can. */
    static void closeInOrder(Runnable... steps) {
        for (Runnable step : steps) {
            try {
                step.run();
            } catch (RuntimeException e) {
                e.printStackTrace();
            }
        }
    }

    /** Fails unless {@code w} holds the command and {@code n} arguments. */
    static void arguments(String[] w, int n) {
        if (w.length != n + 1) {
            throw new IllegalArgumentException("'" + w[0] + "' takes " + n + " argument(s), got " + (w.length - 1));
        }
    }
}
