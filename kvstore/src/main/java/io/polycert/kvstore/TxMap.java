package io.polycert.kvstore;

/**
 * A transactional map: its operations take part in the calling thread's transaction, next to any other map or
 * box of the same store, and commit or abort with it. Keys and values cross the wire through the store's
 * allow-listed codec; a key's identity is its encoded form, so two keys are the same key on every member
 * exactly when they encode to the same bytes.
 *
 * <p>Values are never null: a null from {@link #get} means the key is absent, and {@link #put} refuses null
 * (use {@link #remove}).
 *
 * <p>Two implementations: {@link Replica#map} (full replication: the certification engine) and
 * {@link PartitionedStore#map} (partial replication: each key lives on its owners only).
 *
 * @param <K> key type (must be encodable by the store's codec)
 * @param <V> value type (must be encodable by the store's codec; treat values as immutable)
 */
public interface TxMap<K, V> {

    /** The map's name, the same on every member. */
    String name();

    /**
     * The key's value in the current transaction, or null when absent. Outside a transaction: the latest
     * committed value this member can see.
     */
    V get(K key);

    /** Whether the key has a value in the current transaction (or, outside one, the latest committed state). */
    boolean containsKey(K key);

    /**
     * Sets the key's value in the current transaction.
     *
     * @throws NullPointerException if key or value is null
     * @throws io.polycert.core.codec.UnregisteredTypeException if the key or value cannot cross the wire
     * @throws IllegalStateException if there is no transaction
     * @throws io.polycert.core.ReadOnlyTransactionException in a read-only transaction
     */
    void put(K key, V value);

    /**
     * Removes the key in the current transaction (nothing happens if it is absent).
     *
     * @throws IllegalStateException if there is no transaction
     * @throws io.polycert.core.ReadOnlyTransactionException in a read-only transaction
     */
    void remove(K key);
}
