package io.polycert.bench.faults;

import java.util.SplittableRandom;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jgroups.Message;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;

/**
 * A JGroups layer that delays what this member sends by {@code delay} plus up to {@code jitter} milliseconds,
 * keeping send order. A fault-injection harness inserts it into a running stack, just above DISCARD (see
 * {@link #insertAbove}). Unlike JGroups' DELAY it costs nothing while idle: its sender thread blocks on a queue
 * (DELAY 5.5.7's thread busy-polls a core for the life of the JVM).
 */
public final class SlowLink extends Protocol {
    private final LinkedBlockingQueue<Delayed> queue = new LinkedBlockingQueue<>();
    private final AtomicInteger pending = new AtomicInteger();
    private final java.util.concurrent.atomic.LongAdder delayed = new java.util.concurrent.atomic.LongAdder();
    private final SplittableRandom random = new SplittableRandom();
    private volatile int delayMs;
    private volatile int jitterMs;
    private Thread sender;

    private record Delayed(long due, Message message) {
    }

    /** Inserts a new one directly above {@code below} in its (running) stack and returns it. */
    public static SlowLink insertAbove(Protocol below) {
        SlowLink link = new SlowLink();
        ProtocolStack stack = below.getProtocolStack();
        link.setProtocolStack(stack);
        stack.insertProtocolInStack(link, below, ProtocolStack.Position.ABOVE);
        return link;
    }

    /** Delays every message sent from now on by {@code delayMs} plus a random 0..{@code jitterMs}; 0 stops it. */
    public synchronized void delay(int delayMs, int jitterMs) {
        if (delayMs < 0 || jitterMs < 0) {
            throw new IllegalArgumentException("negative delay");
        }
        this.jitterMs = jitterMs;
        this.delayMs = delayMs;
        if (delayMs > 0 && sender == null) {
            sender = new Thread(this::sendLoop, "slow-link");
            sender.setDaemon(true);
            sender.start();
        }
    }

    public int delayMs() {
        return delayMs;
    }

    /** Messages held back so far (each one sent while a delay was set, or queued behind one). */
    public long delayed() {
        return delayed.sum();
    }

    @Override
    public Object down(Message msg) {
        int d = delayMs;
        if (d <= 0 && pending.get() == 0) {
            return down_prot.down(msg);
        }
        int j = jitterMs;
        long extra;
        synchronized (random) {
            extra = j > 0 ? random.nextInt(j + 1) : 0;
        }
        pending.incrementAndGet();
        delayed.increment();
        queue.add(new Delayed(System.nanoTime() + (Math.max(0, d) + extra) * 1_000_000L, msg));
        return null;
    }

    private void sendLoop() {
        while (true) {
            Delayed next;
            try {
                next = queue.take();
                long wait = next.due() - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
                }
            } catch (InterruptedException e) {
                return;
            }
            try {
                down_prot.down(next.message());
            } catch (RuntimeException e) {
                // the channel may be closing; the message is lost like any other
            } finally {
                pending.decrementAndGet();
            }
        }
    }
}
