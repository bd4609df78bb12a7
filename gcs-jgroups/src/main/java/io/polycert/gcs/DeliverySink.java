package io.polycert.gcs;

import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.util.function.Consumer;

/**
 * Where the engine puts what it delivers, in order. The runtime implementation hands each item to the
 * application's listener on the delivery thread; tests record them.
 */
interface DeliverySink {

    void ordered(MemberId origin, long position, byte[] payload);

    void view(View view, long position);

    void reliable(MemberId origin, byte[] payload);

    /** A reliable broadcast of a departed member, held here undelivered, shown before the view without it. */
    void heldFromDeparted(MemberId origin, byte[] payload);

    void multicast(MemberId origin, byte[] payload);

    void direct(MemberId origin, byte[] payload);

    void blocked(View view);

    /** Serializes the application state after everything delivered so far, then passes it on. */
    void captureState(Consumer<byte[]> then);

    /** Replaces the application state before anything else is delivered, then runs {@code then}. */
    void installState(byte[] state, Runnable then);

    /**
     * This member cannot take part in the group it joined (its members speak another wire format): a join fails
     * with {@code reason}; a member already in the group would leave, but the engine reports this only while joining.
     */
    void incompatible(Exception reason);
}
