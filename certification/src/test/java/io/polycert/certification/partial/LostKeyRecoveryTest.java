package io.polycert.certification.partial;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * B and D, the only owners of some keys, are cut off from A and C together and merge back. B can process the merged
 * view's rebalance before its group installs that view (the rebalance reaches it as soon as the others send it),
 * so when it wants to multicast its copies of the lost keys its group still refuses: minority view. It must send
 * them once the view arrives, or the keys stay refused at every member for ever (seen under load in
 * PartitionedStoreTest.keysWhoseOwnersAreAllCutOffAreRefusedUntilTheyComeBack). Driven by hand on member B.
 */
class LostKeyRecoveryTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final MemberId C = new MemberId(3, 3, "C");
    private static final MemberId D = new MemberId(4, 4, "D");
    private static final List<MemberId> ALL = List.of(A, B, C, D);

    private final PartitionedEngine engine = PartitionedEngine.builder().identity(B).build();

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void copiesOfLostKeysAreMulticastOnceTheMergedViewArrivesIfTheRebalanceCameFirst() {
        RecordingGroup group = new RecordingGroup(B, A, C, D);
        engine.attach(group);
        engine.deliverMulticast(A, Message.encode(new Message.Rebalance(1, ALL)));
        for (MemberId m : List.of(A, C, D)) {
            engine.deliverDirect(m, Message.encode(new Message.Done(1, 0)));
        }
        assertTrue(engine.isReady());
        ByteKey lostKey = keyOwnedBy(new HashRing(ALL, 2, 64), B, D);
        engine.deliverMulticast(A, Message.encode(new Message.Transaction(false, 1, 1, ConsistencyLevel.SERIALIZABLE,
                List.of(new Message.Write(lostKey, new byte[] {42})), List.of())));
        assertArrayEquals(new byte[] {42}, engine.ownedValue(lostKey.bytes));

        View minority = new View(2, List.of(B), false);
        group.install(minority);
        engine.blocked(minority);
        // A and C went through placement 2 without B and D, so nobody fresh holds the keys only B and D owned.
        engine.deliverMulticast(A, Message.encode(new Message.Rebalance(3, ALL)));
        Message.Done fresh = new Message.Done(3, 2, List.of(A, C), List.of(new Message.Lost(1, ALL, List.of(A, C))));
        engine.deliverDirect(A, Message.encode(fresh));
        engine.deliverDirect(C, Message.encode(fresh));
        engine.deliverDirect(D, Message.encode(new Message.Done(3, -1)));
        assertTrue(engine.isReady(), "the rebalance of the merged view completed before the view reached B's group");
        assertEquals(List.of(), recoveries(group), "nothing can be multicast from a minority view");

        View merged = new View(3, ALL, true);
        group.install(merged);
        engine.viewInstalled(merged, -1);
        List<Message.Recover> sent = recoveries(group);
        assertEquals(1, sent.size(), "B's copies are multicast once its view is primary");
        assertEquals(1, sent.get(0).placement());
        assertEquals(List.of(lostKey), sent.get(0).keys());

        engine.deliverMulticast(B, Message.encode(sent.get(0))); // B's own delivery: everyone takes it there
        assertArrayEquals(new byte[] {42}, engine.ownedValue(lostKey.bytes), "B serves its copy again");
        View next = new View(4, ALL, true);
        group.install(next);
        engine.viewInstalled(next, -1);
        assertEquals(1, recoveries(group).size(), "delivered: not sent again");
    }

    private static ByteKey keyOwnedBy(HashRing ring, MemberId first, MemberId second) {
        for (int i = 0; ; i++) {
            ByteKey k = new ByteKey(new byte[] {'k', (byte) i, (byte) (i >> 8)});
            if (ring.owners(k).containsAll(List.of(first, second))) {
                return k;
            }
        }
    }

    private static List<Message.Recover> recoveries(RecordingGroup group) {
        return group.multicasts.stream().map(Message::decode).filter(Message.Recover.class::isInstance)
                .map(Message.Recover.class::cast).toList();
    }
}
