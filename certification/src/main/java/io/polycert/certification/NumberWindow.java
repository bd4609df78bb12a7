package io.polycert.certification;

/**
 * A small state (1 to 127; 0 is "none") per number, for numbers that come mostly in order from one counter (an
 * origin's transaction numbers): a ring of bytes over the span from the lowest number held to the highest, so a
 * lookup of a recent number reads the line recent lookups loaded, and forgetting the oldest walks the ring in order.
 * A hash table scattered them over megabytes, a cache miss per lookup (PARTIAL.md, "Remembered decisions in a
 * window"). A number that would stretch the span past {@link #MAX_SPAN}, or past {@link #DENSITY} numbers for each
 * one held (a stray or corrupt one, or an origin whose numbers reach this member only now and then), and negative
 * ones, go to a hash table on the side; so whatever numbers arrive, the ring grows only while it holds a number per
 * {@link #DENSITY} of its span (or spans at most {@link #DENSE_FLOOR}), and it shrinks as the span does. Not
 * thread-safe.
 */
final class NumberWindow {
    /** The widest span the ring covers by default (4 MB of states); beyond it numbers go to {@link #outliers}. */
    static final long MAX_SPAN = 1L << 22;
    private static final int MIN_LENGTH = 64;
    /** At most this many numbers of span per number held, above {@link #DENSE_FLOOR}. */
    static final long DENSITY = 64;
    /** The span allowed whatever the count: an origin costs no more than its table on the side would. */
    static final long DENSE_FLOOR = 256;

    private final long maxSpan;
    /** Every number held in the ring lies in [base, top); both 0 while it holds none. */
    private long base;
    private long top;
    /** The state of number n at {@code n & (states.length - 1)}, for n in [base, base + states.length). */
    private byte[] states = new byte[MIN_LENGTH];
    private int inRing;
    /** Numbers outside the ring's reach; null until one comes. */
    private LongLongMap outliers;

    NumberWindow() {
        this(MAX_SPAN);
    }

    /** A window whose ring spans at most {@code maxSpan} numbers (tests use small ones). */
    NumberWindow(long maxSpan) {
        if (maxSpan < MIN_LENGTH || maxSpan > MAX_SPAN) {
            throw new IllegalArgumentException("maxSpan must be in [" + MIN_LENGTH + ", " + MAX_SPAN + "], was "
                    + maxSpan);
        }
        this.maxSpan = maxSpan;
    }

    int size() {
        return inRing + (outliers == null ? 0 : outliers.size());
    }

    /** The state of {@code n}, or 0 if none. */
    byte get(long n) {
        if (n >= base && n < top) {
            byte s = states[(int) n & (states.length - 1)];
            if (s != 0) {
                return s;
            }
        }
        return outliers == null ? 0 : (byte) outliers.get(n, 0);
    }

    /** Sets {@code n}'s state; whether {@code n} had none. */
    boolean put(long n, byte state) {
        if (state <= 0) {
            throw new IllegalArgumentException("a state is 1 to 127, was " + state);
        }
        if (outliers != null && outliers.containsKey(n)) {
            outliers.put(n, state);
            return false;
        }
        if (!fits(n)) {
            if (outliers == null) {
                outliers = new LongLongMap();
            }
            return outliers.put(n, state);
        }
        if (inRing == 0) {
            base = n;
            top = n;
        }
        long from = Math.min(base, n);
        long to = Math.max(top, n + 1);
        if (to - from > states.length) {
            reallocate(lengthFor(to - from));
        }
        base = from;
        top = to;
        int i = (int) n & (states.length - 1);
        boolean added = states[i] == 0;
        states[i] = state;
        if (added) {
            inRing++;
        }
        return added;
    }

    /** Whether the ring can take {@code n} within its span limits (see the class comment). */
    private boolean fits(long n) {
        if (n < 0 || n > Long.MAX_VALUE - maxSpan) {
            return false; // keeps the arithmetic below from overflowing
        }
        if (inRing == 0) {
            return true;
        }
        long span = Math.max(top, n + 1) - Math.min(base, n);
        return span <= Math.min(maxSpan, Math.max(DENSE_FLOOR, DENSITY * (inRing + 1L)));
    }

    /** Removes {@code n}'s state; whether it had one. */
    boolean remove(long n) {
        if (n >= base && n < top) {
            int i = (int) n & (states.length - 1);
            if (states[i] != 0) {
                states[i] = 0;
                if (--inRing == 0) {
                    base = 0;
                    top = 0;
                } else {
                    // Keep [base, top) tight, so the span does not grow as numbers move on.
                    while (states[(int) base & (states.length - 1)] == 0) {
                        base++;
                    }
                    while (states[(int) (top - 1) & (states.length - 1)] == 0) {
                        top--;
                    }
                }
                if (states.length > MIN_LENGTH && top - base <= states.length / 4) {
                    reallocate(lengthFor(top - base)); // the span shrank: so does the ring
                }
                return true;
            }
        }
        if (outliers == null || !outliers.remove(n)) {
            return false;
        }
        if (outliers.size() == 0) {
            outliers = null; // so puts stop probing it
        }
        return true;
    }

    /** The ring's length for a span: the least power of two that holds it, at least the minimum. */
    private static int lengthFor(long span) {
        int length = MIN_LENGTH;
        while (length < span) {
            length <<= 1;
        }
        return length;
    }

    /** A ring of {@code length}, the states of [base, top) carried over. */
    private void reallocate(int length) {
        byte[] ring = new byte[length];
        for (long n = base; n < top; n++) {
            ring[(int) n & (length - 1)] = states[(int) n & (states.length - 1)];
        }
        states = ring;
    }

    /** The ring's length in bytes (for tests of the memory bound). */
    int ringLength() {
        return states.length;
    }
}
