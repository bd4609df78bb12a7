package io.polycert.certification.partial;

import io.polycert.core.AbortCause;
import io.polycert.core.codec.CodecException;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.MemberId;
import java.util.ArrayList;
import java.util.List;

/**
 * The messages of partial replication and their wire form. Decoding checks every length and tag and throws
 * {@link CodecException} on anything malformed; the engine drops such a message and logs it.
 */
sealed interface Message {

    /** A written key: value null removes it. */
    record Write(ByteKey key, byte[] value) {
    }

    /** A key read at a version, to validate. */
    record Check(ByteKey key, long version) {
    }

    /**
     * A transaction to certify and apply: multicast in total order to its owners ({@code TX}) or sent to each
     * for two-phase commit ({@code PREPARE}).
     */
    record Transaction(boolean prepare, long seq, long epoch, ConsistencyLevel level, List<Write> writes,
            List<Check> checks) implements Message {
    }

    /** One owner's vote on a transaction (also a destination's refusal of a stale epoch). */
    record Vote(MemberId origin, long seq, AbortCause refusal) implements Message {
        boolean positive() {
            return refusal == null;
        }
    }

    /**
     * A destination that voted and still waits for votes asks an owner for its vote on a transaction certified
     * under placement {@code epoch}: the vote may have been lost with a connection, or the owner dropped the
     * transaction while cut off.
     */
    record VoteQuery(MemberId origin, long seq, long epoch) implements Message {
    }

    /**
     * The answer of an owner that dropped the transaction without voting (cut off before its turn came) and has
     * moved past its placement, so it will never vote yes on it. A key whose every owner says so was voted yes by
     * nobody, so the transaction committed nowhere.
     */
    record NoVote(MemberId origin, long seq) implements Message {
    }

    /** The originator's outcome of a two-phase commit. */
    record Outcome(long seq, boolean commit) implements Message {
    }

    record Get(long request, ByteKey key, boolean cache) implements Message {
    }

    /** The reply to {@link Get}: {@code owned} false when the member no longer owns the key. */
    record Value(long request, boolean owned, long version, byte[] value) implements Message {
    }

    /** Keys whose near-cached copies are stale. */
    record Invalidate(List<ByteKey> keys) implements Message {
    }

    /** A new placement, multicast in total order to all members. */
    record Rebalance(long epoch, List<MemberId> members) implements Message {
    }

    /** State moving to a new owner. */
    record Data(long epoch, List<ByteKey> keys, long[] versions, List<byte[]> values) implements Message {
    }

    /**
     * The sender has sent all its data for the epoch. {@code previousEpoch} is the placement it held before this
     * one, or -1 if it was cut off from the majority since: a sender whose previous placement is older than
     * another's missed a placement, and its data may have diverged. {@code previousMembers} are the members of
     * that placement (empty for none), and {@code previousLeft}, for each of them, the epoch of the first primary
     * view after that placement, up to this epoch, that it was not in (0 if none; the list is empty when not
     * known): the order in which owners left tells when a lost key can be served again (see {@link LostRegion}).
     * {@code lost} are the regions of keys it knows no fresh copy of.
     */
    record Done(long epoch, long previousEpoch, List<MemberId> previousMembers, List<Long> previousLeft,
            List<Lost> lost) implements Message {
        Done(long epoch, long previousEpoch, List<MemberId> previousMembers, List<Lost> lost) {
            this(epoch, previousEpoch, previousMembers, List.of(), lost);
        }

        Done(long epoch, long previousEpoch) {
            this(epoch, previousEpoch, List.of(), List.of());
        }

        Done(long epoch) {
            this(epoch, 0);
        }
    }

    /**
     * A region of keys no member holds a fresh copy of: those whose owners under the placement {@code placement}
     * (of the members {@code ring}) are all outside {@code holders}, or back only partly (see {@link LostRegion}).
     * {@code left} gives, for each member of {@code ring}, when it left (the epoch of the first primary view after
     * the placement without it; {@link Long#MAX_VALUE} when it left after every departure known; 0 for a member
     * that went through the placement fresh); empty when not known: every member outside {@code holders} then
     * counts as having left last. {@code answered} are the members of {@code ring} back since without a copy
     * complete for the placement (they never completed its rebalance, so they hold nothing written under it).
     */
    record Lost(long placement, List<MemberId> ring, List<MemberId> holders, List<Long> left,
            List<MemberId> answered) {
        Lost(long placement, List<MemberId> ring, List<MemberId> holders) {
            this(placement, ring, holders, List.of());
        }

        Lost(long placement, List<MemberId> ring, List<MemberId> holders, List<Long> left) {
            this(placement, ring, holders, left, List.of());
        }
    }

    /**
     * A member back with the copies it held under placement {@code placement} of keys lost since (multicast in
     * total order to all members, so all take them, and stop refusing its region, at the same point).
     * {@code complete} is false for a member that never completed the rebalance of {@code placement} (it owned
     * keys under it, and was cut off before it received them all): it sends no keys, only that it is back and
     * holds nothing written under that placement, as it voted on nothing under it (see {@link LostRegion}).
     */
    record Recover(long placement, List<ByteKey> keys, long[] versions, List<byte[]> values, boolean complete)
            implements Message {
        Recover(long placement, List<ByteKey> keys, long[] versions, List<byte[]> values) {
            this(placement, keys, versions, values, true);
        }
    }

    int TX = 1;
    int PREPARE = 2;
    int VOTE = 3;
    int OUTCOME = 4;
    int GET = 5;
    int VALUE = 6;
    int INVALIDATE = 7;
    /** The rebalance and "done" of builds before format 2, which carried no format: recognised, refused. */
    int UNNUMBERED_REBALANCE = 8;
    int DATA = 9;
    int UNNUMBERED_DONE = 10;
    int RECOVER = 11;
    int VOTE_QUERY = 12;
    int NO_VOTE = 13;
    int REBALANCE = 14;
    int DONE = 15;

    /**
     * The partial-replication wire format, carried by the rebalance and "done" messages every member exchanges
     * whenever the view changes. Raise it with any change to any message here: members of different formats cannot
     * read each other, and this way they say so ({@link FormatMismatch}) rather than misread. Format 2 is the first
     * that carries it, under new type codes: the older codes (builds that changed the "done" message without a
     * format) are taken as format 1.
     */
    int FORMAT = 2;

    /** A message of another wire format: the sender runs another PolyCert build (no rolling upgrade across it). */
    final class FormatMismatch extends CodecException {
        private static final long serialVersionUID = 1L;

        FormatMismatch(String what, int format) {
            super(what + " of partial-replication wire format " + format + ", where this member's is " + FORMAT
                    + ": every member must run a build of the same format (no rolling upgrade across formats)");
        }
    }

    ValueCodec CODEC = ValueCodec.standard();
    AbortCause[] CAUSES = AbortCause.values();
    ConsistencyLevel[] LEVELS = ConsistencyLevel.values();
    /** Upper bound on list lengths, so a corrupted count cannot make us allocate gigabytes. */
    int MAX_ITEMS = 1 << 22;

    static byte[] encode(Message m) {
        ValueOutput out = new ValueOutput(CODEC, 64);
        if (m instanceof Transaction t) {
            out.writeByte(t.prepare() ? PREPARE : TX).writeVarLong(t.seq()).writeVarLong(t.epoch())
                    .writeByte(t.level().ordinal()).writeVarInt(t.writes().size());
            for (Write w : t.writes()) {
                out.writeBytes(w.key().bytes);
                writeNullable(out, w.value());
            }
            out.writeVarInt(t.checks().size());
            for (Check c : t.checks()) {
                out.writeBytes(c.key().bytes).writeVarLong(c.version());
            }
        } else if (m instanceof Vote v) {
            out.writeByte(VOTE);
            writeMember(out, v.origin());
            out.writeVarLong(v.seq()).writeVarInt(v.refusal() == null ? -1 : v.refusal().ordinal());
        } else if (m instanceof VoteQuery q) {
            out.writeByte(VOTE_QUERY);
            writeMember(out, q.origin());
            out.writeVarLong(q.seq()).writeVarLong(q.epoch());
        } else if (m instanceof NoVote n) {
            out.writeByte(NO_VOTE);
            writeMember(out, n.origin());
            out.writeVarLong(n.seq());
        } else if (m instanceof Outcome o) {
            out.writeByte(OUTCOME).writeVarLong(o.seq()).writeBoolean(o.commit());
        } else if (m instanceof Get g) {
            out.writeByte(GET).writeVarLong(g.request()).writeBytes(g.key().bytes).writeBoolean(g.cache());
        } else if (m instanceof Value v) {
            out.writeByte(VALUE).writeVarLong(v.request()).writeBoolean(v.owned()).writeVarLong(v.version());
            writeNullable(out, v.value());
        } else if (m instanceof Invalidate inv) {
            out.writeByte(INVALIDATE).writeVarInt(inv.keys().size());
            for (ByteKey k : inv.keys()) {
                out.writeBytes(k.bytes);
            }
        } else if (m instanceof Rebalance r) {
            out.writeByte(REBALANCE).writeVarInt(FORMAT).writeVarLong(r.epoch());
            writeMembers(out, r.members());
        } else if (m instanceof Data d) {
            out.writeByte(DATA).writeVarLong(d.epoch());
            writeEntries(out, d.keys(), d.versions(), d.values());
        } else if (m instanceof Recover r) {
            out.writeByte(RECOVER).writeVarLong(r.placement());
            writeEntries(out, r.keys(), r.versions(), r.values());
            out.writeByte(r.complete() ? 1 : 0);
        } else if (m instanceof Done d) {
            out.writeByte(DONE).writeVarInt(FORMAT).writeVarLong(d.epoch()).writeVarLong(d.previousEpoch());
            writeMembers(out, d.previousMembers());
            writeDepartures(out, d.previousLeft());
            out.writeVarInt(d.lost().size());
            for (Lost l : d.lost()) {
                out.writeVarLong(l.placement());
                writeMembers(out, l.ring());
                writeMembers(out, l.holders());
                writeDepartures(out, l.left());
                writeMembers(out, l.answered());
            }
        }
        return out.toByteArray();
    }

    static Message decode(byte[] bytes) {
        return decode(bytes, List.of());
    }

    /**
     * Decodes a message; the originator a vote names decodes to the instance in {@code known} with its id, if any
     * (see {@link #readMember(ValueInput, List)}).
     */
    static Message decode(byte[] bytes, List<MemberId> known) {
        ValueInput in = new ValueInput(CODEC, bytes, null);
        int type = in.readByte();
        Message m = switch (type) {
            case TX, PREPARE -> {
                long seq = in.readVarLong();
                long epoch = in.readVarLong();
                ConsistencyLevel level = LEVELS[index(in.readByte(), LEVELS.length, "level")];
                int nw = count(in.readVarInt());
                List<Write> writes = new ArrayList<>(Math.min(nw, 1024));
                for (int i = 0; i < nw; i++) {
                    writes.add(new Write(new ByteKey(in.readBytes()), readNullable(in)));
                }
                int nc = count(in.readVarInt());
                List<Check> checks = new ArrayList<>(Math.min(nc, 1024));
                for (int i = 0; i < nc; i++) {
                    checks.add(new Check(new ByteKey(in.readBytes()), in.readVarLong()));
                }
                yield new Transaction(type == PREPARE, seq, epoch, level, writes, checks);
            }
            case VOTE -> {
                MemberId origin = readMember(in, known);
                long seq = in.readVarLong();
                int cause = in.readVarInt();
                yield new Vote(origin, seq, cause < 0 ? null : CAUSES[index(cause, CAUSES.length, "cause")]);
            }
            case VOTE_QUERY -> new VoteQuery(readMember(in, known), in.readVarLong(), in.readVarLong());
            case NO_VOTE -> new NoVote(readMember(in, known), in.readVarLong());
            case OUTCOME -> new Outcome(in.readVarLong(), in.readBoolean());
            case GET -> new Get(in.readVarLong(), new ByteKey(in.readBytes()), in.readBoolean());
            case VALUE -> new Value(in.readVarLong(), in.readBoolean(), in.readVarLong(), readNullable(in));
            case INVALIDATE -> {
                int n = count(in.readVarInt());
                List<ByteKey> keys = new ArrayList<>(Math.min(n, 1024));
                for (int i = 0; i < n; i++) {
                    keys.add(new ByteKey(in.readBytes()));
                }
                yield new Invalidate(keys);
            }
            case REBALANCE -> {
                expectFormat(in, "a rebalance");
                long epoch = in.readVarLong();
                List<MemberId> members = readMembers(in);
                if (members.isEmpty()) {
                    throw new CodecException("a rebalance names no member");
                }
                yield new Rebalance(epoch, members);
            }
            case DATA, RECOVER -> {
                long epoch = in.readVarLong();
                int n = count(in.readVarInt());
                List<ByteKey> keys = new ArrayList<>(Math.min(n, 1024));
                long[] versions = new long[Math.min(n, in.remaining())];
                List<byte[]> values = new ArrayList<>(Math.min(n, 1024));
                for (int i = 0; i < n; i++) {
                    keys.add(new ByteKey(in.readBytes()));
                    versions[i] = in.readVarLong();
                    values.add(readNullable(in));
                }
                if (type == DATA) {
                    yield new Data(epoch, keys, versions, values);
                }
                int complete = in.readByte();
                if (complete != 0 && complete != 1) {
                    throw new CodecException("a recovery says it is complete with " + complete);
                }
                yield new Recover(epoch, keys, versions, values, complete == 1);
            }
            case DONE -> {
                expectFormat(in, "a \"done\" message");
                long epoch = in.readVarLong();
                long previous = in.readVarLong();
                List<MemberId> previousMembers = readMembers(in);
                List<Long> previousLeft = readDepartures(in, previousMembers.size(), "previous members");
                int n = count(in.readVarInt());
                List<Lost> lost = new ArrayList<>(Math.min(n, 64));
                for (int i = 0; i < n; i++) {
                    long placement = in.readVarLong();
                    List<MemberId> ring = readMembers(in);
                    if (ring.isEmpty()) {
                        throw new CodecException("a lost region names no placement member");
                    }
                    List<MemberId> holders = readMembers(in);
                    List<Long> left = readDepartures(in, ring.size(), "placement members");
                    lost.add(new Lost(placement, ring, holders, left, readMembers(in)));
                }
                yield new Done(epoch, previous, previousMembers, previousLeft, lost);
            }
            case UNNUMBERED_REBALANCE -> throw new FormatMismatch("a rebalance", 1);
            case UNNUMBERED_DONE -> throw new FormatMismatch("a \"done\" message", 1);
            default -> throw new CodecException("unknown partial-replication message type " + type);
        };
        in.expectEnd();
        return m;
    }

    private static void expectFormat(ValueInput in, String what) {
        int format = in.readVarInt();
        if (format != FORMAT) {
            throw new FormatMismatch(what, format);
        }
    }

    private static void writeEntries(ValueOutput out, List<ByteKey> keys, long[] versions, List<byte[]> values) {
        out.writeVarInt(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            out.writeBytes(keys.get(i).bytes).writeVarLong(versions[i]);
            writeNullable(out, values.get(i));
        }
    }

    private static void writeMembers(ValueOutput out, List<MemberId> members) {
        out.writeVarInt(members.size());
        for (MemberId m : members) {
            writeMember(out, m);
        }
    }

    private static List<MemberId> readMembers(ValueInput in) {
        int n = count(in.readVarInt());
        List<MemberId> members = new ArrayList<>(Math.min(n, 1024));
        for (int i = 0; i < n; i++) {
            members.add(readMember(in));
        }
        return members;
    }

    private static void writeDepartures(ValueOutput out, List<Long> longs) {
        out.writeVarInt(longs.size());
        for (long l : longs) {
            out.writeVarLong(l);
        }
    }

    /** Departures (epochs, 0 for none), one per member of a list of {@code members} members, or none. */
    private static List<Long> readDepartures(ValueInput in, int members, String what) {
        int n = count(in.readVarInt());
        if (n != 0 && n != members) {
            throw new CodecException(n + " departures for " + members + " " + what);
        }
        List<Long> longs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long v = in.readVarLong();
            if (v < 0) { // an epoch, 0 for none: a negative one would win every earliest-departure merge
                throw new CodecException("negative departure " + v + " for " + what);
            }
            longs.add(v);
        }
        return longs;
    }

    private static void writeNullable(ValueOutput out, byte[] value) {
        out.writeBoolean(value != null);
        if (value != null) {
            out.writeBytes(value);
        }
    }

    private static byte[] readNullable(ValueInput in) {
        return in.readBoolean() ? in.readBytes() : null;
    }

    private static void writeMember(ValueOutput out, MemberId m) {
        out.writeLong(m.high()).writeLong(m.low()).writeString(m.name());
    }

    private static MemberId readMember(ValueInput in) {
        return new MemberId(in.readLong(), in.readLong(), in.readString());
    }

    /**
     * The instance in {@code known} with the id read, its name skipped (ids alone decide equality), else a new one:
     * votes name their transaction's originator, and the ids of the transactions decided here are kept a while;
     * sharing the member keeps a string per vote out of them.
     */
    private static MemberId readMember(ValueInput in, List<MemberId> known) {
        long high = in.readLong();
        long low = in.readLong();
        for (int i = 0; i < known.size(); i++) {
            MemberId m = known.get(i);
            if (m.high() == high && m.low() == low) {
                in.skipBytes();
                return m;
            }
        }
        return new MemberId(high, low, in.readString());
    }

    private static int count(int n) {
        if (n < 0 || n > MAX_ITEMS) {
            throw new CodecException("bad item count " + n);
        }
        return n;
    }

    private static int index(int i, int size, String what) {
        if (i < 0 || i >= size) {
            throw new CodecException("bad " + what + " " + i);
        }
        return i;
    }
}
