package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.MemberId;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Members of builds whose group layers speak different wire formats cannot form one group: the joiner is told so,
 * both formats named, and the group goes on without it, instead of either misreading the other's messages.
 */
class WireFormatTest {

    /** A and B founded a group and ordered "before". */
    private static SimNetwork founded() {
        SimNetwork net = SimNetwork.founded(7, 2);
        net.broadcast(net.nodes.get(0), "before");
        net.runUntilQuiet();
        return net;
    }

    @Test
    void aJoinerOfAnotherFormatGivesUpItsJoinNamingBothFormats() {
        SimNetwork net = founded();
        SimNetwork.Node a = net.nodes.get(0);
        SimNetwork.Node b = net.nodes.get(1);
        SimNetwork.Node c = net.add("C");
        c.engine.ab.wireFormat = Wire.FORMAT + 1;
        net.installView(List.of(a, b, c));
        net.runUntilQuiet();

        assertNotNull(c.sink.incompatible, "C was told it cannot join");
        String why = c.sink.incompatible.getMessage();
        assertTrue(why.contains("format " + Wire.FORMAT) && why.contains("format " + (Wire.FORMAT + 1)), why);
        assertTrue(why.contains("A"), "names the coordinator: " + why);
        assertEquals(List.of(), c.sink.ordered, "C delivered nothing");
        assertNull(a.sink.incompatible, "the group's members stay");

        // The joiner leaves; the group's view without it goes on ordering.
        c.crashed = true;
        net.installView(List.of(a, b));
        net.broadcast(b, "after");
        net.runUntilQuiet();
        assertEquals(List.of("before", "after"), a.sink.ordered);
        assertEquals(List.of("before", "after"), b.sink.ordered);
    }

    /**
     * A build from before format numbers sent its recovery messages under other type numbers: recognized too. A
     * request that came before any view is judged once a view names its sender the coordinator.
     */
    @Test
    void aCoordinatorOfABuildBeforeFormatNumbersIsRecognized() {
        SimNetwork net = new SimNetwork(8, Settings.defaults());
        SimNetwork.Node joiner = net.add("J");
        MemberId old = new MemberId(9, 9, "old");
        ValueOutput oldRequest = Wire.out(MessageType.UNNUMBERED_RECOVER_REQUEST).writeVarLong(3);
        Wire.writeMember(oldRequest, old);
        joiner.engine.onMessage(old, oldRequest.toByteArray());
        assertNull(joiner.sink.incompatible, "no view yet: nobody is known to coordinate");
        assertEquals(1, joiner.engine.dropped(), "dropped and counted like any unreadable message");
        joiner.engine.onView(new TransportView(3, old, List.of(old, joiner.id)));
        assertNotNull(joiner.sink.incompatible);
        assertTrue(joiner.sink.incompatible.getMessage().contains("before format 1"),
                joiner.sink.incompatible.getMessage());
    }

    /**
     * Only the coordinator's word counts: a request of another format from any other member (a review's finding:
     * one byte from anyone made a joiner give up) is dropped and counted, and the joiner joins.
     */
    @Test
    void aMismatchedRequestFromAMemberThatDoesNotCoordinateIsOnlyDropped() {
        SimNetwork net = founded();
        SimNetwork.Node a = net.nodes.get(0);
        SimNetwork.Node b = net.nodes.get(1);
        SimNetwork.Node c = net.add("C");
        net.installView(List.of(a, b, c));
        c.engine.onMessage(b.id, new byte[] {MessageType.UNNUMBERED_RECOVER_REQUEST});
        ValueOutput request = Wire.out(MessageType.RECOVER_REQUEST).writeVarInt(Wire.FORMAT + 5).writeVarLong(2);
        c.engine.onMessage(b.id, request.toByteArray());
        assertEquals(2, c.engine.dropped());
        net.runUntilQuiet();
        assertNull(c.sink.incompatible, "B does not coordinate: C stays");
        net.broadcast(c, "from C");
        net.runUntilQuiet();
        assertEquals(List.of("before", "from C"), a.sink.ordered);
    }

    /** A member with a history never gives up for a member of another format: it ignores it (and logs). */
    @Test
    void aMemberWithAHistoryIgnoresMessagesOfAnotherFormatEvenFromItsCoordinator() {
        SimNetwork net = founded();
        SimNetwork.Node a = net.nodes.get(0);
        SimNetwork.Node b = net.nodes.get(1);
        ValueOutput request = Wire.out(MessageType.RECOVER_REQUEST).writeVarInt(Wire.FORMAT + 5).writeVarLong(9);
        b.engine.onMessage(a.id, request.toByteArray());
        ValueOutput report = Wire.out(MessageType.RECOVER_STATE).writeVarInt(Wire.FORMAT + 5).writeVarLong(1);
        a.engine.onMessage(b.id, report.toByteArray());
        assertNull(a.sink.incompatible);
        assertNull(b.sink.incompatible);
        net.broadcast(a, "still");
        net.runUntilQuiet();
        assertEquals(List.of("before", "still"), b.sink.ordered);
    }
}
