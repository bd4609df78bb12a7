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

    /**
     * Total-order multicast ordered only against the messages it conflicts with. Two messages conflict when their
     * {@code conflictKeys} share a value, or when either was sent by {@link #multicast(Collection, byte[])}
     * (which conflicts with every message). Conflicting messages are delivered in the same order at every
     * destination they share; others may be delivered in either order, so a message need not wait behind an
     * earlier one it does not conflict with (Skeen's order otherwise holds each message until every message with a
     * smaller timestamp is final). Give equal keys equal values, for instance a hash of each key the receivers
     * process in order; two keys sharing a value only cost order, never correctness.
     *
     * <p>The default orders every message against every other, which is always allowed.
     *
     * @param conflictKeys at least one value; not modified
     * @throws IllegalArgumentException if a destination is not in the current view, or no key is given
     */
    default void multicast(Collection<MemberId> destinations, long[] conflictKeys, byte[] payload) {
        if (conflictKeys.length == 0) {
            throw new IllegalArgumentException("a multicast ordered by its conflicts needs at least one conflict key");
        }
        multicast(destinations, payload);
    }

    /** Sends a point-to-point message. */
    void send(MemberId destination, byte[] payload);

    /** Counters and latencies the oracle and the benchmarks read. */
    GroupStatistics statistics();

    /** Leaves the group. */
    @Override
    void close();
}
