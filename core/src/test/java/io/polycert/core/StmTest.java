package io.polycert.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class StmTest {

    @Test
    void atomicCommitsAndReturnsItsValue() {
        Stm stm = Stm.create();
        VBox<Integer> box = stm.newBox(1);
        int seen = stm.atomic(() -> {
            box.put(box.get() + 41);
            return box.get();
        });
        assertEquals(42, seen);
        assertEquals(42, box.get());
        assertEquals(1, stm.latestVersion());
    }

    @Test
    void readsInsideTransactionSeeItsSnapshotWhileOutsideSeeLatest() throws Exception {
        Stm stm = Stm.create();
        VBox<String> box = stm.newBox("old");
        Transaction tx = stm.beginReadOnly();
        CompletableFuture.runAsync(() -> box.put("new")).get();
        assertEquals("old", box.get(), "the transaction keeps its snapshot");
        tx.commit();
        assertEquals("new", box.get(), "outside a transaction: latest committed value");
    }

    @Test
    void writesAreInvisibleUntilCommit() throws Exception {
        Stm stm = Stm.create();
        VBox<Integer> box = stm.newBox(0);
        Transaction tx = stm.begin();
        box.put(5);
        assertEquals(5, box.get(), "a transaction reads its own writes");
        assertEquals(0, CompletableFuture.supplyAsync(box::get).get(), "others do not");
        tx.commit();
        assertEquals(5, CompletableFuture.supplyAsync(box::get).get());
    }

    @Test
    void explicitAbortDiscardsWrites() {
        Stm stm = Stm.create();
        VBox<Integer> box = stm.newBox(0);
        Transaction tx = stm.begin();
        box.put(5);
        tx.abort();
        assertEquals(Transaction.Status.ABORTED, tx.status());
        assertEquals(0, box.get());
        assertNull(stm.currentTransaction());
        assertThrows(IllegalStateException.class, tx::commit);
    }

    @Test
    void exceptionInAtomicBodyAbortsAndPropagates() {
        Stm stm = Stm.create();
        VBox<Integer> box = stm.newBox(0);
        IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, () -> stm.atomic(() -> {
            box.put(9);
            throw new IllegalArgumentException("boom");
        }));
        assertEquals("boom", thrown.getMessage());
        assertEquals(0, box.get());
        assertEquals(0, stm.latestVersion());
    }

    @Test
    void writingInReadOnlyTransactionIsAClearError() {
        Stm stm = Stm.create();
        VBox<Integer> box = stm.newBox(0);
        ReadOnlyTransactionException e = assertThrows(ReadOnlyTransactionException.class,
                () -> stm.readOnly(() -> box.put(1)));
        assertTrue(e.getMessage().contains("read-only"), e.getMessage());
        assertThrows(ReadOnlyTransactionException.class, () -> stm.readOnly(() -> stm.newBox(1)));
        // a read-only block nested in a read-write transaction refuses writes too, and the outer one survives
        stm.atomic(() -> {
            box.put(1);
            assertThrows(ReadOnlyTransactionException.class, () -> stm.readOnly(() -> box.put(2)));
            assertEquals(1, stm.readOnly(box::get));
        });
        assertEquals(1, box.get());
    }

    @Test
    void nestingIsFlat() {
        Stm stm = Stm.create();
        VBox<Integer> box = stm.newBox(0);
        stm.atomic(() -> {
            box.put(1);
            Transaction outer = stm.currentTransaction();
            stm.atomic(() -> {
                assertSame(outer, stm.currentTransaction());
                box.put(box.get() + 1);
            });
            assertEquals(2, box.get());
        });
        assertEquals(2, box.get());
        assertEquals(1, stm.latestVersion(), "one commit for the nested blocks");
        assertThrows(IllegalStateException.class, () -> stm.atomic(() -> stm.begin()));
    }

    @Test
    void boxesCreatedInATransactionExistOnlyIfItCommits() {
        Stm stm = Stm.create();
        VBox<VBox<String>> holder = stm.newBox(null);
        stm.atomic(() -> holder.put(stm.newBox("child")));
        assertEquals("child", holder.get().get());

        VBox<?>[] leaked = new VBox<?>[1];
        Transaction tx = stm.begin();
        leaked[0] = stm.newBox("never");
        tx.abort();
        IllegalStateException e = assertThrows(IllegalStateException.class, leaked[0]::get);
        assertTrue(e.getMessage().contains("no committed value"), e.getMessage());
    }

    @Test
    void writeOutsideTransactionCommitsAtOnce() {
        Stm stm = Stm.create();
        VBox<Integer> box = stm.newBox(0);
        box.put(3);
        assertEquals(3, box.get());
        assertEquals(1, stm.latestVersion());
    }

    @Test
    void twoStmsInOneJvmAreIndependent() {
        Stm a = Stm.create();
        Stm b = Stm.create();
        VBox<Integer> inA = a.newBox(1);
        VBox<Integer> inB = b.newBox(1);
        assertEquals(inA.id(), inB.id(), "each STM numbers its own boxes");
        a.atomic(() -> inA.put(2));
        assertEquals(1, a.latestVersion());
        assertEquals(0, b.latestVersion());
        assertEquals(1, inB.get());
        // a transaction of one STM refuses boxes of another
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> a.atomic(() -> a.currentTransaction().read(inB)));
        assertTrue(e.getMessage().contains("belongs to"), e.getMessage());
    }

    @Test
    void aBoxOfAnotherStmIsRefusedInsideATransactionThroughGetAndPut() {
        Stm a = Stm.create();
        Stm b = Stm.create();
        VBox<Integer> inA = a.newBox(1);
        VBox<Integer> inB = b.newBox(1);
        // get and put would act on A outside B's transaction (and put would commit on A on its own)
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.atomic(() -> inA.put(2)));
        assertTrue(e.getMessage().contains("another STM"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> b.atomic(() -> inB.put(inA.get())));
        assertThrows(IllegalArgumentException.class, () -> b.readOnly(() -> inA.get()));
        Transaction open = b.begin();
        assertThrows(IllegalArgumentException.class, inA::get);
        open.abort();
        assertEquals(0, a.latestVersion(), "nothing committed on A");
        assertEquals(0, b.latestVersion(), "nothing committed on B");
        // once B's transactions ended, and inside A's own transaction nested in B's, A's box works
        inA.put(3);
        b.atomic(() -> a.atomic(() -> inA.put(inA.get() + 1)));
        assertEquals(4, inA.get());
        assertEquals(2, a.latestVersion());
    }

    @Test
    void readOnlyTransactionsDoNotAbortUnderConcurrentWrites() throws Exception {
        Stm stm = Stm.create();
        VBox<Integer> x = stm.newBox(0);
        VBox<Integer> y = stm.newBox(0);
        AtomicInteger attempts = new AtomicInteger();
        int sum = stm.readOnly(() -> {
            attempts.incrementAndGet();
            int first = x.get();
            CompletableFuture.runAsync(() -> stm.atomic(() -> {
                x.put(10);
                y.put(-10);
            })).join();
            return first + y.get();
        });
        assertEquals(0, sum, "the snapshot stays consistent");
        assertEquals(1, attempts.get());
    }

    @Test
    void readWriteTransactionThatOnlyReadsNeverAborts() {
        Stm stm = Stm.create();
        VBox<Integer> x = stm.newBox(0);
        Transaction tx = stm.begin();
        x.get();
        CompletableFuture.runAsync(() -> x.put(1)).join();
        tx.commit();
        assertEquals(Transaction.Status.COMMITTED, tx.status());
    }

    @Test
    void conflictingCommitAborts() {
        Stm stm = Stm.create();
        VBox<Integer> x = stm.newBox(0);
        Transaction tx = stm.begin();
        x.put(x.get() + 1);
        CompletableFuture.runAsync(() -> x.put(100)).join();
        TransactionAbortedException e = assertThrows(TransactionAbortedException.class, tx::commit);
        assertEquals(AbortCause.CONFLICT, e.abortCause());
        assertTrue(e.getMessage().contains(x.toString()), e.getMessage());
        assertEquals(100, x.get());
        assertNull(stm.currentTransaction());
    }

    @Test
    void atomicGivesUpAfterMaxAttemptsSayingWhy() {
        Stm stm = Stm.builder().maxAttempts(5).build();
        VBox<Integer> x = stm.newBox(0);
        AtomicInteger runs = new AtomicInteger();
        TransactionAbortedException e = assertThrows(TransactionAbortedException.class, () -> stm.atomic(() -> {
            runs.incrementAndGet();
            x.put(x.get() + 1);
            CompletableFuture.runAsync(() -> x.put(-1)).join(); // always overwritten before we commit
        }));
        assertEquals(5, runs.get());
        assertEquals(5, e.attempts());
        assertEquals(AbortCause.CONFLICT, e.abortCause());
        assertTrue(e.getMessage().contains("gave up after 5 attempts (5 conflict)"), e.getMessage());
    }

    @Test
    void transactionCannotBeUsedFromAnotherThread() {
        Stm stm = Stm.create();
        VBox<Integer> x = stm.newBox(0);
        Transaction tx = stm.begin();
        Exception e = assertThrows(Exception.class, () -> CompletableFuture.runAsync(() -> tx.write(x, 1)).join());
        assertTrue(e.getCause() instanceof IllegalStateException, String.valueOf(e.getCause()));
        tx.abort();
    }

    @Test
    void closedStmRefusesWork() {
        Stm stm = Stm.create();
        VBox<Integer> x = stm.newBox(0);
        Transaction running = stm.begin();
        x.put(1);
        stm.close();
        assertTrue(stm.isClosed());
        assertThrows(StmClosedException.class, running::commit);
        assertEquals(Transaction.Status.ABORTED, running.status());
        assertThrows(StmClosedException.class, () -> stm.atomic(() -> x.put(2)));
        assertThrows(StmClosedException.class, () -> stm.newBox(1));
        assertEquals(0, x.get(), "nothing changed");
    }

    @Test
    void commitHandlerSeesReadAndWriteSets() {
        CommitRequest[] seen = new CommitRequest[1];
        long[] snapshot = new long[1];
        Stm stm = Stm.builder().commitHandler(log -> request -> {
            seen[0] = request;
            snapshot[0] = request.snapshotVersion();
            assertEquals(2, request.readSetSize());
            assertEquals(2, request.writeSetSize());
            assertFalse(request.isCreated(0));
            assertTrue(request.isCreated(1));
            return log.validateAndAppend(request);
        }).build();
        VBox<Integer> a = stm.newBox(1);
        VBox<Integer> b = stm.newBox(2);
        stm.atomic(() -> {
            a.put(a.get() + b.get());
            stm.newBox("created");
        });
        assertEquals(0, snapshot[0]);
        assertEquals(3, a.get());
    }

    @Test
    void handlerAbortLeavesEverythingUnchanged() {
        Stm stm = Stm.builder().maxAttempts(3).commitHandler(log -> request -> {
            throw new TransactionAbortedException(AbortCause.NOT_IN_MAJORITY, "minority partition");
        }).build();
        VBox<Integer> a = stm.newBox(1);
        TransactionAbortedException e = assertThrows(TransactionAbortedException.class,
                () -> stm.atomic(() -> a.put(2)));
        assertEquals(AbortCause.NOT_IN_MAJORITY, e.abortCause());
        assertEquals(1, e.attempts(), "not retryable");
        assertEquals(1, a.get());
        assertEquals(0, stm.latestVersion());
    }

    /** Before, abort() inside atomic ended the transaction and the rest of the block committed write by write. */
    @Test
    void aBlockCannotEndItsOwnTransaction() {
        Stm stm = Stm.create();
        VBox<Integer> a = stm.newBox(0);
        VBox<Integer> b = stm.newBox(0);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> stm.atomic(() -> {
            a.put(1);
            stm.currentTransaction().abort();
            b.put(1);
        }));
        assertTrue(e.getMessage().contains("throw from it to abort"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> stm.atomic(() -> {
            a.put(2);
            stm.currentTransaction().commit();
        }));
        assertThrows(IllegalStateException.class, () -> stm.readOnly(() -> {
            stm.currentTransaction().commit();
        }));
        assertEquals(0, a.get());
        assertEquals(0, b.get());
        assertNull(stm.currentTransaction(), "the blocks ended their transactions");
        Transaction explicit = stm.begin(); // frameworks still end their own
        b.put(3);
        explicit.commit();
        assertEquals(3, b.get());
    }
}
