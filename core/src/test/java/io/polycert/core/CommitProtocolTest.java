package io.polycert.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The commit protocol's corner cases, one state at a time: a commit frozen in each state of {@link Commit} (as if
 * its thread were descheduled there) and what readers and writers that meet its pending body do. None of them may
 * wait for it, none may see part of it, and none may lose it once it committed.
 */
class CommitProtocolTest {
    private final AtomicReference<CommitLog> logRef = new AtomicReference<>();
    private final Stm stm = Stm.builder().commitHandler(log -> {
        logRef.set(log);
        return log::validateAndAppend;
    }).build();
    private final VBox<Integer> box = stm.newBox(1);

    /** Puts a pending body of {@code commit} with {@code value} on the box, as a commit's first step does. */
    private VBox.Body frozen(Commit commit, int value) {
        VBox.Body head = box.head();
        VBox.Body pending = new VBox.Body(value, commit);
        pending.next = head;
        assertTrue(box.casHead(head, pending));
        return pending;
    }

    @Test
    void aReaderSkipsACommitStillPushingItsBodies() {
        Commit commit = new Commit(false);
        frozen(commit, 2);
        assertEquals(1, stm.readOnly(box::get));
        assertEquals(Commit.LOCKING, commit.state(), "a reader leaves a pushing commit alone");
    }

    @Test
    void aReaderGivesACommitWithoutAVersionOneAfterItsSnapshot() {
        Commit commit = new Commit(false);
        frozen(commit, 2);
        assertTrue(commit.compareAndSet(Commit.LOCKING, Commit.LOCKED));
        long snapshot = stm.latestVersion();
        assertEquals(1, stm.readOnly(box::get));
        long state = commit.state();
        assertTrue(state >= 0 && !Commit.isCommitted(state), "versioned, still undecided");
        assertTrue(Commit.versionOf(state) > snapshot, "its version is after the reader's snapshot");
    }

    @Test
    void aReaderAbortsAnUndecidedCommitInsideItsSnapshotInsteadOfWaiting() {
        Commit commit = new Commit(false);
        frozen(commit, 2);
        long version = stm.clock.incrementAndGet();
        assertTrue(commit.compareAndSet(Commit.LOCKING, Commit.versioned(version)));
        assertEquals(1, stm.readOnly(box::get), "an undecided commit is not seen");
        assertEquals(Commit.ABORTED, commit.state());
        assertEquals(1, stm.readOnly(box::get), "and it stays unseen");
    }

    @Test
    void aCommittedButUnfinishedCommitIsSeenAndFinishedByTheNextWriter() {
        Commit commit = new Commit(false);
        VBox.Body pending = frozen(commit, 2);
        long version = stm.clock.incrementAndGet();
        commit.setCommitted(version);
        assertEquals(2, stm.readOnly(box::get));
        stm.atomic(() -> box.put(box.get() + 1));
        assertNull(pending.owner(), "the writer finished the body in its way");
        assertEquals(version, pending.version);
        assertEquals(3, stm.readOnly(box::get));
    }

    @Test
    void aWriterAbortsAPushingCommitInItsWayAndTakesItsBodyOff() {
        Commit commit = new Commit(false);
        VBox.Body pending = frozen(commit, 2);
        stm.atomic(() -> box.put(5));
        assertEquals(Commit.ABORTED, commit.state());
        assertEquals(5, stm.readOnly(box::get));
        for (VBox.Body b = box.head(); b != null; b = b.next) {
            assertTrue(b != pending, "the aborted body is gone from the chain");
        }
    }

    @Test
    void anAbortedCommitsBodyIsTakenOffByTheNextWriter() {
        Commit commit = new Commit(false);
        frozen(commit, 2);
        assertTrue(commit.compareAndSet(Commit.LOCKING, Commit.ABORTED));
        assertEquals(1, stm.readOnly(box::get));
        stm.atomic(() -> box.put(box.get() + 10));
        assertEquals(11, stm.readOnly(box::get));
        assertEquals(2, box.versionCount(), "the new version and the one it replaced; the aborted body is gone");
    }

    @Test
    void anInstallStillPushingIsNeverAbortedAndBecomesVisibleWhenCommitted() {
        Commit install = new Commit(true);
        frozen(install, 7);
        assertEquals(1, stm.readOnly(box::get));
        assertEquals(Commit.LOCKING, install.state(), "readers never touch an install");
        long version = stm.latestVersion() + 1;
        install.setCommitted(version);
        assertTrue(stm.clock.compareAndSet(version - 1, version));
        assertEquals(7, stm.readOnly(box::get));
    }

    @Test
    void aCommitAbortedWhileValidatingTellsItsCallerAndLeavesNothingBehind() throws Exception {
        VBox<Integer> other = stm.newBox(0);
        Transaction tx = stm.begin();
        int read = box.get();
        other.put(read + 1);
        Thread overwriter = new Thread(() -> stm.atomic(() -> box.put(100))); // the box tx read, overwritten
        overwriter.start();
        overwriter.join();
        TransactionAbortedException e = assertThrows(TransactionAbortedException.class, tx::commit);
        assertEquals(AbortCause.CONFLICT, e.abortCause());
        assertTrue(e.getMessage().contains(box.toString()), e.getMessage());
        assertEquals(0, stm.readOnly(other::get));
        assertSame(null, other.head().owner(), "no pending body left on the box it would have written");
    }

    @Test
    void installsComeOneAboveThePreviousAndTheirNumberingIsChecked() {
        CommitLog log = logRef.get();
        long first = log.append(new VBox<?>[] {box}, new Object[] {2});
        long second = log.append(new VBox<?>[] {box}, new Object[] {3});
        assertEquals(first + 1, second);
        assertEquals(3, stm.readOnly(box::get));
        assertThrows(IllegalArgumentException.class, () -> log.append(new VBox<?>[] {box}, new Object[] {}));
    }
}
