package io.polycert.certification.partial;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.AbortCause;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * D and E left B's view, and the rebalance of that view has not started at B: it waits for the transactions
 * delivered before it, which can take until members cut off are back. Until it starts, an attempt that needs D or E
 * under the old placement waits for it rather than fail at once: failing at once, the majority's clients retried
 * about 20,000 times a second per thread for as long as the rebalance waited (partial schedule 3029 of the fault
 * campaign, docs/RELIABILITY.md). Driven by hand on member B.
 */
class OwnerOutOfViewTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final MemberId C = new MemberId(3, 3, "C");
    private static final MemberId D = new MemberId(4, 4, "D");
    private static final MemberId E = new MemberId(5, 5, "E");
    private static final List<MemberId> ALL = List.of(A, B, C, D, E);
    private static final List<MemberId> MAJORITY = List.of(A, B, C);

    private PartitionedEngine engine;

    @AfterEach
    void close() {
        engine.close();
    }

    /** B, placed on all five, then in a view without D and E whose rebalance it has not delivered. */
    private RecordingGroup withoutDAndE(Duration readTimeout) {
        engine = PartitionedEngine.builder().identity(B).readTimeout(readTimeout).build();
        RecordingGroup group = new RecordingGroup(B, A, C, D, E);
        group.refusesDestinationsOutOfView = true;
        group.place(engine);
        View majority = new View(2, MAJORITY, true);
        group.install(majority);
        engine.viewInstalled(majority, -1);
        return group;
    }

    private CompletableFuture<Throwable> attempt(Consumer<PartitionedTransaction> body) {
        return CompletableFuture.supplyAsync(() -> {
            PartitionedTransaction tx = engine.begin(false);
            try {
                body.accept(tx);
                tx.commit();
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
    }

    private void deliverTheRebalance() {
        engine.deliverMulticast(A, Message.encode(new Message.Rebalance(2, MAJORITY)));
    }

    private static boolean transactionMulticast(RecordingGroup group) {
        return group.multicasts.stream().anyMatch(m -> Message.decode(m) instanceof Message.Transaction);
    }

    private static AbortCause causeOf(CompletableFuture<Throwable> attempt) throws Exception {
        Throwable failure = attempt.get(10, TimeUnit.SECONDS);
        return assertInstanceOf(TransactionAbortedException.class, failure).abortCause();
    }

    @Test
    void aReadOfAKeyWhoseOwnersAllLeftWaitsForTheNextPlacement() throws Exception {
        withoutDAndE(Duration.ofSeconds(60));
        ByteKey key = LostKeyRecoveryTest.keyOwnedBy(new HashRing(ALL, 2, 64), D, E);
        CompletableFuture<Throwable> read = attempt(tx -> tx.get(key.bytes));
        Thread.sleep(300);
        assertFalse(read.isDone(), "failed before the placement changed: " + read.getNow(null));

        deliverTheRebalance();
        assertEquals(AbortCause.TOPOLOGY_CHANGED, causeOf(read), "retried by atomic, under the new placement");
    }

    @Test
    void aCommitToAnOwnerThatLeftWaitsForTheNextPlacement() throws Exception {
        RecordingGroup group = withoutDAndE(Duration.ofSeconds(60));
        ByteKey key = LostKeyRecoveryTest.keyOwnedBy(new HashRing(ALL, 2, 64), A, D);
        CompletableFuture<Throwable> commit = attempt(tx -> tx.put(key.bytes, new byte[] {1}));
        Thread.sleep(300);
        assertFalse(commit.isDone(), "failed before the placement changed: " + commit.getNow(null));
        assertFalse(transactionMulticast(group), "nothing multicast to a destination out of the view");

        deliverTheRebalance();
        assertEquals(AbortCause.TOPOLOGY_CHANGED, causeOf(commit));
    }

    @Test
    void theWaitEndsAfterTheReadTimeoutIfThePlacementStays() throws Exception {
        withoutDAndE(Duration.ofMillis(200));
        ByteKey key = LostKeyRecoveryTest.keyOwnedBy(new HashRing(ALL, 2, 64), D, E);
        long started = System.nanoTime();
        CompletableFuture<Throwable> read = attempt(tx -> tx.get(key.bytes));
        assertEquals(AbortCause.TOPOLOGY_CHANGED, causeOf(read));
        assertTrue(System.nanoTime() - started >= TimeUnit.MILLISECONDS.toNanos(150),
                "it waited about the read timeout");
    }

    @Test
    void aKeyWithAnOwnerInTheViewIsReadAtOnce() throws Exception {
        RecordingGroup group = withoutDAndE(Duration.ofSeconds(60));
        ByteKey key = LostKeyRecoveryTest.keyOwnedBy(new HashRing(ALL, 2, 64), B, D);
        assertEquals(null, attempt(tx -> tx.get(key.bytes)).get(10, TimeUnit.SECONDS),
                "B owns it: read from its own copy, and a read-only commit is local");
        assertFalse(transactionMulticast(group));
    }
}
