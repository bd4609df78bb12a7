package io.polycert.bench.workload;

import java.util.List;

/**
 * The members of one benchmark run, wherever they live: in this JVM ({@link InJvmCluster}) or one JVM process
 * each. A run goes: {@link #populate()}, then per contender {@link #use}, {@link #startLoad},
 * {@link #beginMeasuring()}, {@link #sample()} once a second, {@link #endMeasuring()}, {@link #stopLoad()}, and at
 * the end {@link #check()}.
 */
public interface BenchCluster extends AutoCloseable {

    /** Members in the run. */
    int size();

    /** True when all members share this JVM (their garbage-collection time is one JVM's). */
    boolean sameJvm();

    /** Creates the workload's initial state at the first member; returns once every member applied it. */
    void populate() throws Exception;

    /** Every member switches to its own fresh oracle of this {@link Contenders} name. */
    void use(String contender) throws Exception;

    /** Starts {@code threadsPerMember} client threads at every member. */
    void startLoad(int threadsPerMember, long seed) throws Exception;

    void beginMeasuring() throws Exception;

    /** Takes one timeline sample at every member. */
    void sample() throws Exception;

    /** Ends the window: what each member measured, in member order. */
    List<ReplicaLoad.Partial> endMeasuring() throws Exception;

    /** Stops every member's client threads. */
    void stopLoad() throws Exception;

    /**
     * Counters summed over the members so far, for progress lines: commits, then commits by NVC, BFC, VC.
     */
    long[] progress() throws Exception;

    /**
     * Waits until every member applied everything committed, checks the workload's invariants at each, and returns
     * their state digests in member order.
     */
    List<Long> check() throws Exception;

    /** What the emulated network carried and how faithfully (EmulatedLink), or null when there is none. */
    default String networkSummary() {
        return null;
    }

    @Override
    void close();
}
