package io.polycert.gcs;

import io.polycert.core.codec.CodecException;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.MemberId;

/** One position of the total order: who sent what (the origin's own sequence number identifies duplicates). */
record Entry(long seq, MemberId origin, long originSeq, byte kind, byte[] payload) {

    void write(ValueOutput out) {
        out.writeVarLong(seq);
        Wire.writeMember(out, origin);
        out.writeVarLong(originSeq).writeByte(kind).writeBytes(payload);
    }

    static Entry read(ValueInput in) {
        long seq = Wire.readPositive(in);
        MemberId origin = Wire.readMember(in);
        long originSeq = Wire.readPositive(in);
        byte kind = in.readByte();
        if (kind != MessageType.ENTRY_APP && kind != MessageType.ENTRY_TOM_RESOLVE && kind != MessageType.ENTRY_VIEW) {
            throw new CodecException("unknown entry kind " + kind);
        }
        return new Entry(seq, origin, originSeq, kind, in.readBytes());
    }

    /** The compact form in ORDER batches: the origin as its index in the epoch's view (both sides know it). */
    void writeCompact(ValueOutput out, java.util.List<MemberId> members) {
        int index = members.indexOf(origin);
        if (index < 0) {
            throw new IllegalStateException(origin + " ordered but not in the view " + members);
        }
        out.writeVarLong(seq).writeVarInt(index).writeVarLong(originSeq).writeByte(kind).writeBytes(payload);
    }

    static Entry readCompact(ValueInput in, java.util.List<MemberId> members) {
        long seq = Wire.readPositive(in);
        int index = in.readVarInt();
        if (index < 0 || index >= members.size()) {
            throw new CodecException("origin index " + index + " outside a view of " + members.size());
        }
        long originSeq = Wire.readPositive(in);
        byte kind = in.readByte();
        if (kind != MessageType.ENTRY_APP && kind != MessageType.ENTRY_TOM_RESOLVE) {
            throw new CodecException("entry kind " + kind + " in an ORDER batch");
        }
        return new Entry(seq, members.get(index), originSeq, kind, in.readBytes());
    }

    int size() {
        return payload.length + 48;
    }
}
