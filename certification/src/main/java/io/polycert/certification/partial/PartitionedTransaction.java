package io.polycert.certification.partial;

import io.polycert.core.AbortCause;
import io.polycert.core.ReadOnlyTransactionException;
import io.polycert.core.TransactionAbortedException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One transaction over a {@link PartitionedEngine}, keys and values as bytes. Reads of keys this member owns are
 * local; others go to an owner (or the near cache). Writes stay here until {@link #commit}. Not thread-safe:
 * one thread runs it.
 */
public final class PartitionedTransaction {
    private enum Status { ACTIVE, COMMITTED, ABORTED }

    private final PartitionedEngine engine;
    private final PartitionedEngine.Topology placement;
    private final boolean readOnly;
    private final ConsistencyLevel level;
    /** Versions read (and, for repeatable reads, the values returned). */
    private final Map<ByteKey, Versioned> reads = new LinkedHashMap<>();
    /** Keys written, in write order; a null value removes the key. */
    private final Map<ByteKey, byte[]> writes = new LinkedHashMap<>();
    private Status status = Status.ACTIVE;

    PartitionedTransaction(PartitionedEngine engine, PartitionedEngine.Topology placement, boolean readOnly) {
        this.engine = engine;
        this.placement = placement;
        this.readOnly = readOnly;
        this.level = engine.level();
    }

    public boolean isReadOnly() {
        return readOnly;
    }

    /** The value of a key in this transaction, or null when it is absent. */
    public byte[] get(byte[] key) {
        checkActive();
        ByteKey k = new ByteKey(Objects.requireNonNull(key, "key"));
        if (writes.containsKey(k)) {
            return writes.get(k);
        }
        if (level.repeatableReads()) {
            Versioned seen = reads.get(k);
            if (seen != null) {
                return seen.value();
            }
        }
        Versioned v;
        try {
            v = engine.read(k, placement);
        } catch (RuntimeException e) {
            status = Status.ABORTED;
            throw e;
        }
        if (level.repeatableReads()) {
            reads.put(k, v);
        } else {
            reads.putIfAbsent(k, v); // read committed: only the first version, for write-skew bookkeeping
        }
        return v.value();
    }

    /** Sets a key's value in this transaction; a null value removes the key. */
    public void put(byte[] key, byte[] value) {
        checkActive();
        Objects.requireNonNull(key, "key");
        if (readOnly) {
            throw new ReadOnlyTransactionException("a read-only transaction cannot write a key");
        }
        writes.put(new ByteKey(key), value);
    }

    /**
     * Commits: read-only transactions (and, below serializable, any that wrote nothing) commit at once; others
     * are certified by the owners of their keys.
     *
     * @throws TransactionAbortedException if it could not commit; nothing it wrote is visible anywhere
     * @throws OutcomeUnknownException if the outcome could not be learned
     */
    public void commit() {
        checkActive();
        Map<ByteKey, Long> checks = new LinkedHashMap<>();
        if (level == ConsistencyLevel.SERIALIZABLE) {
            reads.forEach((k, v) -> checks.put(k, v.version()));
        } else if (level == ConsistencyLevel.REPEATABLE_READ_WRITE_SKEW_CHECK) {
            reads.forEach((k, v) -> {
                if (writes.containsKey(k)) {
                    checks.put(k, v.version());
                }
            });
        }
        boolean certify = !writes.isEmpty() || (level == ConsistencyLevel.SERIALIZABLE && checks.size() > 1);
        if (!certify) {
            status = Status.COMMITTED;
            engine.stats.readOnlyLocal.increment();
            return;
        }
        try {
            engine.commit(placement, writes, checks);
            status = Status.COMMITTED;
        } catch (RuntimeException e) {
            status = Status.ABORTED;
            if (e instanceof TransactionAbortedException t && t.abortCause() == AbortCause.CONFLICT) {
                // Some read was stale, perhaps from the near cache: read those keys afresh next time.
                engine.nearCache.invalidateAll(reads.keySet());
            }
            throw e;
        }
    }

    /** Abandons the transaction: nothing it wrote is sent. */
    public void abort() {
        if (status == Status.ACTIVE) {
            status = Status.ABORTED;
        }
    }

    public boolean isActive() {
        return status == Status.ACTIVE;
    }

    private void checkActive() {
        if (status != Status.ACTIVE) {
            throw new IllegalStateException("the transaction is " + status.name().toLowerCase()
                    + "; begin a new one");
        }
    }
}
