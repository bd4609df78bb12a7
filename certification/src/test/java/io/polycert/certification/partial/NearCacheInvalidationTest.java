package io.polycert.certification.partial;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.group.MemberId;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The near cache at a member that does not own a key. An originator's commit returns once decided, and an owner
 * applies it up to a message delay later: if the originator reads a key it just wrote from an owner that has not
 * applied the write yet, it caches the old value, and the owner must tell it, like any other member that cached
 * the key, when the write lands. And a transaction refused for a conflict evicts what it read, so that its retry
 * does not read a stale copy again. Driven by hand on [A, B, C] at degree 2, for a key B and C own.
 */
class NearCacheInvalidationTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final MemberId C = new MemberId(3, 3, "C");

    private final RecordingGroup group = new RecordingGroup(B, A, C);
    private final PartitionedEngine engine = group.place(PartitionedEngine.builder().identity(B).build());

    @AfterEach
    void close() {
        engine.close();
    }

    /** A key owned by B and C, not by A. */
    private static ByteKey keyOfBAndC() {
        for (int i = 0; ; i++) {
            ByteKey k = new ByteKey(new byte[] {'k', (byte) i});
            if (new HashRing(List.of(B, A, C), 2, 64).owners(k).containsAll(List.of(B, C))) {
                return k;
            }
        }
    }

    private static List<ByteKey> invalidatedAt(RecordingGroup group, MemberId member) {
        return group.sent.stream().filter(e -> e.getKey().equals(member))
                .map(e -> Message.decode(e.getValue()))
                .filter(m -> m instanceof Message.Invalidate)
                .flatMap(m -> ((Message.Invalidate) m).keys().stream()).toList();
    }

    @Test
    void theOriginatorHearsOfItsOwnWriteToAKeyItReadBeforeTheWriteLanded() {
        ByteKey k = keyOfBAndC();
        // A's write of k is decided elsewhere (C's yes reached A); A's next transaction reads k from B first.
        engine.deliverMulticast(A, Message.encode(new Message.Transaction(false, 1, 1,
                ConsistencyLevel.SERIALIZABLE, List.of(new Message.Write(k, new byte[] {7})), List.of())));
        engine.deliverDirect(A, Message.encode(new Message.Get(100, k, true)));
        assertEquals(List.of(), invalidatedAt(group, A));
        engine.deliverDirect(C, Message.encode(new Message.Vote(A, 1, null)));
        assertArrayEquals(new byte[] {7}, engine.ownedValue(k.bytes));
        assertEquals(List.of(k), invalidatedAt(group, A), "A cached the value before its write: it must drop it");
    }

    @Test
    void anOwnerRemembersABoundedNumberOfCachedKeysAndTellsTheCachersOfThoseItForgets() {
        // Keys B owns that nobody writes (absent ones, here): read once each by A, they would be remembered for ever.
        HashRing ring = new HashRing(List.of(B, A, C), 2, 64);
        List<ByteKey> keys = new java.util.ArrayList<>();
        for (int i = 0; keys.size() < 2_000; i++) {
            ByteKey k = new ByteKey(("absent-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            if (ring.isOwner(B, k)) {
                keys.add(k);
            }
        }
        RecordingGroup g = new RecordingGroup(B, A, C);
        // Near caches of 10 entries: the owner remembers at least 1,024 keys (four near caches, or that floor).
        try (PartitionedEngine owner = g.place(PartitionedEngine.builder().identity(B).nearCacheSize(10).build())) {
            for (int i = 0; i < keys.size(); i++) {
                owner.deliverDirect(A, Message.encode(new Message.Get(i, keys.get(i), true)));
            }
            int remembered = owner.cachedElsewhere();
            assertTrue(remembered >= 768 && remembered <= 1_024, "remembered " + remembered + " keys");
            List<ByteKey> forgotten = invalidatedAt(g, A);
            assertEquals(keys.size() - remembered, forgotten.size(), "each key forgotten is invalidated at A");
            assertEquals(keys.subList(0, forgotten.size()), forgotten, "the oldest go first");
            // A read that does not cache is not remembered at all.
            owner.deliverDirect(C, Message.encode(new Message.Get(9_999, keyOfBAndC(), false)));
            assertEquals(remembered, owner.cachedElsewhere());
        }
    }

    /** Member A, which owns no key of B and C's; the owners answer its reads at once, with version 3. */
    private static final class Reader implements AutoCloseable {
        final RecordingGroup group = new RecordingGroup(A, B, C);
        final PartitionedEngine engine = group.place(PartitionedEngine.builder().identity(A).build());
        final PartitionedEngine.Topology placement = engine.awaitPlacement();
        /** The owner each read went to, in order. */
        final List<MemberId> askedOf = new java.util.concurrent.CopyOnWriteArrayList<>();

        Reader() {
            group.onSend = (to, payload) -> {
                if (Message.decode(payload) instanceof Message.Get get) {
                    askedOf.add(to);
                    engine.deliverDirect(to, Message.encode(new Message.Value(get.request(), true, 3,
                            new byte[] {3})));
                }
            };
        }

        /** Reads {@code k} twice: the second read comes from the near cache. */
        void readTwice(ByteKey k) {
            engine.read(k, placement);
            engine.read(k, placement);
            assertEquals(1, askedOf.size(), "the second read came from the near cache");
        }

        @Override
        public void close() {
            engine.close();
        }
    }

    @Test
    void aConflictEvictsWhatTheTransactionReadSoTheRetryFetchesItAgain() throws Exception {
        ByteKey k = keyOfBAndC();
        try (Reader a = new Reader()) {
            a.readTwice(k);
            java.util.concurrent.CompletableFuture<Void> commit = java.util.concurrent.CompletableFuture.runAsync(
                    () -> a.engine.commit(a.placement, java.util.Map.of(k, new byte[] {4}), java.util.Map.of(k, 3L)));
            Message.Transaction tx;
            while ((tx = multicastTransaction(a.group)) == null) {
                Thread.sleep(1);
            }
            // Both owners of k refuse: the originator reports an abort once every owner of a key has.
            for (MemberId owner : List.of(B, C)) {
                a.engine.deliverDirect(owner, Message.encode(new Message.Vote(A, tx.seq(),
                        io.polycert.core.AbortCause.CONFLICT)));
            }
            java.util.concurrent.ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class,
                    () -> commit.get(10, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(io.polycert.core.AbortCause.CONFLICT,
                    ((io.polycert.core.TransactionAbortedException) failed.getCause()).abortCause());
            a.engine.read(k, a.placement);
            assertEquals(2, a.askedOf.size(), "after the conflict the read goes to an owner again");
        }
    }

    @Test
    void whenTheOwnerACopyCameFromLeavesTheCopyIsDroppedAndReadsGoToTheOthers() {
        ByteKey k = keyOfBAndC();
        try (Reader a = new Reader()) {
            a.readTwice(k);
            MemberId served = a.askedOf.get(0);
            io.polycert.core.group.View without = new io.polycert.core.group.View(2,
                    java.util.stream.Stream.of(A, B, C).filter(m -> !m.equals(served)).toList(), true);
            a.group.install(without);
            a.engine.viewInstalled(without, -1);
            a.engine.read(k, a.placement);
            assertEquals(2, a.askedOf.size(), "the copy from the member that left was dropped");
            assertTrue(!a.askedOf.get(1).equals(served), "and the read went to the owner still in the view");
        }
    }

    private static Message.Transaction multicastTransaction(RecordingGroup g) {
        synchronized (g) {
            return g.multicasts.stream().map(Message::decode).filter(m -> m instanceof Message.Transaction)
                    .map(m -> (Message.Transaction) m).findFirst().orElse(null);
        }
    }

}
