package io.polycert.gcs;

import io.polycert.core.group.MemberId;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * Which (origin, sequence number) pairs were already delivered, compactly: per origin, everything up to a
 * watermark plus the numbers above it. Origins number their messages 1, 2, 3, ...
 */
final class SeenIds {
    private static final class PerOrigin {
        long upTo;
        final TreeSet<Long> above = new TreeSet<>();
    }

    private final Map<MemberId, PerOrigin> origins = new HashMap<>();

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
        while (!p.above.isEmpty() && p.above.first() == p.upTo + 1) {
            p.upTo = p.above.pollFirst();
        }
    }
}
