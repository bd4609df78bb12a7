package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.polycert.certification.HandFedReplica.Kind;
import io.polycert.certification.HandFedReplica.Sent;
import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import io.polycert.oracle.Protocol;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A resolution of a departed originator's VC transaction that outlasts a view: X, which owed a report, leaves before
 * it is ordered, and the next view admits a member that takes the state with the resolution in progress. The others
 * now wait for that member's report, which it owes although the transaction is not in its queue (A decided it before
 * giving the state: it had the vote) or although its originator is back in the view (the originator itself rejoins,
 * taking B's state, where the transaction is queued). The returning originator must not vote on it again either.
 */
class ResolutionAcrossJoinsTest {
    private static final MemberId O = new MemberId(1, 1, "O");
    private static final MemberId A = new MemberId(2, 2, "A");
    private static final MemberId B = new MemberId(3, 3, "B");
    private static final MemberId X = new MemberId(4, 4, "X");
    private static final MemberId J = new MemberId(5, 5, "J");
    private static final ValueCodec CODEC = ValueCodec.standard();
    private static final List<MemberId> FIRST = List.of(O, A, B, X);

    /** @param originatorRejoins the joiner is O back from its minority (else a fresh member J) */
    @ParameterizedTest(name = "the originator rejoins: {0}")
    @ValueSource(booleans = {false, true})
    void aJoinerReportsOnAResolutionThatOutlastedAView(boolean originatorRejoins) throws Exception {
        HandFedReplica o = new HandFedReplica(O, FIRST, CODEC, Protocol.VC,
                CertificationSettings.defaults().withOutcomeTimeout(Duration.ofMillis(300)));
        HandFedReplica a = new HandFedReplica(A, FIRST, CODEC, Protocol.VC);
        HandFedReplica b = new HandFedReplica(B, FIRST, CODEC, Protocol.VC);
        HandFedReplica x = new HandFedReplica(X, FIRST, CODEC, Protocol.VC);
        VBox<Long> atO = o.stm.root(1_000, 0L);
        VBox<Long> atA = a.stm.root(1_000, 0L);
        VBox<Long> atB = b.stm.root(1_000, 0L);
        x.stm.root(1_000, 0L);

        // O's transaction is ordered everywhere; its commit vote reaches A only, which decides it.
        CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> o.stm.atomic(() -> atO.put(7L)));
        HandFedReplica.deliverOrdered(O, 1, o.awaitSent(Kind.ORDERED, 1).payload(), o, a, b, x);
        Sent vote = o.awaitSent(Kind.RELIABLE, 1);
        a.manager.deliverReliable(O, vote.payload());
        assertEquals(7L, a.stm.readOnly(atA::get));

        // O is cut off; its thread stops waiting. B and X report nothing known; A, seeing B's report, its decision.
        assertThrows(ExecutionException.class, () -> commit.get(10, TimeUnit.SECONDS));
        View withoutO = new View(2, List.of(A, B, X), true);
        for (HandFedReplica r : List.of(a, b, x)) {
            r.manager.viewInstalled(withoutO, 2);
        }
        HandFedReplica.deliverOrdered(B, 3, b.awaitSent(Kind.ORDERED, 1).payload(), a, b);
        HandFedReplica.deliverOrdered(A, 4, a.awaitSent(Kind.ORDERED, 1).payload(), a, b);
        // X leaves before its report is ordered; the next view admits the joiner, which takes the state.
        MemberId joinerId = originatorRejoins ? O : J;
        View next = new View(3, List.of(A, B, joinerId), true);
        a.manager.viewInstalled(next, 5);
        b.manager.viewInstalled(next, 5);
        ByteArrayOutputStream state = new ByteArrayOutputStream();
        (originatorRejoins ? b : a).manager.writeState(state);
        HandFedReplica joiner = originatorRejoins ? o : new HandFedReplica(J, next.members(), CODEC, Protocol.VC);
        VBox<Long> atJoiner = originatorRejoins ? atO : joiner.stm.root(1_000, 0L);
        joiner.manager.readState(new ByteArrayInputStream(state.toByteArray()));
        joiner.manager.viewInstalled(next, 5);

        Sent report = joiner.awaitSent(Kind.ORDERED, originatorRejoins ? 2 : 1);
        HandFedReplica.deliverOrdered(joinerId, 6, report.payload(), a, b, joiner);
        assertEquals(7L, b.stm.readOnly(atB::get), "B resolved it by the reports: A's says commit");
        assertEquals(7L, joiner.stm.readOnly(atJoiner::get));
        assertEquals(1, o.sent(Kind.RELIABLE).size(), "O voted once, before it was cut off");
    }
}
