package io.polycert.gcs;

import io.polycert.core.group.MemberId;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * Which (origin, sequence number) pairs were already delivered, compactly: per origin, everything up to a
 * watermark plus the numbers above it. Origins number their messages 1, 2, 3, ...
 *
 * <p>A member that receives only some of an origin's numbers (a multicast destination: the origin numbers all its
 * multicasts, whoever they go to) never fills the gaps, so the numbers above the watermark are capped: past
 * {@code maxAbove}, the watermark moves up past the older half of them, and the gaps below it count as seen, but
 * never up to a number the caller still holds undelivered. A message that old arriving for the first time would
 * be taken for a duplicate; messages from one origin arrive in the order it sent them, so that takes a message
 * overtaken by {@code maxAbove / 2} later ones of its origin.
 */
final class SeenIds {
    private static final class PerOrigin {
        long upTo;
        final TreeSet<Long> above = new TreeSet<>();
    }

    private final Map<MemberId, PerOrigin> origins = new HashMap<>();
    private final int maxAbove;

    SeenIds(int maxAbove) {
        if (maxAbove < 1) {
            throw new IllegalArgumentException("maxAbove must be positive, was " + maxAbove);
        }
        this.maxAbove = maxAbove;
    }

    boolean contains(MemberId origin, long seq) {
        PerOrigin p = origins.get(origin);
        return p != null && (seq <= p.upTo || p.above.contains(seq));
    }

    void add(MemberId origin, long seq) {
        add(origin, seq, o -> Long.MAX_VALUE);
    }

    /**
     * Records a delivery; {@code lowestUndelivered} gives, for an origin, the lowest number the caller holds and has
     * not delivered yet (Long.MAX_VALUE if none), which the watermark must not reach. Asked only when the cap is hit.
     */
    void add(MemberId origin, long seq, java.util.function.ToLongFunction<MemberId> lowestUndelivered) {
        PerOrigin p = origins.computeIfAbsent(origin, o -> new PerOrigin());
        if (seq <= p.upTo) {
            return;
        }
        p.above.add(seq);
        if (p.above.size() > maxAbove) {
            long limit = lowestUndelivered.applyAsLong(origin) - 1;
            for (int drop = (maxAbove + 1) / 2; drop > 0 && !p.above.isEmpty() && p.above.first() <= limit; drop--) {
                p.upTo = p.above.pollFirst();
            }
        }
        while (!p.above.isEmpty() && p.above.first() == p.upTo + 1) {
            p.upTo = p.above.pollFirst();
        }
    }

    /** Numbers held above the watermarks, all origins together (for tests of the bound). */
    int heldAbove() {
        int n = 0;
        for (PerOrigin p : origins.values()) {
            n += p.above.size();
        }
        return n;
    }
}
