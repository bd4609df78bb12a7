package io.polycert.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Requests handed to the {@link CommitLog} that are not transactions of its STM, and malformed write-sets. */
class CommitLogRequestTest {

    /** This STM's commit log, as a replication handler receives it (JUnit makes one per test). */
    private final AtomicReference<CommitLog> log = new AtomicReference<>();
    private final Stm stm = Stm.builder().commitHandler(commitLog -> {
        log.set(commitLog);
        return commitLog::validateAndAppend;
    }).build();

    /** A request from outside the STM; {@code beforeValidation} runs once, when validation first reads it. */
    private static ReviewStressTest.ForeignRequest request(long snapshot, VBox<?>[] reads, VBox<?>[] writes,
            Object[] values, Runnable beforeValidation) {
        AtomicBoolean ran = new AtomicBoolean();
        return new ReviewStressTest.ForeignRequest(snapshot, reads, writes, values, () -> {
            if (beforeValidation != null && ran.compareAndSet(false, true)) {
                beforeValidation.run();
            }
        });
    }

    private static void onAnotherThread(Runnable r) {
        try {
            ReviewStressTest.runInNewThread(r);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * A request's snapshot is held by nobody: while it stalls between taking its version and validating, the box it
     * read is written again and collected down to its newest version. The read must still count as stale.
     */
    @Test
    void aReadWhoseVersionsWereCollectedCountsAsStale() {
        VBox<Long> x = stm.newBox(0L);
        VBox<Long> a = stm.newBox(0L);
        long snapshot = stm.latestVersion();
        stm.atomic(() -> x.put(1L)); // overwrites the request's read
        CommitRequest request = request(snapshot, new VBox<?>[] {x}, new VBox<?>[] {a}, new Object[] {100L},
                () -> onAnotherThread(() -> {
                    stm.atomic(() -> x.put(2L));
                    for (int i = 0; i < 3 * Stm.COLLECT_EVERY; i++) {
                        stm.atomic(() -> { });
                    }
                }));
        TransactionAbortedException e = assertThrows(TransactionAbortedException.class,
                () -> log.get().validateAndAppend(request));
        assertEquals(AbortCause.CONFLICT, e.abortCause());
        assertEquals(1, x.versionCount(), "the test did not collect the version the request read");
        assertEquals(0L, a.get(), "the refused request wrote");
    }

    @Test
    void aReadOverwrittenAndNotCollectedIsStaleToo() {
        VBox<Long> x = stm.newBox(0L);
        VBox<Long> a = stm.newBox(0L);
        long snapshot = stm.latestVersion();
        stm.atomic(() -> x.put(1L));
        CommitRequest request = request(snapshot, new VBox<?>[] {x}, new VBox<?>[] {a}, new Object[] {100L},
                () -> onAnotherThread(() -> stm.atomic(() -> x.put(2L))));
        assertEquals(AbortCause.CONFLICT, assertThrows(TransactionAbortedException.class,
                () -> log.get().validateAndAppend(request)).abortCause());
    }

    @Test
    void aValidRequestCommits() {
        VBox<Long> x = stm.newBox(0L);
        VBox<Long> a = stm.newBox(0L);
        CommitRequest request = request(stm.latestVersion(), new VBox<?>[] {x}, new VBox<?>[] {a},
                new Object[] {7L}, null);
        long version = log.get().validateAndAppend(request);
        assertEquals(stm.latestVersion(), version);
        assertEquals(7L, a.get());
    }

    /** Before, an install naming a box twice waited for its own pending version for ever, holding the install. */
    @Test
    void anInstallNamingABoxTwiceIsRefusedAndLeavesNothingBehind() {
        VBox<Integer> box = stm.newBox(1);
        IllegalArgumentException e = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThrows(
                IllegalArgumentException.class, () -> log.get().append(new VBox<?>[] {box, box},
                        new Object[] {2, 3})));
        assertTrue(e.getMessage().contains("named twice"), e.getMessage());
        assertEquals(1, box.get());
        assertEquals(1, box.versionCount(), "the refused install left a version behind");
        log.get().append(new VBox<?>[] {box}, new Object[] {4}); // the next install runs
        assertEquals(4, box.get());
    }

    /** Before, it aborted itself with a retryable CONFLICT, though it could never commit. */
    @Test
    void aRequestNamingABoxTwiceIsRefusedAsMalformed() {
        VBox<Integer> box = stm.newBox(1);
        VBox<Integer> other = stm.newBox(1);
        CommitRequest request = request(stm.latestVersion(), new VBox<?>[0], new VBox<?>[] {other, box, box},
                new Object[] {5, 2, 3}, null);
        assertThrows(IllegalArgumentException.class, () -> log.get().validateAndAppend(request));
        assertEquals(1, other.get());
        assertEquals(1, other.versionCount(), "the refused request left its first write behind");
        stm.atomic(() -> other.put(6)); // nothing pending in the way
        assertEquals(6, other.get());
    }
}
