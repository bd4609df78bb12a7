package io.polycert.certification.partial;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A member excluded by the others without noticing (paused until just excluded, then merged back: it never
 * installed a view without them) still holds transactions the others resolved without it, and waits for votes
 * that were sent while it was out. The "done" messages of the merged view's rebalance carry a newer previous
 * placement than its own, which tells it that it missed a placement. Driven by hand on member B of [A, B, C].
 */
class MissedPlacementTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final MemberId C = new MemberId(3, 3, "C");
    private static final List<MemberId> ALL = List.of(A, B, C);
    private static final HashRing RING = new HashRing(ALL, 2, 64);
    /** How the other owner of a key answers a refusal (see answers). */
    private static final String[] ANSWERS = {"refuses", "never voted", "accepts", "leaves"};

    private PartitionedEngine engine;
    private RecordingGroup group;
    /** A key B owns with A, and one B does not own. */
    private ByteKey ownedWithA;
    private ByteKey notOwned;

    @BeforeEach
    void placeOnThreeMembers() {
        placeOnThreeMembers(ConsistencyLevel.SERIALIZABLE);
    }

    private void placeOnThreeMembers(ConsistencyLevel level) {
        engine = PartitionedEngine.builder().identity(B).consistency(level).outcomeTimeout(Duration.ofSeconds(60))
                .build();
        group = new RecordingGroup(B, A, C);
        engine.attach(group);
        engine.deliverMulticast(A, Message.encode(new Message.Rebalance(1, ALL)));
        engine.deliverDirect(A, Message.encode(new Message.Done(1, 0)));
        engine.deliverDirect(C, Message.encode(new Message.Done(1, 0)));
        assertTrue(engine.isReady());
        for (int i = 0; ownedWithA == null || notOwned == null; i++) {
            ByteKey k = new ByteKey(new byte[] {'k', (byte) i});
            List<MemberId> owners = RING.owners(k);
            if (owners.containsAll(List.of(A, B)) && ownedWithA == null) {
                ownedWithA = k;
            } else if (!owners.contains(B) && notOwned == null) {
                notOwned = k;
            }
        }
    }

    @AfterEach
    void close() {
        engine.close();
    }

    /** A transaction from A at placement 1 that B validates, then waits for a vote on the key it does not own. */
    private void deliverTransactionWaitingForAVote(long seq) {
        engine.deliverMulticast(A, Message.encode(new Message.Transaction(false, seq, 1, ConsistencyLevel.SERIALIZABLE,
                List.of(new Message.Write(ownedWithA, new byte[] {1}), new Message.Write(notOwned, new byte[] {1})),
                List.of(new Message.Check(ownedWithA, 0), new Message.Check(notOwned, 0)))));
    }

    /** B's own commit of a key it does not own: it waits for a vote from that key's owners. */
    private CompletableFuture<Throwable> commitWaitingForAVote() throws InterruptedException {
        return commitAsync(tx -> tx.put(notOwned.bytes, new byte[] {7}));
    }

    /** B's own transaction, run and committed on another thread: its failure, or null once committed. */
    private CompletableFuture<Throwable> commitAsync(java.util.function.Consumer<PartitionedTransaction> body)
            throws InterruptedException {
        return group.commitInBackground(engine, body);
    }

    private void awaitOwnCommitSent(int multicasts) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (group.multicasts.size() < multicasts && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(multicasts, group.multicasts.size(), "B's commit was multicast");
    }

    @Test
    void doneMessagesShowingAMissedPlacementReleaseTheRebalance() throws Exception {
        deliverTransactionWaitingForAVote(1);
        int before = group.multicasts.size();
        CompletableFuture<Throwable> own = commitWaitingForAVote();
        awaitOwnCommitSent(before + 1);
        // The others excluded B (placement 2, without it) and merged it back: the rebalance of view 3.
        engine.deliverMulticast(C, Message.encode(new Message.Rebalance(3, ALL)));
        assertEquals(1, engine.epoch(), "the rebalance waits for the transaction ordered before it");

        engine.deliverDirect(A, Message.encode(new Message.Done(3, 2)));
        assertEquals(3, engine.epoch(), "the transactions resolved without B no longer hold the rebalance");
        assertFalse(engine.isReady(), "B's keys are stale until the fresh members' copies are in");
        assertInstanceOf(OutcomeUnknownException.class, own.get(10, TimeUnit.SECONDS),
                "B's own commit, decided without it, ends as unknown at once, not after the outcome timeout");
        assertTrue(sentDone(3, -1), "B says it is not fresh");

        engine.deliverDirect(A, Message.encode(new Message.Data(3, List.of(ownedWithA), new long[] {5},
                List.of(new byte[] {5}))));
        engine.deliverDirect(C, Message.encode(new Message.Done(3, 2)));
        assertTrue(engine.isReady());
        assertArrayEquals(new byte[] {5}, engine.ownedValue(ownedWithA.bytes), "the fresh member's copy");
        assertEquals(5, engine.ownedVersion(ownedWithA.bytes));

        // The new life works: a transaction of placement 3 with nothing to validate is applied once A agrees.
        engine.deliverMulticast(A, Message.encode(new Message.Transaction(false, 2, 3, ConsistencyLevel.SERIALIZABLE,
                List.of(new Message.Write(ownedWithA, new byte[] {6})), List.of())));
        engine.deliverDirect(A, Message.encode(new Message.Vote(A, 2, null)));
        assertArrayEquals(new byte[] {6}, engine.ownedValue(ownedWithA.bytes));
    }

    @Test
    void transactionsOfTheOldLifeDeliveredBeforeTheNewRebalanceAreIgnored() {
        deliverTransactionWaitingForAVote(1);
        // The others' "done" messages can overtake the rebalance they belong to.
        engine.deliverDirect(A, Message.encode(new Message.Done(3, 2)));
        int sentBefore = group.sent.size();
        deliverTransactionWaitingForAVote(2); // ordered before the rebalance of 3: resolved without B
        assertEquals(sentBefore, group.sent.size(), "B says nothing about a transaction of its old life");
        engine.deliverMulticast(C, Message.encode(new Message.Rebalance(2, List.of(A, B))));
        assertEquals(1, engine.epoch(), "a rebalance the group completed without B is skipped");

        engine.deliverMulticast(C, Message.encode(new Message.Rebalance(3, ALL)));
        assertEquals(3, engine.epoch(), "nothing holds the rebalance of 3");
        engine.deliverDirect(C, Message.encode(new Message.Done(3, 2)));
        assertTrue(engine.isReady());
        assertNull(engine.ownedValue(ownedWithA.bytes), "nothing of the old life was applied");
    }

    @Test
    void anOrdinaryRebalanceStillWaitsForTheTransactionsBeforeIt() {
        deliverTransactionWaitingForAVote(1);
        engine.deliverMulticast(C, Message.encode(new Message.Rebalance(2, ALL)));
        engine.deliverDirect(A, Message.encode(new Message.Done(2, 1)));
        engine.deliverDirect(C, Message.encode(new Message.Done(2, 1)));
        assertEquals(1, engine.epoch(), "B went through every placement: its transaction is not dropped");

        engine.deliverDirect(C, Message.encode(new Message.Vote(A, 1, null))); // C's vote on the key B lacks
        assertEquals(1, engine.epoch(), "B waits for A too, the other owner of its key");
        engine.deliverDirect(A, Message.encode(new Message.Vote(A, 1, null)));
        assertEquals(2, engine.epoch());
        assertTrue(engine.isReady());
        assertArrayEquals(new byte[] {1}, engine.ownedValue(ownedWithA.bytes), "the transaction was applied first");
    }

    @Test
    void aMemberBackFromAMinorityRepeatsTheVotesOfTransactionsItDroppedUndecided() {
        deliverTransactionWaitingForAVote(1);
        long voted = votesSentFor(1);
        assertTrue(voted > 0, "B voted");
        engine.blocked(new View(2, List.of(B), false));
        assertEquals(voted, votesSentFor(1));
        // Back: if the key's other owners were cut off too, the others may wait for exactly this vote, lost with
        // the connection.
        engine.deliverMulticast(C, Message.encode(new Message.Rebalance(3, ALL)));
        assertEquals(2 * voted, votesSentFor(1), "the vote is sent again once B processes the rebalance of its return");
        engine.deliverDirect(A, Message.encode(new Message.Done(3, 2)));
        engine.deliverDirect(C, Message.encode(new Message.Done(3, 2)));
        assertTrue(engine.isReady());
        engine.deliverMulticast(C, Message.encode(new Message.Rebalance(4, ALL)));
        assertEquals(2 * voted, votesSentFor(1), "once only");
    }

    // ------------------------------------------------ partial bug 5: a member's own vote does not decide alone

    /** B's own commit that reads and writes {@code key}; returns once it is multicast, with its transaction. */
    private CompletableFuture<Throwable> ownCommitOf(ByteKey key, Message.Transaction[] multicast) throws Exception {
        int before = group.multicasts.size();
        CompletableFuture<Throwable> own = commitAsync(tx -> {
            tx.get(key.bytes);
            tx.put(key.bytes, new byte[] {7});
        });
        awaitOwnCommitSent(before + 1);
        multicast[0] = (Message.Transaction) Message.decode(group.multicasts.get(before));
        return own;
    }

    /**
     * B owns every key of its own transaction. Excluded without noticing, B may deliver it before a rebalance that
     * A delivered first, and A refuses it: B must hear A before it applies or acknowledges (it used to decide from
     * its own vote, and a paused member acknowledged a commit nobody else made).
     */
    @Test
    void anOwnerOfEveryKeyOfItsTransactionWaitsForTheOtherOwner() throws Exception {
        for (boolean aAgrees : new boolean[] {false, true}) {
            Message.Transaction[] tx = new Message.Transaction[1];
            CompletableFuture<Throwable> own = ownCommitOf(ownedWithA, tx);
            engine.deliverMulticast(B, Message.encode(tx[0])); // B delivers it and votes yes
            assertFalse(completesWithin(own, 200), "B's own yes does not decide: A, the other owner, may refuse");
            assertNull(engine.ownedValue(ownedWithA.bytes), "nothing applied before A votes");
            engine.deliverDirect(A, Message.encode(new Message.Vote(B, tx[0].seq(),
                    aAgrees ? null : io.polycert.core.AbortCause.TOPOLOGY_CHANGED)));
            Throwable outcome = own.get(10, TimeUnit.SECONDS);
            if (aAgrees) {
                assertNull(outcome, "A agreed: committed");
                assertArrayEquals(new byte[] {7}, engine.ownedValue(ownedWithA.bytes));
            } else {
                assertInstanceOf(io.polycert.core.TransactionAbortedException.class, outcome, "A refused: aborted");
                assertNull(engine.ownedValue(ownedWithA.bytes), "and not applied at B");
            }
        }
    }

    /**
     * The other side of bug 5: B, excluded without noticing, may deliver its own transaction after one the others
     * (having resolved B's multicast without it) ordered after it, and refuse it where they commit it. So B's own
     * refusal is not reported at once: it stands once the key's other owner refuses too. If that owner accepted
     * it, the two orders differ and B cannot know the outcome; nor if it leaves first (it may have committed the
     * transaction without B and gone, its yes never reaching B).
     */
    @Test
    void anOwnRefusalWaitsForTheOtherOwner() throws Exception {
        long seqOfC = 0;
        for (String answer : ANSWERS) {
            Message.Transaction[] tx = new Message.Transaction[1];
            CompletableFuture<Throwable> own = ownCommitOf(ownedWithA, tx);
            // C's blind write of the key, ordered before B's transaction here: applied once A agrees.
            long before = engine.ownedVersion(ownedWithA.bytes);
            seqOfC++;
            engine.deliverMulticast(C, Message.encode(new Message.Transaction(false, seqOfC, 1,
                    ConsistencyLevel.SERIALIZABLE, List.of(new Message.Write(ownedWithA, new byte[] {1})), List.of())));
            engine.deliverDirect(A, Message.encode(new Message.Vote(C, seqOfC, null)));
            assertEquals(before + 1, engine.ownedVersion(ownedWithA.bytes));
            engine.deliverMulticast(B, Message.encode(tx[0])); // B validates its read: overwritten, it refuses
            assertFalse(completesWithin(own, 200), "B's own refusal does not decide alone (" + answer + ")");
            answers(A, answer, tx[0].seq());
            assertOutcome(answer, own.get(10, TimeUnit.SECONDS));
            assertArrayEquals(new byte[] {1}, engine.ownedValue(ownedWithA.bytes), "B applied none of its own");
        }
    }

    /**
     * B refuses its own transaction on a key it shares with A (overwritten, as above) while C, the other owner of its
     * second key, votes yes; then A leaves. No owner is left to confirm or contradict the refusal, so nothing would
     * settle it before the outcome timeout (PartitionedStoreTest's join-and-crash test, under load, 2026-11-26:
     * "waiting for a yes on 1 of 2 keys ... owned by [M0, M3]; yes from [M4], own refusal CONFLICT", M3 gone).
     * C has decided meanwhile, on B's refusal: asked again, it answers with a refusal, and B reports the abort.
     */
    @Test
    void anOwnRefusalNoOwnerIsLeftToSettleIsSettledByAskingTheDestinationsThatSaidYes() throws Exception {
        ByteKey second = ownedWith(C);
        int before = group.multicasts.size();
        CompletableFuture<Throwable> own = commitAsync(tx -> {
            tx.get(ownedWithA.bytes);
            tx.get(second.bytes);
            tx.put(ownedWithA.bytes, new byte[] {7});
            tx.put(second.bytes, new byte[] {7});
        });
        awaitOwnCommitSent(before + 1);
        Message.Transaction tx = (Message.Transaction) Message.decode(group.multicasts.get(before));
        // C's blind write of the key B shares with A, ordered first: B's check of it fails.
        engine.deliverMulticast(C, Message.encode(new Message.Transaction(false, 1, 1, ConsistencyLevel.SERIALIZABLE,
                List.of(new Message.Write(ownedWithA, new byte[] {1})), List.of())));
        engine.deliverDirect(A, Message.encode(new Message.Vote(C, 1, null)));
        engine.deliverMulticast(B, Message.encode(tx));
        engine.deliverDirect(C, Message.encode(new Message.Vote(B, tx.seq(), null))); // C: yes on its key
        View withoutA = new View(2, List.of(B, C), true);
        group.install(withoutA);
        engine.viewInstalled(withoutA, -1);
        assertFalse(completesWithin(own, 200), "neither confirmed nor contradicted yet");
        int sentBefore = group.sent.size();
        engine.queryMissingVotes(0);
        assertTrue(group.sent.subList(sentBefore, group.sent.size()).stream().anyMatch(e -> e.getKey().equals(C)
                && Message.decode(e.getValue()) instanceof Message.VoteQuery q && q.origin().equals(B)
                && q.seq() == tx.seq()), "B asks C, which said yes, how it decided");
        engine.deliverDirect(C, Message.encode(new Message.Vote(B, tx.seq(),
                io.polycert.core.AbortCause.REPLICA_LEFT))); // C's answer: it decided abort
        assertInstanceOf(io.polycert.core.TransactionAbortedException.class, own.get(10, TimeUnit.SECONDS));
    }

    /**
     * The confirmation that waiting needs: B decides A's transaction aborted on a refusal before B votes (here the
     * refusal comes before the transaction), A's own or C's, so B would never vote; it tells A, the originator,
     * its decision instead.
     */
    @Test
    void anOwnerThatAbortsOnARefusalBeforeVotingTellsTheOriginator() {
        long seq = 0;
        for (MemberId refuser : List.of(A, C)) {
            seq++;
            ByteKey key = ownedWith(refuser);
            engine.deliverDirect(refuser, Message.encode(new Message.Vote(A, seq,
                    io.polycert.core.AbortCause.CONFLICT)));
            int before = group.sent.size();
            engine.deliverMulticast(A, Message.encode(new Message.Transaction(false, seq, 1,
                    ConsistencyLevel.SERIALIZABLE, List.of(new Message.Write(key, new byte[] {1})),
                    List.of(new Message.Check(key, 0)))));
            List<Map.Entry<MemberId, byte[]>> sent = group.sent.subList(before, group.sent.size());
            assertEquals(1, sent.size(), "one message: " + sent.stream().map(e -> Message.decode(e.getValue()))
                    .toList());
            assertEquals(A, sent.get(0).getKey(), "to the originator only");
            Message.Vote v = (Message.Vote) Message.decode(sent.get(0).getValue());
            assertEquals(A, v.origin());
            assertFalse(v.positive(), "a refusal");
            assertNull(engine.ownedValue(key.bytes));
        }
    }

    /**
     * Another owner's refusal is held back too. B, the originator, excluded without noticing together with A (an
     * owner of its key), would hear A's refusal, given in A's order, and not the yes of C, which the members that
     * resolved B's multicast without them ordered differently and committed: reported at once, "aborted" would be
     * false. The abort stands once C, the key's other owner, refuses too or says it never voted; C's yes
     * contradicts it, and C leaving first leaves it unknown.
     */
    @Test
    void anotherOwnersRefusalWaitsForTheKeysOtherOwner() throws Exception {
        for (String answer : ANSWERS) {
            int before = group.multicasts.size();
            CompletableFuture<Throwable> own = commitWaitingForAVote();
            awaitOwnCommitSent(before + 1);
            long seq = ((Message.Transaction) Message.decode(group.multicasts.get(before))).seq();
            engine.deliverDirect(A, Message.encode(new Message.Vote(B, seq, io.polycert.core.AbortCause.CONFLICT)));
            assertFalse(completesWithin(own, 200), "A's refusal does not decide alone (" + answer + ")");
            answers(C, answer, seq);
            assertOutcome(answer, own.get(10, TimeUnit.SECONDS));
        }
    }

    /**
     * B's own yes is a yes. B's transaction writes ownedWithA ([A, B]) and notOwned ([A, C]); B votes yes, and its
     * yes reaches C. If A and B are then excluded together, C may commit (ownedWithA covered by B's yes, notOwned
     * by its own once A is out of its view) while A, delivering in its own order, refuses: A's refusal must not
     * stand on the key B shares with it. It stands once C refuses too, or says it never voted (every other
     * destination refused); C's yes, or C leaving, leaves it unknown. (Found by a review; on the first version
     * of the change, which set B's own yes aside, B reported the abort at once.)
     */
    @Test
    void anOwnYesKeepsARefusalOnTheKeyItSharesFromStandingAlone() throws Exception {
        for (String answer : ANSWERS) {
            int before = group.multicasts.size();
            CompletableFuture<Throwable> own = commitAsync(tx -> {
                tx.put(ownedWithA.bytes, new byte[] {7});
                tx.put(notOwned.bytes, new byte[] {7});
            });
            awaitOwnCommitSent(before + 1);
            Message.Transaction t = (Message.Transaction) Message.decode(group.multicasts.get(before));
            int sentBefore = group.sent.size();
            engine.deliverMulticast(B, Message.encode(t)); // nothing to validate: B votes yes on delivery
            assertTrue(group.sent.subList(sentBefore, group.sent.size()).stream().anyMatch(e -> e.getKey()
                    .equals(C) && Message.decode(e.getValue()) instanceof Message.Vote v && v.positive()),
                    "B's yes went to C");
            engine.deliverDirect(A, Message.encode(new Message.Vote(B, t.seq(),
                    io.polycert.core.AbortCause.CONFLICT)));
            assertFalse(completesWithin(own, 200), "A's refusal does not decide while C may commit (" + answer
                    + ")");
            answers(C, answer, t.seq());
            assertOutcome(answer, own.get(10, TimeUnit.SECONDS));
        }
    }

    /**
     * {@code owner}, the other owner of the key of B's transaction {@code seq}, refuses it, says it never voted
     * (once asked: it dropped the transaction unvoted, cut off, then moved past its placement), accepts it, or
     * leaves the view.
     */
    private void answers(MemberId owner, String answer, long seq) {
        switch (answer) {
            case "refuses" -> engine.deliverDirect(owner, Message.encode(new Message.Vote(B, seq,
                    io.polycert.core.AbortCause.CONFLICT)));
            case "accepts" -> engine.deliverDirect(owner, Message.encode(new Message.Vote(B, seq, null)));
            case "never voted" -> {
                int before = group.sent.size();
                engine.queryMissingVotes(0);
                assertTrue(group.sent.subList(before, group.sent.size()).stream().anyMatch(e -> e.getKey()
                        .equals(owner) && Message.decode(e.getValue()) instanceof Message.VoteQuery q
                        && q.origin().equals(B) && q.seq() == seq), "B asks " + owner + " for its vote");
                engine.deliverDirect(owner, Message.encode(new Message.NoVote(B, seq)));
            }
            default -> {
                View without = new View(2, ALL.stream().filter(m -> !m.equals(owner)).toList(), true);
                group.install(without);
                engine.viewInstalled(without, -1);
            }
        }
    }

    /** Aborted if the other owner refused or never voted; else B cannot know. */
    private static void assertOutcome(String answer, Throwable outcome) {
        if (answer.equals("refuses") || answer.equals("never voted")) {
            assertInstanceOf(io.polycert.core.TransactionAbortedException.class, outcome, answer + ": aborted");
        } else {
            assertInstanceOf(OutcomeUnknownException.class, outcome, answer + ": B cannot know");
        }
    }

    /**
     * A NoVote heard before any refusal is kept (B, a destination too, may have asked for it itself): the refusal
     * that follows stands at once, every other destination having refused or said it never voted.
     */
    @Test
    void aNoVoteHeardBeforeTheRefusalCounts() throws Exception {
        int before = group.multicasts.size();
        CompletableFuture<Throwable> own = commitWaitingForAVote();
        awaitOwnCommitSent(before + 1);
        long seq = ((Message.Transaction) Message.decode(group.multicasts.get(before))).seq();
        engine.deliverDirect(C, Message.encode(new Message.NoVote(B, seq)));
        engine.deliverDirect(A, Message.encode(new Message.Vote(B, seq, io.polycert.core.AbortCause.CONFLICT)));
        assertInstanceOf(io.polycert.core.TransactionAbortedException.class, own.get(10, TimeUnit.SECONDS));
    }

    /**
     * What B reports aborted, B does not commit later. A's refusal of B's transaction comes before B delivers it
     * (B keeps it as an early vote only while A stays in its view); it stands (A refused, and B, the key's other
     * owner, has not voted), so B reports the abort. Then A leaves, and B delivers the transaction: its own yes now
     * covers the key, and B applied what its client was told aborted. (Found by a review; it failed the same way
     * before the refusal changes.)
     */
    @Test
    void whatTheOriginatorReportedAbortedItDoesNotCommitLater() throws Exception {
        int before = group.multicasts.size();
        CompletableFuture<Throwable> own = commitAsync(tx -> tx.put(ownedWithA.bytes, new byte[] {7}));
        awaitOwnCommitSent(before + 1);
        byte[] t = group.multicasts.get(before);
        long seq = ((Message.Transaction) Message.decode(t)).seq();
        engine.deliverDirect(A, Message.encode(new Message.Vote(B, seq, io.polycert.core.AbortCause.CONFLICT)));
        assertInstanceOf(io.polycert.core.TransactionAbortedException.class, own.get(10, TimeUnit.SECONDS));
        View withoutA = new View(2, List.of(B, C), true);
        group.install(withoutA);
        engine.viewInstalled(withoutA, -1);
        engine.deliverMulticast(B, t);
        assertNull(engine.ownedValue(ownedWithA.bytes), "B applied what it reported aborted");
    }

    /**
     * A "done" message of another wire format (a member running another build) is dropped, not misread: the
     * rebalance still waits for that member, and completes once it sends one B can read.
     */
    @Test
    void aDoneOfAnotherWireFormatIsDroppedAndTheRebalanceWaits() {
        engine.deliverMulticast(C, Message.encode(new Message.Rebalance(2, ALL)));
        engine.deliverDirect(A, Message.encode(new Message.Done(2, 1)));
        byte[] other = Message.encode(new Message.Done(2, 1));
        other[1] = (byte) (Message.FORMAT + 1);
        engine.deliverDirect(C, other);
        assertFalse(engine.isReady(), "C's done was not read");
        engine.deliverDirect(C, Message.encode(new Message.Done(2, 1)));
        assertTrue(engine.isReady());
        assertEquals(2, engine.epoch());
    }

    /** A key B owns with {@code other}. */
    private static ByteKey ownedWith(MemberId other) {
        for (int i = 0; ; i++) {
            ByteKey k = new ByteKey(new byte[] {'w', (byte) i});
            if (RING.owners(k).containsAll(List.of(B, other))) {
                return k;
            }
        }
    }

    /** Read committed validates nothing, and its owners hear each other all the same. */
    @Test
    void underReadCommittedToo() throws Exception {
        engine.close();
        placeOnThreeMembers(ConsistencyLevel.READ_COMMITTED);
        Message.Transaction[] tx = new Message.Transaction[1];
        CompletableFuture<Throwable> own = ownCommitOf(ownedWithA, tx);
        engine.deliverMulticast(B, Message.encode(tx[0]));
        assertFalse(completesWithin(own, 200), "not acknowledged on B's own delivery");
        assertNull(engine.ownedValue(ownedWithA.bytes), "nor applied");
        engine.deliverDirect(A, Message.encode(new Message.Vote(B, tx[0].seq(),
                io.polycert.core.AbortCause.TOPOLOGY_CHANGED)));
        assertInstanceOf(io.polycert.core.TransactionAbortedException.class, own.get(10, TimeUnit.SECONDS));
        assertNull(engine.ownedValue(ownedWithA.bytes));
    }

    @Test
    void aTransactionWithNothingToValidateWaitsForTheOtherOwnerToo() {
        engine.deliverMulticast(C, Message.encode(new Message.Transaction(false, 1, 1, ConsistencyLevel.SERIALIZABLE,
                List.of(new Message.Write(ownedWithA, new byte[] {1})), List.of())));
        assertNull(engine.ownedValue(ownedWithA.bytes), "not applied on delivery");
        engine.deliverDirect(A, Message.encode(new Message.Vote(C, 1, null)));
        assertArrayEquals(new byte[] {1}, engine.ownedValue(ownedWithA.bytes));
    }

    /** Its vote does not depend on the transactions before it, so B sends it on delivery, not once first in line. */
    @Test
    void aTransactionWithNothingToValidateVotesOnDeliveryEvenBehindAnother() {
        deliverTransactionWaitingForAVote(1); // first in the queue of ownedWithA, waiting for votes
        engine.deliverMulticast(C, Message.encode(new Message.Transaction(false, 1, 1, ConsistencyLevel.SERIALIZABLE,
                List.of(new Message.Write(ownedWithA, new byte[] {2})), List.of())));
        assertTrue(group.sent.stream().anyMatch(e -> Message.decode(e.getValue()) instanceof Message.Vote v
                && v.origin().equals(C) && v.positive()), "B voted yes on C's transaction at once");
        engine.deliverDirect(A, Message.encode(new Message.Vote(C, 1, null)));
        assertNull(engine.ownedValue(ownedWithA.bytes), "decided, but applied only after the one before it");
        engine.deliverDirect(A, Message.encode(new Message.Vote(A, 1, null)));
        assertArrayEquals(new byte[] {2}, engine.ownedValue(ownedWithA.bytes), "both applied, in delivery order");
        assertEquals(2, engine.ownedVersion(ownedWithA.bytes));
    }

    /** Once A left B's view, A will not vote: B's own yes covers the key they share, and A's votes count no more. */
    @Test
    void anOwnerThatLeftTheViewNoLongerHoldsTheDecisionAndItsVotesAreIgnored() {
        engine.deliverMulticast(C, Message.encode(new Message.Transaction(false, 1, 1, ConsistencyLevel.SERIALIZABLE,
                List.of(new Message.Write(ownedWithA, new byte[] {1}), new Message.Write(notOwned, new byte[] {1})),
                List.of(new Message.Check(ownedWithA, 0), new Message.Check(notOwned, 0)))));
        View withoutA = new View(2, List.of(B, C), true);
        group.install(withoutA);
        engine.viewInstalled(withoutA, -1);
        engine.deliverDirect(A, Message.encode(new Message.Vote(C, 1, null)));
        assertNull(engine.ownedValue(ownedWithA.bytes), "A is not in the view: its yes on the key B lacks is ignored");
        engine.deliverDirect(C, Message.encode(new Message.Vote(C, 1, null)));
        assertArrayEquals(new byte[] {1}, engine.ownedValue(ownedWithA.bytes), "C covers the other key: committed");
    }

    @Test
    void anOwnerThatNeverVotesNoLongerHoldsTheDecision() {
        engine.deliverMulticast(C, Message.encode(new Message.Transaction(false, 1, 1, ConsistencyLevel.SERIALIZABLE,
                List.of(new Message.Write(ownedWithA, new byte[] {1})), List.of(new Message.Check(ownedWithA, 0)))));
        assertNull(engine.ownedValue(ownedWithA.bytes));
        engine.deliverDirect(A, Message.encode(new Message.NoVote(C, 1)));
        assertArrayEquals(new byte[] {1}, engine.ownedValue(ownedWithA.bytes), "A never voted and never will");
    }

    /**
     * A transaction refused on delivery (certified under an older placement) is remembered: asked for its vote,
     * B answers with a refusal. A NoVote would let the asker's own yes decide it (B, its key's other owner,
     * "never voted"), which is bug 5 again.
     */
    @Test
    void aTransactionRefusedOnDeliveryIsAnsweredWithARefusal() {
        engine.deliverMulticast(C, Message.encode(new Message.Rebalance(2, ALL)));
        engine.deliverDirect(A, Message.encode(new Message.Done(2, 1)));
        engine.deliverDirect(C, Message.encode(new Message.Done(2, 1)));
        assertEquals(2, engine.epoch());
        engine.deliverMulticast(C, Message.encode(new Message.Transaction(false, 1, 1, ConsistencyLevel.SERIALIZABLE,
                List.of(new Message.Write(ownedWithA, new byte[] {1})), List.of())));
        int before = group.sent.size();
        engine.deliverDirect(A, Message.encode(new Message.VoteQuery(C, 1, 1)));
        assertEquals(before + 1, group.sent.size());
        Message answer = Message.decode(group.sent.get(before).getValue());
        assertInstanceOf(Message.Vote.class, answer);
        assertFalse(((Message.Vote) answer).positive(), "a refusal");
    }

    private static boolean completesWithin(CompletableFuture<?> f, long millis) throws Exception {
        try {
            f.get(millis, TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        }
    }

    private long votesSentFor(long seq) {
        return group.sent.stream().filter(e -> Message.decode(e.getValue()) instanceof Message.Vote v
                && v.seq() == seq && v.origin().equals(A)).count();
    }

    private boolean sentDone(long epoch, long previous) {
        for (Map.Entry<MemberId, byte[]> e : group.sent) {
            if (Message.decode(e.getValue()) instanceof Message.Done d && d.epoch() == epoch
                    && d.previousEpoch() == previous) {
                return true;
            }
        }
        return false;
    }
}
