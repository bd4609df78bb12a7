package io.polycert.core.codec;

import io.polycert.core.VBox;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable byte buffer that values are encoded into. Big-endian, with varints for lengths and tags. */
public final class ValueOutput {
    private final ValueCodec codec;
    private byte[] buf;
    private int pos;
    private int depth;

    public ValueOutput(ValueCodec codec) {
        this(codec, 64);
    }

    public ValueOutput(ValueCodec codec, int initialCapacity) {
        this.codec = codec;
        this.buf = new byte[Math.max(16, initialCapacity)];
    }

    /** Writes any allow-listed value (or null), with its type tag. */
    public ValueOutput writeValue(Object value) {
        if (++depth > ValueCodec.MAX_DEPTH) {
            throw new CodecException("value nested deeper than " + ValueCodec.MAX_DEPTH + " levels");
        }
        try {
            codec.encode(value, this);
        } finally {
            depth--;
        }
        return this;
    }

    /** Writes a reference to a box (its id); read back with {@link ValueInput#readBox()}. */
    public ValueOutput writeBox(VBox<?> box) {
        return writeVarLong(box.id());
    }

    public ValueOutput writeBoolean(boolean v) {
        return writeByte(v ? 1 : 0);
    }

    public ValueOutput writeByte(int v) {
        ensure(1);
        buf[pos++] = (byte) v;
        return this;
    }

    public ValueOutput writeShort(int v) {
        ensure(2);
        buf[pos++] = (byte) (v >>> 8);
        buf[pos++] = (byte) v;
        return this;
    }

    public ValueOutput writeChar(char v) {
        return writeShort(v);
    }

    public ValueOutput writeInt(int v) {
        ensure(4);
        buf[pos++] = (byte) (v >>> 24);
        buf[pos++] = (byte) (v >>> 16);
        buf[pos++] = (byte) (v >>> 8);
        buf[pos++] = (byte) v;
        return this;
    }

    public ValueOutput writeLong(long v) {
        ensure(8);
        for (int shift = 56; shift >= 0; shift -= 8) {
            buf[pos++] = (byte) (v >>> shift);
        }
        return this;
    }

    public ValueOutput writeFloat(float v) {
        return writeInt(Float.floatToIntBits(v));
    }

    public ValueOutput writeDouble(double v) {
        return writeLong(Double.doubleToLongBits(v));
    }

    /** Unsigned LEB128: small non-negative numbers take one byte. */
    public ValueOutput writeVarLong(long v) {
        ensure(10);
        while ((v & ~0x7FL) != 0) {
            buf[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[pos++] = (byte) v;
        return this;
    }

    public ValueOutput writeVarInt(int v) {
        return writeVarLong(v & 0xFFFFFFFFL);
    }

    public ValueOutput writeString(String s) {
        return writeBytes(s.getBytes(StandardCharsets.UTF_8));
    }

    /** A length-prefixed byte array. */
    public ValueOutput writeBytes(byte[] bytes) {
        writeVarInt(bytes.length);
        ensure(bytes.length);
        System.arraycopy(bytes, 0, buf, pos, bytes.length);
        pos += bytes.length;
        return this;
    }

    /** Raw bytes, no length. */
    public ValueOutput writeRaw(byte[] bytes, int offset, int length) {
        ensure(length);
        System.arraycopy(bytes, offset, buf, pos, length);
        pos += length;
        return this;
    }

    public int size() {
        return pos;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, pos);
    }

    /** Forgets what was written so the buffer can be reused. */
    public void reset() {
        pos = 0;
        depth = 0;
    }

    private void ensure(int n) {
        if (buf.length - pos < n) {
            long wanted = Math.max((long) buf.length * 2, (long) pos + n);
            if (wanted > Integer.MAX_VALUE - 8) {
                throw new CodecException("encoded value exceeds 2 GiB");
            }
            buf = Arrays.copyOf(buf, (int) wanted);
        }
    }
}
