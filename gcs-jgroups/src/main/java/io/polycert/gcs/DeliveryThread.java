package io.polycert.gcs;

import io.polycert.core.group.GroupListener;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.StateHandler;
import io.polycert.core.group.View;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls the application's {@link GroupListener} (and {@link StateHandler}) on a thread of its own, in the order
 * the engine delivered, so slow application code never stalls the protocol. Each call is an
 * {@link InlineDelivery} call moved to this thread, so an exception from the application is logged and the
 * thread goes on.
 */
final class DeliveryThread implements DeliverySink {
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryThread.class);

    private final LinkedTransferQueue<Runnable> queue = new LinkedTransferQueue<>();
    private final Thread thread;
    private final InlineDelivery target;
    private volatile boolean stopped;

    DeliveryThread(String name, GroupListener listener, StateHandler state, Consumer<View> beforeListener,
            Consumer<View> onView, Consumer<Exception> stateRefused) {
        this.target = new InlineDelivery(listener, state, beforeListener, onView, stateRefused);
        this.thread = new Thread(this::run, "polycert-delivery-" + name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    void stop() {
        stopped = true;
        queue.add(() -> { });
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        while (!stopped) {
            try {
                queue.take().run();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException | Error e) {
                LOG.error("delivery callback failed; continuing", e);
            }
        }
    }

    @Override
    public void ordered(MemberId origin, long position, byte[] payload) {
        queue.add(() -> target.ordered(origin, position, payload));
    }

    @Override
    public void view(View view, long position) {
        queue.add(() -> target.view(view, position));
    }

    @Override
    public void reliable(MemberId origin, byte[] payload) {
        queue.add(() -> target.reliable(origin, payload));
    }

    @Override
    public void heldFromDeparted(MemberId origin, byte[] payload) {
        queue.add(() -> target.heldFromDeparted(origin, payload));
    }

    @Override
    public void multicast(MemberId origin, byte[] payload) {
        queue.add(() -> target.multicast(origin, payload));
    }

    @Override
    public void direct(MemberId origin, byte[] payload) {
        queue.add(() -> target.direct(origin, payload));
    }

    @Override
    public void blocked(View view) {
        queue.add(() -> target.blocked(view));
    }

    @Override
    public void captureState(Consumer<byte[]> then) {
        queue.add(() -> target.captureState(then));
    }

    @Override
    public void incompatible(Exception reason) {
        target.incompatible(reason); // not queued: it fails the join, which waits on another thread
    }

    @Override
    public void installState(byte[] bytes, Runnable then) {
        queue.add(() -> target.installState(bytes, then));
    }
}
