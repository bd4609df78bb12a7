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
 * {@code maxAbove}, the watermark moves up to the oldest of them, and the gaps below it count as seen. A message
 * that old arriving for the first time would be taken for a duplicate; messages from one origin arrive in the
 * order it sent them, so that takes a message overtaken by {@code maxAbove} later ones of its origin.
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
        PerOrigin p = origins.computeIfAbsent(origin, o -> new PerOrigin());
        if (seq <= p.upTo) {
            return;
        }
        p.above.add(seq);
        if (p.above.size() > maxAbove) {
            p.upTo = p.above.pollFirst();
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
