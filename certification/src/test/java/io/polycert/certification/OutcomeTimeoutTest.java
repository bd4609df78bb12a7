package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.certification.HandFedReplica.Kind;
import io.polycert.core.CommitOutcomeUnknownException;
import io.polycert.core.Transaction;
import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.group.MemberId;
import io.polycert.oracle.Protocol;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A commit always ends. The fault campaign saw client threads wait in {@code commit} for good after their replica
 * was paused twice; whatever keeps the outcome from coming, the thread gives up after the outcome timeout with
 * an outcome-unknown error, and the transaction, if it is delivered later, is decided alike everywhere.
 */
class OutcomeTimeoutTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void aCommitWhoseOutcomeNeverComesEndsAsUnknown(Protocol protocol) throws Exception {
        CertificationSettings settings = CertificationSettings.defaults().withOutcomeTimeout(Duration.ofMillis(300));
        HandFedReplica a = new HandFedReplica(A, List.of(A, B), ValueCodec.standard(), protocol, settings);
        VBox<Long> x = a.stm.root(1_000, 0L);
        CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> a.stm.atomic(() -> x.put(7L)));
        // The group never delivers it (nothing is fed back): without the timeout the thread waits forever.
        ExecutionException e = assertThrows(ExecutionException.class, () -> commit.get(20, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof CommitOutcomeUnknownException, String.valueOf(e.getCause()));
        assertTrue(e.getCause().getMessage().contains("may still commit"), e.getCause().getMessage());
        assertEquals(1, a.sent(Kind.ORDERED).size(), "sent once, not retried");
        assertEquals(0, a.stm.latestVersion());
        assertEquals(1, a.manager.statistics().of(protocol).outcomeUnknown());
        assertEquals(0, a.manager.statistics().of(protocol).otherAborts(), "not counted as an abort");

        // Delivered after all: decided like anywhere else (VC: its originator, which no longer waits, votes abort).
        a.manager.deliverOrdered(A, 1, a.sent(Kind.ORDERED).get(0).payload());
        if (protocol == Protocol.VC) {
            assertEquals(1, a.sent(Kind.RELIABLE).size(), "the originator voted");
            a.manager.deliverReliable(A, a.sent(Kind.RELIABLE).get(0).payload());
            assertEquals(0, a.stm.latestVersion(), "voted down");
        } else {
            assertEquals(1, a.stm.latestVersion(), "certified and installed");
            assertEquals(7L, a.stm.readOnly(x::get));
        }
    }

    /** A transaction whose outcome is unknown says so: not aborted, which would mean nothing was written. */
    @Test
    void aTransactionWhoseOutcomeIsUnknownSaysSo() {
        HandFedReplica a = new HandFedReplica(A, List.of(A, B), ValueCodec.standard(), Protocol.NVC,
                CertificationSettings.defaults().withOutcomeTimeout(Duration.ofMillis(200)));
        VBox<Long> x = a.stm.root(1_000, 0L);
        Transaction tx = a.stm.begin();
        x.put(7L);
        assertThrows(CommitOutcomeUnknownException.class, tx::commit);
        assertEquals(Transaction.Status.OUTCOME_UNKNOWN, tx.status());
        IllegalStateException again = assertThrows(IllegalStateException.class, tx::commit);
        assertTrue(again.getMessage().contains("outcome unknown"), again.getMessage());
    }

    /**
     * A caller interrupted while it waits gets the same answer as one that timed out, not an abort (which would
     * say nothing was written, and the transaction may still commit), and keeps its interrupt flag.
     */
    @ParameterizedTest
    @EnumSource(Protocol.class)
    void anInterruptedCommitEndsAsUnknownNotAsAnAbort(Protocol protocol) throws Exception {
        HandFedReplica a = new HandFedReplica(A, List.of(A, B), ValueCodec.standard(), protocol,
                CertificationSettings.defaults());
        VBox<Long> x = a.stm.root(1_000, 0L);
        CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        Thread client = new Thread(() -> {
            try {
                a.stm.atomic(() -> x.put(7L));
                thrown.complete(null);
            } catch (Throwable t) {
                thrown.complete(Thread.currentThread().isInterrupted() ? t : new AssertionError("flag lost", t));
            }
        });
        client.start();
        a.awaitSent(Kind.ORDERED, 1);
        client.interrupt();
        Throwable t = thrown.get(20, TimeUnit.SECONDS);
        assertTrue(t instanceof CommitOutcomeUnknownException, String.valueOf(t));
        assertTrue(t.getMessage().contains("interrupted") && t.getMessage().contains("may still commit"),
                t.getMessage());
        assertEquals(1, a.manager.statistics().of(protocol).outcomeUnknown());
        assertEquals(0, a.manager.statistics().of(protocol).otherAborts());

        a.manager.deliverOrdered(A, 1, a.sent(Kind.ORDERED).get(0).payload());
        if (protocol != Protocol.VC) { // VC: its originator, no longer waiting, votes it down, as above
            assertEquals(7L, a.stm.readOnly(x::get), "it did commit: an abort would have been a lie");
        }
    }
}
