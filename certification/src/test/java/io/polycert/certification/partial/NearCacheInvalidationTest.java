package io.polycert.certification.partial;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.polycert.core.group.MemberId;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An originator's commit returns once decided, and an owner applies it up to a message delay later. If the
 * originator reads a key it just wrote from an owner that has not applied the write yet, it caches the old value;
 * the owner must then tell it, like any other member that cached the key, when the write lands. Driven by hand on
 * owner B of [A, B, C] at degree 2, for a key A does not own.
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

    private List<ByteKey> invalidatedAt(MemberId member) {
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
        assertEquals(List.of(), invalidatedAt(A));
        engine.deliverDirect(C, Message.encode(new Message.Vote(A, 1, null)));
        assertArrayEquals(new byte[] {7}, engine.ownedValue(k.bytes));
        assertEquals(List.of(k), invalidatedAt(A), "A cached the value before its write: it must drop it");
    }
}
