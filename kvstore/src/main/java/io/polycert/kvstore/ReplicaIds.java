package io.polycert.kvstore;

import io.polycert.core.IdAllocator;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Box ids unique across the replicas and their incarnations: the high 32 bits identify this replica incarnation
 * (from the view that admitted it: its epoch and the member's place in it), the low 32 bits count. Roots use
 * negative ids derived from their names.
 */
final class ReplicaIds implements IdAllocator {
    private volatile long prefix = -1;
    private final AtomicLong counter = new AtomicLong();

    void assign(long epoch, int index) {
        if (prefix < 0) {
            prefix = epoch * 1024 + index;
        }
    }

    @Override
    public long nextId() {
        long p = prefix;
        if (p < 0) {
            throw new IllegalStateException("the replica has not joined its group yet");
        }
        long n = counter.incrementAndGet();
        if (n >= 1L << 32) {
            throw new IllegalStateException("this replica incarnation created 2^32 boxes; restart it for new ids");
        }
        return (p << 32) | n;
    }

    /** A negative id for a named root, the same on every replica. */
    static long rootId(String name) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < name.length(); i++) {
            h = (h ^ name.charAt(i)) * 0x100000001b3L;
        }
        return -1 - (h >>> 1);
    }

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;
    /** Separates the map name from the key: 0xff never occurs in UTF-8, so the concatenation is unambiguous. */
    private static final int KEY_SEPARATOR = 0xff;

    /**
     * A negative id for the box of one key of a named map, the same on every replica: 64-bit FNV-1a over the map
     * name's UTF-8 bytes, a separator byte that UTF-8 never contains, and the key's encoded bytes, folded to a
     * negative number like {@link #rootId} so the registry treats the box as a root.
     */
    static long keyId(String mapName, byte[] encodedKey) {
        long h = FNV_OFFSET;
        for (byte b : mapName.getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * FNV_PRIME;
        }
        h = (h ^ KEY_SEPARATOR) * FNV_PRIME;
        for (byte b : encodedKey) {
            h = (h ^ (b & 0xff)) * FNV_PRIME;
        }
        return -1 - (h >>> 1);
    }
}
