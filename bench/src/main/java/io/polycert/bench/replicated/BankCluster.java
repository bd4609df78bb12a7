package io.polycert.bench.replicated;

import io.polycert.core.Stm;
import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.codec.ValueSerializer;
import io.polycert.gcs.GroupStack;
import io.polycert.kvstore.Replica;
import io.polycert.oracle.ProtocolOracle;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * In-JVM replicas holding a bank: accounts are boxes, listed in root arrays of at most {@link #CHUNK} boxes (so
 * creating them stays under the commit-message limit).
 */
final class BankCluster implements AutoCloseable {
    static final int CHUNK = 20_000;
    static final long INITIAL = 1_000;

    /** The codec the bank needs: arrays of boxes. */
    static final ValueCodec CODEC = ValueCodec.builder().register(VBox[].class, 40, new ValueSerializer<>() {
        @Override
        public void write(VBox[] value, ValueOutput out) {
            out.writeVarInt(value.length);
            for (VBox<?> b : value) {
                out.writeBox(b);
            }
        }

        @Override
        public VBox[] read(ValueInput in) {
            VBox[] boxes = new VBox[in.readLength(1)];
            for (int i = 0; i < boxes.length; i++) {
                boxes[i] = in.readBox();
            }
            return boxes;
        }
    }).build();

    final List<Replica> replicas = new ArrayList<>();
    /** Per replica, the oracle the benchmark switches. */
    final List<SwitchableOracle> oracles = new ArrayList<>();
    final int accounts;
    /** Per replica, the account boxes (the same boxes by id everywhere). */
    final List<VBox<Long>[]> accountsAt = new ArrayList<>();

    BankCluster(int replicaCount, int accounts, GroupStack stack) {
        this.accounts = accounts;
        String cluster = "bank-" + UUID.randomUUID();
        for (int i = 0; i < replicaCount; i++) {
            SwitchableOracle oracle = new SwitchableOracle();
            oracles.add(oracle);
            replicas.add(Replica.builder(cluster).memberName("r" + i).stack(stack).codec(CODEC).oracle(oracle)
                    .start());
        }
        Replica first = replicas.get(0);
        Stm stm = first.stm();
        int chunks = (accounts + CHUNK - 1) / CHUNK;
        for (int c = 0; c < chunks; c++) {
            int size = Math.min(CHUNK, accounts - c * CHUNK);
            VBox<VBox<Long>[]> root = first.root("accounts-" + c);
            stm.atomic(() -> {
                @SuppressWarnings("unchecked")
                VBox<Long>[] boxes = new VBox[size];
                for (int i = 0; i < size; i++) {
                    boxes[i] = stm.newBox(INITIAL);
                }
                root.put(boxes);
            });
        }
        long version = stm.latestVersion();
        for (Replica r : replicas) {
            while (r.stm().latestVersion() < version) {
                Thread.onSpinWait();
            }
            @SuppressWarnings("unchecked")
            VBox<Long>[] all = new VBox[accounts];
            for (int c = 0; c < chunks; c++) {
                String name = "accounts-" + c;
                VBox<Long>[] part = r.stm().readOnly(() -> r.<VBox<Long>[]>root(name).get());
                System.arraycopy(part, 0, all, c * CHUNK, part.length);
            }
            accountsAt.add(all);
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
