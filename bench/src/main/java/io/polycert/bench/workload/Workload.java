package io.polycert.bench.workload;

import io.polycert.core.codec.ValueCodec;
import io.polycert.kvstore.Replica;

/**
 * A benchmark workload over fully replicated PolyCert: what the replicas hold, how it is created, and what one
 * client thread does. Runners (in-JVM or one JVM process per member) drive any workload the same way:
 *
 * <ol>
 *   <li>every replica is built with {@link #codec()};</li>
 *   <li>{@link #populate(Replica)} runs once, at one replica, and creates the initial state in transactions
 *       (which create it on every replica as they commit);</li>
 *   <li>once a replica has applied everything populate committed, {@link #client} gives each of its threads a
 *       client, and the runner calls {@link Client#next()} in a loop;</li>
 *   <li>at the end, {@link #check(Replica)} verifies the workload's invariants at every replica.</li>
 * </ol>
 */
public interface Workload {

    /** A short name for reports, e.g. {@code bank} or {@code stmbench7}. */
    String name();

    /** Parameters worth reporting with the results (read-set size, mix, ...), in a stable order. */
    java.util.Map<String, String> parameters();

    /** The codec every replica of the run must be built with: it allows exactly this workload's value types. */
    ValueCodec codec();

    /**
     * Creates the initial state at {@code replica}, in as many transactions as it needs (each commit message is
     * bounded), and returns once they all committed.
     */
    void populate(Replica replica);

    /**
     * A client for one thread at {@code replica}; called after the replica has applied the populated state.
     *
     * @param seed the thread's random seed (runs are reproducible up to thread interleaving)
     */
    Client client(Replica replica, long seed);

    /**
     * Checks the workload's invariants at {@code replica} in one read-only transaction, and returns a digest of
     * its state: equal digests at every replica mean equal states.
     *
     * @throws IllegalStateException naming the broken invariant
     */
    long check(Replica replica);

    /**
     * A client for one thread, knowing where it runs among all client threads of the run (for workloads that
     * partition their data between clients). By default, {@link #client(Replica, long)}.
     */
    default Client client(Replica replica, Slot slot) {
        return client(replica, slot.seed());
    }

    /**
     * Where a client thread runs: thread {@code thread} of {@code threadsPerMember} at member {@code member} of
     * {@code members}.
     */
    record Slot(int member, int members, int thread, int threadsPerMember, long seed) {
        /** This thread's index among all client threads of the run. */
        public int index() {
            return member * threadsPerMember + thread;
        }

        /** All client threads of the run. */
        public int count() {
            return members * threadsPerMember;
        }
    }

    /** One client thread's operations. */
    interface Client {
        /**
         * Runs one operation (a transaction, retried by the STM on conflict) and returns the name of its
         * operation kind, e.g. {@code transfer} or {@code T1}.
         *
         * @throws io.polycert.core.TransactionAbortedException if it finally aborted; the runner counts it
         */
        String next();

        /**
         * The kind of the operation {@link #next()} is running or last ran, so that the time of one that finally
         * aborted is charged to its kind; {@code null} (the default) charges it to {@code gave-up}.
         */
        default String kind() {
            return null;
        }
    }
}
