package io.polycert.core.group;

/**
 * What the group layer delivers to its user. All callbacks run on one delivery thread, in the order the layer
 * produces them; they must not block (hand slow work to another thread).
 */
public interface GroupListener {

    /**
     * An atomic-broadcast message. Every member of the primary component delivers the same messages in the same
     * order (uniformly: a message delivered by any member, even one that then crashes, is delivered by every
     * correct member), including its own.
     *
     * @param position the message's place in the total order (increasing, shared by all members)
     */
    void deliverOrdered(MemberId origin, long position, byte[] payload);

    /**
     * A new view, at its place in the total order: every member delivers the same messages before it. Only
     * primary views are delivered here.
     */
    void viewInstalled(View view, long position);

    /** A uniform-reliable-broadcast message: if any member delivers it, every correct member does. */
    default void deliverReliable(MemberId origin, byte[] payload) {
    }

    /**
     * A reliable-broadcast message of {@code origin}, which has left: this member held it, not yet delivered, when
     * the primary view without {@code origin} was installed. Called before {@link #viewInstalled} for that view. The
     * origin may have delivered it (if a majority held it), so what the members decide about the origin's business
     * at that view must account for it; but this is not a delivery, and uniformity does not cover it: this member
     * may crash having seen it while no correct member ever delivers it. Decide on it only through the total order
     * (certification orders a report of it). It may still be delivered later, once a majority of the view holds it.
     */
    default void heldFromDeparted(MemberId origin, byte[] payload) {
    }

    /**
     * A total-order multicast message: the destinations of any two messages deliver them in the same relative
     * order.
     */
    default void deliverMulticast(MemberId origin, byte[] payload) {
    }

    /** A point-to-point message (FIFO per sender). */
    default void deliverDirect(MemberId origin, byte[] payload) {
    }

    /** This member is in a minority view; broadcasts fail until it merges back. */
    default void blocked(View view) {
    }
}
