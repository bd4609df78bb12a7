package io.polycert.kvstore;

import io.polycert.core.Stm;
import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import java.util.Objects;

/**
 * The {@link TxMap} of a fully replicated store: every key is a root box, under an id derived from the map's name
 * and the key's encoded bytes ({@link ReplicaIds#keyId}), so every replica finds the same box for the same key
 * without any shared directory. A box holding null is an absent key. Reads and writes are plain box reads and
 * writes, so they join the calling thread's transaction and are certified with it.
 *
 * <p>Boxes are created lazily through the {@link ObjectRegistry} (and held by it, like every root): a key that
 * was once used keeps a small box on every replica even after it is removed.
 */
final class ReplicatedTxMap<K, V> implements TxMap<K, V> {
    private final String name;
    private final Stm stm;
    private final ObjectRegistry registry;
    private final ValueCodec codec;

    ReplicatedTxMap(String name, Stm stm, ObjectRegistry registry, ValueCodec codec) {
        this.name = Objects.requireNonNull(name, "name");
        this.stm = Objects.requireNonNull(stm, "stm");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.codec = Objects.requireNonNull(codec, "codec");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public V get(K key) {
        return this.<V>box(key).get();
    }

    @Override
    public boolean containsKey(K key) {
        return get(key) != null;
    }

    @Override
    public void put(K key, V value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value (use remove to delete a key)");
        VBox<V> box = box(key); // refuses an unencodable key
        codec.checkEncodable(value);
        requireTransaction("put");
        box.put(value);
    }

    @Override
    public void remove(K key) {
        VBox<V> box = box(key);
        requireTransaction("remove");
        box.put(null);
    }

    /**
     * A box written outside a transaction would commit on its own; the map refuses that, so a write never
     * silently becomes a one-operation transaction.
     */
    private void requireTransaction(String operation) {
        if (stm.currentTransaction() == null) {
            throw new IllegalStateException("TxMap." + operation + " on map '" + name + "' needs a transaction;"
                    + " call it inside stm.atomic(...)");
        }
    }

    /** The key's box, the same on every replica (created on first use). */
    private <T> VBox<T> box(K key) {
        Objects.requireNonNull(key, "key");
        return Replica.rootBox(registry, ReplicaIds.keyId(name, codec.toBytes(key)));
    }

    @Override
    public String toString() {
        return "TxMap[" + name + "]";
    }
}
