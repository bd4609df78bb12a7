package io.polycert.bench.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.group.GroupListener;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import io.polycert.gcs.GroupStack;
import io.polycert.gcs.JGroupsGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.protocols.SHARED_LOOPBACK;
import org.jgroups.protocols.SHARED_LOOPBACK_PING;
import org.jgroups.protocols.UNICAST3;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The emulated link delays by its latency, paces by its bandwidth and counts a copy per receiver. Times are
 * asserted as lower bounds only (a shared machine can make anything later, never earlier); without the link each
 * bound is missed by far.
 */
class EmulatedLinkTest {
    private final List<JGroupsGroup> members = new ArrayList<>();
    private final List<EmulatedLink> links = new ArrayList<>();

    @AfterEach
    void close() {
        members.forEach(JGroupsGroup::close);
    }

    /** Counts the deliveries at a member. */
    private static final class Counter implements GroupListener {
        volatile CountDownLatch delivered = new CountDownLatch(0);

        @Override
        public void deliverOrdered(MemberId origin, long position, byte[] payload) {
            delivered.countDown();
        }

        @Override
        public void viewInstalled(View view, long position) {
        }
    }

    private Counter startGroup(EmulatedNetwork network) throws InterruptedException {
        String cluster = "link-" + UUID.randomUUID();
        Counter first = new Counter();
        for (int i = 0; i < 3; i++) {
            JGroupsGroup member = JGroupsGroup.builder(cluster).memberName("m" + i).stack(GroupStack.embedded()
                    .faultInjection()).listener(i == 0 ? first : new Counter()).join();
            members.add(member);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (members.get(0).view().size() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        // Warm the paths up first, so that what is measured after is the link, not class loading or the JIT.
        first.delivered = new CountDownLatch(200);
        for (int i = 0; i < 200; i++) {
            members.get(i % 3).broadcast(new byte[16]);
        }
        assertTrue(first.delivered.await(20, TimeUnit.SECONDS));
        for (JGroupsGroup m : members) {
            links.add(EmulatedLink.insertInto(m, network));
        }
        return first;
    }

    @Test
    void aBroadcastWaitsAtLeastTheLatency() throws Exception {
        Counter first = startGroup(EmulatedNetwork.parse("1000mbit/100000us"));
        first.delivered = new CountDownLatch(1);
        long start = System.nanoTime();
        members.get(0).broadcast(new byte[16]);
        assertTrue(first.delivered.await(20, TimeUnit.SECONDS));
        long micros = (System.nanoTime() - start) / 1_000;
        // Uniform delivery needs the others' acknowledgements: at least one message over a link, in practice two.
        assertTrue(micros >= 100_000, "delivered after " + micros + " us");
        assertTrue(EmulatedLink.summary(links).contains("1,000 Mbit/s, 100000 us one way"), EmulatedLink.summary(links));
    }

    @Test
    void aMegabyteTakesAtLeastItsTimeAtTheBandwidth() throws Exception {
        Counter first = startGroup(EmulatedNetwork.parse("100mbit/0us"));
        int messages = 50;
        int size = 20_000;
        first.delivered = new CountDownLatch(messages);
        long start = System.nanoTime();
        for (int i = 0; i < messages; i++) {
            members.get(0).broadcast(new byte[size]);
        }
        assertTrue(first.delivered.await(60, TimeUnit.SECONDS));
        long micros = (System.nanoTime() - start) / 1_000;
        // Every payload leaves some member's link at least once: 1 MB and its framing at 100 Mbit/s.
        long floor = messages * EmulatedLink.onTheWire(size) * 8 / 100;
        assertTrue(micros >= floor, "1 MB delivered after " + micros + " us, floor " + floor);
    }

    @Test
    void aMulticastCostsACopyPerOtherMemberAndAUnicastToItselfNothing() throws Exception {
        String cluster = "plain-" + UUID.randomUUID();
        List<JChannel> channels = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                JChannel c = new JChannel(new SHARED_LOOPBACK(), new SHARED_LOOPBACK_PING(), new NAKACK2(),
                        new UNICAST3(), new GMS().printLocalAddress(false)).name("c" + i);
                c.connect(cluster);
                channels.add(c);
            }
            JChannel sender = channels.get(0);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (sender.getView().size() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            EmulatedLink link = EmulatedLink.insertAbove(sender.getProtocolStack().getTransport(),
                    EmulatedNetwork.parse("1000mbit/0us"));
            long before = link.wireBytes();
            sender.send(new BytesMessage(null, new byte[10_000]));
            long multicast = link.wireBytes() - before;
            assertTrue(multicast >= 2 * EmulatedLink.onTheWire(10_000) && multicast < 3 * EmulatedLink.onTheWire(
                    10_000), "one multicast to two others put " + multicast + " bytes on the wire");
            before = link.wireBytes();
            sender.send(new BytesMessage(sender.getAddress(), new byte[10_000]));
            assertTrue(link.wireBytes() - before < 10_000, "a unicast to itself went over the link");
        } finally {
            channels.forEach(JChannel::close);
        }
    }

    @Test
    void framingCountsEveryEthernetSegment() {
        assertEquals(1 + 90, EmulatedLink.onTheWire(1));
        assertEquals(1_448 + 90, EmulatedLink.onTheWire(1_448));
        assertEquals(1_449 + 180, EmulatedLink.onTheWire(1_449));
    }

    @Test
    void specsParseOrSayWhatIsWrong() {
        assertTrue(EmulatedNetwork.parse("none").isNone());
        assertEquals(EmulatedNetwork.GIGABIT, EmulatedNetwork.parse("gigabit"));
        assertEquals(new EmulatedNetwork(100_000_000L, Duration.ofNanos(200_000)), EmulatedNetwork.parse("100mbit/200us"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EmulatedNetwork.parse("fast"));
        assertTrue(e.getMessage().contains("'fast'"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> EmulatedNetwork.parse("0mbit/5us"));
        assertThrows(IllegalArgumentException.class, () -> EmulatedNetwork.parse("100mbit/100001us"));
    }
}
