package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.polycert.certification.HandFedReplica.Kind;
import io.polycert.certification.HandFedReplica.Sent;
import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import io.polycert.oracle.Protocol;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A VC transaction whose originator left before its vote was delivered is decided by the reports every member of
 * the view orders: the vote if any report carries it, else abort. A replica shown the vote as held from the departed
 * originator ({@code heldFromDeparted}) reports it and decides nothing on it (it may be its only holder, and
 * crash); a replica that joins during the resolution reports too, since the others wait for it.
 */
class DepartedOriginatorTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final MemberId C = new MemberId(3, 3, "C");
    private static final MemberId J = new MemberId(4, 4, "J");
    private static final ValueCodec CODEC = ValueCodec.standard();

    private final HandFedReplica a = replica(A);
    private final HandFedReplica b = replica(B);
    private final HandFedReplica c = replica(C);
    private final VBox<Long> xAtA = x(a);
    private final VBox<Long> xAtB = x(b);
    private final VBox<Long> xAtC = x(c);

    /** A replica of the group A, B, C, certifying by VC. */
    private static HandFedReplica replica(MemberId self) {
        return new HandFedReplica(self, List.of(A, B, C), CODEC, Protocol.VC);
    }

    /** The box every test writes, at 0 on every replica. */
    private static VBox<Long> x(HandFedReplica replica) {
        return replica.stm.root(1_000, 0L);
    }

    @ParameterizedTest(name = "vote {0}")
    @ValueSource(booleans = {true, false})
    void aHeldVoteIsReportedAndDecidesOnlyThroughTheReports(boolean commitVote) throws Exception {
        CompletableFuture.runAsync(() -> a.stm.atomic(() -> xAtA.put(7L)));
        Sent tx = a.awaitSent(Kind.ORDERED, 1);
        HandFedReplica.deliverOrdered(A, 1, tx.payload(), a, b, c);
        Sent vote = a.awaitSent(Kind.RELIABLE, 1); // early validation: A voted commit
        byte[] shown = commitVote ? vote.payload() : abortVote(vote.payload());

        // A leaves; B alone held its vote, undelivered, and is shown it before the view without A.
        b.manager.heldFromDeparted(A, shown);
        assertEquals(0, b.stm.latestVersion(), "a shown vote decides nothing");
        View withoutA = new View(2, List.of(B, C), true);
        b.manager.viewInstalled(withoutA, 2);
        c.manager.viewInstalled(withoutA, 2);
        assertEquals(0, b.stm.latestVersion(), "nor does the view: the reports do");
        Sent reportOfB = b.awaitSent(Kind.ORDERED, 1);
        Sent reportOfC = c.awaitSent(Kind.ORDERED, 1);
        HandFedReplica.deliverOrdered(B, 3, reportOfB.payload(), b, c);
        HandFedReplica.deliverOrdered(C, 4, reportOfC.payload(), b, c);

        long expected = commitVote ? 7L : 0L;
        assertEquals(expected, b.stm.readOnly(xAtB::get), "B decided by the reports");
        assertEquals(expected, c.stm.readOnly(xAtC::get), "C, which never saw the vote, decided alike");
        assertEquals(b.stm.latestVersion(), c.stm.latestVersion());
    }

    /** A's vote with its decision turned to abort (the last byte is the decision). */
    private static byte[] abortVote(byte[] commitVote) {
        byte[] abort = commitVote.clone();
        abort[abort.length - 1] = 0;
        return abort;
    }

    @Test
    void aJoinerReportsOnAResolutionInProgressAndTheQueueMovesOn() throws Exception {
        // A's VC transaction is ordered; its vote reaches nobody, and A leaves.
        CompletableFuture.runAsync(() -> a.stm.atomic(() -> xAtA.put(7L)));
        HandFedReplica.deliverOrdered(A, 1, a.awaitSent(Kind.ORDERED, 1).payload(), b, c);
        View withoutA = new View(2, List.of(B, C), true);
        b.manager.viewInstalled(withoutA, 2);
        c.manager.viewInstalled(withoutA, 2);
        Sent reportOfB = b.awaitSent(Kind.ORDERED, 1);
        Sent reportOfC = c.awaitSent(Kind.ORDERED, 1);
        HandFedReplica.deliverOrdered(B, 3, reportOfB.payload(), b, c); // C's report is ordered only after J joins

        // J joins: the view that admits it, and the state as of that view, taken from B.
        View withJ = new View(3, List.of(B, C, J), true);
        b.manager.viewInstalled(withJ, 4);
        c.manager.viewInstalled(withJ, 4);
        ByteArrayOutputStream state = new ByteArrayOutputStream();
        b.manager.writeState(state);
        HandFedReplica j = new HandFedReplica(J, List.of(B, C, J), CODEC, Protocol.VC);
        VBox<Long> xAtJ = x(j);
        j.manager.readState(new ByteArrayInputStream(state.toByteArray()));
        j.manager.viewInstalled(withJ, 4);

        HandFedReplica.deliverOrdered(C, 5, reportOfC.payload(), b, c, j);
        Sent reportOfJ = j.awaitSent(Kind.ORDERED, 1);
        HandFedReplica.deliverOrdered(J, 6, reportOfJ.payload(), b, c, j);

        // Resolved (no vote anywhere: abort), so B's next transaction is decided behind it.
        CompletableFuture<Void> next = CompletableFuture.runAsync(() -> b.stm.atomic(() -> xAtB.put(9L)));
        HandFedReplica.deliverOrdered(B, 7, b.awaitSent(Kind.ORDERED, 2).payload(), b, c, j);
        Sent vote = b.awaitSent(Kind.RELIABLE, 1);
        for (HandFedReplica r : List.of(b, c, j)) {
            r.manager.deliverReliable(B, vote.payload());
        }
        next.get(10, TimeUnit.SECONDS);
        assertEquals(9L, b.stm.readOnly(xAtB::get));
        assertEquals(9L, c.stm.readOnly(xAtC::get));
        assertEquals(9L, j.stm.readOnly(xAtJ::get));
    }
}
