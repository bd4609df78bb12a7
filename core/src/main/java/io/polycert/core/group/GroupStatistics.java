package io.polycert.core.group;

/** What a group member measured so far. All methods are safe to call from any thread. */
public interface GroupStatistics {

    /** Own atomic-broadcast messages delivered back to this member. */
    long selfDeliveries();

    /** Exponentially weighted mean latency from {@link GroupMember#broadcast} to self-delivery, in nanoseconds. */
    double meanSelfDeliveryNanos();

    /** Own atomic-broadcast messages sent and not yet delivered back. */
    int undeliveredBroadcasts();

    /** Atomic-broadcast messages delivered (from any member). */
    long orderedDeliveries();

    /** Bytes of payload this member broadcast (all primitives). */
    long bytesSent();

    /** Bytes of payload delivered to this member (all primitives). */
    long bytesDelivered();

    /** Messages dropped because they were malformed or came from outside the view. */
    long droppedMessages();

    /**
     * Messages this member handed to the network (a multicast counts once, and so does a batch of point-to-point
     * messages to one member, however many it holds).
     */
    long messagesSent();

    /**
     * Protocol messages this member sent, each message of a batch counted ({@link #messagesSent()} counts the
     * batch once); the same as {@link #messagesSent()} for a group that does not batch.
     */
    default long protocolMessagesSent() {
        return messagesSent();
    }

    /** Total-order multicast messages delivered to this member. */
    long multicastDeliveries();

    /**
     * Nanoseconds, summed over the multicast messages delivered here, from the moment a message's timestamp was
     * final here to its delivery: the time it waited behind earlier messages still undecided or undelivered.
     */
    long multicastWaitNanos();
}
