package io.polycert.gcs;

import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The final timestamps of the multicasts delivered here, for resolutions that other destinations start after this
 * one delivered (see {@link TotalOrderMulticast}): per origin, the newest {@code perOrigin} sequence numbers by
 * slot, in one array allocated when the origin is first seen.
 *
 * <p>Why arrays: a map of the last 100,000 deliveries (what this replaced) made an entry, an id and a boxed
 * timestamp per delivery that lived a few seconds at 30,000 deliveries a second, long enough to be copied by
 * several young collections: medium-lived objects, the costliest kind for a generational collector. Here a
 * delivery writes two longs.
 *
 * <p>A message is remembered until its origin's sequence number has moved {@code perOrigin} past it (a later
 * message of that origin delivered here takes its slot); resolutions ask about messages still in flight at some
 * destination, which are among the newest of their origin. Origins that left the view are kept, up to
 * {@code departedOrigins} of them (newest departures kept): resolutions of their last messages follow their
 * departure.
 */
final class DeliveredFinals {
    private final int mask;
    private final int departedOrigins;
    /** Per origin: {seq, final timestamp} pairs, at index 2 * (seq & mask). Sequence numbers start at 1. */
    private final Map<MemberId, long[]> byOrigin = new HashMap<>();
    /** Origins that left the view, oldest departure first. */
    private final List<MemberId> departed = new ArrayList<>();

    DeliveredFinals(int perOrigin, int departedOrigins) {
        if (perOrigin < 1 || Integer.bitCount(perOrigin) != 1 || perOrigin > 1 << 24) {
            throw new IllegalArgumentException("perOrigin must be a power of two up to 2^24, was " + perOrigin);
        }
        if (departedOrigins < 0) {
            throw new IllegalArgumentException("departedOrigins must not be negative, was " + departedOrigins);
        }
        this.mask = perOrigin - 1;
        this.departedOrigins = departedOrigins;
    }

    void put(MemberId origin, long seq, long ts) {
        long[] slots = byOrigin.get(origin);
        if (slots == null) {
            slots = new long[2 * (mask + 1)];
            byOrigin.put(origin, slots);
        }
        int i = 2 * (int) (seq & mask);
        slots[i] = seq;
        slots[i + 1] = ts;
    }

    /** The final timestamp {@code origin}'s message {@code seq} was delivered at, or -1 if not remembered. */
    long get(MemberId origin, long seq) {
        long[] slots = byOrigin.get(origin);
        if (slots == null || seq < 1) {
            return -1;
        }
        int i = 2 * (int) (seq & mask);
        return slots[i] == seq ? slots[i + 1] : -1;
    }

    /** A view was installed: origins not in it count as departed, and the oldest departures past the cap go. */
    void retainOrigins(View view) {
        for (MemberId origin : byOrigin.keySet()) {
            if (!view.contains(origin) && !departed.contains(origin)) {
                departed.add(origin);
            }
        }
        departed.removeIf(view::contains); // back (a merge after a partition)
        while (departed.size() > departedOrigins) {
            byOrigin.remove(departed.remove(0));
        }
    }

    /** Origins remembered (for tests of the bound). */
    int origins() {
        return byOrigin.size();
    }
}
