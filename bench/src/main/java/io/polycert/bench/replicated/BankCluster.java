package io.polycert.bench.replicated;

import io.polycert.bench.gcs.EmulatedLink;
import io.polycert.bench.gcs.EmulatedNetwork;
import io.polycert.core.VBox;
import io.polycert.gcs.GroupStack;
import io.polycert.bench.workload.BankWorkload;
import io.polycert.bench.workload.SwitchableOracle;
import io.polycert.kvstore.Replica;
import io.polycert.oracle.ProtocolOracle;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * In-JVM replicas holding a {@link BankWorkload} bank, with per-replica oracles the benchmarks switch between
 * trials.
 */
final class BankCluster implements AutoCloseable {
    static final long INITIAL = BankWorkload.INITIAL;

    final List<Replica> replicas = new ArrayList<>();
    /** Per replica, the oracle the benchmark switches. */
    final List<SwitchableOracle> oracles = new ArrayList<>();
    final int accounts;
    /** Per replica, the account boxes (the same boxes by id everywhere). */
    final List<VBox<Long>[]> accountsAt = new ArrayList<>();

    /** What each replica's emulated link carried (EmulatedNetwork), empty when there is none. */
    final List<EmulatedLink> links = new ArrayList<>();

    BankCluster(int replicaCount, int accounts, GroupStack stack, EmulatedNetwork network) {
        this.accounts = accounts;
        BankWorkload bank = new BankWorkload(accounts, 1);
        String cluster = "bank-" + UUID.randomUUID();
        for (int i = 0; i < replicaCount; i++) {
            SwitchableOracle oracle = new SwitchableOracle();
            oracles.add(oracle);
            Replica replica = Replica.builder(cluster).memberName("r" + i).stack(network.stackFor(stack))
                    .codec(bank.codec()).oracle(oracle).start();
            replicas.add(replica);
            network.attach(replica.group(), links);
        }
        bank.populate(replicas.get(0));
        long version = replicas.get(0).stm().latestVersion();
        for (Replica r : replicas) {
            while (r.stm().latestVersion() < version) {
                Thread.onSpinWait();
            }
            accountsAt.add(bank.accountsAt(r));
        }
    }
    /** Every replica uses a fresh oracle from {@code factory} (stateless ones may be shared). */
    void use(java.util.function.Supplier<ProtocolOracle> factory) {
        for (SwitchableOracle o : oracles) {
            o.use(factory.get());
        }
    }

    /** Every replica switches to its own oracle of {@code perReplica}. */
    void use(List<? extends ProtocolOracle> perReplica) {
        for (int i = 0; i < oracles.size(); i++) {
            oracles.get(i).use(perReplica.get(i));
        }
    }

    /**
     * One Bank transaction at a replica: reads {@code readSet} consecutive accounts (wrapping) of the range
     * [lo, lo + span) from a random start, and moves 1 between two random accounts of that range.
     */
    void transfer(int replica, int readSet, int lo, int span, SplittableRandom random) {
        VBox<Long>[] a = accountsAt.get(replica);
        int start = lo + random.nextInt(span);
        int from = lo + random.nextInt(span);
        int to = lo + random.nextInt(span);
        replicas.get(replica).stm().atomic(() -> {
            long sum = 0;
            for (int i = 0; i < readSet; i++) {
                sum += a[lo + (start - lo + i) % span].get();
            }
            if (sum < 0) {
                throw new IllegalStateException("negative sum");
            }
            a[from].put(a[from].get() - 1);
            a[to].put(a[to].get() + 1);
        });
    }

    /** Sum of all balances at one replica, in one snapshot. */
    long total(int replica) {
        VBox<Long>[] a = accountsAt.get(replica);
        return replicas.get(replica).stm().readOnly(() -> {
            long s = 0;
            for (VBox<Long> b : a) {
                s += b.get();
            }
            return s;
        });
    }

    @Override
    public void close() {
        for (Replica r : replicas) {
            r.close();
        }
    }
}
