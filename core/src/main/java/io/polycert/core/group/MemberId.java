package io.polycert.core.group;

import java.util.Objects;
import java.util.UUID;

/**
 * Identity of one member incarnation of a group: a 128-bit unique id plus a readable name. Two incarnations of
 * the same process (after a restart) have different ids. Ordered by id, so every member breaks ties alike.
 */
public final class MemberId implements Comparable<MemberId> {
    private final long high;
    private final long low;
    private final String name;

    public MemberId(long high, long low, String name) {
        this.high = high;
        this.low = low;
        this.name = Objects.requireNonNull(name, "name");
    }

    public static MemberId random(String name) {
        UUID uuid = UUID.randomUUID();
        return new MemberId(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits(), name);
    }

    public long high() {
        return high;
    }

    public long low() {
        return low;
    }

    public String name() {
        return name;
    }

    @Override
    public int compareTo(MemberId o) {
        int c = Long.compareUnsigned(high, o.high);
        return c != 0 ? c : Long.compareUnsigned(low, o.low);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MemberId m && m.high == high && m.low == low;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(high * 31 + low);
    }

    @Override
    public String toString() {
        return name;
    }
}
