package io.polycert.gcs;

import io.polycert.core.group.GroupListener;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.StateHandler;
import io.polycert.core.group.View;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls the listener right where the engine delivers, one call at a time (the engine is single-threaded), with
 * no hand-off to a delivery thread: for listeners that never block and return within microseconds, like the
 * certification engine. Saves a thread hand-off per delivery.
 */
final class InlineDelivery implements DeliverySink {
    private static final Logger LOG = LoggerFactory.getLogger(InlineDelivery.class);

    private final GroupListener listener;
    private final StateHandler state;
    private final Consumer<View> beforeListener;
    private final Consumer<View> onView;
    private final Consumer<Exception> stateRefused;

    /**
     * @param beforeListener sees each view before the listener does (so the group reports the new view while the
     *     listener handles it)
     * @param onView sees each view after the listener handled it
     * @param stateRefused sees why the listener could not install the group's state (a join fails with it; a member
     *     back from a minority leaves)
     */
    InlineDelivery(GroupListener listener, StateHandler state, Consumer<View> beforeListener, Consumer<View> onView,
            Consumer<Exception> stateRefused) {
        this.listener = listener;
        this.state = state;
        this.beforeListener = beforeListener;
        this.onView = onView;
        this.stateRefused = stateRefused;
    }

    private static void guarded(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.error("delivery callback failed; continuing", e);
        }
    }

    @Override
    public void ordered(MemberId origin, long position, byte[] payload) {
        guarded(() -> listener.deliverOrdered(origin, position, payload));
    }

    @Override
    public void view(View view, long position) {
        beforeListener.accept(view);
        guarded(() -> listener.viewInstalled(view, position));
        onView.accept(view);
    }

    @Override
    public void reliable(MemberId origin, byte[] payload) {
        guarded(() -> listener.deliverReliable(origin, payload));
    }

    @Override
    public void heldFromDeparted(MemberId origin, byte[] payload) {
        guarded(() -> listener.heldFromDeparted(origin, payload));
    }

    @Override
    public void multicast(MemberId origin, byte[] payload) {
        guarded(() -> listener.deliverMulticast(origin, payload));
    }

    @Override
    public void direct(MemberId origin, byte[] payload) {
        guarded(() -> listener.deliverDirect(origin, payload));
    }

    @Override
    public void blocked(View view) {
        beforeListener.accept(view);
        guarded(() -> listener.blocked(view));
        onView.accept(view);
    }

    @Override
    public void captureState(Consumer<byte[]> then) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            state.writeState(out);
        } catch (Exception e) {
            LOG.error("writing the state for a joining member failed; it will get it from a later view", e);
            return;
        }
        then.accept(out.toByteArray());
    }

    @Override
    public void incompatible(Exception reason) {
        stateRefused.accept(reason);
    }

    @Override
    public void installState(byte[] bytes, Runnable then) {
        try {
            state.readState(new ByteArrayInputStream(bytes));
        } catch (Exception e) {
            LOG.error("installing the transferred state failed; this member cannot continue and leaves the group", e);
            stateRefused.accept(e);
            return;
        }
        then.run();
    }
}
