package io.polycert.certification.partial;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.codec.ValueCodec;
import io.polycert.core.codec.ValueOutput;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ByteKeyTest {

    /** A key as the key-value store encodes it: the map's name, then the key through the codec. */
    private static ByteKey key(String map, Object k) {
        ValueOutput out = new ValueOutput(ValueCodec.builder().build(), 32);
        out.writeString(map);
        out.writeValue(k);
        return new ByteKey(out.toByteArray());
    }

    /**
     * The keys of one map differ in a few trailing bytes; the store's hash maps hold 10^5 of them (the Radargun
     * benchmark's low-contention key space). With {@code Arrays.hashCode} they shared 9,122 hash codes, up to 18 keys
     * each, and every lookup in a bin searched a tree.
     */
    @Test
    void integerKeysOfOneMapGetDistinctHashCodes() {
        Set<Integer> hashes = new HashSet<>();
        Map<Integer, Integer> perBucket = new HashMap<>();
        int n = 100_000;
        for (int k = 0; k < n; k++) {
            int h = key("radargun", k).hashCode();
            hashes.add(h);
            perBucket.merge((h ^ (h >>> 16)) & ((1 << 18) - 1), 1, Integer::sum); // HashMap's spread, 2^18 buckets
        }
        // Random 32-bit codes for 10^5 keys collide about once.
        assertTrue(hashes.size() >= n - 10, hashes.size() + " distinct hash codes for " + n + " keys");
        int fullest = perBucket.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        assertTrue(fullest < 8, "a bucket of a table sized for them holds " + fullest + " keys (8 makes a tree)");
    }

    @Test
    void equalBytesAreEqualKeysWithEqualHashes() {
        ByteKey a = key("m", 42);
        ByteKey b = key("m", 42);
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertEquals(a.placementHash(), b.placementHash());
        assertNotEquals(a, key("m", 43));
        assertNotEquals(a, key("n", 42));
    }
}
