package io.polycert.certification.partial;

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
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An owner that left without a word settles no refusal, even one that comes after it left: before it went it may
 * have said yes to other destinations (it crashed, or was excluded together with others), which commit. Driven by
 * hand on member B of [A, B, C, D, E], degree 2; B originates, C leaves, A refuses.
 */
class RefusalThroughDepartureTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final MemberId C = new MemberId(3, 3, "C");
    private static final MemberId D = new MemberId(4, 4, "D");
    private static final MemberId E = new MemberId(5, 5, "E");
    private static final List<MemberId> ALL = List.of(A, B, C, D, E);
    private static final HashRing RING = new HashRing(ALL, 2, 64);
    /** Owned by A and C. */
    private static final ByteKey OWNED_BY_A_AND_C = keyOwnedBy(A, C);
    /** Owned by D and E. */
    private static final ByteKey OWNED_BY_D_AND_E = keyOwnedBy(D, E);

    private PartitionedEngine engine;
    private RecordingGroup group;

    private void start(Duration outcomeTimeout) {
        engine = PartitionedEngine.builder().identity(B).consistency(ConsistencyLevel.SERIALIZABLE)
                .outcomeTimeout(outcomeTimeout).build();
        group = new RecordingGroup(B, A, C, D, E);
        group.place(engine);
    }

    @AfterEach
    void close() {
        if (engine != null) {
            engine.close();
        }
    }

    private static ByteKey keyOwnedBy(MemberId first, MemberId second) {
        for (int i = 0; i < 100_000; i++) {
            ByteKey k = new ByteKey(new byte[] {'k', (byte) i, (byte) (i >> 8), (byte) (i >> 16)});
            if (RING.owners(k).containsAll(List.of(first, second))) {
                return k;
            }
        }
        throw new AssertionError("no key owned by " + first + " and " + second);
    }

    /** B commits blind writes of {@code keys} on another thread; returns its failure (null once committed). */
    private CompletableFuture<Throwable> commitWriting(ByteKey... keys) throws Exception {
        return group.commitInBackground(engine, tx -> {
            for (ByteKey k : keys) {
                tx.put(k.bytes, new byte[] {7});
            }
        });
    }

    private long seqOfLastMulticast() {
        return ((Message.Transaction) Message.decode(group.multicasts.get(group.multicasts.size() - 1))).seq();
    }

    private void cLeaves() {
        View withoutC = new View(2, List.of(A, B, D, E), true);
        group.install(withoutC);
        engine.viewInstalled(withoutC, -1);
    }

    private void vote(MemberId voter, long seq, AbortCause refusal) {
        engine.deliverDirect(voter, Message.encode(new Message.Vote(B, seq, refusal)));
    }

    /** B's next round of vote queries asks D and E, the owners of the second key, about {@code seq}. */
    private void assertQueryAsksDAndE(long seq) {
        int sentBefore = group.sent.size();
        engine.queryMissingVotes(0);
        for (MemberId asked : List.of(D, E)) {
            assertTrue(group.sent.subList(sentBefore, group.sent.size()).stream().anyMatch(e -> e.getKey()
                    .equals(asked) && Message.decode(e.getValue()) instanceof Message.VoteQuery q
                    && q.seq() == seq), "B asks " + asked);
        }
    }

    private static boolean completesWithin(CompletableFuture<?> f, long millis) throws Exception {
        try {
            f.get(millis, TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        }
    }

    /**
     * The key's only other owner left before A's refusal came. C may have voted yes to D and E, which own B's
     * second key, and they committed (until 2026-11-26 B reported the abort here, C counting as settled because it
     * had left before the refusal). Nobody left can show the abort either: unknown at once.
     */
    @Test
    void aRefusalStandingOnlyThroughAnOwnerThatLeftFirstIsUnknown() throws Exception {
        start(Duration.ofSeconds(60));
        CompletableFuture<Throwable> own = commitWriting(OWNED_BY_A_AND_C);
        long seq = seqOfLastMulticast();
        cLeaves();
        vote(A, seq, AbortCause.CONFLICT);
        assertInstanceOf(OutcomeUnknownException.class, own.get(10, TimeUnit.SECONDS),
                "C may have said yes elsewhere before it left");
    }

    /**
     * With a second key whose owners are all in the view, the refusal waits for them: both refuse (they decided an
     * abort on A's refusal) and the abort stands.
     */
    @Test
    void itStandsOnceEveryOwnerOfAnotherKeyRefuses() throws Exception {
        start(Duration.ofSeconds(60));
        CompletableFuture<Throwable> own = commitWriting(OWNED_BY_A_AND_C, OWNED_BY_D_AND_E);
        long seq = seqOfLastMulticast();
        cLeaves();
        vote(A, seq, AbortCause.CONFLICT);
        assertFalse(completesWithin(own, 200), "D and E may have committed on a yes of C's");
        vote(D, seq, AbortCause.CONFLICT);
        assertFalse(completesWithin(own, 100), "E may still have committed");
        vote(E, seq, AbortCause.CONFLICT);
        assertInstanceOf(TransactionAbortedException.class, own.get(10, TimeUnit.SECONDS));
    }

    /**
     * D and E have not voted: B asks them (they may have dropped the transaction unvoted, and say so only when
     * asked), and a key whose owners all said they never voted shows the abort as well as refusals do. (Found by a
     * review of the first version, which asked only the owners of the refuser's keys and let only a refusal count.)
     */
    @Test
    void theSilentOwnersOfAnotherKeyAreAskedAndTheirNoVotesShowTheAbort() throws Exception {
        start(Duration.ofSeconds(60));
        CompletableFuture<Throwable> own = commitWriting(OWNED_BY_A_AND_C, OWNED_BY_D_AND_E);
        long seq = seqOfLastMulticast();
        cLeaves();
        vote(A, seq, AbortCause.CONFLICT);
        assertQueryAsksDAndE(seq);
        engine.deliverDirect(D, Message.encode(new Message.NoVote(B, seq)));
        assertFalse(completesWithin(own, 100), "E may still have voted yes");
        engine.deliverDirect(E, Message.encode(new Message.NoVote(B, seq)));
        assertInstanceOf(TransactionAbortedException.class, own.get(10, TimeUnit.SECONDS),
                "no owner of the second key voted: it committed nowhere");
    }

    /**
     * D and E said yes before A's refusal came: asked again, they answer with what they decided. An abort (on A's
     * refusal) settles it; a yes again (they committed, on a yes of C's that B never heard) leaves it to the
     * outcome timeout, unknown.
     */
    @Test
    void ownersThatSaidYesAreAskedAgain() throws Exception {
        for (boolean committed : new boolean[] {false, true}) {
            start(Duration.ofMillis(committed ? 600 : 60_000));
            CompletableFuture<Throwable> own = commitWriting(OWNED_BY_A_AND_C, OWNED_BY_D_AND_E);
            long seq = seqOfLastMulticast();
            vote(D, seq, null);
            vote(E, seq, null);
            cLeaves();
            vote(A, seq, AbortCause.CONFLICT);
            assertFalse(completesWithin(own, 200), "pending while D and E may have committed");
            assertQueryAsksDAndE(seq);
            vote(D, seq, committed ? null : AbortCause.REPLICA_LEFT);
            vote(E, seq, committed ? null : AbortCause.REPLICA_LEFT);
            Throwable outcome = own.get(10, TimeUnit.SECONDS);
            if (committed) {
                assertInstanceOf(OutcomeUnknownException.class, outcome, "they may have committed");
            } else {
                assertInstanceOf(TransactionAbortedException.class, outcome, "they decided an abort");
            }
            engine.close();
            engine = null;
        }
    }
}
