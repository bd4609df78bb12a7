package io.polycert.bench.faults;

import io.polycert.core.Stm;
import io.polycert.core.Transaction;
import io.polycert.core.VBox;
import io.polycert.kvstore.Replica;
import java.util.Objects;
import java.util.function.Supplier;

/** Full replication: registers are the replica's root boxes (a list-append key {@code la-K} is root {@code la-K}). */
public final class ReplicaFaultStore implements FaultStore {
    private final Replica replica;
    private final Stm stm;

    public ReplicaFaultStore(Replica replica) {
        this.replica = Objects.requireNonNull(replica, "replica");
        this.stm = replica.stm();
    }

    /** The replica, for workloads that use more of it than registers (the bank's box array). */
    public Replica replica() {
        return replica;
    }

    @Override
    public <T> T attempt(Supplier<T> body) {
        Transaction tx = stm.begin(); // begin and commit by hand: Stm.atomic would retry an abort
        try {
            T result = body.get();
            tx.commit();
            return result;
        } finally {
            if (tx.isActive()) {
                try {
                    tx.abort();
                } catch (RuntimeException e) {
                    // ended already
                }
            }
        }
    }

    @Override
    public <T> T readOnly(Supplier<T> body) {
        return stm.readOnly(body);
    }

    @Override
    public <V> Register<V> register(String name) {
        return register(replica.<V>root(name));
    }

    /** A box of the replica as a register. */
    static <V> Register<V> register(VBox<V> box) {
        return new Register<V>() {
            @Override
            public V get() {
                return box.get();
            }

            @Override
            public void put(V value) {
                box.put(value);
            }
        };
    }

    @Override
    public boolean isClosed() {
        return stm.isClosed();
    }

    @Override
    public String self() {
        return String.valueOf(replica.self());
    }
}
