package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The engine holds its point-to-point messages to other members until the burst of events is over and sends each
 * member's as one batch: order per destination kept, large messages alone, messages to itself at once, and a
 * malformed batch dropped and counted like any malformed message. (The simulated-network properties run every
 * protocol with batches, since the network flushes at random; {@link #theSimulatedProtocolsRunOnBatches} checks that
 * they do.)
 */
class PointToPointBatchTest {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The messages of a batch, or the message itself. */
    private static List<byte[]> unpack(byte[] message) {
        if (message[0] != MessageType.BATCH) {
            return List.of(message);
        }
        ValueInput in = Wire.in(message);
        in.readByte();
        return List.of(GroupEngine.batchMessages(in));
    }

    private static byte[] batch(byte[]... messages) {
        ValueOutput out = Wire.out(MessageType.BATCH).writeVarInt(messages.length);
        for (byte[] m : messages) {
            out.writeBytes(m);
        }
        return out.toByteArray();
    }

    private static byte[] direct(String payload) {
        return Wire.out(MessageType.DIRECT).writeBytes(utf8(payload)).toByteArray();
    }

    @Test
    void messagesToOneMemberInOneBurstGoAsOneBatchInOrder() {
        SimNetwork net = SimNetwork.founded(1, 3);
        SimNetwork.Node a = net.nodes.get(0);
        SimNetwork.Node b = net.nodes.get(1);
        SimNetwork.Node c = net.nodes.get(2);
        for (int i = 0; i < 5; i++) {
            a.engine.send(b.id, utf8("b" + i));
        }
        a.engine.send(c.id, utf8("c0"));
        assertEquals(List.of(), net.intercept(a, b), "nothing leaves before the burst is over");
        a.engine.flush();
        List<byte[]> toB = net.intercept(a, b);
        List<byte[]> toC = net.intercept(a, c);
        assertEquals(1, toB.size(), "one transport message to b");
        assertEquals(MessageType.BATCH, toB.get(0)[0]);
        assertEquals(5, unpack(toB.get(0)).size());
        assertEquals(1, toC.size());
        assertEquals(MessageType.DIRECT, toC.get(0)[0], "a lone message travels as itself");
        net.release(a, b, toB);
        net.release(a, c, toC);
        net.runUntilQuiet();
        assertEquals(List.of("b0", "b1", "b2", "b3", "b4"), b.sink.direct);
        assertEquals(List.of("c0"), c.sink.direct);
    }

    @Test
    void aLargeMessageGoesAloneAfterWhatWasQueuedBeforeIt() {
        SimNetwork net = SimNetwork.founded(2, 2);
        SimNetwork.Node a = net.nodes.get(0);
        SimNetwork.Node b = net.nodes.get(1);
        byte[] large = new byte[GroupEngine.MAX_BATCH_BYTES];
        Arrays.fill(large, (byte) 'x');
        a.engine.send(b.id, utf8("before"));
        a.engine.send(b.id, large);
        a.engine.send(b.id, utf8("after"));
        List<byte[]> sent = net.intercept(a, b);
        assertEquals(2, sent.size(), "the queued message, then the large one, at once");
        a.engine.flush();
        sent.addAll(net.intercept(a, b));
        assertEquals(3, sent.size());
        net.release(a, b, sent);
        net.runUntilQuiet();
        assertEquals(3, b.sink.direct.size());
        assertEquals("before", b.sink.direct.get(0));
        assertEquals(GroupEngine.MAX_BATCH_BYTES, b.sink.direct.get(1).length());
        assertEquals("after", b.sink.direct.get(2));
    }

    @Test
    void aBurstOfManyMessagesIsSplitIntoBoundedBatches() {
        SimNetwork net = SimNetwork.founded(3, 2);
        SimNetwork.Node a = net.nodes.get(0);
        SimNetwork.Node b = net.nodes.get(1);
        byte[] tenKiB = new byte[10 * 1024];
        for (int i = 0; i < 20; i++) {
            a.engine.send(b.id, tenKiB);
        }
        a.engine.flush();
        List<byte[]> sent = net.intercept(a, b);
        assertEquals(4, sent.size(), "five messages of 10 KiB to a batch of at most 60,000 bytes");
        for (byte[] m : sent) {
            assertEquals(MessageType.BATCH, m[0]);
            assertTrue(m.length <= GroupEngine.MAX_BATCH_BYTES, "a batch of " + m.length + " bytes");
            assertEquals(5, unpack(m).size());
        }
        // Small messages: bounded by count.
        for (int i = 0; i < GroupEngine.MAX_BATCH_MESSAGES + 100; i++) {
            a.engine.send(b.id, new byte[] {(byte) i});
        }
        a.engine.flush();
        sent = net.intercept(a, b);
        assertEquals(2, sent.size());
        assertEquals(GroupEngine.MAX_BATCH_MESSAGES, unpack(sent.get(0)).size());
        assertEquals(100, unpack(sent.get(1)).size());
    }

    @Test
    void messagesToItselfGoAtOnce() {
        SimNetwork net = SimNetwork.founded(6, 2);
        SimNetwork.Node a = net.nodes.get(0);
        a.engine.send(a.id, utf8("self"));
        List<byte[]> sent = net.intercept(a, a);
        assertEquals(1, sent.size(), "before any flush");
        assertEquals(MessageType.DIRECT, sent.get(0)[0]);
    }

    @Test
    void malformedBatchesAreDroppedAndCountedAndTheirGoodMessagesStillCount() {
        SimNetwork net = SimNetwork.founded(4, 2);
        SimNetwork.Node a = net.nodes.get(0);
        SimNetwork.Node b = net.nodes.get(1);
        long before = b.engine.dropped();
        byte[] nested = batch(batch(direct("inner")));
        byte[] tooMany = Wire.out(MessageType.BATCH).writeVarInt(Integer.MAX_VALUE).toByteArray();
        byte[] overLimit = Wire.out(MessageType.BATCH).writeVarInt(GroupEngine.MAX_BATCH_MESSAGES + 1).writeRaw(
                new byte[2 * (GroupEngine.MAX_BATCH_MESSAGES + 1)], 0, 2 * (GroupEngine.MAX_BATCH_MESSAGES + 1))
                .toByteArray();
        byte[] cut = Arrays.copyOf(batch(direct("one"), direct("two")), 9);
        byte[] trailing = Arrays.copyOf(batch(direct("lost")), batch(direct("lost")).length + 3);
        byte[] empty = batch(new byte[0], direct("lost too"));
        for (byte[] bad : List.of(nested, tooMany, overLimit, cut, trailing, empty)) {
            b.engine.onMessage(a.id, bad);
        }
        assertEquals(before + 6, b.engine.dropped(), "each malformed batch is one drop");
        assertEquals(List.of(), b.sink.direct, "nothing of a malformed batch is delivered");
        b.engine.onMessage(a.id, batch(new byte[] {99, 1, 2}, direct("good")));
        assertEquals(before + 7, b.engine.dropped(), "a bad message inside a batch is dropped alone");
        assertEquals(List.of("good"), b.sink.direct);
        net.broadcast(a, "still-works");
        net.runUntilQuiet();
        assertTrue(b.sink.ordered.contains("still-works"));
    }

    @Test
    void theSimulatedProtocolsRunOnBatches() {
        SimNetwork net = SimNetwork.founded(5, 4);
        for (int round = 0; round < 20; round++) {
            for (SimNetwork.Node n : net.nodes) {
                net.multicast(n, net.nodes, "m" + round + n.id);
                net.broadcast(n, "b" + round + n.id);
            }
            net.run(50);
        }
        net.runUntilQuiet();
        assertTrue(net.batchesSent > 0, "no batch in " + net.messagesSent.size() + " kinds of message");
        for (SimNetwork.Node n : net.nodes) {
            assertEquals(80, n.sink.multicast.size(), n + " delivered " + n.sink.multicast.size());
            assertEquals(net.nodes.get(0).sink.multicast, n.sink.multicast, "one order at " + n);
        }
    }
}
