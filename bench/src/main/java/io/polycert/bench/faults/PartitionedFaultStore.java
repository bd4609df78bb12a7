package io.polycert.bench.faults;

import io.polycert.core.group.MemberId;
import io.polycert.kvstore.PartitionedStore;
import io.polycert.kvstore.TxMap;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Partial replication: registers are the keys of one map ({@link #MAP}) of a {@link PartitionedStore}, each held
 * by its owners only. The store makes exactly one attempt per transaction ({@link #start} sets
 * {@code maxAttempts(1)}), so an abort reaches the client instead of being retried.
 */
public final class PartitionedFaultStore implements FaultStore, AutoCloseable {
    /** The map every register lives in. */
    public static final String MAP = "faults";

    private final PartitionedStore store;
    private final TxMap<String, Object> map;
    private volatile boolean closed;

    private PartitionedFaultStore(PartitionedStore store) {
        this.store = store;
        this.map = store.map(MAP);
    }

    /** Starts a member from {@code builder}, made to attempt each transaction once. */
    public static PartitionedFaultStore start(PartitionedStore.Builder builder) {
        return new PartitionedFaultStore(builder.maxAttempts(1).start());
    }

    /** Wraps a running store; it must have been built with {@code maxAttempts(1)} (tests). */
    static PartitionedFaultStore of(PartitionedStore store) {
        return new PartitionedFaultStore(Objects.requireNonNull(store, "store"));
    }

    public PartitionedStore store() {
        return store;
    }

    @Override
    public <T> T attempt(Supplier<T> body) {
        return store.atomic(body);
    }

    @Override
    public <T> T readOnly(Supplier<T> body) {
        return store.readOnly(body);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <V> Register<V> register(String name) {
        Objects.requireNonNull(name, "name");
        return new Register<V>() {
            @Override
            public V get() {
                return (V) map.get(name);
            }

            @Override
            public void put(V value) {
                map.put(name, value);
            }
        };
    }

    /** The owners of a register under this member's current placement, primary first. */
    public List<MemberId> owners(String name) {
        return store.owners(MAP, name);
    }

    /** This member's committed copy of a register it owns (null when absent or not owned here). */
    public Object ownedValue(String name) {
        return store.ownedValue(MAP, name);
    }

    /** This member's committed version of a register it owns (0 when not held). */
    public long ownedVersion(String name) {
        return store.ownedVersion(MAP, name);
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public String self() {
        return String.valueOf(store.self());
    }

    @Override
    public void close() {
        closed = true;
        store.close();
    }
}
