package io.polycert.gcs;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * How much a member may have broadcast and not yet delivered: at most so many messages and so many bytes. This is
 * PolyCert's flow control: application threads wait here, never JGroups' threads (the engine sends from those, so
 * a blocking flow-control layer below would make members wait on each other). A message larger than the byte
 * window goes alone. The engine's own thread never waits: it borrows, and may overshoot the window briefly.
 */
final class SendWindow {
    private final int maxMessages;
    private final long maxBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition space = lock.newCondition();
    private int messages;
    private long bytes;

    SendWindow(int maxMessages, long maxBytes) {
        this.maxMessages = maxMessages;
        this.maxBytes = maxBytes;
    }

    private long cost(int size) {
        return Math.min(size, maxBytes);
    }

    /**
     * Takes room for a message of {@code size} bytes, waiting at most {@code timeoutNanos} for it unless
     * {@code mayWait} is false (then it borrows at once).
     *
     * @return false if the window stayed full for the whole timeout (nothing was taken)
     */
    boolean acquire(int size, boolean mayWait, long timeoutNanos) throws InterruptedException {
        long c = cost(size);
        lock.lock();
        try {
            long left = timeoutNanos;
            while (mayWait && messages > 0 && (messages >= maxMessages || bytes + c > maxBytes)) {
                if (left <= 0) {
                    return false;
                }
                left = space.awaitNanos(left);
            }
            messages++;
            bytes += c;
            return true;
        } finally {
            lock.unlock();
        }
    }

    void release(int size) {
        long c = cost(size);
        lock.lock();
        try {
            messages--;
            bytes -= c;
            if (lock.hasWaiters(space)) {
                space.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    int messages() {
        lock.lock();
        try {
            return messages;
        } finally {
            lock.unlock();
        }
    }
}
