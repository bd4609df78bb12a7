package io.polycert.certification.partial;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * When the owners of lost keys left, as the fresh members report it with their "done" (issue 8): each reports the
 * first primary view after the placement, up to the rebalance it starts, without each owner, and the earliest
 * report counts. Here fresh members report differently: C is driven by hand, D's and E's reports are written as
 * their own views had them. On [A, B, C, D, E]; A and B are never fresh again, so their keys are lost.
 */
class DepartureReportsTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final MemberId C = new MemberId(3, 3, "C");
    private static final MemberId D = new MemberId(4, 4, "D");
    private static final MemberId E = new MemberId(5, 5, "E");
    private static final List<MemberId> ALL = List.of(A, B, C, D, E);

    private final RecordingGroup group = new RecordingGroup(C, A, B, D, E);
    private final PartitionedEngine c = PartitionedEngine.builder().identity(C).build();

    @AfterEach
    void close() {
        c.close();
    }

    /**
     * C starts rebalance 2 only once rebalance 1 completes, after it installed view 3 (without B): B's departure
     * comes after the rebalance, so C does not report it, as D and E could not (they delivered rebalance 2 before
     * installing even view 2, and report no departure at all). C alone saw A leave in view 2: its own report counts.
     */
    @Test
    void aFreshMemberReportsOnlyTheViewsUpToTheRebalanceItStarts() {
        c.attach(group);
        c.deliverMulticast(A, Message.encode(new Message.Rebalance(1, ALL)));
        for (MemberId m : List.of(A, B, D)) {
            c.deliverDirect(m, Message.encode(new Message.Done(1, 0))); // E's comes late
        }
        install(new View(2, List.of(B, C, D, E), true));
        c.deliverMulticast(B, Message.encode(new Message.Rebalance(2, List.of(B, C, D, E)))); // behind rebalance 1
        install(new View(3, List.of(C, D, E), true));
        c.deliverDirect(E, Message.encode(new Message.Done(1, 0))); // rebalance 1 completes, 2 starts
        Message.Done own = doneOf(2);
        assertEquals(List.of(2L, 0L, 0L, 0L, 0L), own.previousLeft(), "A left in view 2; view 3 is after rebalance 2");

        Message.Done unseen = new Message.Done(2, 1, ALL, List.of(0L, 0L, 0L, 0L, 0L), List.of());
        c.deliverDirect(D, Message.encode(unseen));
        c.deliverDirect(E, Message.encode(unseen));
        install(new View(4, List.of(A, C, D, E), true)); // B's done will not come: rebalance 2 completes
        assertTrue(c.isReady());
        assertEquals(Map.of(A, 2L, B, LostRegion.LAST), onlyRegion().left,
                "A left at 2 as C saw it; B's departure nobody reported counts as the last one");
    }

    /**
     * D was excluded from view 2 without noticing and is back in view 3 before any placement went on without it: it
     * never installed view 2, and reports A leaving in view 3. C and E saw view 2: the earliest report counts, as
     * the views are one sequence.
     */
    @Test
    void theEarliestDepartureReportedCounts() {
        c.attach(group);
        c.deliverMulticast(A, Message.encode(new Message.Rebalance(1, ALL)));
        for (MemberId m : List.of(A, B, D, E)) {
            c.deliverDirect(m, Message.encode(new Message.Done(1, 0)));
        }
        install(new View(2, List.of(B, C, E), true));
        install(new View(3, List.of(C, D, E), true));
        c.deliverMulticast(C, Message.encode(new Message.Rebalance(3, List.of(C, D, E))));
        assertEquals(List.of(2L, 3L, 0L, 2L, 0L), doneOf(3).previousLeft(), "C saw A and D leave in 2, B in 3");

        c.deliverDirect(D, Message.encode(new Message.Done(3, 1, ALL, List.of(3L, 3L, 0L, 0L, 0L), List.of())));
        c.deliverDirect(E, Message.encode(new Message.Done(3, 1, ALL, List.of(2L, 3L, 0L, 2L, 0L), List.of())));
        assertTrue(c.isReady());
        assertEquals(Map.of(A, 2L, B, 3L), onlyRegion().left, "A left before B");
    }

    private void install(View v) {
        group.install(v);
        c.viewInstalled(v, -1);
    }

    /** The "done" C sent to D for {@code epoch}. */
    private Message.Done doneOf(long epoch) {
        return group.sent.stream().filter(e -> e.getKey().equals(D)).map(e -> Message.decode(e.getValue()))
                .filter(m -> m instanceof Message.Done d && d.epoch() == epoch).map(Message.Done.class::cast)
                .findFirst().orElseThrow(() -> new AssertionError("C sent no done for " + epoch));
    }

    private LostRegion onlyRegion() {
        List<LostRegion> regions = c.lostRegions();
        assertEquals(1, regions.size(), regions.toString());
        assertEquals(1, regions.get(0).placement);
        return regions.get(0);
    }
}
