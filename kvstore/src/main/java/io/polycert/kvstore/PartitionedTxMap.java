package io.polycert.kvstore;

import io.polycert.certification.partial.PartitionedTransaction;
import io.polycert.core.codec.BoxResolver;
import io.polycert.core.codec.CodecException;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import java.util.Objects;

/** A {@link TxMap} over a {@link PartitionedStore}: a key's identity is the map name and the encoded key. */
final class PartitionedTxMap<K, V> implements TxMap<K, V> {
    private static final BoxResolver NO_BOXES = id -> {
        throw new CodecException("a partitioned map value refers to VBox#" + id + "; boxes live in a Replica's STM"
                + " and cannot be stored in a partitioned map");
    };

    private final PartitionedStore store;
    private final String name;

    PartitionedTxMap(PartitionedStore store, String name) {
        this.store = store;
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V get(K key) {
        byte[] k = encodeKey(store.codec(), name, key);
        PartitionedTransaction tx = store.currentTransaction();
        if (tx == null) {
            return store.readOnly(() -> get(key)); // a one-read transaction of its own
        }
        byte[] v = tx.get(k);
        return v == null ? null : (V) decodeValue(store.codec(), v);
    }

    @Override
    public boolean containsKey(K key) {
        return get(key) != null;
    }

    @Override
    public void put(K key, V value) {
        Objects.requireNonNull(value, "value (use remove to delete a key)");
        byte[] k = encodeKey(store.codec(), name, key);
        byte[] v = store.codec().toBytes(value);
        transaction("put").put(k, v);
    }

    @Override
    public void remove(K key) {
        transaction("remove").put(encodeKey(store.codec(), name, key), null);
    }

    private PartitionedTransaction transaction(String operation) {
        PartitionedTransaction tx = store.currentTransaction();
        if (tx == null) {
            throw new IllegalStateException(operation + " on map '" + name + "' needs a transaction: call it inside"
                    + " store.atomic(...)");
        }
        return tx;
    }

    static byte[] encodeKey(ValueCodec codec, String map, Object key) {
        Objects.requireNonNull(key, "key");
        if (key instanceof io.polycert.core.VBox) {
            throw new IllegalArgumentException("a VBox cannot be a partitioned map key");
        }
        ValueOutput out = new ValueOutput(codec, 32);
        out.writeString(map);
        out.writeValue(key);
        return out.toByteArray();
    }

    /** "map 'm', key 'k'" for an encoded key, for messages; the raw length if it does not decode. */
    static String describeKey(ValueCodec codec, byte[] key) {
        try {
            ValueInput in = new ValueInput(codec, key, NO_BOXES);
            return "map '" + in.readString() + "', key '" + in.readValue() + "'";
        } catch (RuntimeException e) {
            return "a key of " + key.length + " bytes";
        }
    }

    static Object decodeValue(ValueCodec codec, byte[] bytes) {
        return codec.fromBytes(bytes, NO_BOXES);
    }

    @Override
    public String toString() {
        return "PartitionedTxMap[" + name + "]";
    }
}
