package io.polycert.gcs;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a group engine's events one at a time without a thread of its own: whichever thread brings an event (a
 * JGroups receiver thread, an application thread broadcasting) runs it if the engine is free, together with any
 * events queued meanwhile, and flushes the engine when the queue runs dry; if the engine is busy, the event is
 * queued for the thread already inside. So an uncontended message costs no thread hand-off (on a 2-core machine
 * each hand-off can cost a scheduling delay), and under load the flush still batches naturally: the busier the
 * member, the more events per flush.
 */
final class EngineLoop implements Executor {
    private static final Logger LOG = LoggerFactory.getLogger(EngineLoop.class);
    private static final int FLUSH_EVERY = 256;

    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    private final ReentrantLock running = new ReentrantLock();
    private final String name;
    private volatile GroupEngine engine;
    private volatile boolean stopped;

    EngineLoop(String name) {
        this.name = name;
    }

    void start(GroupEngine engine) {
        this.engine = engine;
        drain();
    }

    @Override
    public void execute(Runnable task) {
        if (stopped) {
            return;
        }
        queue.add(task);
        drain();
    }

    /** Whether the calling thread is running the engine now (a listener called inline, for instance). */
    boolean inEngine() {
        return running.isHeldByCurrentThread();
    }

    void stop() {
        stopped = true;
        queue.clear();
    }

    private void drain() {
        GroupEngine e = engine;
        if (e == null) {
            return; // events wait until the engine exists
        }
        // Re-check after unlocking: an event queued just before we let go would otherwise wait for the next one.
        while (!queue.isEmpty() && !stopped) {
            if (running.isHeldByCurrentThread() || !running.tryLock()) {
                return; // the thread inside drains it (or we are that thread, re-entered from a send)
            }
            try {
                int sinceFlush = 0;
                Runnable task;
                while ((task = queue.poll()) != null) {
                    run(e, task);
                    if (++sinceFlush >= FLUSH_EVERY) {
                        flush(e);
                        sinceFlush = 0;
                    }
                }
                flush(e);
            } finally {
                running.unlock();
            }
        }
    }

    private void run(GroupEngine e, Runnable task) {
        try {
            task.run();
        } catch (RuntimeException | Error ex) {
            // Nothing a single event does may stop the member; the engine logs its own drops.
            LOG.error("[{}] event failed; continuing", name, ex);
        }
    }

    private void flush(GroupEngine e) {
        try {
            e.flush();
        } catch (RuntimeException | Error ex) {
            LOG.error("[{}] flush failed; continuing", name, ex);
        }
    }
}
