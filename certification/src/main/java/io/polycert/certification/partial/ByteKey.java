package io.polycert.certification.partial;

import java.util.Arrays;

/** A key by its encoded bytes: equal on every member exactly when the bytes are equal. */
final class ByteKey implements Comparable<ByteKey> {
    final byte[] bytes;
    private final int hash;
    /** Computed once: a key is placed on the ring, and a transaction's keys are also its conflict keys. */
    private final long placementHash;

    ByteKey(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
        long h = 0xcbf29ce484222325L;
        for (byte b : bytes) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        this.placementHash = HashRing.mix(h);
    }

    /** A well-mixed 64-bit hash of the bytes (FNV-1a then a finalizer), the same on every JVM. */
    long placementHash() {
        return placementHash;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ByteKey k && k.hash == hash && Arrays.equals(k.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public int compareTo(ByteKey o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    @Override
    public String toString() {
        return bytes.length <= 16 ? Arrays.toString(bytes) : "key[" + bytes.length + " bytes]";
    }
}
