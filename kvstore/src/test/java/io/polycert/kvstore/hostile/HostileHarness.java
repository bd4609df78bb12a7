package io.polycert.kvstore.hostile;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.polycert.certification.PolymorphicReplicationManager;
import io.polycert.core.Stm;
import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.codec.ValueSerializer;
import io.polycert.gcs.JGroupsGroup;
import io.polycert.kvstore.Replica;
import io.polycert.oracle.Outcome;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import io.polycert.oracle.TransactionProfile;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.LoggerFactory;

/**
 * Support for the hostile-input tests of full replication: the value types the test replicas replicate, a digest
 * of a replica's whole replicated state, and the way to hand a replica a message exactly as its group does (on
 * the group's own engine thread, straight into the replication manager's delivery callbacks).
 */
final class HostileHarness {
    private HostileHarness() {
    }

    /** An application value with a registered serializer. */
    record Account(String owner, long balance) {
    }

    /** A value that nests values: lets a message claim a deeply nested structure. */
    record Node(Object head, Object tail) {
    }

    static final int ACCOUNT_TAG = 40;
    static final int BOXES_TAG = 41;
    static final int NODE_TAG = 42;

    /** The allow-list every test replica uses (all replicas of a cluster must register the same types). */
    static final ValueCodec CODEC = ValueCodec.builder()
            .register(Account.class, ACCOUNT_TAG, new ValueSerializer<>() {
                @Override
                public void write(Account value, ValueOutput out) {
                    out.writeString(value.owner()).writeLong(value.balance());
                }

                @Override
                public Account read(ValueInput in) {
                    return new Account(in.readString(), in.readLong());
                }
            })
            .register(VBox[].class, BOXES_TAG, new ValueSerializer<>() {
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
            })
            .register(Node.class, NODE_TAG, new ValueSerializer<>() {
                @Override
                public void write(Node value, ValueOutput out) {
                    out.writeValue(value.head()).writeValue(value.tail());
                }

                @Override
                public Node read(ValueInput in) {
                    return new Node(in.readValue(), in.readValue());
                }
            })
            .build();

    /** NVC, BFC, VC, NVC, ... per replica: deterministic, so the captured commit messages are too. */
    static ProtocolOracle cyclingOracle() {
        AtomicInteger next = new AtomicInteger();
        return new ProtocolOracle() {
            @Override
            public Protocol choose(TransactionProfile profile) {
                return Protocol.values()[Math.floorMod(next.getAndIncrement(), 3)];
            }

            @Override
            public void record(Protocol protocol, TransactionProfile profile, long latencyNanos, Outcome outcome) {
            }
        };
    }

    // ---- reaching into a live replica ------------------------------------------------------------------

    /**
     * A replica's replication manager and its group's engine loop, by reflection: the test delivers hostile
     * messages to the manager on the engine's own thread, the way {@code JGroupsGroup} delivers inline, so they
     * never race with what the group delivers.
     */
    static final class Probe {
        final Replica replica;
        final PolymorphicReplicationManager manager;
        private final Executor engineLoop;

        Probe(Replica replica) {
            this.replica = replica;
            try {
                Field m = Replica.class.getDeclaredField("manager");
                m.setAccessible(true);
                this.manager = (PolymorphicReplicationManager) m.get(replica);
                Field loop = JGroupsGroup.class.getDeclaredField("loop");
                loop.setAccessible(true);
                this.engineLoop = (Executor) loop.get(replica.group());
            } catch (ReflectiveOperationException e) {
                throw new AssertionError("the test reaches into Replica and JGroupsGroup; did a field move?", e);
            }
        }

        /** Runs {@code task} as a group event of this replica (one at a time with deliveries), and waits for it. */
        void onEngine(Runnable task) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            engineLoop.execute(() -> {
                try {
                    task.run();
                    done.complete(null);
                } catch (Throwable t) {
                    done.completeExceptionally(t);
                }
            });
            try {
                done.get(120, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof Error err) {
                    throw err;
                }
                throw new AssertionError(e.getCause());
            } catch (Exception e) {
                throw new AssertionError("the engine of " + replica + " did not run the task", e);
            }
        }

        /** How many transactions wait in the manager's certification queue (read on the engine thread). */
        int queued() {
            int[] n = new int[1];
            onEngine(() -> {
                try {
                    Field f = PolymorphicReplicationManager.class.getDeclaredField("queue");
                    f.setAccessible(true);
                    n[0] = ((Collection<?>) f.get(manager)).size();
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(e);
                }
            });
            return n[0];
        }
    }

    // ---- state digest ------------------------------------------------------------------------------------

    /**
     * A digest of everything the replica replicates, read in one snapshot: its version, and the id and encoded
     * value of every box reachable from a root (through box references, box arrays and nodes). Boxes nothing
     * reaches are left out, as the garbage collector may take them any time (the registry holds them weakly), and
     * so are roots holding null, as every root does before it is written.
     */
    static String digest(Replica r) {
        Stm stm = r.stm();
        return stm.readOnly(() -> {
            long version = stm.currentTransaction().snapshotVersion();
            Map<Long, String> values = new TreeMap<>();
            ArrayDeque<VBox<?>> pending = new ArrayDeque<>();
            for (VBox<?> box : r.registry().all()) {
                if (box.id() < 0) {
                    pending.add(box);
                }
            }
            while (!pending.isEmpty()) {
                VBox<?> box = pending.poll();
                if (values.containsKey(box.id())) {
                    continue;
                }
                Object v;
                try {
                    v = box.get();
                } catch (IllegalStateException noValueYet) {
                    values.put(box.id(), "no value");
                    continue;
                }
                if (v == null && box.id() < 0) {
                    continue;
                }
                values.put(box.id(), HexFormat.of().formatHex(CODEC.toBytes(v)));
                references(v, pending);
            }
            try {
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                sha.update(("v" + version).getBytes(StandardCharsets.UTF_8));
                values.forEach((id, hex) -> sha.update((";" + id + "=" + hex).getBytes(StandardCharsets.UTF_8)));
                return "v" + version + "/" + values.size() + " boxes/" + HexFormat.of().formatHex(sha.digest(), 0, 8);
            } catch (NoSuchAlgorithmException e) {
                throw new AssertionError(e);
            }
        });
    }

    private static void references(Object v, Collection<VBox<?>> out) {
        if (v instanceof VBox<?> b) {
            out.add(b);
        } else if (v instanceof VBox<?>[] boxes) {
            for (VBox<?> b : boxes) {
                references(b, out);
            }
        } else if (v instanceof Node n) {
            references(n.head(), out);
            references(n.tail(), out);
        }
    }

    // ---- logging -----------------------------------------------------------------------------------------

    /** Records what one logger logs while attached (the test's own appender; the logging setup is untouched). */
    static final class LogCapture implements AutoCloseable {
        private final Logger logger;
        private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

        LogCapture(Class<?> source) {
            this(source.getName());
        }

        LogCapture(String loggerName) {
            this.logger = (Logger) LoggerFactory.getLogger(loggerName);
            appender.setName("hostile-test-" + loggerName);
            appender.start();
            logger.addAppender(appender);
        }

        List<ILoggingEvent> events() {
            synchronized (appender) { // AppenderBase appends under the appender's lock
                return new ArrayList<>(appender.list);
            }
        }

        @Override
        public void close() {
            logger.detachAppender(appender);
            appender.stop();
        }
    }
}
