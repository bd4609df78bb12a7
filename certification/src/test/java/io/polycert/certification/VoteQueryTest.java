package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.certification.HandFedReplica.Kind;
import io.polycert.certification.HandFedReplica.Sent;
import io.polycert.core.Stm;
import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.MemberId;
import io.polycert.oracle.Protocol;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Votes go by reliable broadcast, unordered with views and state transfer, so a replica that joined or came back
 * can miss the vote its queue waits for (the fault campaign's pause schedules found such a replica stuck for
 * good). The head of the queue then asks the originator, which sends its vote again.
 */
class VoteQueryTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final ValueCodec CODEC = ValueCodec.standard();

    @Test
    void aReplicaThatMissedAVoteAsksTheOriginatorAndCatchesUp() throws Exception {
        HandFedReplica a = new HandFedReplica(A, List.of(A, B), CODEC, Protocol.VC);
        HandFedReplica b = new HandFedReplica(B, List.of(A, B), CODEC, Protocol.VC);
        VBox<Long> xAtA = root(a.stm);
        VBox<Long> xAtB = root(b.stm);

        CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> a.stm.atomic(() -> xAtA.put(7L)));
        Sent tx = a.awaitSent(Kind.ORDERED, 1);
        a.manager.deliverOrdered(A, 1, tx.payload());
        b.manager.deliverOrdered(A, 1, tx.payload());
        Sent vote = a.awaitSent(Kind.RELIABLE, 1); // early validation: A voted at once
        a.manager.deliverReliable(A, vote.payload()); // ... and B never gets it
        commit.get(10, TimeUnit.SECONDS);
        assertEquals(1, a.stm.latestVersion());
        assertEquals(0, b.stm.latestVersion(), "B waits for the vote");

        // Any delivery drains B's queue; once its head waited a second, B asks A.
        b.manager.deliverReliable(A, vote(99)); // a vote for something else: drains
        assertTrue(b.sent(Kind.DIRECT).isEmpty(), "asked before waiting a second");
        Thread.sleep(1100);
        b.manager.deliverReliable(A, vote(98));
        List<Sent> queries = b.sent(Kind.DIRECT);
        assertEquals(1, queries.size(), "one query");
        assertEquals(A, queries.get(0).to());

        a.manager.deliverDirect(B, queries.get(0).payload());
        Sent again = a.awaitSent(Kind.RELIABLE, 2);
        b.manager.deliverReliable(A, again.payload());
        assertEquals(1, b.stm.latestVersion(), "B applied the transaction");
        assertEquals(7L, b.stm.readOnly(xAtB::get));

        // A query about a transaction A never had gets no answer; a malformed one is dropped.
        int before = a.sent(Kind.RELIABLE).size();
        a.manager.deliverDirect(B, new byte[] {4, 42});
        a.manager.deliverDirect(B, new byte[] {4}); // malformed
        assertEquals(before, a.sent(Kind.RELIABLE).size());
    }

    @Test
    void anOriginatorWhoseVoteDidNotComeBackSendsItAgain() throws Exception {
        HandFedReplica a = new HandFedReplica(A, List.of(A, B), CODEC, Protocol.VC);
        VBox<Long> xAtA = root(a.stm);
        CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> a.stm.atomic(() -> xAtA.put(7L)));
        Sent tx = a.awaitSent(Kind.ORDERED, 1);
        a.manager.deliverOrdered(A, 1, tx.payload());
        Sent vote = a.awaitSent(Kind.RELIABLE, 1); // sent, and lost: not even A delivers it
        Thread.sleep(1100);
        a.manager.deliverReliable(B, vote(97)); // any delivery drains A's queue
        Sent again = a.awaitSent(Kind.RELIABLE, 2);
        assertTrue(java.util.Arrays.equals(vote.payload(), again.payload()), "the same vote");
        a.manager.deliverReliable(A, again.payload());
        commit.get(10, TimeUnit.SECONDS);
        assertEquals(1, a.stm.latestVersion());
    }

    private static VBox<Long> root(Stm stm) {
        return stm.root(1_000, 0L);
    }

    /** An abort vote, as the originator of {@code txId} sends it. */
    private static byte[] vote(long txId) {
        return new ValueOutput(CODEC, 16).writeByte(2).writeVarLong(txId).writeBoolean(false).toByteArray();
    }
}
