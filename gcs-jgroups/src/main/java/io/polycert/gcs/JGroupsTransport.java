package io.polycert.gcs;

import io.polycert.core.group.MemberId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.View;
import org.jgroups.util.NameCache;
import org.jgroups.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link Transport} over a JChannel: NAKACK2 and UNICAST3 give reliable FIFO multicast and unicast. */
final class JGroupsTransport implements Transport, Receiver {
    private static final Logger LOG = LoggerFactory.getLogger(JGroupsTransport.class);

    private final JChannel channel;
    private final Map<MemberId, Address> addresses = new ConcurrentHashMap<>();
    /** The reverse of {@link #addresses}, so a received message needs no name lookup. */
    private final Map<Address, MemberId> members = new ConcurrentHashMap<>();
    private final MemberId self;
    private volatile Handler handler;
    private final LongAdder sent = new LongAdder();

    JGroupsTransport(JChannel channel, MemberId self) {
        this.channel = channel;
        this.self = self;
        channel.setReceiver(this);
    }

    void handler(Handler handler) {
        this.handler = handler;
    }

    void connect(String cluster) throws Exception {
        channel.connect(cluster);
    }

    JChannel channel() {
        return channel;
    }

    static MemberId member(Address a) {
        String name = NameCache.get(a);
        if (a instanceof UUID u) {
            return new MemberId(u.getMostSignificantBits(), u.getLeastSignificantBits(), name != null ? name
                    : a.toString());
        }
        throw new IllegalArgumentException("unsupported JGroups address type " + a.getClass().getName());
    }

    Address address(MemberId m) {
        return addresses.get(m);
    }

    @Override
    public MemberId self() {
        return self;
    }

    @Override
    public void send(MemberId to, byte[] message) {
        Address a = addresses.get(to);
        if (a == null) {
            LOG.debug("not sending to {}: not in the view", to);
            return;
        }
        sent.increment();
        if (to.equals(self)) {
            toSelf(message);
            return;
        }
        try {
            channel.send(new BytesMessage(a, message));
        } catch (Exception e) {
            LOG.debug("send to {} failed: {}", to, e.toString());
        }
    }

    @Override
    public void multicast(byte[] message) {
        sent.increment();
        try {
            channel.send(new BytesMessage(null, message).setFlag(Message.TransientFlag.DONT_LOOPBACK));
        } catch (Exception e) {
            LOG.debug("multicast failed: {}", e.toString());
            return;
        }
        toSelf(message);
    }

    /**
     * A member's messages to itself skip the stack: JGroups would hand its loopback copy to a pool thread, a
     * scheduling delay on every self-send and own multicast (the sequencer's batches, acknowledgements, Skeen's
     * proposals). Safe because the engine sends one event at a time (its loop), so these arrive in sending order,
     * and the transport promises no order between point-to-point and multicast messages anyway. The handler only
     * queues the message for the engine's loop, so a send from inside the engine is not re-entered.
     */
    private void toSelf(byte[] message) {
        Handler h = handler;
        if (h != null) {
            h.receive(self, message);
        }
    }

    @Override
    public void exclude(MemberId member) {
        Address a = addresses.get(member);
        org.jgroups.protocols.pbcast.GMS gms = channel.getProtocolStack()
                .findProtocol(org.jgroups.protocols.pbcast.GMS.class);
        if (a == null || gms == null) {
            return;
        }
        // Straight to GMS, past failure detection's verification (the member is alive, only too far behind).
        gms.up(new org.jgroups.Event(org.jgroups.Event.SUSPECT, java.util.List.of(a)));
    }

    @Override
    public void close() {
        channel.close();
    }

    long messagesSent() {
        return sent.sum();
    }

    @Override
    public void receive(Message msg) {
        Handler h = handler;
        if (h == null || msg.getSrc() == null) {
            return;
        }
        byte[] bytes;
        if (msg.getOffset() == 0 && msg.getArray() != null && msg.getLength() == msg.getArray().length) {
            bytes = msg.getArray();
        } else if (msg.getArray() != null) {
            bytes = java.util.Arrays.copyOfRange(msg.getArray(), msg.getOffset(), msg.getOffset() + msg.getLength());
        } else {
            return;
        }
        MemberId from = members.get(msg.getSrc());
        if (from == null) {
            try {
                from = member(msg.getSrc()); // not in our view (yet): the engine decides what to do with it
            } catch (IllegalArgumentException e) {
                return;
            }
        }
        h.receive(from, bytes);
    }

    @Override
    public void viewAccepted(View view) {
        List<MemberId> current = new ArrayList<>();
        for (Address a : view.getMembers()) {
            MemberId m = member(a);
            addresses.put(m, a);
            members.put(a, m);
            current.add(m);
        }
        addresses.keySet().retainAll(current);
        members.values().retainAll(current);
        Handler h = handler;
        if (h != null) {
            h.viewChanged(new TransportView(view.getViewId().getId(), member(view.getCreator()), current));
        }
    }
}
