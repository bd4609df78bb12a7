package io.polycert.bench.replicated;

import io.polycert.bench.gcs.EmulatedNetwork;
import io.polycert.bench.workload.BenchCluster;
import io.polycert.bench.workload.InJvmCluster;
import io.polycert.bench.workload.Workload;
import io.polycert.gcs.GroupStack;
import java.time.Duration;

/** Where a benchmark's members run. */
public enum ClusterKind {
    /** Replicas in this JVM over the in-JVM JGroups stack (the embedded default). */
    IN_JVM("in-JVM"),
    /** One JVM process per member on 127.0.0.1, over JGroups TCP: what a deployment looks like. */
    PROCESSES("process");

    private final String description;

    ClusterKind(String description) {
        this.description = description;
    }

    String description() {
        return description;
    }

    /** DistUCB's gossip period in benchmarks: short runs need it well under the paper's 10 s. */
    static final Duration GOSSIP = Duration.ofSeconds(1);

    public BenchCluster start(int members, Workload workload) throws Exception {
        return start(members, workload, EmulatedNetwork.NONE);
    }

    /** Members on an emulated network ({@link EmulatedNetwork}; in this JVM only). */
    public BenchCluster start(int members, Workload workload, EmulatedNetwork network) throws Exception {
        if (this != IN_JVM && !network.isNone()) {
            throw new IllegalArgumentException("--network emulates links between members in one JVM; separate"
                    + " processes use the loopback interface as it is");
        }
        switch (this) {
            case IN_JVM:
                return new InJvmCluster(members, workload, GroupStack.embedded(), GOSSIP, null, network);
            case PROCESSES:
                return io.polycert.bench.process.ProcessCluster.start(members, workload,
                        io.polycert.bench.process.ProcessCluster.Options.defaults().withGossipInterval(GOSSIP));
            default:
                throw new AssertionError(this);
        }
    }

    /** {@code jvm} or {@code processes}. */
    public static ClusterKind fromName(String name) {
        switch (name) {
            case "jvm":
                return IN_JVM;
            case "processes":
                return PROCESSES;
            default:
                throw new IllegalArgumentException("--runner must be jvm or processes, was '" + name + "'");
        }
    }
}
