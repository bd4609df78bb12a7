package io.polycert.gcs;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread a group engine runs on. Events (messages, views, local calls) are queued and run in order; when
 * the queue runs dry (or every few hundred events under load) the engine is flushed, which is what batches
 * messages and acknowledgements naturally: the busier the member, the bigger the batches.
 */
final class EngineLoop implements Executor {
    private static final Logger LOG = LoggerFactory.getLogger(EngineLoop.class);
    private static final int FLUSH_EVERY = 256;

    private final LinkedTransferQueue<Runnable> queue = new LinkedTransferQueue<>();
    private final Thread thread;
    private volatile GroupEngine engine;
    private volatile boolean stopped;

    EngineLoop(String name) {
        this.thread = new Thread(this::run, "polycert-engine-" + name);
        this.thread.setDaemon(true);
    }

    void start(GroupEngine engine) {
        this.engine = engine;
        thread.start();
    }

    @Override
    public void execute(Runnable task) {
        if (!stopped) {
            queue.add(task);
        }
    }

    boolean inLoop() {
        return Thread.currentThread() == thread;
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
        int sinceFlush = 0;
        while (!stopped) {
            try {
                Runnable task = queue.poll();
                if (task == null || sinceFlush >= FLUSH_EVERY) {
                    engine.flush();
                    sinceFlush = 0;
                    if (task == null) {
                        task = queue.take();
                    }
                }
                task.run();
                sinceFlush++;
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException | Error e) {
                // Nothing a single event does may stop the member; the engine logs its own drops.
                LOG.error("[{}] event failed; continuing", engine.self, e);
            }
        }
    }
}
