package io.polycert.kvstore;

import io.polycert.certification.CertificationSettings;
import io.polycert.certification.CertificationStatistics;
import io.polycert.certification.PolymorphicReplicationManager;
import io.polycert.core.Stm;
import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.group.GroupListener;
import io.polycert.core.group.GroupMember;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import io.polycert.gcs.GroupJoinException;
import io.polycert.gcs.GroupStack;
import io.polycert.gcs.JGroupsGroup;
import io.polycert.oracle.ProtocolOracle;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One replica of a fully replicated PolyCert store: an {@link Stm} whose read-write transactions are certified
 * across the group.
 *
 * <pre>{@code
 * try (Replica replica = Replica.builder("bank").start()) {
 *     Stm stm = replica.stm();
 *     VBox<Account[]> accounts = replica.root("accounts");
 *     stm.atomic(() -> { if (accounts.get() == null) accounts.put(openAccounts(stm)); });
 *     ...
 * }
 * }</pre>
 *
 * Shared state hangs off named roots (boxes every replica has under the same name) and is created inside
 * transactions, which create it on every replica when they commit. {@link Builder#start()} returns once the
 * replica is in its group and, if the group was running, has received all boxes.
 */
public final class Replica implements AutoCloseable {
    private final Stm stm;
    private final ObjectRegistry registry;
    private final PolymorphicReplicationManager manager;
    private final JGroupsGroup group;
    private final ValueCodec codec;

    private Replica(Stm stm, ObjectRegistry registry, PolymorphicReplicationManager manager, JGroupsGroup group,
            ValueCodec codec) {
        this.stm = stm;
        this.registry = registry;
        this.manager = manager;
        this.group = group;
        this.codec = codec;
    }

    public static Builder builder(String cluster) {
        return new Builder(cluster);
    }

    /** The replicated STM: use it exactly like an embedded one. */
    public Stm stm() {
        return stm;
    }

    /**
     * The root box named {@code name}: the same box (by id) on every replica, with value null until a
     * transaction writes it.
     */
    public <T> VBox<T> root(String name) {
        Objects.requireNonNull(name, "name");
        return rootBox(registry, ReplicaIds.rootId(name));
    }

    /**
     * The transactional map named {@code name}: the same map on every replica that asks for the same name. Its
     * operations join the calling thread's transaction, next to roots and boxes, and are certified with it.
     * Keys and values must be encodable by the codec this replica was built with ({@link Builder#codec}); two
     * keys are the same key when they encode to the same bytes.
     *
     * <pre>{@code
     * TxMap<String, Long> balances = replica.map("balances");
     * replica.stm().atomic(() -> balances.put("alice", balances.get("alice") - 10));
     * }</pre>
     *
     * <p>Each key is a root box of its own, under an id hashed from the map name and the key, created on first
     * use and held by the replica for as long as it runs: a removed key still keeps a small box (holding null)
     * on every replica, so a map suits a bounded set of keys rather than an endless stream of fresh ones.
     *
     * @param name the map's name, non-null and non-empty, the same on every replica
     * @throws IllegalArgumentException if {@code name} is empty
     */
    public <K, V> TxMap<K, V> map(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a map name must not be empty");
        }
        return new ReplicatedTxMap<>(name, stm, registry, codec);
    }

    /** The root box with this (negative) id, created by the registry's root factory on first use. */
    @SuppressWarnings("unchecked")
    static <T> VBox<T> rootBox(ObjectRegistry registry, long id) {
        VBox<?> box = registry.find(id); // no lock on the common path
        if (box == null) {
            box = registry.findOrCreate(id, i -> {
                throw new AssertionError("roots come from the registry's root factory");
            });
        }
        return (VBox<T>) box;
    }

    public MemberId self() {
        return group.self();
    }

    public View view() {
        return group.view();
    }

    public CertificationStatistics statistics() {
        return manager.statistics();
    }

    public GroupMember group() {
        return group;
    }

    public ObjectRegistry registry() {
        return registry;
    }

    /**
     * Leaves the group; commits still waiting for an outcome throw {@link io.polycert.core.CommitOutcomeUnknownException}
     * (the group may still commit them).
     */
    @Override
    public void close() {
        manager.close();
        group.close();
        stm.close();
    }

    @Override
    public String toString() {
        return "Replica[" + group.self() + "]";
    }

    /** Settings of a replica; {@link #start()} creates it. */
    public static final class Builder {
        private final String cluster;
        private String memberName = "replica-" + Long.toHexString(System.nanoTime() & 0xffffff);
        private GroupStack stack = GroupStack.embedded();
        private ValueCodec codec = ValueCodec.standard();
        /** Null for the default: a new DistUCB oracle for each replica started. */
        private ProtocolOracle oracle;
        private CertificationSettings settings = CertificationSettings.defaults();
        private int minimumMembers = 1;
        private int maxAttempts = 100;
        private Duration joinTimeout = Duration.ofSeconds(30);

        private Builder(String cluster) {
            this.cluster = Objects.requireNonNull(cluster, "cluster");
        }

        public Builder memberName(String name) {
            this.memberName = Objects.requireNonNull(name, "name");
            return this;
        }

        public Builder stack(GroupStack stack) {
            this.stack = Objects.requireNonNull(stack, "stack");
            return this;
        }

        /** The allow-list of value types that cross the wire (default: the built-in types only). */
        public Builder codec(ValueCodec codec) {
            this.codec = Objects.requireNonNull(codec, "codec");
            return this;
        }

        /**
         * Chooses NVC, BFC or VC per transaction (default: a new {@link ProtocolOracle#distUcb() DistUCB} oracle for
         * each replica). An oracle learns about one replica: give each replica its own. The replica closes it.
         */
        public Builder oracle(ProtocolOracle oracle) {
            this.oracle = Objects.requireNonNull(oracle, "oracle");
            return this;
        }

        public Builder certification(CertificationSettings settings) {
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** Members needed to found a new group; set it to a majority of the intended cluster size. */
        public Builder minimumMembers(int n) {
            this.minimumMembers = n;
            return this;
        }

        public Builder maxAttempts(int n) {
            this.maxAttempts = n;
            return this;
        }

        public Builder joinTimeout(Duration timeout) {
            this.joinTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * Joins the group and returns once this replica may commit: it has the group's state, or it founded the
         * group and its codec registrations cover every other founder's.
         *
         * @throws GroupJoinException if that does not happen within the join timeout, or the codec registrations
         *     lack a tag of the group (the message names the tags)
         */
        public Replica start() {
            ObjectRegistry registry = new ObjectRegistry();
            ReplicaIds ids = new ReplicaIds();
            PolymorphicReplicationManager[] manager = new PolymorphicReplicationManager[1];
            Stm stm = Stm.builder().name(memberName).idAllocator(ids).maxAttempts(maxAttempts)
                    .onBoxCreated(registry::register).strictCodec(codec)
                    .commitHandler(log -> manager[0] = new PolymorphicReplicationManager(log, registry, codec,
                            oracle != null ? oracle : ProtocolOracle.distUcb(),
                            settings))
                    .build();
            registry.rootFactory(id -> stm.root(id, null));
            MemberId identity = MemberId.random(memberName);
            manager[0].identity(identity);
            GroupListener listener = new IdAssigningListener(manager[0], ids, identity);
            JGroupsGroup group;
            try {
                group = JGroupsGroup.builder(cluster).identity(identity).stack(stack).listener(listener).inlineDelivery()
                        .stateHandler(manager[0]).minimumMembers(minimumMembers).joinTimeout(joinTimeout).join();
            } catch (RuntimeException e) {
                stm.close();
                throw e;
            }
            manager[0].attach(group);
            try {
                manager[0].checkRegistrations().get(joinTimeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException | InterruptedException | RuntimeException e) {
                manager[0].close();
                group.close();
                stm.close();
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                String why = e instanceof ExecutionException ? e.getCause().getMessage()
                        : e instanceof TimeoutException ? "the codec registrations of every founder did not arrive"
                                + " within " + joinTimeout
                        : e.toString();
                throw new GroupJoinException(memberName + " could not start in cluster '" + cluster + "': " + why,
                        e instanceof ExecutionException ? e.getCause() : e);
            }
            return new Replica(stm, registry, manager[0], group, codec);
        }
    }

    /** Passes deliveries to the manager, and gives this incarnation its id prefix from the view that admits it. */
    private static final class IdAssigningListener implements GroupListener {
        private final PolymorphicReplicationManager manager;
        private final ReplicaIds ids;
        private final MemberId self;

        IdAssigningListener(PolymorphicReplicationManager manager, ReplicaIds ids, MemberId self) {
            this.manager = manager;
            this.ids = ids;
            this.self = self;
        }

        @Override
        public void deliverOrdered(MemberId origin, long position, byte[] payload) {
            manager.deliverOrdered(origin, position, payload);
        }

        @Override
        public void viewInstalled(View view, long position) {
            int index = view.members().indexOf(self);
            if (index >= 0) {
                ids.assign(view.epoch(), index);
            }
            manager.viewInstalled(view, position);
        }

        @Override
        public void deliverReliable(MemberId origin, byte[] payload) {
            manager.deliverReliable(origin, payload);
        }

        @Override
        public void heldFromDeparted(MemberId origin, byte[] payload) {
            manager.heldFromDeparted(origin, payload);
        }

        @Override
        public void deliverDirect(MemberId origin, byte[] payload) {
            manager.deliverDirect(origin, payload);
        }

        @Override
        public void blocked(View view) {
            manager.blocked(view);
        }
    }
}
