package io.polycert.core.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition in multi-member tests, failing with what was awaited after a generous deadline. */
public final class Await {
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private Await() {
    }

    public static void until(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }
}
