package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.polycert.core.codec.CodecException;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.MemberId;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class WireMembersTest {
    private final MemberId a = new MemberId(1, 1, "A");
    private final MemberId b = new MemberId(1, 2, "B");
    private final MemberId stranger = new MemberId(9, 9, "S");

    @Test
    void knownMembersDecodeToTheKnownInstanceAndTheRestReadAsBefore() {
        ValueOutput out = Wire.out((byte) 0);
        Wire.writeMembers(out, List.of(b, stranger, a));
        out.writeVarLong(42); // what follows must still be read in place
        ValueInput in = Wire.in(out.toByteArray());
        in.readByte();

        List<MemberId> read = Wire.readMembers(in, List.of(a, b));
        assertEquals(List.of(b, stranger, a), read);
        assertSame(b, read.get(0));
        assertSame(a, read.get(2));
        assertNotSame(stranger, read.get(1));
        assertEquals("S", read.get(1).name());
        assertEquals(42, in.readVarLong());
    }

    @Test
    void aKnownIdWithAnOverlongNameIsMalformed() {
        char[] name = new char[Wire.MAX_NAME * 3 + 1];
        Arrays.fill(name, 'x');
        ValueOutput out = Wire.out((byte) 0);
        Wire.writeMember(out, new MemberId(a.high(), a.low(), new String(name)));
        ValueInput in = Wire.in(out.toByteArray());
        in.readByte();
        assertThrows(CodecException.class, () -> Wire.readMember(in, List.of(a)));

        ValueInput unknown = Wire.in(out.toByteArray());
        unknown.readByte();
        assertThrows(CodecException.class, () -> Wire.readMember(unknown, List.of()));
    }

    @Test
    void aTruncatedNameIsMalformedForKnownIdsToo() {
        ValueOutput out = Wire.out((byte) 0);
        Wire.writeMember(out, a);
        byte[] bytes = out.toByteArray();
        ValueInput in = Wire.in(Arrays.copyOf(bytes, bytes.length - 1));
        in.readByte();
        assertThrows(CodecException.class, () -> Wire.readMember(in, List.of(a)));
    }
}
