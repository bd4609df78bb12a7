package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** A committing thread yields a number of times before it parks, and still gives up at the timeout. */
class OutcomeWaitTest {

    /** While it yields the waiter is runnable (not parked), and it takes the outcome once it comes. */
    @Test
    void aWaiterYieldsBeforeParkingAndTakesTheOutcome() throws Exception {
        CompletableFuture<Long> outcome = new CompletableFuture<>();
        CompletableFuture<Long> taken = new CompletableFuture<>();
        Thread waiter = waiter(outcome, taken, Integer.MAX_VALUE);
        assertEquals(Thread.State.RUNNABLE, stateAfterAWhile(waiter), "yielding, not parked");
        outcome.complete(7L);
        assertEquals(7L, taken.get(20, TimeUnit.SECONDS));
    }

    /** Without yields it parks at once (as every commit did before), and is woken by the outcome. */
    @Test
    void withoutYieldsAWaiterParksAtOnce() throws Exception {
        CompletableFuture<Long> outcome = new CompletableFuture<>();
        CompletableFuture<Long> taken = new CompletableFuture<>();
        Thread waiter = waiter(outcome, taken, 0);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (waiter.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(Thread.State.TIMED_WAITING, waiter.getState(), "parked");
        outcome.complete(8L);
        assertEquals(8L, taken.get(20, TimeUnit.SECONDS));
    }

    /** The timeout bounds the yielding too: an outcome that never comes ends the wait, however many yields. */
    @Test
    void theTimeoutBoundsTheYields() {
        assertThrows(TimeoutException.class, () -> OutcomeWait.get(new CompletableFuture<>(), Integer.MAX_VALUE,
                Duration.ofMillis(50)));
        assertThrows(TimeoutException.class, () -> OutcomeWait.get(new CompletableFuture<>(), 10,
                Duration.ofMillis(50)));
    }

    /**
     * An interrupt ends the wait at once, however many yields are left (a review's finding: the yields ignored it
     * and ran to the timeout). Yielding checks the flag; the parked wait then throws.
     */
    @Test
    void anInterruptEndsTheYieldingAtOnce() throws Exception {
        CompletableFuture<Long> outcome = new CompletableFuture<>();
        CompletableFuture<Long> taken = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                taken.complete(OutcomeWait.get(outcome, Integer.MAX_VALUE, Duration.ofMinutes(10)));
            } catch (Exception e) {
                taken.completeExceptionally(e);
            }
        }, "outcome-waiter");
        waiter.setDaemon(true);
        waiter.start();
        assertEquals(Thread.State.RUNNABLE, stateAfterAWhile(waiter), "yielding");
        waiter.interrupt();
        ExecutionException e = assertThrows(ExecutionException.class, () -> taken.get(60, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof InterruptedException, String.valueOf(e.getCause()));
    }

    /** A timeout too long for nanoseconds in a long (a "forever" setting) waits, as before, instead of failing. */
    @Test
    void aTimeoutBeyondALongOfNanosecondsStillWaits() throws Exception {
        assertEquals(5L, OutcomeWait.get(CompletableFuture.completedFuture(5L), 3, Duration.ofDays(365L * 1000)));
        CompletableFuture<Long> later = new CompletableFuture<>();
        new Thread(() -> later.complete(6L)).start();
        assertEquals(6L, OutcomeWait.get(later, 3, Duration.ofDays(365L * 1000)));
    }

    @Test
    void settingsRefuseNegativeYields() {
        CertificationSettings defaults = CertificationSettings.defaults();
        assertEquals(CertificationSettings.DEFAULT_OUTCOME_YIELDS, defaults.outcomeYields());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> defaults.withOutcomeYields(-1));
        assertTrue(negative.getMessage().contains("outcomeYields"), negative.getMessage());
        assertEquals(0, defaults.withOutcomeYields(0).outcomeYields());
        assertEquals(7, defaults.withOutcomeYields(7).withOutcomeTimeout(Duration.ofSeconds(1)).outcomeYields());
        IllegalArgumentException partial = assertThrows(IllegalArgumentException.class,
                () -> io.polycert.certification.partial.PartitionedEngine.builder().outcomeYields(-1));
        assertTrue(partial.getMessage().contains("outcome yields"), partial.getMessage());
    }

    private static Thread waiter(CompletableFuture<Long> outcome, CompletableFuture<Long> taken, int yields) {
        Thread t = new Thread(() -> {
            try {
                taken.complete(OutcomeWait.get(outcome, yields, Duration.ofSeconds(60)));
            } catch (Exception e) {
                taken.completeExceptionally(e);
            }
        }, "outcome-waiter");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** The waiter's state once it is surely waiting (its yields last minutes, far beyond this). */
    private static Thread.State stateAfterAWhile(Thread waiter) throws InterruptedException {
        Thread.sleep(200);
        return waiter.getState();
    }
}
