package io.polycert.gcs;

import io.polycert.core.group.MemberId;
import java.util.HashMap;
import java.util.Map;

/**
 * Which (origin, sequence number) pairs were already delivered, compactly: per origin, everything up to a
 * watermark plus a bitmap of the numbers above it. Origins number their messages 1, 2, 3, ...
 *
 * <p>A member that receives only some of an origin's numbers (a multicast destination: the origin numbers all its
 * multicasts, whoever they go to) never fills the gaps, so the watermark trails the newest number by a
 * {@code window} to a window and a half: a number further up moves it to a window below that number, and the gaps
 * below it count as seen, but never up to a number the caller still holds undelivered (unless that number lies
 * {@link #MAX_SPAN} below). A message that old arriving for the first time would be taken for a duplicate; messages
 * from one origin arrive in the order it sent them, so that takes a message overtaken by {@code window} later
 * numbers of its origin.
 *
 * <p>A bitmap, not a sorted set of boxed numbers: a destination of half an origin's multicasts held tens of
 * thousands of numbers per origin, each a tree node and a {@code Long} that lived a few seconds, long enough to be
 * copied by young collections and promoted (PARTIAL.md, "Seen numbers in a bitmap").
 */
final class SeenIds {
    private static final int MIN_WORDS = 2;
    /**
     * The most numbers one origin's bitmap spans above its watermark (2^26: 8 MB). A number further up moves the
     * watermark even past a number the caller holds undelivered: no origin sends tens of millions of messages while
     * one of its earlier ones waits, so such a number is corrupt, and it must not take the heap (nor overflow the
     * bitmap's doubling, which looped for ever on a number 2^36 up).
     */
    static final long MAX_SPAN = 1L << 26;

    private static final class PerOrigin {
        /** Every number up to it is seen. */
        long upTo;
        /** The seen numbers above {@link #upTo}: number {@code s} at bit {@code s & (bits.length * 64 - 1)}. */
        long[] bits = new long[MIN_WORDS];
        /** How many bits are set. */
        int held;
        /** The least number whose delivery may move the watermark by the window again. */
        long nextCheck;

        long capacity() {
            return (long) bits.length * 64;
        }

        /** Whether {@code seq} was seen: at or below the watermark, or its bit set. */
        boolean has(long seq) {
            return seq <= upTo || (seq <= upTo + capacity() && test(seq));
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
        if (window < 1 || window > MAX_SPAN / 2) {
            throw new IllegalArgumentException("window must be in [1, " + MAX_SPAN / 2 + "], was " + window);
        }
        this.window = window;
    }

    boolean contains(MemberId origin, long seq) {
        PerOrigin p = origins.get(origin);
        return p != null && p.has(seq);
    }

    void add(MemberId origin, long seq) {
        add(origin, seq, o -> Long.MAX_VALUE);
    }

    /**
     * Records a delivery; {@code lowestUndelivered} gives, for an origin, the lowest number the caller holds and has
     * not delivered yet (Long.MAX_VALUE if none), which the watermark must not reach. Asked when the window is
     * passed, at most once per half window of numbers: at a destination of part of an origin's multicasts the
     * window is passed at every delivery, and the caller may have to look through all it holds to answer.
     */
    void add(MemberId origin, long seq, java.util.function.ToLongFunction<MemberId> lowestUndelivered) {
        PerOrigin p = origins.computeIfAbsent(origin, o -> new PerOrigin());
        if (p.has(seq)) {
            return;
        }
        if (seq - p.upTo > window && seq >= p.nextCheck) {
            long to = Math.min(seq - window, lowestUndelivered.applyAsLong(origin) - 1);
            if (to > p.upTo) {
                p.advance(to);
            }
            p.nextCheck = seq + Math.max(1, window / 2);
        }
        if (seq - p.upTo > MAX_SPAN) {
            p.advance(seq - MAX_SPAN);
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
