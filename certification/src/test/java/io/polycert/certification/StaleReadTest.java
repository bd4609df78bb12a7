package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.certification.HandFedReplica.Kind;
import io.polycert.certification.HandFedReplica.Sent;
import io.polycert.core.AbortCause;
import io.polycert.core.Transaction;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.group.MemberId;
import io.polycert.oracle.Outcome;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import io.polycert.oracle.TransactionProfile;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A transaction whose read was overwritten after its snapshot aborts, whichever protocol certifies it and however
 * many boxes it read: caught before broadcasting (NVC and BFC always, VC up to
 * {@link PolymorphicReplicationManager#VC_CHECKED_READS} reads), or by VC's originator when it validates for its
 * vote, against the write log. Either way the oracle is told only of a conflict that arose after the transaction
 * was sent: one the check before sending would have caught is no protocol's cost.
 */
class StaleReadTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final ValueCodec CODEC = ValueCodec.standard();
    private static final long FIRST_ID = 1_000;

    /** What the replication manager told its oracle, by outcome. */
    private static final class RecordingOracle implements ProtocolOracle {
        private final Protocol protocol;
        final List<Outcome> outcomes = new java.util.concurrent.CopyOnWriteArrayList<>();

        RecordingOracle(Protocol protocol) {
            this.protocol = protocol;
        }

        @Override
        public Protocol choose(TransactionProfile profile) {
            return protocol;
        }

        @Override
        public void record(Protocol chosen, TransactionProfile profile, long latencyNanos, Outcome outcome) {
            outcomes.add(outcome);
        }
    }

    private static HandFedReplica originator(RecordingOracle oracle) {
        return new HandFedReplica(A, List.of(A, B), CODEC, oracle, CertificationSettings.defaults());
    }

    @ParameterizedTest(name = "{0} reading {1} boxes")
    @CsvSource({"NVC, 10", "NVC, 1000", "BFC, 1000", "VC, 10", "VC, 256", "VC, 257", "VC, 1000"})
    void aStaleReadAborts(Protocol protocol, int reads) throws Exception {
        RecordingOracle oracle = new RecordingOracle(protocol);
        HandFedReplica a = originator(oracle);
        HandFedReplica b = new HandFedReplica(B, List.of(A, B), CODEC, Protocol.NVC);
        List<VBox<Long>> atA = roots(a, reads + 1);
        List<VBox<Long>> atB = roots(b, reads + 1);
        long overwritten = FIRST_ID + reads / 2;

        CountDownLatch haveRead = new CountDownLatch(1);
        CountDownLatch overwrittenMeanwhile = new CountDownLatch(1);
        CompletableFuture<Void> stale = CompletableFuture.runAsync(() -> {
            Transaction tx = a.stm.begin();
            long sum = 0;
            for (int i = 0; i < reads; i++) {
                sum += atA.get(i).get();
            }
            atA.get(reads).put(sum + 1); // a box it did not read: only the read of `overwritten` is stale
            haveRead.countDown();
            await(overwrittenMeanwhile);
            tx.commit();
        });
        assertTrue(haveRead.await(10, TimeUnit.SECONDS));

        // B overwrites one of the boxes read; both replicas deliver and install it.
        CompletableFuture<Void> write = CompletableFuture.runAsync(() -> b.stm.atomic(
                () -> atB.get((int) (overwritten - FIRST_ID)).put(42L)));
        Sent byB = b.awaitSent(Kind.ORDERED, 1);
        HandFedReplica.deliverOrdered(B, 1, byB.payload(), a, b);
        write.get(10, TimeUnit.SECONDS);
        assertEquals(42L, a.stm.readOnly(() -> atA.get((int) (overwritten - FIRST_ID)).get()));
        overwrittenMeanwhile.countDown();

        boolean checkedBeforeBroadcast = protocol != Protocol.VC
                || reads <= PolymorphicReplicationManager.VC_CHECKED_READS;
        if (!checkedBeforeBroadcast) {
            deliverCommitAndVote(a, b);
        }
        ExecutionException failed = assertThrows(ExecutionException.class, () -> stale.get(10, TimeUnit.SECONDS));
        TransactionAbortedException abort = (TransactionAbortedException) failed.getCause();
        assertEquals(AbortCause.CONFLICT, abort.abortCause());
        assertEquals(checkedBeforeBroadcast, abort.getMessage().contains("found before broadcasting"),
                abort.getMessage());
        assertEquals(checkedBeforeBroadcast ? 0 : 1, a.sent(Kind.ORDERED).size());
        for (HandFedReplica r : List.of(a, b)) {
            assertEquals(1, r.stm.latestVersion(), "only B's write committed at " + r.self);
        }
        assertEquals(0L, a.stm.readOnly(() -> atA.get(reads).get()));
        assertEquals(0L, b.stm.readOnly(() -> atB.get(reads).get()));
        assertEquals(List.of(Outcome.OTHER), oracle.outcomes, "stale before it was sent: no protocol's cost");
    }

    /** A large VC transaction whose read is overwritten by a commit ordered before it but sent after it. */
    @Test
    void aConflictArisingAfterSendingIsTheProtocolsToLearnFrom() throws Exception {
        int reads = 1000;
        RecordingOracle oracle = new RecordingOracle(Protocol.VC);
        HandFedReplica a = originator(oracle);
        HandFedReplica b = new HandFedReplica(B, List.of(A, B), CODEC, Protocol.NVC);
        List<VBox<Long>> atA = roots(a, reads + 1);
        List<VBox<Long>> atB = roots(b, reads + 1);
        CompletableFuture<Void> stale = CompletableFuture.runAsync(() -> {
            Transaction tx = a.stm.begin();
            long sum = 0;
            for (int i = 0; i < reads; i++) {
                sum += atA.get(i).get();
            }
            atA.get(reads).put(sum + 1);
            tx.commit();
        });
        Sent byA = a.awaitSent(Kind.ORDERED, 1); // A's commit is on its way
        CompletableFuture<Void> write = CompletableFuture.runAsync(() -> b.stm.atomic(() -> atB.get(5).put(42L)));
        Sent byB = b.awaitSent(Kind.ORDERED, 1);
        HandFedReplica.deliverOrdered(B, 1, byB.payload(), a, b); // ... but B's is ordered first
        write.get(10, TimeUnit.SECONDS);
        HandFedReplica.deliverOrdered(A, 2, byA.payload(), a, b);
        Sent vote = a.awaitSent(Kind.RELIABLE, 1);
        a.manager.deliverReliable(A, vote.payload());
        b.manager.deliverReliable(A, vote.payload());
        ExecutionException failed = assertThrows(ExecutionException.class, () -> stale.get(10, TimeUnit.SECONDS));
        assertEquals(AbortCause.CONFLICT, ((TransactionAbortedException) failed.getCause()).abortCause());
        assertEquals(List.of(Outcome.CONFLICT), oracle.outcomes);
    }

    /** The same large VC transaction, with nothing overwritten, commits: the vote's check finds nothing stale. */
    @Test
    void aLargeVcTransactionWithNothingStaleCommits() throws Exception {
        int reads = 1000;
        HandFedReplica a = new HandFedReplica(A, List.of(A, B), CODEC, Protocol.VC);
        HandFedReplica b = new HandFedReplica(B, List.of(A, B), CODEC, Protocol.NVC);
        List<VBox<Long>> atA = roots(a, reads + 1);
        List<VBox<Long>> atB = roots(b, reads + 1);
        // Another box written meanwhile, so the write log holds a write after the snapshot.
        VBox<Long> otherAtA = a.stm.root(FIRST_ID - 1, 0L);
        VBox<Long> otherAtB = b.stm.root(FIRST_ID - 1, 0L);

        CountDownLatch haveRead = new CountDownLatch(1);
        CountDownLatch writtenMeanwhile = new CountDownLatch(1);
        CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> a.stm.atomic(() -> {
            long sum = 0;
            for (int i = 0; i < reads; i++) {
                sum += atA.get(i).get();
            }
            atA.get(reads).put(sum + 1);
            haveRead.countDown();
            await(writtenMeanwhile);
        }));
        assertTrue(haveRead.await(10, TimeUnit.SECONDS));
        CompletableFuture<Void> write = CompletableFuture.runAsync(() -> b.stm.atomic(() -> otherAtB.put(42L)));
        Sent byB = b.awaitSent(Kind.ORDERED, 1);
        HandFedReplica.deliverOrdered(B, 1, byB.payload(), a, b);
        write.get(10, TimeUnit.SECONDS);
        writtenMeanwhile.countDown();

        deliverCommitAndVote(a, b);
        commit.get(10, TimeUnit.SECONDS);
        assertEquals(42L, a.stm.readOnly(otherAtA::get));
        assertEquals(1L, a.stm.readOnly(() -> atA.get(reads).get()));
        assertEquals(1L, b.stm.readOnly(() -> atB.get(reads).get()));
    }

    /** Delivers A's commit message (second in the order, after B's write) to both, then A's vote. */
    private static void deliverCommitAndVote(HandFedReplica a, HandFedReplica b) throws InterruptedException {
        HandFedReplica.deliverOrdered(A, 2, a.awaitSent(Kind.ORDERED, 1).payload(), a, b);
        Sent vote = a.awaitSent(Kind.RELIABLE, 1);
        a.manager.deliverReliable(A, vote.payload());
        b.manager.deliverReliable(A, vote.payload());
    }

    private static List<VBox<Long>> roots(HandFedReplica replica, int n) {
        return java.util.stream.IntStream.range(0, n).mapToObj(i -> replica.stm.root(FIRST_ID + i, 0L)).toList();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("the test did not go on");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
