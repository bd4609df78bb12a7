package io.polycert.core.group;

import java.util.Collection;

/**
 * One member's endpoint in a replication group: the group-communication SPI the certification layer depends on.
 * Implementations (over JGroups, or simulated in tests) deliver to a {@link GroupListener}.
 */
public interface GroupMember extends AutoCloseable {

    MemberId self();

    /** The latest view installed. */
    View view();

    /**
     * Uniform atomic broadcast to the whole group, including this member. May block briefly when too many of this
     * member's messages are still undelivered (flow control).
     *
     * @throws NotInMajorityException if this member is not in a primary view
     */
    void broadcast(byte[] payload);

    /** Uniform reliable broadcast (no order) to the whole group, including this member. */
    void reliableBroadcast(byte[] payload);

    /**
     * Total-order multicast to a subset of the members (Skeen-style). Only the destinations take part.
     *
     * @throws IllegalArgumentException if a destination is not in the current view
     */
    void multicast(Collection<MemberId> destinations, byte[] payload);

    /** Sends a point-to-point message. */
    void send(MemberId destination, byte[] payload);

    /** Counters and latencies the oracle and the benchmarks read. */
    GroupStatistics statistics();

    /** Leaves the group. */
    @Override
    void close();
}
