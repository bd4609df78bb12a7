package io.polycert.certification.partial;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.group.MemberId;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * When a lost key comes back: once every owner of it that left the group last is back (issue 8), each owner's copy
 * taken as it comes. C, D and E went through placement 1 of [A, B, C, D, E]; A and B did not.
 */
class LostRegionTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final MemberId C = new MemberId(3, 3, "C");
    private static final MemberId D = new MemberId(4, 4, "D");
    private static final MemberId E = new MemberId(5, 5, "E");
    private static final HashRing RING = new HashRing(List.of(A, B, C, D, E), 2, 64);
    private static final ByteKey OF_A_AND_B = LostKeyRecoveryTest.keyOwnedBy(RING, A, B);
    private static final ByteKey OF_A_AND_C = LostKeyRecoveryTest.keyOwnedBy(RING, A, C);

    @Test
    void aKeyComesBackOnlyOnceTheOwnerThatLeftLastIsBack() {
        LostRegion r = LostRegion.found(1, RING, Set.of(C, D, E), Map.of(A, 2L, B, 3L));
        assertTrue(r.covers(OF_A_AND_B));
        assertTrue(r.takesFrom(A, OF_A_AND_B), "A's copy is taken (B's, if newer, wins when it comes)");
        assertTrue(r.takesFrom(B, OF_A_AND_B));

        LostRegion afterA = r.recoveredBy(A);
        assertTrue(afterA.covers(OF_A_AND_B), "B stayed after A left: A's copy may lack B's commits");
        assertFalse(afterA.isEmpty());
        assertFalse(afterA.takesFrom(A, OF_A_AND_B), "A is counted back once");
        assertTrue(afterA.takesFrom(B, OF_A_AND_B), "B back later is still taken");
        assertTrue(afterA.recoveredBy(B).isEmpty());

        LostRegion afterB = r.recoveredBy(B);
        assertFalse(afterB.covers(OF_A_AND_B), "B back first brings it back");
        assertFalse(afterB.takesFrom(A, OF_A_AND_B), "and A's copy is not taken after it: k may have been written");
    }

    /** An owner whose departure the fresh members had not seen left after every one they had seen. */
    @Test
    void anOwnerNotSeenLeavingLeftLast() {
        LostRegion r = LostRegion.found(1, RING, Set.of(C, D, E), Map.of(A, 2L));
        assertTrue(r.recoveredBy(A).covers(OF_A_AND_B));
        assertFalse(r.recoveredBy(B).covers(OF_A_AND_B));
    }

    /**
     * An owner that never completed the placement's rebalance is back without a copy: it counts as one of those
     * that left last, never as the copy the key is served from.
     */
    @Test
    void anOwnerBackWithoutACompleteCopyIsAwaitedButServesNothing() {
        LostRegion r = LostRegion.found(1, RING, Set.of(C, D, E), Map.of(A, 2L, B, 2L));
        LostRegion answered = r.answeredBy(B);
        assertFalse(answered.recoverableBy(B));
        assertTrue(answered.covers(OF_A_AND_B), "A is not back, and B holds no complete copy");
        assertFalse(answered.recoveredBy(A).covers(OF_A_AND_B), "A's copy with B back: served");
        assertTrue(r.recoveredBy(A).covers(OF_A_AND_B), "A's copy without B: B left with it, and is awaited");
        LostRegion bLast = LostRegion.found(1, RING, Set.of(C, D, E), Map.of(A, 2L, B, 3L)).answeredBy(B);
        assertTrue(bLast.covers(OF_A_AND_B), "B left last but has no complete copy: A's is still needed");
        assertFalse(bLast.recoveredBy(A).covers(OF_A_AND_B));
    }

    /**
     * Owners that left in the same view are all awaited: one may have voted yes just before the cut on a transaction
     * the other never received. Their copies merge (the higher version wins) as they come.
     */
    @Test
    void ownersThatLeftTogetherAreAllAwaited() {
        for (Map<MemberId, Long> left : List.of(Map.of(A, 2L, B, 2L), Map.<MemberId, Long>of())) {
            LostRegion r = LostRegion.found(1, RING, Set.of(C, D, E), left);
            assertTrue(r.takesFrom(A, OF_A_AND_B), left.toString());
            assertTrue(r.takesFrom(B, OF_A_AND_B), left.toString());
            LostRegion afterA = r.recoveredBy(A);
            assertTrue(afterA.covers(OF_A_AND_B), left.toString());
            assertTrue(afterA.takesFrom(B, OF_A_AND_B), left.toString());
            assertFalse(afterA.recoveredBy(B).covers(OF_A_AND_B), left.toString());
        }
    }

    @Test
    void aKeyWithAFreshOwnerIsNotLost() {
        LostRegion r = LostRegion.found(1, RING, Set.of(C, D, E), Map.of(A, 2L, B, 3L));
        assertFalse(r.covers(OF_A_AND_C));
        assertFalse(r.takesFrom(A, OF_A_AND_C));
    }

    /** Members that learn of a region from a "done" must compute the same one. */
    @Test
    void theDeparturesTravelWithTheRegion() {
        LostRegion r = LostRegion.found(1, RING, Set.of(C, D, E), Map.of(A, 2L)).recoveredBy(A).answeredBy(B);
        Message.Done done = new Message.Done(7, 6, List.of(C, D, E), List.of(0L, 0L, 0L), List.of(r.toWire()));
        Message.Done back = (Message.Done) Message.decode(Message.encode(done));
        assertEquals(r, LostRegion.of(back.lost().get(0), 2, 64));
    }
}
