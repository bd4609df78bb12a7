package io.polycert.certification.hostile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.polycert.certification.partial.ConsistencyLevel;
import io.polycert.certification.partial.PartitionedEngine;
import io.polycert.certification.partial.RecordingGroup;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.MemberId;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Hostile input to the partial-replication engine, beyond what {@code PartitionedEngineFuzzTest} covers (10^4
 * truncated, bit-flipped, short random and trailing-garbage messages): large and oversized payloads (64 KiB to
 * 16 MiB), lengths and counts claiming up to 2^31-1 items (nothing large may be allocated for them), replays of
 * valid messages (a transaction delivered again, votes and outcomes for transactions that are unknown or done,
 * placements and state transfers of a past epoch), votes naming another member as the transaction's originator,
 * and the warning about dropped input, which must be rate-limited. The messages are written by hand here (the
 * wire format is package-private), following {@code Message}.
 */
class PartitionedEngineHostileTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final MemberId C = new MemberId(3, 3, "C");
    private static final ValueCodec CODEC = ValueCodec.standard();
    private static final int TX = 1;
    private static final int VOTE = 3;
    private static final int OUTCOME = 4;
    private static final int GET = 5;
    private static final int VALUE = 6;
    private static final int INVALIDATE = 7;
    private static final int DATA = 9;
    private static final int REBALANCE = 14;
    private static final int DONE = 15;
    /** The wire format rebalances and "done" messages carry first (Message.FORMAT, package-private there). */
    private static final int FORMAT = 2;
    private static final int MAX_ITEMS = 1 << 22;

    private static byte[] message(int type, Consumer<ValueOutput> body) {
        ValueOutput out = new ValueOutput(CODEC, 64);
        out.writeByte(type);
        body.accept(out);
        return out.toByteArray();
    }

    private static void member(ValueOutput out, MemberId m) {
        out.writeLong(m.high()).writeLong(m.low()).writeString(m.name());
    }

    private static byte[] key(int i) {
        return new byte[] {'k', (byte) i};
    }

    /**
     * A transaction of B writing {@code value} to keys 0..9, with nothing to check (applied once B, the keys' other
     * owner, agrees: {@link #yesOfB}).
     */
    private static byte[] transaction(long seq, byte value) {
        return message(TX, out -> {
            out.writeVarLong(seq).writeVarLong(1).writeByte(ConsistencyLevel.SERIALIZABLE.ordinal()).writeVarInt(10);
            for (int i = 0; i < 10; i++) {
                out.writeBytes(key(i)).writeBoolean(true).writeBytes(new byte[] {value});
            }
            out.writeVarInt(0);
        });
    }

    /** B's yes vote on its transaction {@code seq}. */
    private static byte[] yesOfB(long seq) {
        return message(VOTE, out -> {
            member(out, B);
            out.writeVarLong(seq).writeVarInt(-1);
        });
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getCurrentThreadAllocatedBytes();
    }

    private static byte[][] snapshot(PartitionedEngine engine) {
        byte[][] values = new byte[20][];
        for (int i = 0; i < 10; i++) {
            values[i] = engine.ownedValue(key(i));
            values[10 + i] = new byte[] {(byte) engine.ownedVersion(key(i))};
        }
        return values;
    }

    @Test
    void oversizedLyingReplayedAndMisattributedMessagesChangeNothingAndWarnRarely() {
        Logger logger = (Logger) LoggerFactory.getLogger(PartitionedEngine.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            run(appender);
        } finally {
            logger.detachAppender(appender);
            appender.stop();
        }
    }

    private void run(ListAppender<ILoggingEvent> log) {
        PartitionedEngine engine = PartitionedEngine.builder().identity(A).build();
        RecordingGroup group = new RecordingGroup(A, B);
        engine.attach(group);
        engine.deliverMulticast(A, group.multicasts.get(0)); // the placement of view 1
        engine.deliverDirect(B, doneOfEpoch1());
        assertTrue(engine.isReady(), "placed on [A, B]");
        engine.deliverMulticast(B, transaction(1, (byte) 1));
        engine.deliverDirect(B, yesOfB(1));
        assertEquals(1, engine.ownedVersion(key(3)));
        byte[][] before = snapshot(engine);

        SplittableRandom random = new SplittableRandom(0xB16B00B5L);
        List<byte[]> malformed = new ArrayList<>();
        // large random payloads, up to 64 KiB, half of them starting with a real type
        for (int i = 0; i < 400; i++) {
            byte[] b = new byte[1024 + random.nextInt(64 * 1024)];
            random.nextBytes(b);
            if (random.nextBoolean()) {
                b[0] = (byte) (1 + random.nextInt(10));
            }
            malformed.add(b);
        }
        // oversized: 8 to 16 MiB
        for (int i = 0; i < 3; i++) {
            byte[] b = new byte[(8 << 20) + random.nextInt(8 << 20)];
            random.nextBytes(b);
            b[0] = (byte) (i == 0 ? TX : i == 1 ? DATA : INVALIDATE);
            malformed.add(b);
        }
        // counts and lengths that lie, up to 2^31-1, in every message with a list or a byte array
        long[] lies = {Integer.MAX_VALUE, MAX_ITEMS, MAX_ITEMS + 1, 1 << 30, 0xFFFF_FFFFL, -1};
        for (long lie : lies) {
            malformed.add(message(TX, out -> out.writeVarLong(9).writeVarLong(1).writeByte(3).writeVarLong(lie)));
            malformed.add(message(TX, out -> out.writeVarLong(9).writeVarLong(1).writeByte(3).writeVarInt(1)
                    .writeVarLong(lie)));
            malformed.add(message(TX, out -> out.writeVarLong(9).writeVarLong(1).writeByte(3).writeVarInt(0)
                    .writeVarLong(lie)));
            malformed.add(message(INVALIDATE, out -> out.writeVarLong(lie)));
            malformed.add(message(REBALANCE, out -> out.writeVarInt(FORMAT).writeVarLong(2).writeVarLong(lie)));
            malformed.add(message(DATA, out -> out.writeVarLong(2).writeVarLong(lie)));
            malformed.add(message(GET, out -> out.writeVarLong(1).writeVarLong(lie)));
            malformed.add(message(VALUE, out -> out.writeVarLong(1).writeBoolean(true).writeVarLong(1)
                    .writeBoolean(true).writeVarLong(lie)));
            malformed.add(message(VOTE, out -> out.writeLong(1).writeLong(1).writeVarLong(lie)));
        }
        // a DATA message with 4M entries claimed and 16 MiB of them present, but malformed at the end
        ValueOutput big = new ValueOutput(CODEC, 17 << 20);
        big.writeByte(DATA).writeVarLong(2).writeVarInt(MAX_ITEMS);
        for (int i = 0; i < MAX_ITEMS - 1; i++) {
            big.writeVarInt(1).writeByte(0).writeVarLong(1).writeBoolean(false);
        }
        malformed.add(big.toByteArray());

        int cases = 0;
        double maxPerByte = 0;
        for (byte[] input : malformed) {
            for (boolean direct : new boolean[] {true, false}) {
                cases++;
                long dropped = engine.statistics().droppedMessages();
                long start = allocated();
                try {
                    if (direct) {
                        engine.deliverDirect(B, input);
                    } else {
                        engine.deliverMulticast(B, input);
                    }
                } catch (Throwable t) {
                    fail("a message of " + input.length + " bytes starting " + input[0] + " escaped: " + t);
                }
                long used = allocated() - start;
                if (input.length >= 1 << 20) {
                    maxPerByte = Math.max(maxPerByte, (double) used / input.length);
                }
                // Proportional to what arrived, never to what a count claims. Decoding builds an object per key,
                // so 4M one-byte keys (the most a count may claim) take some 20 bytes per byte of input.
                assertTrue(used < 32L * input.length + (1 << 20), "a message of " + input.length + " bytes (type "
                        + input[0] + ") made the engine allocate " + used + " bytes");
                assertEquals(dropped + 1, engine.statistics().droppedMessages(), "not counted as dropped: type "
                        + input[0] + ", " + input.length + " bytes");
            }
        }

        // well-formed but stale, unknown or misattributed: no effect, and no drop needed
        List<byte[]> stray = List.of(
                message(VOTE, out -> { // a vote on a transaction of A that A never ran
                    member(out, A);
                    out.writeVarLong(77).writeVarInt(-1);
                }),
                message(VOTE, out -> { // a vote naming a third member as the originator
                    member(out, C);
                    out.writeVarLong(1).writeVarInt(0);
                }),
                message(OUTCOME, out -> out.writeVarLong(1).writeBoolean(false)), // for a finished transaction
                message(OUTCOME, out -> out.writeVarLong(12345).writeBoolean(true)), // for an unknown one
                message(VALUE, out -> out.writeVarLong(999).writeBoolean(true).writeVarLong(5).writeBoolean(true)
                        .writeBytes(new byte[] {9})), // a reply to a read never asked
                message(DATA, out -> { // state for the epoch already installed
                    out.writeVarLong(1).writeVarInt(1).writeBytes(key(2)).writeVarLong(99).writeBoolean(true)
                            .writeBytes(new byte[] {9});
                }),
                doneOfEpoch1()); // the transfer of epoch 1, again
        for (int round = 0; round < 10; round++) {
            for (byte[] m : stray) {
                cases++;
                engine.deliverDirect(B, m);
            }
        }
        // the placement of epoch 1 and the first transaction, ordered again
        engine.deliverMulticast(A, group.multicasts.get(0));
        cases++;
        byte[][] after = snapshot(engine);
        for (int i = 0; i < before.length; i++) {
            assertArrayEquals(before[i], after[i], (i < 10 ? "value" : "version") + " of key " + (i % 10)
                    + " changed");
        }
        assertTrue(engine.isReady(), "the engine left its placement");

        // Rate-limited: the first ten drops are logged, then the 16th, 32nd, ...: about 10 + log2(drops) lines.
        long drops = engine.statistics().droppedMessages();
        long warnings = log.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN)).count();
        assertTrue(drops >= 2 * malformed.size(), "drops: " + drops);
        assertTrue(warnings >= 1 && warnings <= 10 + 64 - Long.numberOfLeadingZeros(drops), warnings
                + " warnings for " + drops + " drops");
        System.out.printf("PartitionedEngineHostileTest: %d cases, %d dropped, %d warnings, at most %.1f bytes"
                + " allocated per byte of a message of 1 MiB or more%n", cases, drops, warnings, maxPerByte);

        // still applies new transactions
        engine.deliverMulticast(B, transaction(2, (byte) 42));
        engine.deliverDirect(B, yesOfB(2));
        assertArrayEquals(new byte[] {42}, engine.ownedValue(key(0)));
        engine.close();
    }

    /**
     * The "done" of the first placement from a member with no previous one and no lost keys: format, epoch,
     * previous epoch, previous members, their departures, lost regions.
     */
    private static byte[] doneOfEpoch1() {
        return message(DONE, out -> out.writeVarInt(FORMAT).writeVarLong(1).writeVarLong(0).writeVarInt(0)
                .writeVarInt(0).writeVarInt(0));
    }

    /**
     * A transaction delivered a second time (its sender multicast it again, same sequence number) must not be
     * applied twice: a replay of an old write would roll back whatever was written since.
     */
    @Test
    void aTransactionDeliveredAgainIsNotAppliedAgain() {
        PartitionedEngine engine = PartitionedEngine.builder().identity(A).build();
        RecordingGroup group = new RecordingGroup(A, B);
        engine.attach(group);
        engine.deliverMulticast(A, group.multicasts.get(0));
        engine.deliverDirect(B, doneOfEpoch1());
        byte[] first = transaction(1, (byte) 1);
        engine.deliverMulticast(B, first);
        engine.deliverDirect(B, yesOfB(1));
        engine.deliverMulticast(B, transaction(2, (byte) 2));
        engine.deliverDirect(B, yesOfB(2));
        engine.deliverMulticast(B, first); // the replay
        assertArrayEquals(new byte[] {2}, engine.ownedValue(key(0)), "the replay rolled key 0 back");
        assertEquals(2, engine.ownedVersion(key(0)));
        engine.close();
    }
}
