package io.polycert.core.codec;

import io.polycert.core.VBox;
import java.nio.charset.StandardCharsets;

/**
 * Reads what a {@link ValueOutput} wrote. Every read is bounds-checked: truncated or malformed input throws
 * {@link CodecException}, and no length prefix can make it allocate more than the bytes it was given.
 */
public final class ValueInput {
    private final ValueCodec codec;
    private final BoxResolver boxes;
    private final byte[] buf;
    private final int end;
    private int pos;
    private int depth;

    public ValueInput(ValueCodec codec, byte[] bytes, BoxResolver boxes) {
        this(codec, bytes, 0, bytes.length, boxes);
    }

    public ValueInput(ValueCodec codec, byte[] bytes, int offset, int length, BoxResolver boxes) {
        if (offset < 0 || length < 0 || offset > bytes.length - length) {
            throw new IndexOutOfBoundsException("offset " + offset + ", length " + length + ", array " + bytes.length);
        }
        this.codec = codec;
        this.boxes = boxes;
        this.buf = bytes;
        this.pos = offset;
        this.end = offset + length;
    }

    /** Reads a value written by {@link ValueOutput#writeValue}. */
    public Object readValue() {
        if (++depth > ValueCodec.MAX_DEPTH) {
            throw new CodecException("value nested deeper than " + ValueCodec.MAX_DEPTH + " levels");
        }
        try {
            return codec.decode(this);
        } finally {
            depth--;
        }
    }

    public VBox<?> readBox() {
        return boxes.resolve(readVarLong());
    }

    public boolean readBoolean() {
        int b = readByte();
        if (b != 0 && b != 1) {
            throw new CodecException("malformed boolean " + b);
        }
        return b == 1;
    }

    public byte readByte() {
        need(1);
        return buf[pos++];
    }

    public short readShort() {
        need(2);
        int v = ((buf[pos] & 0xFF) << 8) | (buf[pos + 1] & 0xFF);
        pos += 2;
        return (short) v;
    }

    public char readChar() {
        return (char) readShort();
    }

    public int readInt() {
        need(4);
        int v = ((buf[pos] & 0xFF) << 24) | ((buf[pos + 1] & 0xFF) << 16) | ((buf[pos + 2] & 0xFF) << 8)
                | (buf[pos + 3] & 0xFF);
        pos += 4;
        return v;
    }

    public long readLong() {
        need(8);
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (buf[pos++] & 0xFF);
        }
        return v;
    }

    public float readFloat() {
        return Float.intBitsToFloat(readInt());
    }

    public double readDouble() {
        return Double.longBitsToDouble(readLong());
    }

    public long readVarLong() {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte b = readByte();
            v |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return v;
            }
        }
        throw new CodecException("malformed varint (more than 10 bytes)");
    }

    public int readVarInt() {
        long v = readVarLong();
        if ((v >>> 32) != 0) {
            throw new CodecException("varint " + v + " does not fit in an int");
        }
        return (int) v;
    }

    /** A length that must fit in the remaining input at {@code bytesPerElement} bytes each. */
    public int readLength(int bytesPerElement) {
        int n = readVarInt();
        if (n < 0 || (long) n * bytesPerElement > remaining()) {
            throw new CodecException("length " + n + " exceeds the " + remaining() + " bytes left");
        }
        return n;
    }

    public String readString() {
        int n = readLength(1);
        String s = new String(buf, pos, n, StandardCharsets.UTF_8);
        pos += n;
        return s;
    }

    /** Skips what {@link ValueOutput#writeString} or {@link ValueOutput#writeBytes} wrote; returns its length in bytes. */
    public int skipBytes() {
        int n = readLength(1);
        pos += n;
        return n;
    }

    public byte[] readBytes() {
        int n = readLength(1);
        byte[] out = new byte[n];
        System.arraycopy(buf, pos, out, 0, n);
        pos += n;
        return out;
    }

    public int remaining() {
        return end - pos;
    }

    /** Throws unless every byte was consumed (trailing garbage means the input is not what it claims). */
    public void expectEnd() {
        if (pos != end) {
            throw new CodecException((end - pos) + " unexpected trailing bytes");
        }
    }

    private void need(int n) {
        if (end - pos < n) {
            throw new CodecException("truncated input: needed " + n + " bytes, " + (end - pos) + " left");
        }
    }
}
