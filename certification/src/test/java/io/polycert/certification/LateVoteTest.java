package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.certification.HandFedReplica.Kind;
import io.polycert.certification.HandFedReplica.Sent;
import io.polycert.core.CommitOutcomeUnknownException;
import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import io.polycert.oracle.Protocol;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The schedule of RELIABILITY.md's bug 9: a departed originator's own copy of its VC vote reaches some replicas
 * only after they installed the view without it, so the reliable broadcast may deliver it at those replicas and
 * never at the others. Certification must decide alike regardless: once the view without the originator is
 * delivered, the transaction is resolved by the reports ordered in the total order, and a vote arriving after
 * that point is ignored everywhere it arrives.
 */
class LateVoteTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final MemberId C = new MemberId(3, 3, "C");
    private static final ValueCodec CODEC = ValueCodec.standard();

    /**
     * @param beforeReports whether the late vote reaches B before the reports are ordered (else after them)
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aVoteArrivingAfterTheViewWithoutItsOriginatorIsIgnoredWhereverItArrives(boolean beforeReports)
            throws Exception {
        HandFedReplica a = new HandFedReplica(A, List.of(A, B, C), CODEC, Protocol.VC,
                CertificationSettings.defaults().withOutcomeTimeout(Duration.ofMillis(300)));
        HandFedReplica b = new HandFedReplica(B, List.of(A, B, C), CODEC, Protocol.VC);
        HandFedReplica c = new HandFedReplica(C, List.of(A, B, C), CODEC, Protocol.VC);
        VBox<Long> xAtA = a.stm.root(1_000, 0L);
        VBox<Long> xAtB = b.stm.root(1_000, 0L);
        VBox<Long> xAtC = c.stm.root(1_000, 0L);

        CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> a.stm.atomic(() -> xAtA.put(7L)));
        Sent tx = a.awaitSent(Kind.ORDERED, 1);
        for (HandFedReplica r : List.of(a, b, c)) {
            r.manager.deliverOrdered(A, 1, tx.payload());
        }
        Sent vote = a.awaitSent(Kind.RELIABLE, 1); // early validation: A voted commit at once
        // ... and left before anyone else held its vote. Then A cannot have delivered it either (reliable broadcast
        // delivers once a majority holds a message, and a survivor that held it before the view would deliver it
        // at the view change, so its report would carry it): no client was told the transaction committed.
        ExecutionException unknown = assertThrows(ExecutionException.class, () -> commit.get(10, TimeUnit.SECONDS));
        assertTrue(unknown.getCause() instanceof CommitOutcomeUnknownException, unknown.toString());

        View withoutA = new View(2, List.of(B, C), true);
        b.manager.viewInstalled(withoutA, 2);
        c.manager.viewInstalled(withoutA, 2);
        Sent reportOfB = b.awaitSent(Kind.ORDERED, 1);
        Sent reportOfC = c.awaitSent(Kind.ORDERED, 1);
        if (beforeReports) {
            b.manager.deliverReliable(A, vote.payload()); // A's own copy, late, at B only
        }
        HandFedReplica.deliverOrdered(B, 3, reportOfB.payload(), b, c);
        HandFedReplica.deliverOrdered(C, 4, reportOfC.payload(), b, c);
        long position = 5;
        if (!beforeReports) {
            b.manager.deliverReliable(A, vote.payload());
        }

        assertEquals(0, b.stm.latestVersion(), "B decided like C: nobody reported the vote, so abort");
        assertEquals(0, c.stm.latestVersion());
        assertEquals(0L, b.stm.readOnly(xAtB::get));
        assertEquals(0L, c.stm.readOnly(xAtC::get));
        // Not stuck: a transaction ordered after the resolution is decided at both.
        CompletableFuture<Void> next = CompletableFuture.runAsync(() -> b.stm.atomic(() -> xAtB.put(9L)));
        Sent nextTx = b.awaitSent(Kind.ORDERED, 2);
        b.manager.deliverOrdered(B, position, nextTx.payload());
        c.manager.deliverOrdered(B, position, nextTx.payload());
        Sent nextVote = b.awaitSent(Kind.RELIABLE, 1);
        b.manager.deliverReliable(B, nextVote.payload());
        c.manager.deliverReliable(B, nextVote.payload());
        next.get(10, TimeUnit.SECONDS);
        assertEquals(9L, b.stm.readOnly(xAtB::get));
        assertEquals(9L, c.stm.readOnly(xAtC::get));
    }
}
