package io.polycert.core.testing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A thread-safe record of committed transactions over registers (keys holding long values), for the
 * {@link SerializationGraphChecker}. Tests write a unique value in every write so each read names its writer.
 * Every key starts with the value {@link #INITIAL_VALUE}, written by a virtual initial transaction.
 */
public final class History {
    public static final long INITIAL_VALUE = 0L;

    private final List<Txn> txns = Collections.synchronizedList(new ArrayList<>());

    /** A key and a value read or written. */
    public record Op(long key, long value) {
    }

    /**
     * A committed transaction.
     *
     * @param name for messages (e.g. "t3.17")
     * @param order where its writes fall in each key's version order (the commit version for a full-replication
     *     STM); read-only transactions may use any value
     * @param reads values read from other transactions (reads of its own writes are left out)
     * @param writes final values written, one per key
     */
    public record Txn(String name, long order, List<Op> reads, List<Op> writes) {
        public Txn {
            reads = List.copyOf(reads);
            writes = List.copyOf(writes);
        }

        public boolean isReadOnly() {
            return writes.isEmpty();
        }
    }

    public void add(Txn txn) {
        txns.add(txn);
    }

    public List<Txn> txns() {
        synchronized (txns) {
            return List.copyOf(txns);
        }
    }

    public int size() {
        return txns.size();
    }

    /** Builds a transaction record step by step (not thread-safe: one per transaction attempt). */
    public static final class Recorder {
        private final String name;
        private final List<Op> reads = new ArrayList<>();
        private final List<Op> writes = new ArrayList<>();

        public Recorder(String name) {
            this.name = name;
        }

        public void read(long key, long value) {
            for (Op w : writes) {
                if (w.key() == key) {
                    if (w.value() != value) {
                        throw new AssertionError(name + " read " + value + " from key " + key
                                + " after writing " + w.value() + " to it");
                    }
                    return;
                }
            }
            reads.add(new Op(key, value));
        }

        public void write(long key, long value) {
            writes.removeIf(w -> w.key() == key);
            writes.add(new Op(key, value));
        }

        public Txn committedAt(long order) {
            return new Txn(name, order, reads, writes);
        }
    }
}
