package io.polycert.kvstore;

import io.polycert.core.testing.Await;
import io.polycert.certification.CertificationSettings;
import io.polycert.core.Stm;
import io.polycert.core.VBox;
import io.polycert.gcs.GroupStack;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import io.polycert.oracle.TransactionProfile;
import io.polycert.oracle.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;

/** Test helper: replicas of one cluster in this JVM. */
final class ReplicaCluster implements AutoCloseable {
    final String name = "cluster-" + UUID.randomUUID();
    final List<Replica> replicas = new ArrayList<>();

    Replica start(String member, ProtocolOracle oracle) {
        return start(member, oracle, CertificationSettings.defaults());
    }

    /** Codec for the tests' shared structure: an array of boxes. */
    static final io.polycert.core.codec.ValueCodec CODEC = io.polycert.core.codec.ValueCodec.builder()
            .register(VBox[].class, 40, new io.polycert.core.codec.ValueSerializer<>() {
                @Override
                public void write(VBox[] value, io.polycert.core.codec.ValueOutput out) {
                    out.writeVarInt(value.length);
                    for (VBox<?> b : value) {
                        out.writeBox(b);
                    }
                }

                @Override
                public VBox[] read(io.polycert.core.codec.ValueInput in) {
                    VBox[] boxes = new VBox[in.readLength(1)];
                    for (int i = 0; i < boxes.length; i++) {
                        boxes[i] = in.readBox();
                    }
                    return boxes;
                }
            }).build();

    Replica start(String member, ProtocolOracle oracle, CertificationSettings settings) {
        Replica r = Replica.builder(name).memberName(member).codec(CODEC)
                .stack(GroupStack.embedded().failureDetection(Duration.ofMillis(1500)).faultInjection())
                .oracle(oracle).certification(settings).start();
        replicas.add(r);
        return r;
    }

    /** Chooses NVC, BFC or VC at random for every transaction. */
    static ProtocolOracle randomOracle(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        return new ProtocolOracle() {
            @Override
            public synchronized Protocol choose(TransactionProfile profile) {
                return Protocol.values()[random.nextInt(3)];
            }

            @Override
            public void record(Protocol protocol, TransactionProfile profile, long latencyNanos, Outcome outcome) {
            }
        };
    }


    /** A hash of every root-reachable account balance at the latest version of one replica. */
    static long stateHash(Replica r, VBox<VBox<Long>[]> accounts) {
        Stm stm = r.stm();
        return stm.readOnly(() -> {
            long h = 0xcbf29ce484222325L;
            VBox<Long>[] a = accounts.get();
            if (a == null) {
                return 0L;
            }
            for (VBox<Long> b : a) {
                h = (h ^ b.get()) * 0x100000001b3L;
                h = (h ^ b.id()) * 0x100000001b3L;
            }
            return h;
        });
    }

    @Override
    public void close() {
        for (Replica r : replicas) {
            try {
                r.close();
            } catch (RuntimeException ignored) {
                // gone already
            }
        }
    }
}
