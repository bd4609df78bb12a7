package io.polycert.certification.partial;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.AbortCause;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Bug 3 of docs/RELIABILITY.md: a transaction in flight when both owners of one of its keys were cut off stayed
 * undecided at the majority for ever, and the majority's rebalance waited behind it. The destinations that voted
 * now ask the owners for the missing vote; an owner that dropped the transaction unvoted says so, and once every
 * owner of the key has, nobody voted yes on it, so it aborts. Driven by hand on member B.
 */
class MissingVoteTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final MemberId C = new MemberId(3, 3, "C");
    private static final MemberId D = new MemberId(4, 4, "D");
    private static final MemberId E = new MemberId(5, 5, "E");
    private static final List<MemberId> FIVE = List.of(A, B, C, D, E);
    private static final List<MemberId> THREE = List.of(A, B, C);

    private final List<PartitionedEngine> engines = new ArrayList<>();
    private RecordingGroup group;

    @AfterEach
    void close() {
        engines.forEach(PartitionedEngine::close);
    }

    /** B placed on {@code members} (placement 1), with the timer's queries left to the test. */
    private PartitionedEngine placed(List<MemberId> members) {
        PartitionedEngine engine = PartitionedEngine.builder().identity(B).outcomeTimeout(Duration.ofSeconds(60))
                .voteQueryInterval(Duration.ofHours(1)).build();
        engines.add(engine);
        group = new RecordingGroup(B, members.stream().filter(m -> !m.equals(B)).toArray(MemberId[]::new));
        engine.attach(group);
        engine.deliverMulticast(A, Message.encode(new Message.Rebalance(1, members)));
        for (MemberId m : members) {
            if (!m.equals(B)) {
                engine.deliverDirect(m, Message.encode(new Message.Done(1, 0)));
            }
        }
        assertTrue(engine.isReady());
        return engine;
    }

    /** A key whose owners under {@code members} (degree 2) are exactly the given ones, in any order. */
    private static ByteKey keyOwnedBy(List<MemberId> members, MemberId... owners) {
        HashRing ring = new HashRing(members, 2, 64);
        for (int i = 0; ; i++) {
            ByteKey k = new ByteKey(new byte[] {'k', (byte) i, (byte) (i >> 8)});
            List<MemberId> o = ring.owners(k);
            if (o.size() == owners.length && o.containsAll(List.of(owners))) {
                return k;
            }
        }
    }

    private static byte[] transaction(long seq, long epoch, ByteKey... keys) {
        List<Message.Write> writes = new ArrayList<>();
        List<Message.Check> checks = new ArrayList<>();
        for (ByteKey k : keys) {
            writes.add(new Message.Write(k, new byte[] {(byte) seq}));
            checks.add(new Message.Check(k, 0));
        }
        return Message.encode(new Message.Transaction(false, seq, epoch, ConsistencyLevel.SERIALIZABLE, writes, checks));
    }

    private List<Map.Entry<MemberId, Message>> sent(Class<? extends Message> type) {
        List<Map.Entry<MemberId, Message>> out = new ArrayList<>();
        for (Map.Entry<MemberId, byte[]> e : new ArrayList<>(group.sent)) {
            Message m = Message.decode(e.getValue());
            if (type.isInstance(m)) {
                out.add(Map.entry(e.getKey(), m));
            }
        }
        return out;
    }

    // ------------------------------------------------------------------------------------ B waits for a vote

    /** Of B and E, and of A and C, among the five. */
    private final ByteKey own = keyOwnedBy(FIVE, B, E);
    private final ByteKey others = keyOwnedBy(FIVE, A, C);
    /** Of A and B, and of A and C, among the three. */
    private final ByteKey ownOfThree = keyOwnedBy(THREE, A, B);
    private final ByteKey notOwnOfThree = keyOwnedBy(THREE, A, C);

    /** T (from D, placement 1) writes {@link #own} and {@link #others}; B votes and waits for A's or C's vote. */
    private PartitionedEngine bWaitingForTheVoteOfAOrC() {
        PartitionedEngine engine = placed(FIVE);
        engine.deliverMulticast(D, transaction(1, 1, own, others));
        assertEquals(1, sent(Message.Vote.class).stream().filter(e -> e.getKey().equals(D)).count(), "B voted");
        engine.deliverDirect(E, Message.encode(new Message.Vote(D, 1, null))); // the other owner of B's key
        // The majority B, D, E moves on; its rebalance waits for T.
        engine.deliverMulticast(D, Message.encode(new Message.Rebalance(2, List.of(B, D, E))));
        assertEquals(1, engine.epoch());
        return engine;
    }

    @Test
    void bAsksTheOwnersOfTheUncoveredKeyInTheViewForTheirVotes() {
        PartitionedEngine engine = bWaitingForTheVoteOfAOrC();
        group.install(new View(3, List.of(A, B, C, D), true)); // E is not asked: it owns no uncovered key anyway
        engine.queryMissingVotes(0);
        List<Map.Entry<MemberId, Message>> queries = sent(Message.VoteQuery.class);
        assertEquals(List.of(A, C), queries.stream().map(Map.Entry::getKey).sorted().toList());
        assertEquals(new Message.VoteQuery(D, 1, 1), queries.get(0).getValue());
        engine.queryMissingVotes(Duration.ofHours(1).toNanos());
        assertEquals(2, sent(Message.VoteQuery.class).size(), "not asked again before the interval");
    }

    @Test
    void whenEveryOwnerOfTheKeyNeverVotedTheTransactionAbortsAndTheRebalanceGoesOn() {
        PartitionedEngine engine = bWaitingForTheVoteOfAOrC();
        engine.deliverDirect(A, Message.encode(new Message.NoVote(D, 1)));
        assertEquals(1, engine.epoch(), "C may have voted yes, and a destination committed: undecided");
        engine.deliverDirect(D, Message.encode(new Message.NoVote(D, 1)));
        assertEquals(1, engine.epoch(), "D owns no uncovered key: its word counts for nothing");
        engine.deliverDirect(C, Message.encode(new Message.NoVote(D, 1)));
        assertEquals(2, engine.epoch(), "nobody voted yes on the key: T aborted, and the rebalance started");
        assertNull(engine.ownedValue(own.bytes), "T's write was not applied");
        assertEquals(1, engine.statistics().abortedUnvoted());
    }

    @Test
    void anOwnerThatVotedYesOutweighsOneThatNeverVoted() {
        PartitionedEngine engine = bWaitingForTheVoteOfAOrC();
        engine.deliverDirect(A, Message.encode(new Message.NoVote(D, 1)));
        engine.deliverDirect(C, Message.encode(new Message.Vote(D, 1, null)));
        assertEquals(2, engine.epoch());
        assertArrayEquals(new byte[] {1}, engine.ownedValue(own.bytes), "C voted yes: T committed");
        assertEquals(0, engine.statistics().abortedUnvoted());
    }

    // ---------------------------------------------------------------------------------- B answers a query

    /** On [A, B, C]: T1 (from A) waits at B for C's vote; T2 (from C) queues behind T1, so B has not voted on it. */
    private PartitionedEngine bHoldingAVotedAndAnUnvotedTransaction() {
        PartitionedEngine engine = placed(THREE);
        engine.deliverMulticast(A, transaction(1, 1, ownOfThree, notOwnOfThree));
        engine.deliverMulticast(C, transaction(2, 1, ownOfThree));
        return engine;
    }

    private Message answerTo(PartitionedEngine engine, MemberId origin, long seq, long epoch) {
        int before = group.sent.size();
        engine.deliverDirect(D, Message.encode(new Message.VoteQuery(origin, seq, epoch)));
        assertTrue(group.sent.size() <= before + 1);
        return group.sent.size() == before ? null : Message.decode(group.sent.get(before).getValue());
    }

    @Test
    void aMemberBackFromAMinorityAnswersWithItsVoteOrThatItNeverVoted() {
        PartitionedEngine engine = bHoldingAVotedAndAnUnvotedTransaction();
        assertEquals(new Message.Vote(A, 1, null), answerTo(engine, A, 1, 1), "T1: the vote it holds");
        assertNull(answerTo(engine, C, 2, 1), "T2: not its turn yet; it will vote");

        engine.blocked(new View(2, List.of(B), false));
        assertNull(answerTo(engine, C, 2, 1), "cut off: it has not moved past T2's placement");
        engine.deliverMulticast(A, Message.encode(new Message.Rebalance(3, THREE))); // back
        assertEquals(new Message.Vote(A, 1, null), answerTo(engine, A, 1, 1),
                "T1: the vote it sent before it dropped T1, after sending it again on its return");
        assertEquals(new Message.NoVote(C, 2), answerTo(engine, C, 2, 1), "T2: dropped unvoted");
        assertNull(answerTo(engine, C, 2, 3), "a transaction of the current placement may still come");
        assertEquals(new Message.NoVote(C, 9), answerTo(engine, C, 9, 1),
                "ignored while cut off (or never delivered) and now past its placement: it will never vote");
    }

    @Test
    void aDecidedTransactionIsAnsweredWithItsOutcome() {
        PartitionedEngine engine = bHoldingAVotedAndAnUnvotedTransaction();
        engine.deliverDirect(C, Message.encode(new Message.Vote(A, 1, AbortCause.CONFLICT))); // T1 aborts
        engine.deliverDirect(A, Message.encode(new Message.Vote(C, 2, null))); // T2 voted at B, then A: commit
        assertEquals(new Message.Vote(A, 1, AbortCause.REPLICA_LEFT), answerTo(engine, A, 1, 1),
                "a decided abort: a refusal");
        assertEquals(new Message.Vote(C, 2, null), answerTo(engine, C, 2, 1), "a decided commit: yes");
        assertArrayEquals(new byte[] {2}, engine.ownedValue(ownOfThree.bytes));
    }

    @Test
    void aTransactionWaitingBehindARebalanceIsNotDeclaredUnvoted() {
        PartitionedEngine engine = placed(THREE);
        engine.deliverMulticast(A, transaction(1, 1, ownOfThree, notOwnOfThree)); // waits for C's vote
        engine.deliverMulticast(A, Message.encode(new Message.Rebalance(2, THREE))); // waits for T1
        engine.deliverMulticast(C, transaction(2, 2, ownOfThree)); // behind the rebalance barrier
        engine.deliverMulticast(A, Message.encode(new Message.Rebalance(3, THREE)));
        assertNull(answerTo(engine, C, 2, 2), "T2 is admitted once the barrier lifts, and B votes on it then");
    }

    /**
     * Decisions are remembered up to a bound. Asked about a transaction it does not know, of a placement whose
     * decisions it has started to forget, an owner cannot tell "never voted" from "voted and forgot": it says
     * nothing, where a NoVote could abort, at the asker, a transaction that committed on its forgotten vote.
     */
    @Test
    void anOwnerThatForgotDecisionsOfAPlacementDoesNotAnswerNoVoteForIt() {
        PartitionedEngine engine = placed(THREE);
        int remembered = 100_000;
        for (int i = 1; i <= remembered + 1; i++) { // nothing to validate: decided once A agrees, and remembered
            engine.deliverMulticast(A, Message.encode(new Message.Transaction(false, i, 1,
                    ConsistencyLevel.SERIALIZABLE, List.of(new Message.Write(ownOfThree, new byte[] {1})), List.of())));
            engine.deliverDirect(A, Message.encode(new Message.Vote(A, i, null)));
        }
        engine.deliverMulticast(A, Message.encode(new Message.Rebalance(2, THREE)));
        engine.deliverMulticast(A, Message.encode(new Message.Rebalance(3, THREE)));
        assertNull(answerTo(engine, C, 1, 1), "placement 1: some decisions forgotten");
        assertEquals(new Message.NoVote(C, 1), answerTo(engine, C, 1, 2), "placement 2: nothing forgotten");
    }
}
