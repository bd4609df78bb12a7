package io.polycert.certification.partial;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.polycert.core.AbortCause;
import io.polycert.core.codec.CodecException;
import io.polycert.core.group.MemberId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Hostile input to a live engine: 10^4 seeded malformed messages (truncated, bit-flipped, random, oversized
 * counts) on every entry point. Whatever does not decode is dropped and counted, changes no key, and never
 * escapes as an exception; the engine still commits afterwards.
 */
class PartitionedEngineFuzzTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");

    @Test
    void malformedMessagesAreDroppedAndChangeNothing() {
        PartitionedEngine engine = PartitionedEngine.builder().identity(A).build();
        RecordingGroup group = new RecordingGroup(A, B);
        engine.attach(group); // proposes the rebalance of view 1
        engine.deliverMulticast(A, group.multicasts.get(0));
        engine.deliverDirect(B, Message.encode(new Message.Done(1, 0)));
        assertTrue(engine.isReady(), "placed on [A, B]");

        List<Message.Write> writes = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            writes.add(new Message.Write(key(i), new byte[] {(byte) i}));
        }
        byte[] seed = Message.encode(new Message.Transaction(false, 1, 1, ConsistencyLevel.SERIALIZABLE, writes,
                List.of()));
        engine.deliverMulticast(B, seed); // nothing to validate: applied once B, the keys' other owner, agrees
        engine.deliverDirect(B, Message.encode(new Message.Vote(B, 1, null)));
        byte[][] before = snapshot(engine);
        assertEquals(1, engine.ownedVersion(key(3).bytes));

        List<byte[]> samples = List.of(seed,
                Message.encode(new Message.Transaction(true, 7, 1, ConsistencyLevel.SERIALIZABLE, writes,
                        List.of(new Message.Check(key(1), 1)))),
                Message.encode(new Message.Vote(B, 9, AbortCause.CONFLICT)),
                Message.encode(new Message.Outcome(9, true)),
                Message.encode(new Message.Get(3, key(2), true)),
                Message.encode(new Message.Value(3, true, 4, new byte[] {1, 2})),
                Message.encode(new Message.Invalidate(List.of(key(1), key(2)))),
                Message.encode(new Message.Rebalance(2, List.of(A, B))),
                Message.encode(new Message.Data(2, List.of(key(1)), new long[] {9}, List.of(new byte[] {9}))),
                Message.encode(new Message.Done(2, 1)));
        SplittableRandom random = new SplittableRandom(20261122);
        int malformed = 0;
        for (int n = 0; n < 10_000; n++) {
            byte[] input = mutate(samples.get(random.nextInt(samples.size())), random);
            if (decodes(input)) {
                continue; // well-formed: what it may do is the protocol's business (authentication is the GCS's)
            }
            malformed++;
            long dropped = engine.statistics().droppedMessages();
            try {
                if (random.nextBoolean()) {
                    engine.deliverDirect(B, input);
                } else {
                    engine.deliverMulticast(B, input);
                }
            } catch (Throwable t) {
                fail("case " + n + " (" + Arrays.toString(input) + ") escaped: " + t);
            }
            assertEquals(dropped + 1, engine.statistics().droppedMessages(), "case " + n + " was not counted");
        }
        assertTrue(malformed > 5_000, "only " + malformed + " malformed cases");
        byte[][] after = snapshot(engine);
        for (int i = 0; i < before.length; i++) {
            assertArrayEquals(before[i], after[i], "key " + i + " changed");
        }
        // Still alive: a new transaction is applied.
        engine.deliverMulticast(B, Message.encode(new Message.Transaction(false, 2, 1,
                ConsistencyLevel.SERIALIZABLE, List.of(new Message.Write(key(0), new byte[] {42})), List.of())));
        engine.deliverDirect(B, Message.encode(new Message.Vote(B, 2, null)));
        assertArrayEquals(new byte[] {42}, engine.ownedValue(key(0).bytes));
        engine.close();
    }

    private static byte[] mutate(byte[] valid, SplittableRandom random) {
        switch (random.nextInt(4)) {
            case 0 -> {
                return Arrays.copyOf(valid, random.nextInt(valid.length)); // truncated
            }
            case 1 -> {
                byte[] b = valid.clone();
                for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                    b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
                }
                return b;
            }
            case 2 -> {
                byte[] b = new byte[random.nextInt(64)];
                random.nextBytes(b);
                return b;
            }
            default -> {
                byte[] b = Arrays.copyOf(valid, valid.length + 1 + random.nextInt(8)); // trailing garbage
                for (int i = valid.length; i < b.length; i++) {
                    b[i] = (byte) random.nextInt();
                }
                return b;
            }
        }
    }

    private static boolean decodes(byte[] input) {
        try {
            Message.decode(input);
            return true;
        } catch (CodecException e) {
            return false;
        }
    }

    private static byte[][] snapshot(PartitionedEngine engine) {
        byte[][] values = new byte[10][];
        for (int i = 0; i < 10; i++) {
            values[i] = engine.ownedValue(key(i).bytes);
        }
        return values;
    }

    private static ByteKey key(int i) {
        return new ByteKey(new byte[] {'k', (byte) i});
    }
}
