package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.polycert.certification.HandFedReplica.Kind;
import io.polycert.certification.HandFedReplica.Sent;
import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import io.polycert.oracle.Protocol;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The vote of a VC originator that left, shown to a replica that held it undelivered at the view without it
 * ({@code heldFromDeparted}): the replica decides nothing on it (it may be its only holder, and crash), and its
 * report at the view carries it, so every replica decides the transaction by the ordered reports, alike.
 */
class HeldVoteTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final MemberId C = new MemberId(3, 3, "C");
    private static final ValueCodec CODEC = ValueCodec.standard();

    @ParameterizedTest(name = "vote {0}")
    @ValueSource(booleans = {true, false})
    void aHeldVoteIsReportedAndDecidesOnlyThroughTheReports(boolean commitVote) throws Exception {
        HandFedReplica a = new HandFedReplica(A, List.of(A, B, C), CODEC, Protocol.VC);
        HandFedReplica b = new HandFedReplica(B, List.of(A, B, C), CODEC, Protocol.VC);
        HandFedReplica c = new HandFedReplica(C, List.of(A, B, C), CODEC, Protocol.VC);
        VBox<Long> xAtA = a.stm.root(1_000, 0L);
        VBox<Long> xAtB = b.stm.root(1_000, 0L);
        VBox<Long> xAtC = c.stm.root(1_000, 0L);

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
}
