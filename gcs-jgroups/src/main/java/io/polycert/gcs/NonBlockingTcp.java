package io.polycert.gcs;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.jgroups.Address;
import org.jgroups.PhysicalAddress;
import org.jgroups.blocks.cs.Connection;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.TCP;

/**
 * JGroups' TCP transport, made so that a peer that stops reading (a process stopped with SIGSTOP, a hung JVM)
 * cannot stall this member. Two changes, both needed:
 * <ul>
 *   <li>Non-blocking sends: each connection gets a bounded queue and a writer thread of its own. By default a single
 *       thread writes every message of the member to every peer; once a stopped peer's socket buffers fill, it
 *       blocks there, and with it heartbeats, suspicion checks and views: the group neither excluded the stopped
 *       member nor went on. A full queue drops, and NAKACK2/UNICAST3 retransmit.</li>
 *   <li>A view that drops a member closes its connection at once. JGroups closes it "gracefully", writing a marker
 *       under the lock that the connection's writer holds while it is blocked on the stopped peer: the coordinator's
 *       view installation then waited until the peer resumed. Closing the socket first unblocks that writer.</li>
 * </ul>
 * On the wire it is plain TCP (same protocol id), so it talks to members whose stacks use TCP.
 */
public final class NonBlockingTcp extends TCP {
    /** Messages (or bundles of at most 64 KB) queued per connection before sends to that peer are dropped. */
    static final int SEND_QUEUE = 256;

    public NonBlockingTcp() {
        setId(ClassConfigurator.getProtocolId(TCP.class));
        nonBlockingSends(true);
        maxSendQueue(SEND_QUEUE);
    }

    @Override
    public void retainAll(Collection<Address> members) {
        List<Connection> departed = new ArrayList<>();
        srv.forAllConnections((peer, connection) -> {
            // The same test as TCP's own: neither a current member's address nor mapped to a member.
            if (!members.contains(peer) && !(peer instanceof PhysicalAddress pa && is_member.test(pa))) {
                departed.add(connection);
            }
        });
        for (Connection c : departed) {
            try {
                c.close(false); // closes the socket before the streams: a writer blocked on it fails and lets go
            } catch (Exception e) {
                log.debug("closing the connection to %s: %s", c.peerAddress(), e);
            }
        }
        super.retainAll(members);
    }
}
