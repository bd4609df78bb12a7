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

    int size() {
        return payload.length + 48;
    }
}
