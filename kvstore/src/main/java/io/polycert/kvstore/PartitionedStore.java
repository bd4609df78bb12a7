package io.polycert.kvstore;

import io.polycert.certification.partial.CommitProtocol;
import io.polycert.certification.partial.ConsistencyLevel;
import io.polycert.certification.partial.KeyUnavailableException;
import io.polycert.certification.partial.PartitionedEngine;
import io.polycert.certification.partial.PartitionedStatistics;
import io.polycert.certification.partial.PartitionedTransaction;
import io.polycert.core.AbortCause;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.group.GroupMember;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import io.polycert.gcs.GroupStack;
import io.polycert.gcs.JGroupsGroup;
import io.polycert.gcs.TomVariant;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * One member of a partially replicated key-value store: each key lives on {@code replicationDegree} members
 * chosen by consistent hashing, and a transaction commits among the owners of its keys only (Skeen total-order
 * multicast, as in Ruivo's protocol; or the two-phase-commit baseline).
 *
 * <pre>{@code
 * try (PartitionedStore store = PartitionedStore.builder("shop").replicationDegree(2).start()) {
 *     TxMap<String, Long> stock = store.map("stock");
 *     store.atomic(() -> stock.put("apple", stock.get("apple") - 1));
 * }
 * }</pre>
 *
 * Transactions run on the calling thread; {@link #atomic} retries those that abort for a retryable cause. The
 * guarantees of each {@link ConsistencyLevel} are in docs/PARTIAL.md.
 */
public final class PartitionedStore implements AutoCloseable {
    private final PartitionedEngine engine;
    private final JGroupsGroup group;
    private final ValueCodec codec;
    private final int maxAttempts;
    private final ThreadLocal<PartitionedTransaction> current = new ThreadLocal<>();

    private PartitionedStore(PartitionedEngine engine, JGroupsGroup group, ValueCodec codec, int maxAttempts) {
        this.engine = engine;
        this.group = group;
        this.codec = codec;
        this.maxAttempts = maxAttempts;
    }

    public static Builder builder(String cluster) {
        return new Builder(cluster);
    }

    /** The map named {@code name} (the same on every member). Cheap: create it where convenient. */
    public <K, V> TxMap<K, V> map(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a map name must not be empty");
        }
        return new PartitionedTxMap<>(this, name);
    }

    /**
     * Runs {@code body} in a read-write transaction and commits it, retrying (up to the configured attempts) when
     * it aborts for a retryable cause. Nested in a running transaction, it joins it.
     *
     * @throws TransactionAbortedException if the cause is not retryable or the attempts ran out
     */
    public <T> T atomic(Supplier<T> body) {
        return run(body, false);
    }

    public void atomic(Runnable body) {
        Objects.requireNonNull(body, "body");
        run(() -> {
            body.run();
            return null;
        }, false);
    }

    /**
     * Runs {@code body} in a read-only transaction: writes throw. Under serializable a read-only transaction that
     * read more than one key is validated by their owners, so it can abort (and is retried).
     */
    public <T> T readOnly(Supplier<T> body) {
        return run(body, true);
    }

    private <T> T run(Supplier<T> body, boolean readOnly) {
        Objects.requireNonNull(body, "body");
        PartitionedTransaction outer = current.get();
        if (outer != null) {
            if (!readOnly && outer.isReadOnly()) {
                throw new io.polycert.core.ReadOnlyTransactionException(
                        "a read-write transaction cannot run inside a read-only one");
            }
            return body.get();
        }
        Map<AbortCause, Integer> causes = null;
        for (int attempt = 1; ; attempt++) {
            PartitionedTransaction tx = engine.begin(readOnly);
            current.set(tx);
            try {
                T result = body.get();
                tx.commit();
                return result;
            } catch (KeyUnavailableException e) {
                throw new KeyUnavailableException(e.key(), PartitionedTxMap.describeKey(codec, e.key()) + ": "
                        + e.getMessage());
            } catch (TransactionAbortedException e) {
                if (!e.abortCause().isRetryable()) {
                    throw e;
                }
                if (causes == null) {
                    causes = new EnumMap<>(AbortCause.class);
                }
                causes.merge(e.abortCause(), 1, Integer::sum);
                if (attempt >= maxAttempts) {
                    throw new TransactionAbortedException(e.abortCause(), "transaction gave up after " + attempt
                            + " attempts " + causes + "; last: " + e.getMessage(), e, attempt);
                }
            } catch (RuntimeException | Error e) {
                tx.abort();
                throw e;
            } finally {
                current.remove();
            }
            backOff(attempt);
        }
    }

    private static void backOff(int attempt) {
        // Randomized and growing: transactions that conflicted should not meet again at once.
        long maxMicros = Math.min(50L << Math.min(attempt, 6), 5_000);
        LockSupport.parkNanos(1_000 * ThreadLocalRandom.current().nextLong(1, maxMicros));
    }

    PartitionedTransaction currentTransaction() {
        return current.get();
    }

    PartitionedEngine engine() {
        return engine;
    }

    ValueCodec codec() {
        return codec;
    }

    public PartitionedStatistics statistics() {
        return engine.statistics();
    }

    /** Counters of the group layer under this member (messages and bytes sent). */
    public io.polycert.core.group.GroupStatistics groupStatistics() {
        return group.statistics();
    }

    public ConsistencyLevel consistency() {
        return engine.level();
    }

    public CommitProtocol protocol() {
        return engine.protocol();
    }

    public MemberId self() {
        return group.self();
    }

    public View view() {
        return group.view();
    }

    /** What the commit protocol waits for, for diagnostics (one line per transaction in progress). */
    public String describeState() {
        return engine.describeState();
    }

    /** This member's group (statistics, and fault injection in tests and harnesses), as for {@link Replica#group()}. */
    public GroupMember group() {
        return group;
    }

    /** Whether this member has a placement and holds all the keys it owns (no rebalance under way). */
    public boolean isReady() {
        return engine.isReady();
    }

    /** The placement's epoch (changes with every rebalance; 0 before the first). */
    public long placementEpoch() {
        return engine.epoch();
    }

    /** Keys (including tombstones of removed keys) this member holds as an owner. */
    public int ownedKeys() {
        return engine.ownedKeys();
    }

    /** The members that own a map's key under the current placement, primary first (an unmodifiable list). */
    public java.util.List<MemberId> owners(String map, Object key) {
        return engine.owners(PartitionedTxMap.encodeKey(codec, map, key));
    }

    /**
     * This member's own committed copy of a key it owns, without a transaction or a message; null when absent or
     * not owned here. For checks and tools.
     */
    public Object ownedValue(String map, Object key) {
        byte[] bytes = engine.ownedValue(PartitionedTxMap.encodeKey(codec, map, key));
        return bytes == null ? null : PartitionedTxMap.decodeValue(codec, bytes);
    }

    /** This member's committed version of a key it owns (0 when not held). */
    public long ownedVersion(String map, Object key) {
        return engine.ownedVersion(PartitionedTxMap.encodeKey(codec, map, key));
    }

    @Override
    public void close() {
        engine.close();
        group.close();
    }

    @Override
    public String toString() {
        return "PartitionedStore[" + group.self() + ", " + engine.level() + ", " + engine.protocol() + "]";
    }

    /** Configures a member; every member of a cluster must use the same codec, level, protocol and degree. */
    public static final class Builder {
        private final String cluster;
        private final PartitionedEngine.Builder engine = PartitionedEngine.builder();
        private String memberName = "member";
        private GroupStack stack = GroupStack.embedded();
        private ValueCodec codec = ValueCodec.standard();
        private TomVariant tomVariant;
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

        /** The allow-list of key and value types (default: the built-in types). */
        public Builder codec(ValueCodec codec) {
            this.codec = Objects.requireNonNull(codec, "codec");
            return this;
        }

        /** Default {@link ConsistencyLevel#SERIALIZABLE}. */
        public Builder consistency(ConsistencyLevel level) {
            engine.consistency(level);
            return this;
        }

        /** Default {@link CommitProtocol#TOTAL_ORDER}. */
        public Builder protocol(CommitProtocol protocol) {
            engine.protocol(protocol);
            return this;
        }

        /** The total-order multicast variant (TOM-3 or TOM-2; the group layer's default otherwise). */
        public Builder tomVariant(TomVariant variant) {
            this.tomVariant = Objects.requireNonNull(variant, "variant");
            return this;
        }

        /** Members holding each key (default 2). */
        public Builder replicationDegree(int degree) {
            engine.replicationDegree(degree);
            return this;
        }

        public Builder virtualNodes(int n) {
            engine.virtualNodes(n);
            return this;
        }

        public Builder nearCacheSize(long entries) {
            engine.nearCacheSize(entries);
            return this;
        }

        /** Two-phase commit only: how long a prepare waits for a lock. */
        public Builder lockTimeout(Duration timeout) {
            engine.lockTimeout(timeout);
            return this;
        }

        public Builder readTimeout(Duration timeout) {
            engine.readTimeout(timeout);
            return this;
        }

        /** How long a commit waits for its outcome before reporting it unknown (default 30 s). */
        public Builder outcomeTimeout(Duration timeout) {
            engine.outcomeTimeout(timeout);
            return this;
        }

        /**
         * How many times a thread waiting for its commit's outcome or a remote read yields its core before it
         * parks (default 100; zero parks at once): see {@code CertificationSettings.outcomeYields}.
         */
        public Builder outcomeYields(int yields) {
            engine.outcomeYields(yields);
            return this;
        }

        /**
         * Threads that apply committed transactions at this member, total order only (default 0: on the group's
         * delivery thread). Transactions writing a common key keep delivery order; disjoint ones run in parallel.
         */
        public Builder applyThreads(int threads) {
            engine.applyThreads(threads);
            return this;
        }

        /**
         * Members needed to found the group and to place keys (default 1): set it to the intended cluster size
         * to avoid moving keys while the members start.
         */
        public Builder minimumMembers(int n) {
            engine.minimumMembers(n);
            this.minimumMembers = n;
            return this;
        }

        /** Attempts {@link #atomic} makes before giving up (default 100). */
        public Builder maxAttempts(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("max attempts must be >= 1, was " + n);
            }
            this.maxAttempts = n;
            return this;
        }

        public Builder joinTimeout(Duration timeout) {
            this.joinTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        public PartitionedStore start() {
            MemberId identity = MemberId.random(memberName);
            PartitionedEngine e = engine.identity(identity).build();
            JGroupsGroup.Builder g = JGroupsGroup.builder(cluster).identity(identity).stack(stack).listener(e).inlineDelivery()
                    .minimumMembers(minimumMembers).joinTimeout(joinTimeout);
            if (tomVariant != null) {
                g.tomVariant(tomVariant);
            }
            JGroupsGroup group;
            try {
                group = g.join();
            } catch (RuntimeException ex) {
                e.close();
                throw ex;
            }
            e.attach(group);
            return new PartitionedStore(e, group, codec, maxAttempts);
        }
    }
}
