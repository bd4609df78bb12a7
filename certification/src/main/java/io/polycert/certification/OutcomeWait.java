package io.polycert.certification;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How PolyCert's commit handlers (full and partial replication) wait for an outcome that another thread completes:
 * first yielding the core a number of times, checking between turns, and only then parking. Waking a parked thread
 * takes a scheduling delay that, on a busy machine, is longer than a whole commit among in-JVM replicas (about
 * 10 to 25 µs); a thread that yields lets the threads that will complete its outcome run, and finds it on its next
 * turn. Counted in yields, not time, like the idle strategies of Agrona and the LMAX Disruptor: where other threads
 * are runnable, a yield hands them the core for as long as they need it, which a time budget would count as
 * spent (a 50 µs budget did no better than 20 or 100 yields in CERTIFICATION.md's runs). Not
 * needed by applications.
 */
public final class OutcomeWait {
    private OutcomeWait() {
    }

    /**
     * {@code future.get} with a timeout, after yielding up to {@code yields} times while the future is not done
     * (0: park at once). The time spent yielding counts toward {@code timeout}, which bounds the whole wait; an
     * interrupt ends it at once, as it would a parked wait.
     */
    public static <T> T get(CompletableFuture<T> future, int yields, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        long timeoutNanos = saturatedNanos(timeout);
        if (yields > 0 && !future.isDone()) {
            long start = System.nanoTime();
            long waited = 0;
            for (int i = 0; i < yields && !future.isDone() && waited < timeoutNanos
                    && !Thread.currentThread().isInterrupted(); i++) {
                Thread.yield();
                waited = System.nanoTime() - start;
            }
            timeoutNanos -= waited;
        }
        return future.get(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
    }

    /** In nanoseconds, or Long.MAX_VALUE for durations beyond what a long holds (about 292 years). */
    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return d.isNegative() ? 0 : Long.MAX_VALUE;
        }
    }
}
