package io.polycert.certification.partial;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.AbortCause;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * At degree 4 only the first two owners of a key (in placement order) send their votes: each destination waits
 * for one other owner's vote, and owners vote alike. The others stay silent unless one of those two is out of
 * their view, answer when asked, and send a refusal to the originator. Driven by hand on member B of
 * [A, B, C, D], where every member owns every key.
 */
class VoteFanOutTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final MemberId C = new MemberId(3, 3, "C");
    private static final MemberId D = new MemberId(4, 4, "D");
    private static final List<MemberId> ALL = List.of(A, B, C, D);
    private static final HashRing RING = new HashRing(ALL, 4, 64);

    private PartitionedEngine engine;
    private RecordingGroup group;

    @BeforeEach
    void placeOnFour() {
        engine = PartitionedEngine.builder().identity(B).replicationDegree(4).build();
        group = new RecordingGroup(B, A, C, D);
        engine.attach(group);
        engine.deliverMulticast(A, Message.encode(new Message.Rebalance(1, ALL)));
        for (MemberId m : List.of(A, C, D)) {
            engine.deliverDirect(m, Message.encode(new Message.Done(1, 0)));
        }
        assertTrue(engine.isReady());
    }

    @AfterEach
    void close() {
        engine.close();
    }

    /** A key whose first two owners include B ({@code first}) or do not. */
    private static ByteKey key(boolean first) {
        for (int i = 0; ; i++) {
            ByteKey k = new ByteKey(new byte[] {'k', (byte) i});
            if (RING.owners(k).subList(0, 2).contains(B) == first) {
                return k;
            }
        }
    }

    private void deliverWriteOf(ByteKey key, long seq) {
        engine.deliverMulticast(A, Message.encode(new Message.Transaction(false, seq, 1,
                ConsistencyLevel.SERIALIZABLE, List.of(new Message.Write(key, new byte[] {(byte) seq})), List.of())));
    }

    private long votesSent(long seq) {
        return group.sent.stream().filter(e -> Message.decode(e.getValue()) instanceof Message.Vote v
                && v.seq() == seq).count();
    }

    @Test
    void oneOfTheFirstTwoOwnersSendsItsVoteToEveryOtherDestination() {
        deliverWriteOf(key(true), 1);
        assertEquals(3, votesSent(1), "to A (the originator), C and D");
    }

    @Test
    void theOtherOwnersStaySilentAndDecideOnTheFirstTwosVotes() {
        ByteKey k = key(false);
        deliverWriteOf(k, 1);
        assertEquals(0, votesSent(1), "B is neither of the first two owners");
        MemberId first = RING.owners(k).get(0);
        engine.deliverDirect(first, Message.encode(new Message.Vote(A, 1, null)));
        assertArrayEquals(new byte[] {1}, engine.ownedValue(k.bytes), "one other owner's yes is enough");
        engine.deliverDirect(C, Message.encode(new Message.VoteQuery(A, 1, 1)));
        assertEquals(1, votesSent(1), "asked, it answers");
    }

    /**
     * The originator waits for the refusals of every owner of a key, and the other owners decide on the first one
     * (and tell the originator) rather than wait for their turn to validate.
     */
    @Test
    void anOwnerThatKeepsItsYesToItselfStillSendsItsRefusal() {
        ByteKey k = key(false);
        engine.deliverMulticast(A, Message.encode(new Message.Transaction(false, 1, 1, ConsistencyLevel.SERIALIZABLE,
                List.of(new Message.Write(k, new byte[] {1})), List.of(new Message.Check(k, 5)))));
        List<Map.Entry<MemberId, byte[]>> votes = group.sent.stream()
                .filter(e -> Message.decode(e.getValue()) instanceof Message.Vote v && v.seq() == 1).toList();
        assertEquals(java.util.Set.of(A, C, D), votes.stream().map(Map.Entry::getKey)
                .collect(java.util.stream.Collectors.toSet()), "to the originator and every other destination");
        assertEquals(3, votes.size(), "once each");
        assertTrue(votes.stream().noneMatch(e -> ((Message.Vote) Message.decode(e.getValue())).positive()),
                "a refusal");
    }

    /**
     * B's own transaction: at degree 4 every other owner of its key must refuse before B reports the abort. Two
     * of them may have been excluded together with B without noticing, and refuse it in an order that differs
     * from that of the members which resolved it without them.
     */
    @Test
    void theOriginatorReportsAnAbortOnceEveryOtherOwnerOfAKeyRefused() throws Exception {
        ByteKey k = key(true);
        int before = group.multicasts.size();
        CompletableFuture<Throwable> own = group.commitInBackground(engine, tx -> tx.put(k.bytes, new byte[] {7}));
        long seq = ((Message.Transaction) Message.decode(group.multicasts.get(before))).seq();
        for (MemberId owner : List.of(A, C, D)) {
            assertThrows(TimeoutException.class, () -> own.get(100, TimeUnit.MILLISECONDS),
                    "not reported before " + owner + " refused");
            engine.deliverDirect(owner, Message.encode(new Message.Vote(B, seq, AbortCause.CONFLICT)));
        }
        assertInstanceOf(TransactionAbortedException.class, own.get(10, TimeUnit.SECONDS));
    }

    @Test
    void anOwnerStandsInForOneOfTheFirstTwoThatLeftTheView() {
        ByteKey k = key(false);
        deliverWriteOf(k, 1);
        MemberId gone = RING.owners(k).stream().filter(m -> !m.equals(A)).findFirst().orElseThrow();
        assertTrue(RING.owners(k).subList(0, 2).contains(gone));
        View without = new View(2, ALL.stream().filter(m -> !m.equals(gone)).toList(), true);
        group.install(without);
        engine.viewInstalled(without, -1);
        assertEquals(2, votesSent(1), "B's vote went out, to the two other members still in the view");
        assertNull(engine.ownedValue(k.bytes), "and B still waits for another owner in its view");
    }
}
