package io.polycert.gcs;

import io.polycert.core.group.MemberId;
import java.util.HashMap;
import java.util.Map;

/**
 * Which (origin, sequence number) pairs were already delivered, compactly: per origin, everything up to a
 * watermark plus a bitmap of the numbers above it. Origins number their messages 1, 2, 3, ...
 *
 * <p>A member that receives only some of an origin's numbers (a multicast destination: the origin numbers all its
 * multicasts, whoever they go to) never fills the gaps, so the watermark trails the newest number by at most
 * {@code window}: a number further up moves it, and the gaps below it count as seen, but never up to a number the
 * caller still holds undelivered. A message that old arriving for the first time would be taken for a duplicate;
 * messages from one origin arrive in the order it sent them, so that takes a message overtaken by {@code window}
 * later numbers of its origin.
 *
 * <p>A bitmap, not a sorted set of boxed numbers: a destination of half an origin's multicasts held tens of
 * thousands of numbers per origin, each a tree node and a {@code Long} that lived a few seconds, long enough to be
 * copied by young collections and promoted (PARTIAL.md, "Seen numbers in a bitmap").
 */
final class SeenIds {
    private static final int MIN_WORDS = 2;

    private static final class PerOrigin {
        /** Every number up to it is seen. */
        long upTo;
        /** The seen numbers above {@link #upTo}: number {@code s} at bit {@code s & (bits.length * 64 - 1)}. */
        long[] bits = new long[MIN_WORDS];
        /** How many bits are set. */
        int held;

        long capacity() {
            return (long) bits.length * 64;
        }

        boolean test(long seq) {
            long i = seq & (capacity() - 1);
            return (bits[(int) (i >>> 6)] & (1L << i)) != 0;
        }

        void set(long seq) {
            long i = seq & (capacity() - 1);
            bits[(int) (i >>> 6)] |= 1L << i;
        }

        void clear(long seq) {
            long i = seq & (capacity() - 1);
            bits[(int) (i >>> 6)] &= ~(1L << i);
        }

        /** Moves the watermark up to {@code to}: the numbers passed count as seen. */
        void advance(long to) {
            if (to - upTo >= capacity()) {
                java.util.Arrays.fill(bits, 0);
                held = 0;
            } else {
                for (long s = upTo + 1; s <= to; s++) {
                    if (test(s)) {
                        clear(s);
                        held--;
                    }
                }
            }
            upTo = to;
        }

        /** Makes room for numbers up to {@code seq} above the watermark. */
        void grow(long seq) {
            long needed = seq - upTo;
            int words = bits.length;
            while ((long) words * 64 < needed) {
                words *= 2;
            }
            PerOrigin old = new PerOrigin();
            old.bits = bits;
            bits = new long[words];
            for (long s = upTo + 1; s <= upTo + old.capacity(); s++) {
                if (old.test(s)) {
                    set(s);
                }
            }
        }
    }

    private final Map<MemberId, PerOrigin> origins = new HashMap<>();
    private final long window;

    SeenIds(int window) {
        if (window < 1) {
            throw new IllegalArgumentException("window must be positive, was " + window);
        }
        this.window = window;
    }

    boolean contains(MemberId origin, long seq) {
        PerOrigin p = origins.get(origin);
        return p != null && (seq <= p.upTo || (seq <= p.upTo + p.capacity() && p.test(seq)));
    }

    void add(MemberId origin, long seq) {
        add(origin, seq, o -> Long.MAX_VALUE);
    }

    /**
     * Records a delivery; {@code lowestUndelivered} gives, for an origin, the lowest number the caller holds and has
     * not delivered yet (Long.MAX_VALUE if none), which the watermark must not reach. Asked only when the window is
     * passed.
     */
    void add(MemberId origin, long seq, java.util.function.ToLongFunction<MemberId> lowestUndelivered) {
        PerOrigin p = origins.computeIfAbsent(origin, o -> new PerOrigin());
        if (seq <= p.upTo || (seq <= p.upTo + p.capacity() && p.test(seq))) {
            return;
        }
        if (seq - p.upTo > window) {
            long to = Math.min(seq - window, lowestUndelivered.applyAsLong(origin) - 1);
            if (to > p.upTo) {
                p.advance(to);
            }
        }
        if (seq - p.upTo > p.capacity()) {
            p.grow(seq); // held back by an undelivered number, or a window wider than the bitmap
        }
        p.set(seq);
        p.held++;
        while (p.held > 0 && p.test(p.upTo + 1)) {
            p.advance(p.upTo + 1);
        }
    }

    /** Numbers held above the watermarks, all origins together (for tests of the bound). */
    int heldAbove() {
        int n = 0;
        for (PerOrigin p : origins.values()) {
            n += p.held;
        }
        return n;
    }
}
