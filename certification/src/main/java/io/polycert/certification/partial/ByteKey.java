package io.polycert.certification.partial;

import java.util.Arrays;

/** A key by its encoded bytes: equal on every member exactly when the bytes are equal. */
final class ByteKey implements Comparable<ByteKey> {
    final byte[] bytes;
    /**
     * From the placement hash, not {@code Arrays.hashCode}: that polynomial gives the 100,000 integer keys of one
     * map only 9,122 distinct values (up to 18 keys per hash), so the store's hash maps degrade to trees.
     */
    private final int hash;
    /** Computed once: a key is placed on the ring, and a transaction's keys are also its conflict keys. */
    private final long placementHash;

    ByteKey(byte[] bytes) {
        this.bytes = bytes;
        long h = 0xcbf29ce484222325L;
        for (byte b : bytes) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        this.placementHash = HashRing.mix(h);
        this.hash = (int) (placementHash ^ (placementHash >>> 32));
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
