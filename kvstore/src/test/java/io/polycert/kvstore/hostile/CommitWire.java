package io.polycert.kvstore.hostile;

import io.polycert.core.codec.CodecException;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.MemberId;
import java.util.Arrays;

/**
 * The wire form of full replication's messages, written down again from {@code PolymorphicReplicationManager}:
 * to build hostile variants of real messages field by field, and to tell which inputs the manager must drop (the
 * test only claims "nothing changes" for those, and for stale replays). Ordered messages: a commit
 * {@code [1, protocol, txId, snapshot, gossip, tag, writes (id, created)*, NVC read-id deltas | BFC filter | -,
 * values]} (a BFC filter: bits, hashes, seed, words; the tag: a number for the oracles)
 * or a resolution report {@code [3, origin (high, low, name), txId, state]}; reliable messages: a vote
 * {@code [2, txId, commit]}.
 */
final class CommitWire {
    static final int TX = 1;
    static final int VOTE = 2;
    static final int REPORT = 3;
    static final int NVC = 0;
    static final int BFC = 1;
    static final int VC = 2;

    private CommitWire() {
    }

    /** A commit message taken apart; {@code values} is the raw tail holding the written values. */
    record Tx(int protocol, long txId, long snapshot, byte[] gossip, long tag, long[] writeIds, boolean[] created,
            long[] readIds, int bloomBits, int bloomHashes, long bloomSeed, long[] bloomWords, byte[] values) {

        Tx withTxId(long id) {
            return new Tx(protocol, id, snapshot, gossip, tag, writeIds, created, readIds, bloomBits, bloomHashes,
                    bloomSeed, bloomWords, values);
        }

        Tx withSnapshot(long s) {
            return new Tx(protocol, txId, s, gossip, tag, writeIds, created, readIds, bloomBits, bloomHashes, bloomSeed,
                    bloomWords, values);
        }

        Tx withValues(byte[] v) {
            return new Tx(protocol, txId, snapshot, gossip, tag, writeIds, created, readIds, bloomBits, bloomHashes,
                    bloomSeed, bloomWords, v);
        }

        Tx withGossip(byte[] g) {
            return new Tx(protocol, txId, snapshot, g, tag, writeIds, created, readIds, bloomBits, bloomHashes,
                    bloomSeed, bloomWords, values);
        }
    }

    /** What the manager makes of an ordered message. */
    enum Verdict {
        /** Not a commit or report, or its header does not decode: dropped on delivery. */
        DROPPED,
        /** A commit whose header decodes but whose values do not: it is queued, and must never commit. */
        BAD_VALUES,
        /** A complete, well-formed commit: a real transaction of its sender. */
        WELL_FORMED_TX,
        /** A well-formed resolution report. */
        REPORT
    }

    record Parsed(Verdict verdict, Tx tx, MemberId reportedOrigin, long reportedTxId, int reportedState) {
    }

    private static final Parsed DROP = new Parsed(Verdict.DROPPED, null, null, 0, 0);

    /** Same header fields, length checks and order as the manager's {@code enqueue} and {@code onReport}. */
    static Parsed parseOrdered(byte[] payload) {
        Tx tx;
        try {
            ValueInput in = new ValueInput(HostileHarness.CODEC, payload, id -> {
                throw new CodecException("no box references in headers");
            });
            byte kind = in.readByte();
            if (kind == REPORT) {
                MemberId origin = new MemberId(in.readLong(), in.readLong(), in.readString());
                long txId = in.readVarLong();
                int state = in.readByte();
                if (state < 0 || state > 2) {
                    return DROP;
                }
                return new Parsed(Verdict.REPORT, null, origin, txId, state); // no check for trailing bytes
            }
            if (kind != TX) {
                return DROP;
            }
            int protocol = in.readByte();
            if (protocol < 0 || protocol > 2) {
                return DROP;
            }
            long txId = in.readVarLong();
            long snapshot = in.readVarLong();
            byte[] gossip = in.readBytes();
            long tag = in.readVarLong();
            int n = in.readLength(9);
            long[] writeIds = new long[n];
            boolean[] created = new boolean[n];
            for (int i = 0; i < n; i++) {
                writeIds[i] = in.readLong();
                created[i] = in.readBoolean();
            }
            long[] readIds = null;
            int bits = 0;
            int hashes = 0;
            long seed = 0;
            long[] words = null;
            if (protocol == NVC) {
                readIds = new long[in.readLength(1)];
                long previous = 0;
                for (int i = 0; i < readIds.length; i++) {
                    previous += in.readVarLong();
                    readIds[i] = previous;
                }
            } else if (protocol == BFC) {
                bits = in.readVarInt();
                hashes = in.readVarInt();
                seed = in.readLong();
                if (bits < 64 || bits > (1 << 28) || hashes < 1 || hashes > 30) {
                    return DROP;
                }
                int nw = (bits + 63) / 64;
                if ((long) nw * 8 > in.remaining()) {
                    return DROP;
                }
                words = new long[nw];
                for (int i = 0; i < nw; i++) {
                    words[i] = in.readLong();
                }
            }
            byte[] values = Arrays.copyOfRange(payload, payload.length - in.remaining(), payload.length);
            tx = new Tx(protocol, txId, snapshot, gossip, tag, writeIds, created, readIds, bits, hashes, seed, words,
                    values);
        } catch (RuntimeException e) {
            return DROP;
        }
        return new Parsed(valuesDecode(tx) ? Verdict.WELL_FORMED_TX : Verdict.BAD_VALUES, tx, null, 0, 0);
    }

    /** Whether the values decode as the manager decodes them when the transaction commits. */
    static boolean valuesDecode(Tx tx) {
        try {
            ValueInput in = new ValueInput(HostileHarness.CODEC, tx.values(), id -> null);
            for (int i = 0; i < tx.writeIds().length; i++) {
                in.readValue();
            }
            in.expectEnd();
            return true;
        } catch (RuntimeException | StackOverflowError e) {
            return false;
        }
    }

    /** A vote's transaction id and decision (1 commit, 0 abort), or null if the manager drops it. */
    static long[] parseVote(byte[] payload) {
        try {
            ValueInput in = new ValueInput(HostileHarness.CODEC, payload, id -> null);
            if (in.readByte() != VOTE) {
                return null;
            }
            long txId = in.readVarLong();
            boolean commit = in.readBoolean();
            in.expectEnd();
            return new long[] {txId, commit ? 1 : 0};
        } catch (RuntimeException e) {
            return null;
        }
    }

    // ---- building -----------------------------------------------------------------------------------------

    /** Which length field {@link #encode(Tx, Field, long)} lies about. */
    enum Field { NONE, GOSSIP_LENGTH, WRITE_COUNT, READ_COUNT, BLOOM_BITS, BLOOM_HASHES }

    static byte[] encode(Tx tx) {
        return encode(tx, Field.NONE, 0);
    }

    /** The message for {@code tx}, with the length field {@code lie} replaced by {@code claimed}. */
    static byte[] encode(Tx tx, Field lie, long claimed) {
        ValueOutput out = new ValueOutput(HostileHarness.CODEC, 64 + tx.values().length + tx.gossip().length
                + tx.writeIds().length * 9 + (tx.readIds() == null ? 0 : tx.readIds().length * 9)
                + (tx.bloomWords() == null ? 0 : tx.bloomWords().length * 8));
        out.writeByte(TX).writeByte(tx.protocol()).writeVarLong(tx.txId()).writeVarLong(tx.snapshot());
        length(out, lie == Field.GOSSIP_LENGTH, claimed, tx.gossip().length);
        out.writeRaw(tx.gossip(), 0, tx.gossip().length);
        out.writeVarLong(tx.tag());
        length(out, lie == Field.WRITE_COUNT, claimed, tx.writeIds().length);
        for (int i = 0; i < tx.writeIds().length; i++) {
            out.writeLong(tx.writeIds()[i]).writeBoolean(tx.created()[i]);
        }
        if (tx.protocol() == NVC) {
            long[] reads = tx.readIds() == null ? new long[0] : tx.readIds();
            length(out, lie == Field.READ_COUNT, claimed, reads.length);
            long previous = 0;
            for (long id : reads) {
                out.writeVarLong(id - previous);
                previous = id;
            }
        } else if (tx.protocol() == BFC) {
            long[] words = tx.bloomWords() == null ? new long[1] : tx.bloomWords();
            length(out, lie == Field.BLOOM_BITS, claimed, tx.bloomWords() == null ? 64 : tx.bloomBits());
            length(out, lie == Field.BLOOM_HASHES, claimed, tx.bloomWords() == null ? 1 : tx.bloomHashes());
            out.writeLong(tx.bloomSeed());
            for (long w : words) {
                out.writeLong(w);
            }
        }
        out.writeRaw(tx.values(), 0, tx.values().length);
        return out.toByteArray();
    }

    private static void length(ValueOutput out, boolean lie, long claimed, long actual) {
        out.writeVarLong(lie ? claimed : actual);
    }

    static byte[] vote(long txId, boolean commit) {
        return new ValueOutput(HostileHarness.CODEC, 16).writeByte(VOTE).writeVarLong(txId).writeBoolean(commit)
                .toByteArray();
    }

    static byte[] report(MemberId origin, long txId, int state) {
        return new ValueOutput(HostileHarness.CODEC, 48).writeByte(REPORT).writeLong(origin.high())
                .writeLong(origin.low()).writeString(origin.name()).writeVarLong(txId).writeByte(state).toByteArray();
    }
}
