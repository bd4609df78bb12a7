package io.polycert.gcs;

import io.polycert.core.codec.BoxResolver;
import io.polycert.core.codec.CodecException;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.MemberId;
import java.util.ArrayList;
import java.util.List;

/**
 * Encoding helpers shared by the engine's layers. Reading is bounds-checked throughout: malformed input throws
 * {@link CodecException}, which the engine counts and drops.
 */
final class Wire {
    private static final ValueCodec CODEC = ValueCodec.standard();
    static final int MAX_MEMBERS = 10_000;
    /**
     * The group layer's wire format. Raise it with any change to the layout of any message of this package. Every
     * recovery message (exchanged at each view change, so by every joiner) leads with it, so members of builds
     * that would misread each other are told so, both formats named, instead of diverging. Format 1 is the first
     * numbered one; builds before it sent their recovery messages under other type numbers, recognized too. Format 2
     * added {@link MessageType#BATCH}. Format 3 added the sender's epoch to reliable broadcasts' copies and
     * acknowledgements. Format 4 carries, in each state chunk, the ballot of the epoch it was taken at.
     */
    static final int FORMAT = 4;
    static final int MAX_NAME = 256;

    private Wire() {
    }

    static ValueOutput out(byte type) {
        return new ValueOutput(CODEC, 64).writeByte(type);
    }

    static ValueOutput out(byte type, int capacity) {
        return new ValueOutput(CODEC, capacity).writeByte(type);
    }

    static ValueInput in(byte[] message) {
        return new ValueInput(CODEC, message, BoxResolver.none());
    }

    static void writeMember(ValueOutput out, MemberId m) {
        out.writeLong(m.high()).writeLong(m.low()).writeString(m.name());
    }

    static MemberId readMember(ValueInput in) {
        return readMember(in, List.of());
    }

    /**
     * Like {@link #readMember(ValueInput)}, but returns the instance in {@code known} with the same id when there is
     * one, skipping the name (ids alone decide equality; names are labels). Total-order multicast names its origin
     * and destinations in every message: this keeps a busy member from decoding the same few members, a string
     * each, hundreds of thousands of times a second.
     */
    static MemberId readMember(ValueInput in, List<MemberId> known) {
        long high = in.readLong();
        long low = in.readLong();
        for (int i = 0; i < known.size(); i++) {
            MemberId m = known.get(i);
            if (m.high() == high && m.low() == low) {
                int bytes = in.skipBytes();
                if (bytes > 3 * MAX_NAME) { // UTF-8 spends at most 3 bytes per UTF-16 unit of a name
                    throw new CodecException("member name of " + bytes + " bytes");
                }
                return m;
            }
        }
        String name = in.readString();
        if (name.length() > MAX_NAME) {
            throw new CodecException("member name of " + name.length() + " characters");
        }
        return new MemberId(high, low, name);
    }

    /** Members as {@link #writeMembers} wrote them, each through {@link #readMember(ValueInput, List)}. */
    static List<MemberId> readMembers(ValueInput in, List<MemberId> known) {
        int n = in.readLength(17);
        if (n > MAX_MEMBERS) {
            throw new CodecException(n + " members");
        }
        List<MemberId> members = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            members.add(readMember(in, known));
        }
        return members;
    }

    static void writeMembers(ValueOutput out, List<MemberId> members) {
        out.writeVarInt(members.size());
        for (MemberId m : members) {
            writeMember(out, m);
        }
    }

    static List<MemberId> readMembers(ValueInput in) {
        return readMembers(in, List.of());
    }

    /** A non-negative varlong (sequence numbers, epochs, counts). */
    static long readPositive(ValueInput in) {
        long v = in.readVarLong();
        if (v < 0) {
            throw new CodecException("negative number " + v);
        }
        return v;
    }
}
