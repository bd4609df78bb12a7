package io.polycert.certification.partial;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.AbortCause;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * B and D, the only owners of some keys, are cut off from A and C together and merge back. B can process the merged
 * view's rebalance before its group installs that view (the rebalance reaches it as soon as the others send it),
 * so when it wants to multicast its copies of the lost keys its group still refuses: minority view. It must send
 * them once the view arrives, or the keys stay refused at every member for ever (seen under load in
 * PartitionedStoreTest.keysWhoseOwnersAreAllCutOffAreRefusedUntilTheyComeBack). Driven by hand on member B.
 */
class LostKeyRecoveryTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final MemberId C = new MemberId(3, 3, "C");
    private static final MemberId D = new MemberId(4, 4, "D");
    private static final MemberId E = new MemberId(5, 5, "E");
    private static final List<MemberId> ALL = List.of(A, B, C, D);

    private PartitionedEngine engine = PartitionedEngine.builder().identity(B).build();

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void copiesOfLostKeysAreMulticastOnceTheMergedViewArrivesIfTheRebalanceCameFirst() {
        RecordingGroup group = new RecordingGroup(B, A, C, D);
        placeOnFour(group);
        assertTrue(engine.isReady());
        ByteKey lostKey = keyOwnedBy(new HashRing(ALL, 2, 64), B, D);
        write42(lostKey);
        assertArrayEquals(new byte[] {42}, engine.ownedValue(lostKey.bytes));

        cutOffWithDAndRebalanced(group);
        assertTrue(engine.isReady(), "the rebalance of the merged view completed before the view reached B's group");
        assertEquals(List.of(), recoveries(group), "nothing can be multicast from a minority view");

        View merged = new View(3, ALL, true);
        group.install(merged);
        engine.viewInstalled(merged, -1);
        List<Message.Recover> sent = recoveries(group);
        assertEquals(1, sent.size(), "B's copies are multicast once its view is primary");
        assertEquals(1, sent.get(0).placement());
        assertEquals(List.of(lostKey), sent.get(0).keys());

        engine.deliverMulticast(B, Message.encode(sent.get(0))); // B's own delivery: everyone takes it there
        assertArrayEquals(new byte[] {42}, engine.ownedValue(lostKey.bytes), "B serves its copy again");
        View next = new View(4, ALL, true);
        group.install(next);
        engine.viewInstalled(next, -1);
        assertEquals(1, recoveries(group).size(), "delivered: not sent again");
    }

    /**
     * A transaction in flight when B and D were cut off: B voted yes on the key only B and D own, and had not heard
     * the vote on its other key, owned by A and C. A and C may have committed it on B's vote, so B must not hand
     * its copy over before it knows: committed, the write must be in it (seed 203 of the partial fault campaign
     * lost such writes: acknowledged, and missing from the final reads); aborted, it must not.
     */
    private Message.Recover recoveryAfterAnInDoubtTransaction(Message answerOfA, Message answerOfC) {
        RecordingGroup group = new RecordingGroup(B, A, C, D);
        ByteKey lostKey = placedWithATransactionInDoubt(group);
        assertArrayEquals(new byte[] {42}, engine.ownedValue(lostKey.bytes), "B voted, and waits for A or C");

        cutOffWithDAndRebalanced(group);
        View merged = new View(3, ALL, true);
        group.install(merged);
        engine.viewInstalled(merged, -1);
        assertEquals(List.of(), recoveries(group), "held back: transaction 2 may have committed");
        List<MemberId> asked = group.sent.stream()
                .filter(e -> Message.decode(e.getValue()) instanceof Message.VoteQuery q && q.seq() == 2)
                .map(java.util.Map.Entry::getKey).sorted().toList();
        assertEquals(List.of(A, C, D), asked,
                "the owners of the key whose vote B had not heard, and D: did it vote on the key B's yes covered?");

        engine.deliverDirect(A, Message.encode(answerOfA));
        if (answerOfC != null) {
            assertEquals(List.of(), recoveries(group), "one owner's word was not enough");
            engine.deliverDirect(C, Message.encode(answerOfC));
        }
        List<Message.Recover> sent = recoveries(group);
        assertEquals(1, sent.size());
        assertEquals(List.of(lostKey), sent.get(0).keys());
        return sent.get(0);
    }

    @Test
    void aTransactionInDoubtThatCommittedIsInTheCopiesBroughtBack() {
        Message.Recover r = recoveryAfterAnInDoubtTransaction(new Message.Vote(A, 2, null), null);
        assertArrayEquals(new byte[] {43}, r.values().get(0));
        assertEquals(2, r.versions()[0], "one version up, as at every owner that applied it");
        assertEquals(1, engine.statistics().inDoubtCommitted());
    }

    @Test
    void aTransactionInDoubtThatAbortedIsNot() {
        Message.Recover r = recoveryAfterAnInDoubtTransaction(new Message.Vote(A, 2, AbortCause.CONFLICT), null);
        assertArrayEquals(new byte[] {42}, r.values().get(0));
        assertEquals(1, r.versions()[0]);
    }

    @Test
    void aTransactionInDoubtWhoseOtherKeyNobodyVotedOnAborted() {
        Message.Recover r = recoveryAfterAnInDoubtTransaction(new Message.NoVote(A, 2), new Message.NoVote(A, 2));
        assertArrayEquals(new byte[] {42}, r.values().get(0));
        assertEquals(0, engine.statistics().inDoubtCommitted());
    }

    /**
     * A transaction queued behind one in doubt had no vote from B yet. D, the key's other owner, may have voted
     * yes on it (it heard the first one's outcome sooner), and the others committed on that vote: so it is in
     * doubt too, and B asks D. B itself never voted on it and never will.
     */
    @Test
    void aTransactionQueuedUnvotedAtTheCutIsResolvedByTheOtherOwnersVote() {
        for (boolean dVotedYes : new boolean[] {true, false}) {
            RecordingGroup group = new RecordingGroup(B, A, C, D);
            PartitionedEngine b = PartitionedEngine.builder().identity(B).build();
            PartitionedEngine saved = engine;
            engine = b;
            try {
                placeOnFour(group);
                HashRing ring = new HashRing(ALL, 2, 64);
                ByteKey lostKey = keyOwnedBy(ring, B, D);
                ByteKey othersKey = keyOwnedBy(ring, A, C);
                engine.deliverMulticast(A, Message.encode(new Message.Transaction(false, 1, 1,
                        ConsistencyLevel.SERIALIZABLE, List.of(new Message.Write(lostKey, new byte[] {1}),
                                new Message.Write(othersKey, new byte[] {1})),
                        List.of(new Message.Check(lostKey, 0), new Message.Check(othersKey, 0)))));
                engine.deliverMulticast(C, Message.encode(new Message.Transaction(false, 1, 1,
                        ConsistencyLevel.SERIALIZABLE, List.of(new Message.Write(lostKey, new byte[] {2})),
                        List.of(new Message.Check(lostKey, 1)))));
                cutOffWithDAndRebalanced(group);
                View merged = new View(3, ALL, true);
                group.install(merged);
                engine.viewInstalled(merged, -1);
                assertTrue(group.sent.stream().anyMatch(e -> e.getKey().equals(D)
                        && Message.decode(e.getValue()) instanceof Message.VoteQuery q && q.origin().equals(C)),
                        "B asks D about C's transaction");
                engine.deliverDirect(A, Message.encode(new Message.Vote(A, 1, null))); // the first committed
                assertEquals(List.of(), recoveries(group), "C's transaction is still in doubt");
                engine.deliverDirect(D, Message.encode(dVotedYes ? new Message.Vote(C, 1, null)
                        : new Message.NoVote(C, 1)));
                List<Message.Recover> sent = recoveries(group);
                assertEquals(1, sent.size());
                assertArrayEquals(new byte[] {(byte) (dVotedYes ? 2 : 1)}, sent.get(0).values().get(0),
                        "D voted " + (dVotedYes ? "yes" : "never: nobody voted yes on it"));
                assertEquals(dVotedYes ? 2 : 1, sent.get(0).versions()[0]);
            } finally {
                engine = saved;
                b.close();
            }
        }
    }

    /**
     * B is cut off again while its copies of placement 1 are held back for a transaction in doubt. Back a second
     * time, it holds a second recovery (placement 3) too: both go out, in order, once the transaction is decided.
     * With one held recovery, the second return replaced or dropped one of them.
     */
    @Test
    void aMemberCutOffAgainWhileItHoldsCopiesKeepsBothRecoveries() {
        RecordingGroup group = new RecordingGroup(B, A, C, D);
        ByteKey lostKey = placedWithATransactionInDoubt(group);
        cutOffWithDAndRebalanced(group); // placement 3 completed here; copies of placement 1 held for transaction 2
        View minority = new View(4, List.of(B), false);
        group.install(minority);
        engine.blocked(minority);
        engine.deliverMulticast(A, Message.encode(new Message.Rebalance(5, ALL)));
        Message.Done fresh = new Message.Done(5, 4, List.of(A, C), List.of(new Message.Lost(1, ALL, List.of(A, C)),
                new Message.Lost(3, ALL, List.of(A, C))));
        engine.deliverDirect(A, Message.encode(fresh));
        engine.deliverDirect(C, Message.encode(fresh));
        engine.deliverDirect(D, Message.encode(new Message.Done(5, -1)));
        View merged = new View(5, ALL, true);
        group.install(merged);
        engine.viewInstalled(merged, -1);
        assertEquals(List.of(), recoveries(group), "both held: the older waits for transaction 2");

        engine.deliverDirect(A, Message.encode(new Message.Vote(A, 2, null)));
        List<Message.Recover> sent = recoveries(group);
        assertEquals(List.of(1L, 3L), sent.stream().map(Message.Recover::placement).toList(), "both, in order");
        assertEquals(List.of(lostKey), sent.get(0).keys());
        assertArrayEquals(new byte[] {43}, sent.get(0).values().get(0), "transaction 2 committed");
    }

    /** A transaction in doubt that writes no lost key does not hold the copies back: fresh owners decide it. */
    @Test
    void aTransactionInDoubtOnKeysWithFreshOwnersDoesNotHoldTheCopies() {
        RecordingGroup group = new RecordingGroup(B, A, C, D);
        placeOnFour(group);
        HashRing ring = new HashRing(ALL, 2, 64);
        ByteKey lostKey = keyOwnedBy(ring, B, D);
        ByteKey keptKey = keyOwnedBy(ring, A, B);
        ByteKey othersKey = keyOwnedBy(ring, A, C);
        write42(lostKey);
        engine.deliverMulticast(A, Message.encode(new Message.Transaction(false, 2, 1, ConsistencyLevel.SERIALIZABLE,
                List.of(new Message.Write(keptKey, new byte[] {1}), new Message.Write(othersKey, new byte[] {1})),
                List.of(new Message.Check(keptKey, 0), new Message.Check(othersKey, 0)))));
        cutOffWithDAndRebalanced(group);
        View merged = new View(3, ALL, true);
        group.install(merged);
        engine.viewInstalled(merged, -1);
        List<Message.Recover> sent = recoveries(group);
        assertEquals(1, sent.size(), "sent at once: transaction 2 writes no key of the lost region");
        assertArrayEquals(new byte[] {42}, sent.get(0).values().get(0));
    }

    /**
     * Under read committed there is nothing to validate: a write commits once its owners hear each other. With
     * parallel apply the writes queue on the pool, and those still queued when the member is cut off are dropped
     * with its transactions in progress. They committed, so the copies B brings back must hold them: each write
     * exactly once, in order.
     */
    @Test
    void writesStillQueuedOnTheApplyPoolAtTheCutAreInTheCopiesBroughtBack() {
        PartitionedEngine pooled = PartitionedEngine.builder().identity(B).consistency(ConsistencyLevel.READ_COMMITTED)
                .applyThreads(1).build();
        try {
            RecordingGroup group = new RecordingGroup(B, A, C, D);
            PartitionedEngine saved = engine;
            engine = pooled;
            placeOnFour(group);
            ByteKey lostKey = keyOwnedBy(new HashRing(ALL, 2, 64), B, D);
            int n = 2_000;
            for (int i = 1; i <= n; i++) {
                engine.deliverMulticast(A, Message.encode(new Message.Transaction(false, i, 1,
                        ConsistencyLevel.READ_COMMITTED, List.of(new Message.Write(lostKey, new byte[] {(byte) i})),
                        List.of())));
                engine.deliverDirect(D, Message.encode(new Message.Vote(A, i, null))); // the key's other owner
            }
            long written = engine.ownedVersion(lostKey.bytes); // about: the pool goes on writing until the cut
            cutOffWithDAndRebalanced(group);
            View merged = new View(3, ALL, true);
            group.install(merged);
            engine.viewInstalled(merged, -1);
            List<Message.Recover> sent = recoveries(group);
            assertEquals(1, sent.size());
            assertEquals(n, sent.get(0).versions()[0], "every write once (" + written + " written before the cut)");
            assertArrayEquals(new byte[] {(byte) n}, sent.get(0).values().get(0));
            engine = saved;
        } finally {
            pooled.close();
        }
    }

    /**
     * Issue 8, beyond the tolerance. On [A, B, C, D, E], k's owners are A and B. A is cut off first; B, alone of k's
     * owners in its view, commits transaction 1 of C (k = 2, read-modify-write of k = 1) on its own yes, and C, its
     * originator, acknowledges it on that yes. B is then cut off too, before a rebalance moved k to a fresh owner:
     * k is lost. A merges back first with its copy, k = 1, which lacks C's write. Before the fix, A's copy won the
     * region and B's newer one was ignored when B came back: the acknowledged write was gone. B stayed in the group
     * after A left, so k is refused until B is back too; A's copy is taken, and B's, newer, wins (see
     * {@link OwnersOfK}).
     */
    @Test
    void anOwnerThatLeftBeforeTheOtherDoesNotBringTheKeyBackAlone() {
        try (OwnersOfK f = new OwnersOfK()) {
            cutOff(f.a, f.ga, 2);
            installed(new View(2, List.of(B, C, D, E), true), f.gb, f.b, f.gc, f.c);
            // C multicast its transaction before A was excluded; B delivers it in view 2, before any rebalance.
            f.b.deliverMulticast(C, Message.encode(new Message.Transaction(false, 1, 1, ConsistencyLevel.SERIALIZABLE,
                    List.of(new Message.Write(f.k, new byte[] {2})), List.of(new Message.Check(f.k, 1)))));
            assertArrayEquals(new byte[] {2}, f.b.ownedValue(f.k.bytes), "B's own yes covers k: A is not in its view");
            assertTrue(f.gb.sent.stream().anyMatch(e -> e.getKey().equals(C)
                    && Message.decode(e.getValue()) instanceof Message.Vote v && v.seq() == 1 && v.positive()),
                    "C hears B's yes, which covers k there: acknowledged");

            cutOff(f.b, f.gb, 3);
            f.c.deliverMulticast(C, Message.encode(new Message.Rebalance(2, List.of(B, C, D, E))));
            doneLikeC(f.c, f.gc, 2, D, E);
            installed(new View(3, List.of(C, D, E), true), f.gc, f.c); // B's done will not come: 2 completes
            f.c.deliverMulticast(C, Message.encode(new Message.Rebalance(3, List.of(C, D, E))));
            doneLikeC(f.c, f.gc, 3, D, E);
            assertRefused(f.c, f.k, "both owners are gone");

            assertArrayEquals(new byte[] {1}, f.a.ownedValue(f.k.bytes), "A's copy lacks C's transaction");
            f.aBackFirst(4, "B stayed in the group after A left: A's copy may lack B's commits");

            f.mergeAll(5);
            List<Message.Recover> fromB = recoveries(f.gb);
            assertEquals(1, fromB.size(), "B brings its copies of the keys it left last");
            f.deliverRecoveries(B, fromB, f.a, f.b, f.c);
            assertArrayEquals(new byte[] {2}, f.a.begin(true).get(f.k.bytes), "C's acknowledged write is back");
        }
    }

    /**
     * A and B own k; placement 2 completes at A but not at B (E's "done" has not reached B) when both are cut off
     * in the same view. Nothing was written under placement 2 (B could not vote on it, and its transactions wait
     * behind B's rebalance), so A's copy is complete. Both come back, A first: k is served again once B is back,
     * though B never completed placement 2 and so holds no copy for it (it says it is back, with no keys). Before,
     * B sent nothing, was never counted back, and k was refused for ever (review of the first fix, regression 1).
     */
    @Test
    void anOwnerThatNeverCompletedThePlacementIsCountedBackWithoutACopy() {
        try (OwnersOfK f = new OwnersOfK()) {
            // Placement 2 (same members): completes at A and C, not at B (E's done is late).
            installed(new View(2, f.all, true), f.ga, f.a, f.gb, f.b, f.gc, f.c);
            byte[] rebalance2 = Message.encode(new Message.Rebalance(2, f.all));
            for (PartitionedEngine e : List.of(f.a, f.b, f.c)) {
                e.deliverMulticast(C, rebalance2);
            }
            f.a.deliverDirect(B, doneSent(f.gb, A, 2));
            f.c.deliverDirect(B, doneSent(f.gb, C, 2));
            f.b.deliverDirect(A, doneSent(f.ga, B, 2));
            f.c.deliverDirect(A, doneSent(f.ga, C, 2));
            for (MemberId m : List.of(C, D, E)) {
                f.a.deliverDirect(m, doneSent(f.gc, A, 2));
            }
            for (MemberId m : List.of(C, D)) {
                f.b.deliverDirect(m, doneSent(f.gc, B, 2));
            }
            doneLikeC(f.c, f.gc, 2, D, E);
            assertTrue(f.a.isReady());
            assertTrue(f.c.isReady());
            assertTrue(!f.b.isReady(), "B still waits for E's done");

            f.bothCutOff(3);

            f.aBackFirst(4, "B left with A and is not back");

            f.mergeAll(5);
            assertTrue(f.b.isReady());
            List<Message.Recover> fromB = recoveries(f.gb);
            assertEquals(1, fromB.size(), "B says it is back");
            assertTrue(!fromB.get(0).complete() && fromB.get(0).keys().isEmpty() && fromB.get(0).placement() == 2,
                    "without copies: it never completed placement 2");
            f.deliverRecoveries(B, fromB, f.a, f.b, f.c);
            assertArrayEquals(new byte[] {1}, f.a.begin(true).get(f.k.bytes), "both owners are back: k is served");
        }
    }

    /**
     * A and B cut off in the same view; A voted yes on transaction 2 of D (k only) that B never received, and D may
     * have acknowledged it on that yes. At the cut A's own yes covers its own keys, so it used to ask nobody, and
     * nothing decided the transaction: A's copies were held, and k refused, for ever (review of the first fix,
     * regression 2). A asks B; B never voted and never will, so A's yes was the only vote: committed, and in A's copy.
     */
    @Test
    void anInDoubtTransactionOnlyItsOwnYesCoveredCommitsWhenTheOtherOwnerNeverVoted() {
        try (OwnersOfK f = new OwnersOfK()) {
            f.a.deliverMulticast(D, Message.encode(new Message.Transaction(false, 2, 1,
                    ConsistencyLevel.SERIALIZABLE, List.of(new Message.Write(f.k, new byte[] {2})),
                    List.of(new Message.Check(f.k, 1)))));
            assertTrue(f.ga.sent.stream().anyMatch(e -> e.getKey().equals(D)
                    && Message.decode(e.getValue()) instanceof Message.Vote v && v.seq() == 2 && v.positive()));

            f.bothCutOff(2);

            f.mergeBack(f.b, f.gb, 3);
            f.deliverRecoveries(B, recoveries(f.gb), f.b, f.c);
            assertRefused(f.c, f.k, "A left with B and is not back");

            f.mergeAll(4);
            assertEquals(List.of(), recoveries(f.ga), "held: transaction 2 may have committed");
            f.a.queryMissingVotes(0);
            List<byte[]> queries = f.ga.sent.stream().filter(e -> e.getKey().equals(B)
                    && Message.decode(e.getValue()) instanceof Message.VoteQuery q && q.seq() == 2)
                    .map(java.util.Map.Entry::getValue).toList();
            assertTrue(!queries.isEmpty(), "A asks B whether it voted on the key only A's yes covered");
            f.b.deliverDirect(A, queries.get(0));
            byte[] answer = f.gb.sent.stream().filter(e -> e.getKey().equals(A)
                    && Message.decode(e.getValue()) instanceof Message.NoVote).map(java.util.Map.Entry::getValue)
                    .findFirst().orElseThrow(() -> new AssertionError("B never voted on it, and says so"));
            f.a.deliverDirect(B, answer);
            List<Message.Recover> fromA = recoveries(f.ga);
            assertEquals(1, fromA.size(), "decided: A's copies go out");
            f.deliverRecoveries(A, fromA, f.a, f.b, f.c);
            assertArrayEquals(new byte[] {2}, f.a.begin(true).get(f.k.bytes),
                    "A's yes was the only vote on transaction 2 (D may have acknowledged it): committed");
        }
    }

    /**
     * The own-yes rule over two keys (issue 8). Transaction 2 of D writes k (owners A and B, lost at the cut) and k2
     * (owners A and C). A and C deliver it and vote yes; C hears A's yes and commits; A is cut off with B before
     * C's yes reaches it. Back, A knows only its own yes on either key, so it asks B (for k) and C (for k2). B never
     * voted: that settles k, not k2, and A holds its copies until C answers. C committed, so A does too, and k's
     * copy carries the write. Deciding on B's word alone would be deciding with C's unknown (next test).
     */
    @Test
    void anInDoubtTransactionOnTwoKeysWaitsForAWordOnEachAndCommitsOnTheOtherOwnersYes() {
        try (OwnersOfK f = new OwnersOfK()) {
            ByteKey k2 = f.keyOfAAndC();
            byte[] t2 = f.transaction2(k2);
            f.a.deliverMulticast(D, t2);
            f.c.deliverMulticast(D, t2);
            f.c.deliverDirect(A, voteSent(f.ga, C, 2));
            assertArrayEquals(new byte[] {2}, f.c.ownedValue(k2.bytes), "C commits on A's yes, which covers k and k2");

            f.backWithTransaction2HeldAfterBsWord(); // C's yes never reached A

            f.a.deliverDirect(C, f.answerTo(f.c, f.gc, 2));
            f.aSendsItsCopies("C's yes decides it");
            assertArrayEquals(new byte[] {2}, f.a.begin(true).get(f.k.bytes), "committed, as at C: k carries the write");
        }
    }

    /**
     * As above, but C refused transaction 2 (an order that differs from A's: A, cut off, may have ordered it
     * otherwise, as total order among destinations holds only for those that stay). B's word that it never voted
     * does not decide it; C's refusal does: aborted, and k comes back without the write.
     */
    @Test
    void anInDoubtTransactionOnTwoKeysAbortsOnTheOtherOwnersRefusalThoughTheFirstNeverVoted() {
        try (OwnersOfK f = new OwnersOfK()) {
            ByteKey k2 = f.keyOfAAndC();
            f.a.deliverMulticast(D, f.transaction2(k2));

            f.backWithTransaction2HeldAfterBsWord();

            f.a.deliverDirect(C, Message.encode(new Message.Vote(D, 2, AbortCause.CONFLICT)));
            f.aSendsItsCopies("C's refusal decides it");
            assertArrayEquals(new byte[] {1}, f.a.begin(true).get(f.k.bytes), "aborted: k comes back without it");
        }
    }

    /** The vote on transaction {@code seq} of D that the group's member sent to {@code to}. */
    private static byte[] voteSent(RecordingGroup from, MemberId to, long seq) {
        byte[] vote = from.firstSentTo(to, m -> m instanceof Message.Vote v && v.origin().equals(D) && v.seq() == seq);
        assertNotNull(vote, from.self() + " sent no vote on " + seq + " to " + to);
        return vote;
    }

    /**
     * A, B and C of [A, B, C, D, E], driven by hand, placement 1 in place; D and E went through everything C did,
     * so their "done" messages are C's. k is owned by A and B under placement 1, and by C without B and without A
     * and B; transaction 1 of D wrote k = 1, and A and B voted yes and heard each other.
     */
    private static final class OwnersOfK implements AutoCloseable {
        final List<MemberId> all = List.of(A, B, C, D, E);
        final ByteKey k;
        final RecordingGroup ga = new RecordingGroup(A, B, C, D, E);
        final RecordingGroup gb = new RecordingGroup(B, A, C, D, E);
        final RecordingGroup gc = new RecordingGroup(C, A, B, D, E);
        final PartitionedEngine a = PartitionedEngine.builder().identity(A).build();
        final PartitionedEngine b = PartitionedEngine.builder().identity(B).build();
        final PartitionedEngine c = PartitionedEngine.builder().identity(C).build();

        OwnersOfK() {
            HashRing first = new HashRing(all, 2, 64);
            HashRing withoutAAndB = new HashRing(List.of(C, D, E), 2, 64);
            HashRing withoutB = new HashRing(List.of(A, C, D, E), 2, 64);
            HashRing withoutA = new HashRing(List.of(B, C, D, E), 2, 64);
            k = keyWhere(key -> first.owners(key).containsAll(List.of(A, B)) && withoutAAndB.isOwner(C, key)
                    && withoutB.isOwner(C, key) && withoutA.isOwner(C, key));
            place(a, ga, all);
            place(b, gb, all);
            place(c, gc, all);
            byte[] t1 = Message.encode(new Message.Transaction(false, 1, 1, ConsistencyLevel.SERIALIZABLE,
                    List.of(new Message.Write(k, new byte[] {1})), List.of()));
            a.deliverMulticast(D, t1);
            b.deliverMulticast(D, t1);
            a.deliverDirect(B, Message.encode(new Message.Vote(D, 1, null)));
            b.deliverDirect(A, Message.encode(new Message.Vote(D, 1, null)));
            assertArrayEquals(new byte[] {1}, a.ownedValue(k.bytes));
            assertArrayEquals(new byte[] {1}, b.ownedValue(k.bytes));
        }

        /** A and B are cut off in the same view {@code epoch}; C, D and E go through its rebalance: k is lost. */
        void bothCutOff(long epoch) {
            cutOff(a, ga, epoch);
            cutOff(b, gb, epoch);
            installed(new View(epoch, List.of(C, D, E), true), gc, c);
            c.deliverMulticast(C, Message.encode(new Message.Rebalance(epoch, List.of(C, D, E))));
            doneLikeC(c, gc, epoch, D, E);
            assertRefused(c, k, "both owners are gone");
        }

        /** {@code x} (A or B), cut off, merges back into C, D and E in view {@code epoch}, and its rebalance. */
        void mergeBack(PartitionedEngine x, RecordingGroup gx, long epoch) {
            List<MemberId> members = new java.util.ArrayList<>(List.of(C, D, E));
            members.add(0, gx.self());
            installed(new View(epoch, members, true), gx, x, gc, c);
            byte[] rebalance = Message.encode(new Message.Rebalance(epoch, members));
            x.deliverMulticast(C, rebalance);
            c.deliverMulticast(C, rebalance);
            c.deliverDirect(gx.self(), doneSent(gx, C, epoch));
            doneLikeC(c, gc, epoch, D, E);
            for (MemberId m : List.of(C, D, E)) {
                x.deliverDirect(m, doneSent(gc, gx.self(), epoch));
            }
        }

        /** A merges back first (view {@code epoch}) with its copies, taken; B is not back, so k is still refused. */
        void aBackFirst(long epoch, String why) {
            mergeBack(a, ga, epoch);
            List<Message.Recover> fromA = recoveries(ga);
            assertEquals(1, fromA.size(), "A is back with its copies of lost keys");
            deliverRecoveries(A, fromA, a, c);
            assertRefused(c, k, why);
        }

        /** Everyone is in view {@code epoch} and through its rebalance. */
        void mergeAll(long epoch) {
            installed(new View(epoch, all, true), ga, a, gb, b, gc, c);
            byte[] rebalance = Message.encode(new Message.Rebalance(epoch, all));
            for (PartitionedEngine e : List.of(a, b, c)) {
                e.deliverMulticast(C, rebalance);
            }
            b.deliverDirect(A, doneSent(ga, B, epoch));
            c.deliverDirect(A, doneSent(ga, C, epoch));
            a.deliverDirect(B, doneSent(gb, A, epoch));
            c.deliverDirect(B, doneSent(gb, C, epoch));
            for (MemberId m : List.of(C, D, E)) {
                a.deliverDirect(m, doneSent(gc, A, epoch));
                b.deliverDirect(m, doneSent(gc, B, epoch));
            }
            doneLikeC(c, gc, epoch, D, E);
        }

        /** A key of A and C under placement 1 that C keeps when A and B are cut off. */
        ByteKey keyOfAAndC() {
            HashRing first = new HashRing(all, 2, 64);
            HashRing withoutAAndB = new HashRing(List.of(C, D, E), 2, 64);
            return keyWhere(key -> first.owners(key).containsAll(List.of(A, C)) && withoutAAndB.isOwner(C, key));
        }

        /** Transaction 2 of D: writes 2 to k and to {@code k2}, having read k at version 1 and k2 absent. */
        byte[] transaction2(ByteKey k2) {
            return Message.encode(new Message.Transaction(false, 2, 1, ConsistencyLevel.SERIALIZABLE,
                    List.of(new Message.Write(k, new byte[] {2}), new Message.Write(k2, new byte[] {2})),
                    List.of(new Message.Check(k, 1), new Message.Check(k2, 0))));
        }

        /**
         * A and B are cut off, B comes back, then A, with transaction 2 in doubt: it asks B (k) and C (k2); B, which
         * never received it, answers that it never voted. That settles k only: A still holds its copies.
         */
        void backWithTransaction2HeldAfterBsWord() {
            bothCutOff(2);
            mergeBack(b, gb, 3);
            deliverRecoveries(B, recoveries(gb), b, c);
            mergeAll(4);
            long seq = 2;
            a.queryMissingVotes(0);
            assertTrue(queryTo(B, seq) != null && queryTo(C, seq) != null, "A asks B (k) and C (k2)");
            b.deliverDirect(A, queryTo(B, seq));
            byte[] noVote = gb.firstSentTo(A, m -> m instanceof Message.NoVote n && n.seq() == seq);
            assertNotNull(noVote, "B never voted on " + seq + ", and says so");
            a.deliverDirect(B, noVote);
            assertEquals(List.of(), recoveries(ga), "held: B's word settles k, and k2's other owner, C, has not"
                    + " answered");
        }

        /** A's copies go out, decided {@code why}, and every engine takes them. */
        void aSendsItsCopies(String why) {
            List<Message.Recover> fromA = recoveries(ga);
            assertEquals(1, fromA.size(), why + ": A's copies go out");
            deliverRecoveries(A, fromA, a, b, c);
        }

        /** What {@code x} answers to A's query about transaction {@code seq}. */
        byte[] answerTo(PartitionedEngine x, RecordingGroup gx, long seq) {
            x.deliverDirect(A, queryTo(gx.self(), seq));
            return voteSent(gx, A, seq);
        }

        private byte[] queryTo(MemberId to, long seq) {
            return ga.firstSentTo(to, m -> m instanceof Message.VoteQuery q && q.seq() == seq);
        }

        /** Delivers the recoveries multicast by {@code from} to each engine, in order. */
        void deliverRecoveries(MemberId from, List<Message.Recover> recoveries, PartitionedEngine... to) {
            for (Message.Recover r : recoveries) {
                for (PartitionedEngine e : to) {
                    e.deliverMulticast(from, Message.encode(r));
                }
            }
        }

        @Override
        public void close() {
            a.close();
            b.close();
            c.close();
        }
    }

    private static void assertRefused(PartitionedEngine e, ByteKey k, String why) {
        byte[] served;
        try {
            served = e.begin(true).get(k.bytes);
        } catch (KeyUnavailableException expected) {
            return;
        }
        throw new AssertionError(why + "; but " + e.self() + " serves " + java.util.Arrays.toString(served));
    }

    /** Cuts the member off: a minority view of its own. */
    private static void cutOff(PartitionedEngine e, RecordingGroup group, long epoch) {
        View minority = new View(epoch, List.of(group.self()), false);
        group.install(minority);
        e.blocked(minority);
    }

    /** Installs the primary view {@code v} at each (group, engine) pair given. */
    private static void installed(View v, Object... groupsAndEngines) {
        for (int i = 0; i < groupsAndEngines.length; i += 2) {
            ((RecordingGroup) groupsAndEngines[i]).install(v);
            ((PartitionedEngine) groupsAndEngines[i + 1]).viewInstalled(v, -1);
        }
    }

    /** Delivers to C, as the "done" of each of {@code senders}, what C sent for {@code epoch}. */
    private static void doneLikeC(PartitionedEngine c, RecordingGroup gc, long epoch, MemberId... senders) {
        for (MemberId m : senders) {
            c.deliverDirect(m, doneSent(gc, m, epoch));
        }
    }

    /** The "done" for {@code epoch} that the group's member sent to {@code to}. */
    private static byte[] doneSent(RecordingGroup from, MemberId to, long epoch) {
        byte[] done = from.firstSentTo(to, m -> m instanceof Message.Done d && d.epoch() == epoch);
        assertNotNull(done, from.self() + " sent no done for " + epoch + " to " + to);
        return done;
    }

    /**
     * On [A, B, C, D]: transaction 1 writes 42 to a key of B and D; transaction 2 (from A) writes 43 to it and to a
     * key of A and C, which B voted yes on and waits for A's or C's vote. Returns B and D's key.
     */
    private ByteKey placedWithATransactionInDoubt(RecordingGroup group) {
        placeOnFour(group);
        HashRing ring = new HashRing(ALL, 2, 64);
        ByteKey lostKey = keyOwnedBy(ring, B, D);
        ByteKey othersKey = keyOwnedBy(ring, A, C);
        write42(lostKey);
        engine.deliverMulticast(A, Message.encode(new Message.Transaction(false, 2, 1, ConsistencyLevel.SERIALIZABLE,
                List.of(new Message.Write(lostKey, new byte[] {43}), new Message.Write(othersKey, new byte[] {43})),
                List.of(new Message.Check(lostKey, 1), new Message.Check(othersKey, 0)))));
        return lostKey;
    }

    /** Transaction 1 of A writes 42 to B and D's key, and D, its other owner, agrees: committed at B. */
    private void write42(ByteKey lostKey) {
        engine.deliverMulticast(A, Message.encode(new Message.Transaction(false, 1, 1, ConsistencyLevel.SERIALIZABLE,
                List.of(new Message.Write(lostKey, new byte[] {42})), List.of())));
        engine.deliverDirect(D, Message.encode(new Message.Vote(A, 1, null)));
    }

    private void placeOnFour(RecordingGroup group) {
        place(engine, group, ALL);
    }

    /** Attaches {@code e} to {@code group} and hands it placement 1 over {@code all}, as its members would. */
    private static void place(PartitionedEngine e, RecordingGroup group, List<MemberId> all) {
        e.attach(group);
        e.deliverMulticast(all.get(0), Message.encode(new Message.Rebalance(1, all)));
        for (MemberId m : all) {
            if (!m.equals(group.self())) {
                e.deliverDirect(m, Message.encode(new Message.Done(1, 0)));
            }
        }
    }

    /**
     * B is cut off (with D), then processes the rebalance of the merged view 3. A and C went through placement 2
     * without B and D, so nobody fresh holds the keys only B and D owned.
     */
    private void cutOffWithDAndRebalanced(RecordingGroup group) {
        View minority = new View(2, List.of(B), false);
        group.install(minority);
        engine.blocked(minority);
        engine.deliverMulticast(A, Message.encode(new Message.Rebalance(3, ALL)));
        Message.Done fresh = new Message.Done(3, 2, List.of(A, C), List.of(new Message.Lost(1, ALL, List.of(A, C))));
        engine.deliverDirect(A, Message.encode(fresh));
        engine.deliverDirect(C, Message.encode(fresh));
        engine.deliverDirect(D, Message.encode(new Message.Done(3, -1)));
    }

    static ByteKey keyOwnedBy(HashRing ring, MemberId first, MemberId second) {
        return keyWhere(k -> ring.owners(k).containsAll(List.of(first, second)));
    }

    private static ByteKey keyWhere(Predicate<ByteKey> wanted) {
        for (int i = 0; ; i++) {
            ByteKey k = new ByteKey(new byte[] {'k', (byte) i, (byte) (i >> 8)});
            if (wanted.test(k)) {
                return k;
            }
        }
    }

    private static List<Message.Recover> recoveries(RecordingGroup group) {
        List<byte[]> sent;
        synchronized (group) { // the apply pool's thread may multicast meanwhile
            sent = new java.util.ArrayList<>(group.multicasts);
        }
        return sent.stream().map(Message::decode).filter(Message.Recover.class::isInstance)
                .map(Message.Recover.class::cast).toList();
    }
}
