package io.polycert.certification.partial;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.polycert.core.AbortCause;
import io.polycert.core.codec.CodecException;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.MemberId;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class MessageTest {

    private static final HexFormat HEX = HexFormat.of();

    // ---------------------------------------------------------------- round trips of every message type

    private static ByteKey key(String s) {
        return new ByteKey(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static Message roundTrip(Message m) {
        Message decoded = Message.decode(Message.encode(m));
        assertSameMessage(m, decoded, m.getClass().getSimpleName());
        return decoded;
    }

    private static List<Message> samples() {
        MemberId a = new MemberId(0x0123456789abcdefL, -2L, "alpha");
        MemberId b = new MemberId(Long.MIN_VALUE, Long.MAX_VALUE, "bêta-日本");
        return List.of(
                new Message.Transaction(false, 42, 7, ConsistencyLevel.SERIALIZABLE,
                        List.of(new Message.Write(key("k1"), new byte[] {1, 2, 3}), new Message.Write(key("k2"), null),
                                new Message.Write(new ByteKey(new byte[0]), new byte[0])),
                        List.of(new Message.Check(key("k1"), 5), new Message.Check(key("k3"), -1))),
                new Message.Transaction(true, Long.MAX_VALUE, 0, ConsistencyLevel.READ_COMMITTED,
                        List.of(new Message.Write(key("x"), null)), List.of()),
                new Message.Transaction(true, -1, Long.MIN_VALUE, ConsistencyLevel.REPEATABLE_READ_WRITE_SKEW_CHECK,
                        List.of(), List.of(new Message.Check(key("y"), Long.MAX_VALUE))),
                new Message.Vote(a, 9, null),
                new Message.Vote(b, -9, AbortCause.CONFLICT),
                new Message.Vote(a, 0, AbortCause.EXPLICIT),
                new Message.VoteQuery(a, 9, 2),
                new Message.VoteQuery(b, -9, Long.MAX_VALUE),
                new Message.NoVote(a, 0),
                new Message.NoVote(b, Long.MIN_VALUE),
                new Message.Outcome(3, true),
                new Message.Outcome(-3, false),
                new Message.Get(11, key("g"), true),
                new Message.Get(-11, new ByteKey(new byte[0]), false),
                new Message.Value(12, true, 99, new byte[] {-1, 0, 127}),
                new Message.Value(13, false, -1, null),
                new Message.Value(14, true, 0, new byte[0]),
                new Message.Invalidate(List.of(key("i1"), key("i2"), new ByteKey(new byte[0]))),
                new Message.Invalidate(List.of()),
                new Message.Rebalance(5, List.of(a, b)),
                new Message.Rebalance(-5, List.of(b)),
                new Message.Data(6, List.of(key("d1"), key("d2"), key("d3")), new long[] {1, -1, Long.MIN_VALUE},
                        Arrays.asList(new byte[] {4, 5}, null, new byte[0])),
                new Message.Data(0, List.of(), new long[0], List.of()),
                new Message.Done(8),
                new Message.Done(Long.MIN_VALUE, -1),
                new Message.Done(9, 7, List.of(a, b), List.of(new Message.Lost(7, List.of(a, b), List.of(b)),
                        new Message.Lost(-1, List.of(b), List.of()))),
                new Message.Done(9, 7, List.of(a, b), List.of(0L, 8L), List.of(new Message.Lost(7, List.of(a, b),
                        List.of(a), List.of(0L, Long.MAX_VALUE)))),
                new Message.Done(9, 7, List.of(a, b), List.of(0L, 8L), List.of(new Message.Lost(7, List.of(a, b),
                        List.of(a), List.of(0L, 8L), List.of(b)))),
                new Message.Recover(7, List.of(key("r1"), key("r2")), new long[] {3, Long.MAX_VALUE},
                        Arrays.asList(new byte[] {1}, null)),
                new Message.Recover(0, List.of(), new long[0], List.of()),
                new Message.Recover(4, List.of(), new long[0], List.of(), false));
    }

    @Test
    void transactionWithAndWithoutPrepareRoundTrips() {
        for (Message m : samples()) {
            if (m instanceof Message.Transaction t) {
                Message.Transaction back = (Message.Transaction) roundTrip(t);
                assertEquals(t.prepare(), back.prepare());
            }
        }
        Message.Transaction tx = (Message.Transaction) samples().get(0);
        Message.Transaction back = (Message.Transaction) roundTrip(tx);
        assertNull(back.writes().get(1).value(), "a null write value (removal) survives");
        assertEquals(Message.TX, Message.encode(tx)[0]);
        assertEquals(Message.PREPARE, Message.encode(samples().get(1))[0]);
    }

    @Test
    void voteWithAndWithoutRefusalRoundTrips() {
        Message.Vote positive = (Message.Vote) roundTrip(new Message.Vote(MemberId.random("v"), 1, null));
        assertTrue(positive.positive());
        for (AbortCause cause : AbortCause.values()) {
            Message.Vote negative = (Message.Vote) roundTrip(new Message.Vote(MemberId.random("w"), 2, cause));
            assertEquals(cause, negative.refusal());
        }
    }

    /** Members the receiver knows decode to its own instances; unknown ones, and the rest of the message, as before. */
    @Test
    void membersNamedByVotesDecodeToTheKnownInstances() {
        MemberId origin = MemberId.random("origin");
        MemberId stranger = MemberId.random("stranger");
        List<MemberId> known = List.of(MemberId.random("other"), origin);
        Message.Vote vote = (Message.Vote) Message.decode(
                Message.encode(new Message.Vote(origin, 7, AbortCause.CONFLICT)), known);
        assertTrue(vote.origin() == origin, "the known instance");
        assertEquals(7, vote.seq());
        assertEquals(AbortCause.CONFLICT, vote.refusal());
        Message.VoteQuery query = (Message.VoteQuery) Message.decode(
                Message.encode(new Message.VoteQuery(stranger, 3, 4)), known);
        assertEquals(stranger, query.origin());
        assertEquals("stranger", query.origin().name());
        assertEquals(4, query.epoch());
        Message.NoVote noVote = (Message.NoVote) Message.decode(Message.encode(new Message.NoVote(origin, 5)), known);
        assertTrue(noVote.origin() == origin);
        byte[] truncated = Message.encode(new Message.Vote(origin, 7, null));
        assertThrows(CodecException.class,
                () -> Message.decode(Arrays.copyOf(truncated, 17 + 2), known), "a name cut short");
    }

    @Test
    void everySampleOfEveryTypeRoundTrips() {
        List<Class<?>> seen = new ArrayList<>();
        for (Message m : samples()) {
            roundTrip(m);
            if (!seen.contains(m.getClass())) {
                seen.add(m.getClass());
            }
        }
        assertEquals(Message.class.getPermittedSubclasses().length, seen.size(), "a message type has no sample");
    }

    @Test
    void valueWithNullValueRoundTrips() {
        Message.Value back = (Message.Value) roundTrip(new Message.Value(1, false, 0, null));
        assertNull(back.value());
    }

    @Test
    void randomMessagesRoundTrip() {
        for (long seed = 0; seed < 2_000; seed++) {
            Message m = randomMessage(new SplittableRandom(seed));
            byte[] bytes = Message.encode(m);
            Message back;
            try {
                back = Message.decode(bytes);
            } catch (Throwable t) {
                throw new AssertionError("seed " + seed + ": " + m + " as " + HEX.formatHex(bytes), t);
            }
            assertSameMessage(m, back, "seed " + seed);
        }
    }

    /** A member of another build says which format it speaks; this one says which it expects. */
    @Test
    void aRebalanceOrDoneOfAnotherWireFormatIsRefusedNamingBothFormats() {
        MemberId a = MemberId.random("a");
        for (Message m : List.of(new Message.Rebalance(3, List.of(a)), new Message.Done(3, 2))) {
            byte[] bytes = Message.encode(m);
            assertEquals(Message.FORMAT, bytes[1], "the format follows the type");
            bytes[1] = (byte) (Message.FORMAT + 1);
            CodecException e = assertThrows(Message.FormatMismatch.class, () -> Message.decode(bytes));
            assertTrue(e.getMessage().contains("format " + (Message.FORMAT + 1) + ", where this member's is "
                    + Message.FORMAT), e.getMessage());
        }
        // A build before format 2 sent these under other type codes, with no format: named as format 1.
        MemberId b = MemberId.random("b");
        ValueOutput rebalance = new ValueOutput(Message.CODEC, 64);
        rebalance.writeByte(Message.UNNUMBERED_REBALANCE).writeVarLong(2).writeVarInt(1).writeLong(b.high())
                .writeLong(b.low()).writeString(b.name());
        ValueOutput done = new ValueOutput(Message.CODEC, 64);
        done.writeByte(Message.UNNUMBERED_DONE).writeVarLong(2).writeVarLong(1).writeVarInt(0).writeVarInt(0)
                .writeVarInt(0);
        for (ValueOutput old : List.of(rebalance, done)) {
            CodecException e = assertThrows(Message.FormatMismatch.class, () -> Message.decode(old.toByteArray()));
            assertTrue(e.getMessage().contains("format 1, where this member's is " + Message.FORMAT), e.getMessage());
        }
    }

    @Test
    void rebalanceNamingNoMemberIsRejected() {
        byte[] bytes = Message.encode(new Message.Rebalance(1, List.of()));
        assertThrows(CodecException.class, () -> Message.decode(bytes));
    }

    @Test
    void departuresThatDoNotMatchTheMembersAreRejected() {
        MemberId a = MemberId.random("a");
        byte[] done = Message.encode(new Message.Done(2, 1, List.of(a), List.of(1L, 2L), List.of()));
        assertThrows(CodecException.class, () -> Message.decode(done));
        byte[] region = Message.encode(new Message.Done(2, 1, List.of(), List.of(new Message.Lost(1, List.of(a),
                List.of(), List.of(1L, 2L)))));
        assertThrows(CodecException.class, () -> Message.decode(region));
    }

    @Test
    void negativeDeparturesAreRejected() {
        MemberId a = MemberId.random("a");
        byte[] done = Message.encode(new Message.Done(2, 1, List.of(a), List.of(-1L), List.of()));
        assertThrows(CodecException.class, () -> Message.decode(done));
        byte[] region = Message.encode(new Message.Done(2, 1, List.of(), List.of(new Message.Lost(1, List.of(a),
                List.of(), List.of(-5L)))));
        assertThrows(CodecException.class, () -> Message.decode(region));
    }

    @Test
    void unknownTypeAndTrailingBytesAreRejected() {
        assertThrows(CodecException.class, () -> Message.decode(new byte[0]));
        for (int type : new int[] {0, 12, 127, -1, -128}) {
            assertThrows(CodecException.class, () -> Message.decode(new byte[] {(byte) type, 0, 0}), "type " + type);
        }
        byte[] done = Message.encode(new Message.Done(1));
        byte[] longer = Arrays.copyOf(done, done.length + 1);
        assertThrows(CodecException.class, () -> Message.decode(longer));
    }

    /** The encoding is prefix-free: every strict prefix of a valid encoding is rejected, never half-decoded. */
    @Test
    void everyStrictPrefixOfAValidEncodingIsRejected() {
        List<Message> messages = new ArrayList<>(samples());
        for (long seed = 0; seed < 300; seed++) {
            messages.add(randomMessage(new SplittableRandom(seed)));
        }
        for (Message m : messages) {
            byte[] bytes = Message.encode(m);
            for (int len = 0; len < bytes.length; len++) {
                byte[] prefix = Arrays.copyOf(bytes, len);
                try {
                    Message.decode(prefix);
                    fail("prefix of length " + len + " of " + m + " decoded: " + HEX.formatHex(prefix));
                } catch (CodecException expected) {
                    // rejected, as it must be
                } catch (Throwable t) {
                    throw new AssertionError("prefix " + HEX.formatHex(prefix) + " threw " + t, t);
                }
            }
        }
    }

    // ---------------------------------------------------------------- fuzzing

    /**
     * 10,000 seeded cases, a quarter of each kind: (a) random bytes, (b) a valid encoding truncated, (c) a valid
     * encoding with bytes flipped, (d) a huge declared count or length. Decode must return a message or throw
     * {@link CodecException}; a decoded message must survive a re-encode round trip.
     */
    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void fuzzedInputEitherDecodesOrThrowsCodecException() {
        long start = System.nanoTime();
        int decoded = 0;
        for (long seed = 0; seed < 10_000; seed++) {
            SplittableRandom random = new SplittableRandom(0xF022L * 1_000_003 + seed);
            switch ((int) (seed % 4)) {
                case 0 -> decoded += check(seed, "random bytes", randomBytes(random)) ? 1 : 0;
                case 1 -> {
                    byte[] valid = Message.encode(randomMessage(random));
                    if (valid.length <= 48) {
                        for (int len = 0; len < valid.length; len++) {
                            decoded += check(seed, "truncated at " + len, Arrays.copyOf(valid, len)) ? 1 : 0;
                        }
                    } else {
                        for (int i = 0; i < 8; i++) {
                            int len = random.nextInt(valid.length);
                            decoded += check(seed, "truncated at " + len, Arrays.copyOf(valid, len)) ? 1 : 0;
                        }
                    }
                }
                case 2 -> decoded += check(seed, "flipped bytes", flipped(random)) ? 1 : 0;
                default -> decoded += check(seed, "huge count", hugeCount(random)) ? 1 : 0;
            }
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis < 10_000, "fuzzing took " + millis + " ms");
        assertTrue(decoded > 0, "no fuzzed input ever decoded; the fuzzer is too destructive to be useful");
    }

    /** A huge declared count or length allocates in proportion to the input, not to the count. */
    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void hugeDeclaredCountsNeitherAllocateNorStall() {
        com.sun.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean()
                instanceof com.sun.management.ThreadMXBean t ? t : null;
        for (long seed = 0; seed < 2_000; seed++) {
            byte[] input = hugeCount(new SplittableRandom(seed));
            check(seed, "huge count (warm-up)", input); // first decode may load classes and link call sites
            long before = threads == null ? 0 : threads.getCurrentThreadAllocatedBytes();
            long t0 = System.nanoTime();
            check(seed, "huge count", input);
            long nanos = System.nanoTime() - t0;
            long allocated = threads == null ? 0 : threads.getCurrentThreadAllocatedBytes() - before;
            assertTrue(allocated < (1 << 20), "seed " + seed + ": decoding " + input.length + " bytes allocated "
                    + allocated + " bytes: " + HEX.formatHex(input));
            assertTrue(nanos < TimeUnit.MILLISECONDS.toNanos(200), "seed " + seed + ": decoding took " + nanos
                    + " ns: " + HEX.formatHex(input));
        }
    }

    /** Returns whether the input decoded; fails naming the seed when decode throws anything but CodecException. */
    private static boolean check(long seed, String what, byte[] input) {
        Message m;
        try {
            m = Message.decode(input);
        } catch (CodecException expected) {
            return false;
        } catch (Throwable t) {
            throw new AssertionError("seed " + seed + " (" + what + "): decode threw " + t + " on "
                    + HEX.formatHex(input), t);
        }
        assertInstanceOf(Message.class, m);
        try {
            assertSameMessage(m, Message.decode(Message.encode(m)), "seed " + seed + " (" + what + ") re-encoded");
        } catch (Throwable t) {
            throw new AssertionError("seed " + seed + " (" + what + "): the message decoded from "
                    + HEX.formatHex(input) + " does not round trip: " + t, t);
        }
        return true;
    }

    private static byte[] randomBytes(SplittableRandom random) {
        byte[] bytes = new byte[random.nextInt(65)];
        random.nextBytes(bytes);
        if (bytes.length > 0 && random.nextInt(4) != 0) {
            bytes[0] = (byte) (1 + random.nextInt(10)); // a valid type byte, to get past the switch
        }
        return bytes;
    }

    private static byte[] flipped(SplittableRandom random) {
        byte[] bytes = Message.encode(randomMessage(random));
        int flips = 1 + random.nextInt(4);
        for (int i = 0; i < flips; i++) {
            int at = random.nextInt(bytes.length);
            switch (random.nextInt(3)) {
                case 0 -> bytes[at] ^= (byte) (1 << random.nextInt(8));
                case 1 -> bytes[at] = (byte) random.nextInt(256);
                default -> bytes[at] = (byte) (random.nextBoolean() ? 0xFF : 0x80);
            }
        }
        return bytes;
    }

    /** A valid header, then a huge count or length, then a few valid items and some random tail bytes. */
    private static byte[] hugeCount(SplittableRandom random) {
        ValueOutput out = new ValueOutput(Message.CODEC, 64);
        int form = random.nextInt(9);
        Consumer<ValueOutput> item;
        switch (form) {
            case 0 -> { // transaction write count
                out.writeByte(random.nextBoolean() ? Message.TX : Message.PREPARE).writeVarLong(random.nextLong())
                        .writeVarLong(1).writeByte(random.nextInt(ConsistencyLevel.values().length));
                item = o -> o.writeBytes(new byte[] {1}).writeBoolean(false);
            }
            case 1 -> { // transaction check count
                out.writeByte(Message.TX).writeVarLong(1).writeVarLong(1).writeByte(0).writeVarInt(0);
                item = o -> o.writeBytes(new byte[] {2}).writeVarLong(3);
            }
            case 2 -> { // invalidate
                out.writeByte(Message.INVALIDATE);
                item = o -> o.writeBytes(new byte[] {4, 5});
            }
            case 3 -> { // rebalance
                out.writeByte(Message.REBALANCE).writeVarInt(Message.FORMAT).writeVarLong(2);
                item = o -> o.writeLong(1).writeLong(2).writeString("m");
            }
            case 4 -> { // data
                out.writeByte(Message.DATA).writeVarLong(3);
                item = o -> o.writeBytes(new byte[] {6}).writeVarLong(7).writeBoolean(random.nextBoolean());
            }
            case 5 -> { // key length of a get
                out.writeByte(Message.GET).writeVarLong(4);
                item = o -> o.writeByte(random.nextInt(256));
            }
            case 6 -> { // member name length of a vote
                out.writeByte(Message.VOTE).writeLong(random.nextLong()).writeLong(random.nextLong());
                item = o -> o.writeByte('a');
            }
            case 7 -> { // value length of a transaction's write
                out.writeByte(Message.TX).writeVarLong(1).writeVarLong(1).writeByte(0).writeVarInt(1)
                        .writeBytes(new byte[] {9}).writeBoolean(true);
                item = o -> o.writeByte(random.nextInt(256));
            }
            default -> { // value length of a value reply
                out.writeByte(Message.VALUE).writeVarLong(5).writeBoolean(true).writeVarLong(6).writeBoolean(true);
                item = o -> o.writeByte(random.nextInt(256));
            }
        }
        switch (random.nextInt(7)) {
            case 0 -> out.writeVarInt(Message.MAX_ITEMS);
            case 1 -> out.writeVarInt(Message.MAX_ITEMS + 1);
            case 2 -> out.writeVarInt(Integer.MAX_VALUE);
            case 3 -> out.writeVarInt(-1);
            case 4 -> out.writeVarInt(Integer.MIN_VALUE + random.nextInt(1 << 30));
            case 5 -> out.writeVarLong(random.nextLong()); // may not fit an int at all
            default -> out.writeVarInt(random.nextInt(1 << 16, Integer.MAX_VALUE));
        }
        int items = random.nextInt(20);
        for (int i = 0; i < items; i++) {
            item.accept(out);
        }
        byte[] tail = new byte[random.nextInt(9)];
        random.nextBytes(tail);
        out.writeRaw(tail, 0, tail.length);
        return out.toByteArray();
    }

    // ---------------------------------------------------------------- random messages

    private static Message randomMessage(SplittableRandom r) {
        return switch (r.nextInt(12)) {
            case 0, 1 -> {
                List<Message.Write> writes = new ArrayList<>();
                for (int i = r.nextInt(5); i > 0; i--) {
                    writes.add(new Message.Write(randomKey(r), nullableBytes(r)));
                }
                List<Message.Check> checks = new ArrayList<>();
                for (int i = r.nextInt(5); i > 0; i--) {
                    checks.add(new Message.Check(randomKey(r), randomLong(r)));
                }
                ConsistencyLevel[] levels = ConsistencyLevel.values();
                yield new Message.Transaction(r.nextBoolean(), randomLong(r), randomLong(r),
                        levels[r.nextInt(levels.length)], writes, checks);
            }
            case 2 -> new Message.Vote(randomMember(r), randomLong(r),
                    r.nextBoolean() ? null : AbortCause.values()[r.nextInt(AbortCause.values().length)]);
            case 3 -> new Message.Outcome(randomLong(r), r.nextBoolean());
            case 4 -> new Message.Get(randomLong(r), randomKey(r), r.nextBoolean());
            case 5 -> new Message.Value(randomLong(r), r.nextBoolean(), randomLong(r), nullableBytes(r));
            case 6 -> {
                List<ByteKey> keys = new ArrayList<>();
                for (int i = r.nextInt(6); i > 0; i--) {
                    keys.add(randomKey(r));
                }
                yield new Message.Invalidate(keys);
            }
            case 7 -> {
                List<MemberId> members = new ArrayList<>();
                for (int i = 1 + r.nextInt(4); i > 0; i--) {
                    members.add(randomMember(r));
                }
                yield new Message.Rebalance(randomLong(r), members);
            }
            case 8, 9 -> {
                int n = r.nextInt(5);
                List<ByteKey> keys = new ArrayList<>();
                long[] versions = new long[n];
                List<byte[]> values = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    keys.add(randomKey(r));
                    versions[i] = randomLong(r);
                    values.add(nullableBytes(r));
                }
                yield r.nextBoolean() ? new Message.Data(randomLong(r), keys, versions, values)
                        : new Message.Recover(randomLong(r), keys, versions, values, r.nextBoolean());
            }
            case 10 -> r.nextBoolean() ? new Message.VoteQuery(randomMember(r), randomLong(r), randomLong(r))
                    : new Message.NoVote(randomMember(r), randomLong(r));
            default -> {
                List<Message.Lost> lost = new ArrayList<>();
                for (int i = r.nextInt(3); i > 0; i--) {
                    List<MemberId> ring = randomMembers(r, 1);
                    lost.add(new Message.Lost(randomLong(r), ring, randomMembers(r, 0), randomLongs(r, ring.size()),
                            randomMembers(r, 0)));
                }
                List<MemberId> previous = randomMembers(r, 0);
                yield new Message.Done(randomLong(r), randomLong(r), previous, randomLongs(r, previous.size()), lost);
            }
        };
    }

    /** Departures for {@code n} members, or none: epochs, never negative (decoding refuses those). */
    private static List<Long> randomLongs(SplittableRandom r, int n) {
        List<Long> longs = new ArrayList<>();
        if (r.nextBoolean()) {
            for (int i = 0; i < n; i++) {
                long v = randomLong(r);
                longs.add(v < 0 ? (v == Long.MIN_VALUE ? Long.MAX_VALUE : -v) : v);
            }
        }
        return longs;
    }

    private static List<MemberId> randomMembers(SplittableRandom r, int least) {
        List<MemberId> members = new ArrayList<>();
        for (int i = least + r.nextInt(4); i > 0; i--) {
            members.add(randomMember(r));
        }
        return members;
    }

    private static long randomLong(SplittableRandom r) {
        return switch (r.nextInt(5)) {
            case 0 -> r.nextInt(128);
            case 1 -> r.nextInt(1 << 20);
            case 2 -> -1 - r.nextInt(1000);
            case 3 -> r.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE;
            default -> r.nextLong();
        };
    }

    private static byte[] bytes(SplittableRandom r, int max) {
        byte[] b = new byte[r.nextInt(max + 1)];
        r.nextBytes(b);
        return b;
    }

    private static byte[] nullableBytes(SplittableRandom r) {
        return r.nextInt(4) == 0 ? null : bytes(r, 12);
    }

    private static ByteKey randomKey(SplittableRandom r) {
        return new ByteKey(bytes(r, 10));
    }

    private static final String NAME_CHARS = "abcxyz019-_ éß日本\uD83D\uDE00";

    private static MemberId randomMember(SplittableRandom r) {
        StringBuilder name = new StringBuilder();
        for (int i = r.nextInt(8); i > 0; i--) {
            int at = r.nextInt(NAME_CHARS.length());
            if (Character.isSurrogate(NAME_CHARS.charAt(at))) {
                name.append("\uD83D\uDE00"); // keep the pair whole: the name must be valid UTF-16
            } else {
                name.append(NAME_CHARS.charAt(at));
            }
        }
        return new MemberId(r.nextLong(), r.nextLong(), name.toString());
    }

    // ---------------------------------------------------------------- field-by-field comparison

    private static void assertSameKey(ByteKey expected, ByteKey actual, String where) {
        assertArrayEquals(expected.bytes, actual.bytes, where + ": key");
        assertEquals(expected, actual, where + ": key equality");
    }

    private static void assertSameMember(MemberId expected, MemberId actual, String where) {
        assertEquals(expected.high(), actual.high(), where + ": member high");
        assertEquals(expected.low(), actual.low(), where + ": member low");
        assertEquals(expected.name(), actual.name(), where + ": member name");
    }

    private static void assertSameMessage(Message expected, Message actual, String where) {
        assertEquals(expected.getClass(), actual.getClass(), where + ": type");
        if (expected instanceof Message.Transaction e) {
            Message.Transaction a = (Message.Transaction) actual;
            assertEquals(e.prepare(), a.prepare(), where + ": prepare");
            assertEquals(e.seq(), a.seq(), where + ": seq");
            assertEquals(e.epoch(), a.epoch(), where + ": epoch");
            assertEquals(e.level(), a.level(), where + ": level");
            assertEquals(e.writes().size(), a.writes().size(), where + ": write count");
            for (int i = 0; i < e.writes().size(); i++) {
                assertSameKey(e.writes().get(i).key(), a.writes().get(i).key(), where + ": write " + i);
                assertArrayEquals(e.writes().get(i).value(), a.writes().get(i).value(), where + ": write value " + i);
            }
            assertEquals(e.checks().size(), a.checks().size(), where + ": check count");
            for (int i = 0; i < e.checks().size(); i++) {
                assertSameKey(e.checks().get(i).key(), a.checks().get(i).key(), where + ": check " + i);
                assertEquals(e.checks().get(i).version(), a.checks().get(i).version(), where + ": check version " + i);
            }
        } else if (expected instanceof Message.Vote e) {
            Message.Vote a = (Message.Vote) actual;
            assertSameMember(e.origin(), a.origin(), where + ": origin");
            assertEquals(e.seq(), a.seq(), where + ": seq");
            assertEquals(e.refusal(), a.refusal(), where + ": refusal");
        } else if (expected instanceof Message.Outcome e) {
            assertEquals(e, actual, where); // no arrays: record equality is field equality
        } else if (expected instanceof Message.Get e) {
            Message.Get a = (Message.Get) actual;
            assertEquals(e.request(), a.request(), where + ": request");
            assertSameKey(e.key(), a.key(), where);
            assertEquals(e.cache(), a.cache(), where + ": cache");
        } else if (expected instanceof Message.Value e) {
            Message.Value a = (Message.Value) actual;
            assertEquals(e.request(), a.request(), where + ": request");
            assertEquals(e.owned(), a.owned(), where + ": owned");
            assertEquals(e.version(), a.version(), where + ": version");
            assertArrayEquals(e.value(), a.value(), where + ": value");
        } else if (expected instanceof Message.Invalidate e) {
            Message.Invalidate a = (Message.Invalidate) actual;
            assertEquals(e.keys().size(), a.keys().size(), where + ": key count");
            for (int i = 0; i < e.keys().size(); i++) {
                assertSameKey(e.keys().get(i), a.keys().get(i), where + ": key " + i);
            }
        } else if (expected instanceof Message.Rebalance e) {
            Message.Rebalance a = (Message.Rebalance) actual;
            assertEquals(e.epoch(), a.epoch(), where + ": epoch");
            assertEquals(e.members().size(), a.members().size(), where + ": member count");
            for (int i = 0; i < e.members().size(); i++) {
                assertSameMember(e.members().get(i), a.members().get(i), where + ": member " + i);
            }
        } else if (expected instanceof Message.Data e) {
            Message.Data a = (Message.Data) actual;
            assertEquals(e.epoch(), a.epoch(), where + ": epoch");
            assertEquals(e.keys().size(), a.keys().size(), where + ": key count");
            assertArrayEquals(e.versions(), a.versions(), where + ": versions");
            assertEquals(e.values().size(), a.values().size(), where + ": value count");
            for (int i = 0; i < e.keys().size(); i++) {
                assertSameKey(e.keys().get(i), a.keys().get(i), where + ": key " + i);
                assertArrayEquals(e.values().get(i), a.values().get(i), where + ": value " + i);
            }
        } else if (expected instanceof Message.Recover e) {
            Message.Recover a = (Message.Recover) actual;
            assertEquals(e.placement(), a.placement(), where + ": placement");
            assertEquals(e.complete(), a.complete(), where + ": complete");
            assertEquals(e.keys().size(), a.keys().size(), where + ": key count");
            assertArrayEquals(e.versions(), a.versions(), where + ": versions");
            for (int i = 0; i < e.keys().size(); i++) {
                assertSameKey(e.keys().get(i), a.keys().get(i), where + ": key " + i);
                assertArrayEquals(e.values().get(i), a.values().get(i), where + ": value " + i);
            }
        } else if (expected instanceof Message.Done || expected instanceof Message.VoteQuery
                || expected instanceof Message.NoVote) {
            assertEquals(expected, actual, where); // members are records: list equality is field equality
        } else {
            fail(where + ": no comparison for " + expected.getClass());
        }
    }
}
