package io.polycert.certification;

import io.polycert.core.Stm;
import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.group.GroupMember;
import io.polycert.core.group.GroupStatistics;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongFunction;

/**
 * One replica's STM and replication manager without a real group: the test delivers by hand, and the group only
 * records what the manager sends, so a test decides what each replica receives and when.
 */
public final class HandFedReplica {
    /** A message the manager handed to its group; {@code to} is null unless sent to one member. */
    public record Sent(Kind kind, MemberId to, byte[] payload) {
    }

    public enum Kind { ORDERED, RELIABLE, DIRECT }

    public final MemberId self;
    public final Stm stm;
    public final PolymorphicReplicationManager manager;
    public final List<Sent> sent = new CopyOnWriteArrayList<>();
    private final Map<Long, VBox<?>> boxes = new ConcurrentHashMap<>();
    private final View view;

    public HandFedReplica(MemberId self, List<MemberId> members, ValueCodec codec, Protocol protocol) {
        this(self, members, codec, protocol, CertificationSettings.defaults());
    }

    public HandFedReplica(MemberId self, List<MemberId> members, ValueCodec codec, Protocol protocol,
            CertificationSettings settings) {
        this(self, members, codec, ProtocolOracle.always(protocol), settings);
    }

    public HandFedReplica(MemberId self, List<MemberId> members, ValueCodec codec, ProtocolOracle oracle,
            CertificationSettings settings) {
        this.self = self;
        this.view = new View(1, List.copyOf(members), true);
        PolymorphicReplicationManager[] m = new PolymorphicReplicationManager[1];
        BoxDirectory directory = new BoxDirectory() {
            @Override
            public VBox<?> find(long id) {
                return boxes.get(id);
            }

            @Override
            public synchronized VBox<?> findOrCreate(long id, LongFunction<VBox<?>> create) {
                VBox<?> b = boxes.get(id);
                return b != null ? b : create.apply(id);
            }

            @Override
            public Iterable<VBox<?>> all() {
                return new ArrayList<>(boxes.values());
            }
        };
        stm = Stm.builder().strictCodec(codec).onBoxCreated(b -> boxes.putIfAbsent(b.id(), b))
                .commitHandler(log -> m[0] = new PolymorphicReplicationManager(log, directory, codec, oracle,
                        settings))
                .build();
        manager = m[0];
        manager.identity(self);
        manager.attach(new Recording());
        manager.viewInstalled(view, 0);
    }

    /** Delivers an atomic-broadcast message of {@code from} at {@code position}, at each of {@code replicas}. */
    public static void deliverOrdered(MemberId from, long position, byte[] payload, HandFedReplica... replicas) {
        for (HandFedReplica r : replicas) {
            r.manager.deliverOrdered(from, position, payload);
        }
    }

    /** The box with this id, or null. */
    public VBox<?> box(long id) {
        return boxes.get(id);
    }

    /** What was sent of one kind, in order. */
    public List<Sent> sent(Kind kind) {
        return sent.stream().filter(s -> s.kind() == kind).toList();
    }

    /** Waits (up to 10 s) until this replica has sent {@code count} messages of {@code kind}; returns the last. */
    public Sent awaitSent(Kind kind, int count) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (sent(kind).size() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(self + " sent " + sent(kind).size() + " " + kind + ", expected " + count);
            }
            Thread.sleep(5);
        }
        return sent(kind).get(count - 1);
    }

    private final class Recording implements GroupMember {
        @Override
        public MemberId self() {
            return self;
        }

        @Override
        public View view() {
            return view;
        }

        @Override
        public void broadcast(byte[] payload) {
            sent.add(new Sent(Kind.ORDERED, null, payload));
        }

        @Override
        public void reliableBroadcast(byte[] payload) {
            sent.add(new Sent(Kind.RELIABLE, null, payload));
        }

        @Override
        public void multicast(Collection<MemberId> destinations, byte[] payload) {
            throw new UnsupportedOperationException("full replication does not multicast");
        }

        @Override
        public void send(MemberId destination, byte[] payload) {
            sent.add(new Sent(Kind.DIRECT, destination, payload));
        }

        @Override
        public GroupStatistics statistics() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }
}
