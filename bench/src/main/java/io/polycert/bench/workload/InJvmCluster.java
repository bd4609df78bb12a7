package io.polycert.bench.workload;

import io.polycert.bench.gcs.EmulatedLink;
import io.polycert.bench.gcs.EmulatedNetwork;
import io.polycert.gcs.GroupStack;
import io.polycert.kvstore.Replica;
import io.polycert.oracle.Protocol;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Replicas in this JVM (the embedded default): one group over the in-JVM JGroups stack. */
public final class InJvmCluster implements BenchCluster {
    private final Workload workload;
    private final List<Replica> replicas = new ArrayList<>();
    private final List<SwitchableOracle> oracles = new ArrayList<>();
    private final List<ReplicaLoad> loads = new ArrayList<>();
    private final Duration gossipInterval;
    private final Path model;
    private final List<EmulatedLink> links = new ArrayList<>();

    /**
     * Starts {@code members} replicas of a fresh cluster.
     *
     * @param gossipInterval DistUCB's gossip period
     * @param model a trained decision-tree model, or null
     */
    public InJvmCluster(int members, Workload workload, GroupStack stack, Duration gossipInterval, Path model) {
        this(members, workload, stack, gossipInterval, model, EmulatedNetwork.NONE);
    }

    /** Members whose sends go through an {@link EmulatedLink} of {@code network} (unless it is none). */
    public InJvmCluster(int members, Workload workload, GroupStack stack, Duration gossipInterval, Path model,
            EmulatedNetwork network) {
        if (members < 1) {
            throw new IllegalArgumentException("members must be at least 1, was " + members);
        }
        this.workload = workload;
        this.gossipInterval = gossipInterval;
        this.model = model;
        String cluster = workload.name() + "-" + UUID.randomUUID();
        try {
            for (int i = 0; i < members; i++) {
                SwitchableOracle oracle = new SwitchableOracle();
                oracles.add(oracle);
                Replica replica = Replica.builder(cluster).memberName("r" + i).stack(network.stackFor(stack))
                        .codec(workload.codec()).oracle(oracle).start();
                replicas.add(replica);
                network.attach(replica.group(), links);
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The replicas, in member order. */
    public List<Replica> replicas() {
        return List.copyOf(replicas);
    }

    @Override
    public int size() {
        return replicas.size();
    }

    @Override
    public boolean sameJvm() {
        return true;
    }

    @Override
    public void populate() throws InterruptedException {
        workload.populate(replicas.get(0));
        awaitAll(replicas.get(0).stm().latestVersion());
    }

    private void awaitAll(long version) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        for (Replica r : replicas) {
            while (r.stm().latestVersion() < version) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(r + " has not applied version " + version + " after 2 minutes"
                            + " (it is at " + r.stm().latestVersion() + ")");
                }
                Thread.sleep(1);
            }
        }
    }

    /**
     * Each contender's oracles, kept so an adaptive one resumes what it learned when its turn comes again, and their
     * clock, which runs while the contender is in use.
     */
    private final java.util.Map<String, List<io.polycert.oracle.ProtocolOracle>> byContender =
            new java.util.HashMap<>();
    private final TurnClocks clocks = new TurnClocks();

    @Override
    public void use(String contender) {
        List<io.polycert.oracle.ProtocolOracle> perReplica = byContender.computeIfAbsent(contender, c -> {
            List<io.polycert.oracle.ProtocolOracle> list = new ArrayList<>();
            for (int i = 0; i < oracles.size(); i++) {
                list.add(Contenders.oracle(c, gossipInterval, model, clocks.of(c)));
            }
            return list;
        });
        clocks.use(contender);
        for (int i = 0; i < oracles.size(); i++) {
            oracles.get(i).use(perReplica.get(i));
        }
    }

    @Override
    public void startLoad(int threadsPerMember, long seed) {
        if (!loads.isEmpty()) {
            throw new IllegalStateException("the load is already running");
        }
        for (int i = 0; i < replicas.size(); i++) {
            loads.add(new ReplicaLoad(replicas.get(i), i, replicas.size(), workload, threadsPerMember,
                    seed + 7_919L * i));
        }
        loads.forEach(ReplicaLoad::start);
    }

    @Override
    public void beginMeasuring() {
        loads.forEach(ReplicaLoad::beginMeasuring);
    }

    @Override
    public void sample() {
        loads.forEach(ReplicaLoad::sample);
    }

    @Override
    public List<ReplicaLoad.Partial> endMeasuring() {
        List<ReplicaLoad.Partial> partials = new ArrayList<>();
        for (ReplicaLoad l : loads) {
            partials.add(l.endMeasuring());
        }
        return partials;
    }

    @Override
    public void stopLoad() {
        loads.forEach(ReplicaLoad::close);
        loads.clear();
    }

    @Override
    public long[] progress() {
        long[] p = new long[1 + Protocol.values().length];
        for (ReplicaLoad l : loads) {
            ReplicaLoad.Counters c = l.current();
            p[0] += c.commits();
            for (Protocol protocol : Protocol.values()) {
                p[1 + protocol.ordinal()] += c.committedBy(protocol);
            }
        }
        return p;
    }

    @Override
    public String networkSummary() {
        return links.isEmpty() ? null : EmulatedLink.summary(links);
    }

    @Override
    public List<Long> check() throws InterruptedException {
        long newest = 0;
        for (Replica r : replicas) {
            newest = Math.max(newest, r.stm().latestVersion());
        }
        awaitAll(newest);
        List<Long> digests = new ArrayList<>();
        for (Replica r : replicas) {
            digests.add(workload.check(r));
        }
        return digests;
    }

    @Override
    public void close() {
        loads.forEach(ReplicaLoad::close);
        loads.clear();
        for (Replica r : replicas) {
            r.close(); // closes its oracle too
        }
    }
}
