package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.util.List;
import org.jgroups.JChannel;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.jgroups.protocols.pbcast.STABLE;
import org.junit.jupiter.api.Test;

class GroupStackTest {

    /**
     * A member excluded while stopped merges back through a merge whose subgroup coordinator it is: it waits half
     * of GMS's merge timeout for digests from members that ignore it, and everything the others multicast meanwhile
     * reaches it only by retransmission, before anything of the merged view (RELIABILITY.md, bug 5). JGroups'
     * default of 5 s made that 2.5 s of the group's traffic; every stack PolyCert builds or ships uses 1 s.
     */
    @Test
    void everyStackWeShipHasAShortMergeTimeout() throws Exception {
        for (GroupStack stack : shippedStacks()) {
            try (JChannel channel = stack.newChannel()) {
                GMS gms = channel.getProtocolStack().findProtocol(GMS.class);
                assertEquals(1000, gms.getMergeTimeout(), stack.toString());
            }
        }
    }

    /**
     * A member back from loss or a stop receives what it missed by retransmission, a round every xmit_interval,
     * each round looking for gaps within max_xmit_req_size sequence numbers of each sender: JGroups' 1,024 and 1 s
     * made a backlog of 10^4 take 10 s or more (RELIABILITY.md, bug 8).
     */
    @Test
    void everyStackWeShipAsksForLargeRetransmissions() throws Exception {
        for (GroupStack stack : shippedStacks()) {
            try (JChannel channel = stack.newChannel()) {
                NAKACK2 nakack = channel.getProtocolStack().findProtocol(NAKACK2.class);
                assertEquals(GroupStack.MAX_XMIT_REQ_SIZE, (int) nakack.getValue("max_xmit_req_size"),
                        stack.toString());
                assertEquals(GroupStack.XMIT_INTERVAL_MS, nakack.getXmitInterval(), stack.toString());
            }
        }
    }

    /**
     * Delivered messages stay in the retransmission buffers until a STABLE round: JGroups' 20 s default held
     * gigabytes at high rates, and 1 s still outlived a young collection at 50,000 commits a second.
     */
    @Test
    void everyStackWeShipPurgesDeliveredMessagesFourTimesASecond() throws Exception {
        for (GroupStack stack : shippedStacks()) {
            try (JChannel channel = stack.newChannel()) {
                STABLE stable = channel.getProtocolStack().findProtocol(STABLE.class);
                assertEquals(GroupStack.STABLE_GOSSIP_MS, stable.getDesiredAverageGossip(), stack.toString());
            }
        }
    }

    private static List<GroupStack> shippedStacks() throws java.io.IOException {
        InetSocketAddress local;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            local = new InetSocketAddress("127.0.0.1", free.getLocalPort()); // TCPPING needs a fixed port
        }
        return List.of(GroupStack.embedded(), GroupStack.tcp(local, List.of(local)),
                GroupStack.fromXml("polycert-tcp.xml"), GroupStack.fromXml("polycert-udp.xml"));
    }
}
