package io.polycert.gcs;

import io.polycert.core.group.GroupListener;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.StateHandler;
import io.polycert.core.group.View;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls the application's {@link GroupListener} (and {@link StateHandler}) on a thread of its own, in the order
 * the engine delivered, so slow application code never stalls the protocol. An exception from the application
 * is logged and the thread goes on.
 */
final class DeliveryThread implements DeliverySink {
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryThread.class);

    private final LinkedTransferQueue<Runnable> queue = new LinkedTransferQueue<>();
    private final Thread thread;
    private final GroupListener listener;
    private final StateHandler state;
    private final Consumer<View> onView;
    private volatile boolean stopped;

    DeliveryThread(String name, GroupListener listener, StateHandler state, Consumer<View> onView) {
        this.listener = listener;
        this.state = state;
        this.onView = onView;
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
        queue.add(() -> listener.deliverOrdered(origin, position, payload));
    }

    @Override
    public void view(View view, long position) {
        queue.add(() -> {
            listener.viewInstalled(view, position);
            onView.accept(view);
        });
    }

    @Override
    public void reliable(MemberId origin, byte[] payload) {
        queue.add(() -> listener.deliverReliable(origin, payload));
    }

    @Override
    public void multicast(MemberId origin, byte[] payload) {
        queue.add(() -> listener.deliverMulticast(origin, payload));
    }

    @Override
    public void direct(MemberId origin, byte[] payload) {
        queue.add(() -> listener.deliverDirect(origin, payload));
    }

    @Override
    public void blocked(View view) {
        queue.add(() -> {
            listener.blocked(view);
            onView.accept(view);
        });
    }

    @Override
    public void captureState(Consumer<byte[]> then) {
        queue.add(() -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try {
                state.writeState(out);
            } catch (Exception e) {
                LOG.error("writing the state for a joining member failed; it will get it from a later view", e);
                return;
            }
            then.accept(out.toByteArray());
        });
    }

    @Override
    public void installState(byte[] bytes, Runnable then) {
        queue.add(() -> {
            try {
                state.readState(new ByteArrayInputStream(bytes));
            } catch (Exception e) {
                LOG.error("installing the transferred state failed; this member cannot continue", e);
                return;
            }
            then.run();
        });
    }
}
