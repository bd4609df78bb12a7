package io.polycert.bench.faults;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Lets the harness stop a member's clients before the final reads: once {@link #quiesce} is called, clients start
 * no new operation, and the harness waits for those in flight.
 */
final class ClientGate {
    private volatile boolean quiesced;
    private final AtomicInteger inFlight = new AtomicInteger();

    /** True while clients must not start an operation. */
    boolean quiesced() {
        return quiesced;
    }

    /** An operation starts; pair with {@link #exit()} in a finally block. */
    void enter() {
        inFlight.incrementAndGet();
    }

    void exit() {
        inFlight.decrementAndGet();
    }

    int inFlight() {
        return inFlight.get();
    }

    /**
     * Stops new operations and waits up to {@code timeoutMs} for those in flight.
     *
     * @return how many are still in flight
     */
    int quiesce(long timeoutMs) throws InterruptedException {
        quiesced = true;
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        return inFlight.get();
    }

    void resume() {
        quiesced = false;
    }
}
