package io.polycert.certification.partial;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * With parallel apply, the last apply before a rebalance finishes on an apply thread, and that thread starts the
 * rebalance and sends this member's "done". A group with inline delivery (as {@code PartitionedStore} builds it)
 * runs its queued deliveries on whichever thread sends while the group is idle, so other members' "done"
 * messages can be delivered right there, inside that send. Driven by hand on member S of [A, B, S] when D joins.
 */
class ApplyThreadSendsTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final MemberId S = new MemberId(3, 3, "S");
    private static final MemberId D = new MemberId(4, 4, "D");
    private static final List<MemberId> BEFORE = List.of(A, B, S);
    private static final List<MemberId> AFTER = List.of(A, B, S, D);

    private PartitionedEngine engine;

    @AfterEach
    void close() {
        if (engine != null) {
            engine.close();
        }
    }

    @Test
    void doneMessagesDeliveredWhileTheApplyThreadSendsItsOwnAreCounted() throws Exception {
        RecordingGroup group = placedOnBefore();
        assertTrue(engine.isReady());
        HashRing before = new HashRing(BEFORE, 2, 64);
        HashRing after = new HashRing(AFTER, 2, 64);
        ByteKey owned = null; // a key S keeps
        for (int i = 0; owned == null; i++) {
            ByteKey k = new ByteKey(new byte[] {'k', (byte) i});
            if (before.isOwner(S, k) && after.isOwner(S, k)) {
                owned = k;
            }
        }

        AtomicReference<String> sentOn = new AtomicReference<>();
        synchronized (engine) { // the apply cannot report back before the rebalance is behind it
            engine.deliverMulticast(A, Message.encode(new Message.Transaction(false, 1, 1,
                    ConsistencyLevel.READ_COMMITTED, List.of(new Message.Write(owned, new byte[] {1})), List.of())));
            othersAgree(owned);
            engine.deliverMulticast(A, Message.encode(new Message.Rebalance(2, AFTER)));
            assertEquals(1, engine.epoch(), "the rebalance waits for the apply of the transaction before it");
            // A and B reach the rebalance at the same time and their "done" messages arrive while S sends its own;
            // the sending thread delivers them, as JGroupsGroup's engine loop does when it finds the group idle.
            group.onSend = (to, payload) -> {
                if (Message.decode(payload) instanceof Message.Done d && d.epoch() == 2
                        && sentOn.compareAndSet(null, Thread.currentThread().getName())) {
                    engine.deliverDirect(A, Message.encode(new Message.Done(2, 1, BEFORE, List.of())));
                    engine.deliverDirect(B, Message.encode(new Message.Done(2, 1, BEFORE, List.of())));
                }
            };
        }
        await(() -> engine.epoch() == 2 && sentOn.get() != null);
        assertTrue(sentOn.get().startsWith("polycert-partial-apply"), "sent on the apply thread: " + sentOn.get());
        engine.deliverDirect(D, Message.encode(new Message.Done(2, 0)));

        await(engine::isReady);
        assertTrue(engine.isReady(), "S still waits for a done it was given: " + engine.describeState());
        assertEquals(2, engine.epoch());
        assertEquals(1, engine.ownedVersion(owned.bytes), "the write before the rebalance was applied");
    }

    /**
     * What a delivery sends while an apply thread is still sending what its step queued leaves after it: messages
     * leave in the order their steps held the engine's monitor. Here the apply thread's first "done" is held up in
     * the network; meanwhile a view is delivered, whose rebalance proposal must wait behind the other "done".
     */
    @Test
    void aDeliverysMessagesDoNotOvertakeThoseAnApplyThreadIsStillSending() throws Exception {
        RecordingGroup group = placedOnBefore();
        ByteKey key = new ByteKey(new byte[] {'k', 0});
        java.util.concurrent.CountDownLatch sending = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch network = new java.util.concurrent.CountDownLatch(1);
        synchronized (engine) { // the apply reports back once the rebalance is behind it
            engine.deliverMulticast(A, Message.encode(new Message.Transaction(false, 1, 1,
                    ConsistencyLevel.READ_COMMITTED, List.of(new Message.Write(key, new byte[] {1})), List.of())));
            othersAgree(key);
            engine.deliverMulticast(A, Message.encode(new Message.Rebalance(2, AFTER)));
            group.onSend = (to, payload) -> {
                if (Message.decode(payload) instanceof Message.Done && sending.getCount() > 0) {
                    sending.countDown();
                    try {
                        network.await(10, TimeUnit.SECONDS); // the first "done" takes its time
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            };
        }
        assertTrue(sending.await(10, TimeUnit.SECONDS), "the apply thread sends its done");
        int multicastsBefore = group.multicasts.size();
        engine.viewInstalled(new View(3, AFTER, true), 10); // a delivery that multicasts a rebalance proposal
        assertEquals(multicastsBefore, group.multicasts.size(),
                "the view's rebalance proposal left before the done messages queued ahead of it");
        network.countDown();
        await(() -> group.multicasts.size() > multicastsBefore);
        long dones = group.sent.stream()
                .filter(e -> Message.decode(e.getValue()) instanceof Message.Done d && d.epoch() == 2).count();
        assertEquals(3, dones, "all three done messages were sent before the proposal");
        assertTrue(Message.decode(group.multicasts.get(multicastsBefore)) instanceof Message.Rebalance r
                && r.epoch() == 3);
    }

    /** The key's other owners vote yes on transaction 1 of A (a key's owners hear each other before applying). */
    private void othersAgree(ByteKey key) {
        for (MemberId owner : new HashRing(BEFORE, 2, 64).owners(key)) {
            if (!owner.equals(S)) {
                engine.deliverDirect(owner, Message.encode(new Message.Vote(A, 1, null)));
            }
        }
    }

    /** S, with one apply thread, attached to a group of [A, B, S] and through the rebalance of that view. */
    private RecordingGroup placedOnBefore() {
        engine = PartitionedEngine.builder().identity(S).consistency(ConsistencyLevel.READ_COMMITTED)
                .applyThreads(1).build();
        RecordingGroup group = new RecordingGroup(S, A, B);
        engine.attach(group);
        engine.deliverMulticast(A, Message.encode(new Message.Rebalance(1, BEFORE)));
        engine.deliverDirect(A, Message.encode(new Message.Done(1, 0)));
        engine.deliverDirect(B, Message.encode(new Message.Done(1, 0)));
        return group;
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }
}
