package io.polycert.certification;

import io.polycert.core.codec.CodecException;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;

/**
 * A Bloom filter over box ids. Its hashing is salted by a seed that travels with it, so every replica tests
 * membership identically, while each transaction's filter has its own false positives: with one fixed hash, the
 * same read-set would build the same filter on every retry, and a hot box that happened to match it would abort
 * every attempt. Sized from the number of ids and a per-lookup false-positive probability.
 */
final class BloomFilter {
    private static final int MAX_BITS = 1 << 28;

    private final long[] bits;
    private final int numBits;
    private final int hashes;
    private final long seed;

    private BloomFilter(long[] bits, int numBits, int hashes, long seed) {
        this.bits = bits;
        this.numBits = numBits;
        this.hashes = hashes;
        this.seed = seed;
    }

    /**
     * A filter for {@code n} ids where each later lookup of an absent id answers "maybe" with probability about
     * {@code perLookup}, hashing with {@code seed} (pick it at random for each filter).
     */
    static BloomFilter sized(int n, double perLookup, long seed) {
        double p = Math.min(0.5, Math.max(1e-12, perLookup));
        // A filter of a few dozen bits fills very unevenly from one id set to the next, so its false-positive
        // rate would stray far from the target: small filters are sized as if for 32 ids (at most 40 bytes).
        int expected = Math.max(32, n);
        long m = (long) Math.ceil(-expected * Math.log(p) / (Math.log(2) * Math.log(2)));
        int numBits = (int) Math.max(64, Math.min(MAX_BITS, m));
        int k = (int) Math.max(1, Math.min(30, Math.round((double) numBits / expected * Math.log(2))));
        return new BloomFilter(new long[(numBits + 63) / 64], numBits, k, seed);
    }

    /**
     * A filter for {@code n} ids that, checked against {@code lookups} absent ids, matches at least one with
     * probability about {@code abortRate}: the extra abort rate BFC may cause.
     */
    static BloomFilter forAbortRate(int n, double abortRate, int lookups, long seed) {
        return sized(n, 1 - Math.pow(1 - abortRate, 1.0 / Math.max(1, lookups)), seed);
    }

    void add(long id) {
        for (int i = 0; i < hashes; i++) {
            int bit = probe(id, i);
            bits[bit >>> 6] |= 1L << bit;
        }
    }

    boolean mightContain(long id) {
        for (int i = 0; i < hashes; i++) {
            int bit = probe(id, i);
            if ((bits[bit >>> 6] & (1L << bit)) == 0) {
                return false;
            }
        }
        return true;
    }

    /** The i-th bit for an id: an independent hash per probe (double hashing clusters in small filters). */
    private int probe(long id, int i) {
        return (int) Long.remainderUnsigned(mix((id ^ seed) + i * 0x9E3779B97F4A7C15L), numBits);
    }

    /** The 64-bit finalizer of MurmurHash3: spreads sequential ids over all bits. */
    private static long mix(long x) {
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        x ^= x >>> 33;
        x *= 0xc4ceb9fe1a85ec53L;
        x ^= x >>> 33;
        return x;
    }

    /** The chance that an absent id matches, from how full this filter is: (bits set / bits)^hashes. */
    double falsePositiveProbability() {
        long set = 0;
        for (long word : bits) {
            set += Long.bitCount(word);
        }
        return Math.pow((double) set / numBits, hashes);
    }

    void write(ValueOutput out) {
        out.writeVarInt(numBits).writeVarInt(hashes).writeLong(seed);
        for (long word : bits) {
            out.writeLong(word);
        }
    }

    static BloomFilter read(ValueInput in) {
        int numBits = in.readVarInt();
        int hashes = in.readVarInt();
        long seed = in.readLong();
        if (numBits < 64 || numBits > MAX_BITS || hashes < 1 || hashes > 30) {
            throw new CodecException("Bloom filter of " + numBits + " bits and " + hashes + " hashes");
        }
        int words = (numBits + 63) / 64;
        if ((long) words * 8 > in.remaining()) {
            throw new CodecException("Bloom filter longer than its message");
        }
        long[] bits = new long[words];
        for (int i = 0; i < words; i++) {
            bits[i] = in.readLong();
        }
        return new BloomFilter(bits, numBits, hashes, seed);
    }
}
