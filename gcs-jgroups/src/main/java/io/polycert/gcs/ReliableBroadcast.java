package io.polycert.gcs;

import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Uniform reliable broadcast: every member that receives a message stores it and acknowledges it to all (the
 * sender of a copy, origin or relay, holds it too); a member delivers it once a majority of the (primary) view
 * holds it and the view is established (its entry delivered in the atomic broadcast's order). When the view
 * changes, members relay every message not yet held by all, so one that was delivered anywhere reaches every
 * correct member even if its origin crashed; and they show the application, before the view, what they hold
 * undelivered of members that left (see {@link #onViewInstalled}). No order is imposed. Runs on the engine thread
 * only.
 *
 * <p>Every copy and acknowledgement carries the {@link Ballot} of the epoch its sender had installed last when it
 * sent it, and a member counts a holder only by a claim from an epoch no newer than its own. A claim made after the
 * holder installed a newer epoch is one that epoch's members did not account for (it was neither shown nor delivered
 * there): an excluded origin still in the old view must not complete a majority with it and deliver what the
 * others, at the new view, resolved without. Such claims wait, and count once the member installs that epoch.
 * Ballots, not epoch numbers: a coordinator can install an epoch that nobody else does, and the others then give
 * the same number to another view (see {@link Ballot}).
 */
final class ReliableBroadcast {

    private record Id(MemberId origin, long seq) {
    }

    private static final class Message {
        byte[] payload;
        final Set<MemberId> holders = new HashSet<>();
        /** Claims from epochs newer than this member's, by the ballot of each; null while there are none. */
        Map<MemberId, Ballot> laterHolders;
        boolean delivered;
        /** Shown to the application as held from a departed origin (at most once). */
        boolean shown;

        /** Counts the waiting claims from epochs up to {@code installed}. */
        void countClaimsUpTo(Ballot installed) {
            if (laterHolders == null) {
                return;
            }
            for (Iterator<Map.Entry<MemberId, Ballot>> it = laterHolders.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<MemberId, Ballot> claim = it.next();
                if (claim.getValue().compareTo(installed) <= 0) {
                    holders.add(claim.getKey());
                    it.remove();
                }
            }
            if (laterHolders.isEmpty()) {
                laterHolders = null;
            }
        }
    }

    private final GroupEngine engine;
    private long nextSeq = 1;
    private final Map<Id, Message> messages = new HashMap<>();
    /** Capped: a member that joined after an origin's first broadcasts never sees the numbers below its first. */
    private final SeenIds delivered = new SeenIds(100_000);
    private final Set<Id> toAcknowledge = new LinkedHashSet<>();
    private View view;
    /**
     * Whether the atomic broadcast delivered the view's entry. Until then its epoch may be one that no later primary
     * view accounts for: its coordinator's announcement may have reached only a minority of the epoch before, while
     * the majority moved on without it (joiners made up its own majority). Nothing is delivered in such an epoch, as
     * the atomic broadcast delivers nothing in it either.
     */
    private boolean established;
    /** The epoch this member installed last, with or without the group's state; tags what it sends. */
    private Ballot epoch = Ballot.NONE;

    ReliableBroadcast(GroupEngine engine) {
        this.engine = engine;
    }

    void broadcast(byte[] payload) {
        Id id = new Id(engine.self, nextSeq++);
        // Held here before it leaves, so every copy also says its sender holds it: with three members a
        // receiver and the sender are a majority, and the receiver delivers without waiting for acknowledgements.
        Message m = new Message();
        m.payload = payload;
        m.holders.add(engine.self);
        messages.put(id, m);
        engine.transport.multicast(message(id, payload));
    }

    private byte[] message(Id id, byte[] payload) {
        ValueOutput out = Wire.out(MessageType.URB, payload.length + 80);
        Wire.writeMember(out, id.origin);
        out.writeVarLong(id.seq);
        epoch.writeTag(out);
        out.writeBytes(payload);
        return out.toByteArray();
    }

    void onMessage(MemberId from, ValueInput in) {
        Id id = new Id(Wire.readMember(in), Wire.readPositive(in));
        Ballot sendersEpoch = Ballot.readTag(in, epoch);
        byte[] payload = in.readBytes();
        toAcknowledge.add(id); // even for one already delivered: a relay means someone still needs holders
        if (delivered.contains(id.origin, id.seq) && !messages.containsKey(id)) {
            return;
        }
        Message m = messages.computeIfAbsent(id, k -> new Message());
        boolean first = m.payload == null;
        if (first) {
            m.payload = payload;
        }
        m.holders.add(engine.self);
        claim(m, from, sendersEpoch); // the origin or a relay: either holds what it sends
        if (first && view != null && !view.contains(from)) {
            // A copy from outside the view: its sender left, and the copy lost the race with the view change (JGroups
            // hands both over on different threads). Other members may never get a copy from it, and the view
            // change's relays are behind us: relay it now, so that if a majority ends up holding it and delivers,
            // every member of the view has it too.
            engine.transport.multicast(message(id, payload));
        }
        check(id, m);
    }

    void onAck(MemberId from, ValueInput in) {
        Ballot sendersEpoch = Ballot.readTag(in, epoch);
        int n = in.readLength(18);
        for (int i = 0; i < n; i++) {
            Id id = new Id(Wire.readMember(in), Wire.readPositive(in));
            if (delivered.contains(id.origin, id.seq) && !messages.containsKey(id)) {
                continue;
            }
            Message m = messages.computeIfAbsent(id, k -> new Message());
            claim(m, from, sendersEpoch);
            check(id, m);
        }
    }

    private void claim(Message m, MemberId holder, Ballot sendersEpoch) {
        if (sendersEpoch.compareTo(epoch) <= 0) {
            m.holders.add(holder);
            return;
        }
        if (m.laterHolders == null) {
            m.laterHolders = new HashMap<>(4);
        }
        m.laterHolders.merge(holder, sendersEpoch, (a, b) -> a.compareTo(b) <= 0 ? a : b);
    }

    void flush() {
        if (toAcknowledge.isEmpty()) {
            return;
        }
        ValueOutput out = Wire.out(MessageType.URB_ACK, toAcknowledge.size() * 32 + 32);
        epoch.writeTag(out);
        out.writeVarInt(toAcknowledge.size());
        for (Id id : toAcknowledge) {
            Wire.writeMember(out, id.origin);
            out.writeVarLong(id.seq);
        }
        toAcknowledge.clear();
        engine.transport.multicast(out.toByteArray());
    }

    /** Delivery stops while the view is being recovered or in a minority. */
    void suspend() {
        view = null;
    }

    /**
     * The group installed an epoch here, whether or not this member has the group's state yet (always before
     * {@link #onViewInstalled} for its view). Its ballot is newer than any installed before, also across a merge of
     * two histories founded apart (the merged view's number is above both of theirs).
     */
    void epochInstalled(Ballot ballot) {
        epoch = ballot;
    }

    /**
     * A primary view: relay what not every member holds, and show what departed members' messages this member holds;
     * once the view is established ({@link #onViewDelivered}), deliver what a majority of it holds.
     */
    void onViewInstalled(View view) {
        this.view = view;
        established = false;
        List<Id> relay = new ArrayList<>();
        for (Iterator<Map.Entry<Id, Message>> it = messages.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Id, Message> e = it.next();
            Message m = e.getValue();
            m.countClaimsUpTo(epoch);
            m.holders.retainAll(view.members());
            if (m.payload == null) {
                if (m.holders.isEmpty() && m.laterHolders == null) {
                    it.remove(); // nobody alive holds it, so nobody delivered it
                }
                continue;
            }
            if (!m.holders.containsAll(view.members())) {
                relay.add(e.getKey());
            }
        }
        for (Id id : relay) {
            engine.transport.multicast(message(id, messages.get(id).payload));
        }
        // A message whose origin left may have been delivered there, on a majority of the previous view that
        // includes at least one member of this one. What the members decide at this view about the origin's
        // business (the application resolves its pending votes) must account for it, so every holder shows it to
        // the application now, before the view. Shown, not delivered: this member may be its only holder, and may
        // crash before the relay above gets anywhere, and then no correct member would ever deliver it (found by
        // SimulatedMulticastTest's reliableBroadcastIsUniformUnderCrashes, seed -11325374468564, 5 members, where
        // such a delivery used to be made). It is delivered, as any message, once a majority of the view holds it.
        for (Map.Entry<Id, Message> e : messages.entrySet()) {
            Message m = e.getValue();
            if (!m.delivered && !m.shown && m.payload != null && !view.contains(e.getKey().origin)) {
                m.shown = true;
                engine.sink.heldFromDeparted(e.getKey().origin, m.payload);
            }
        }
    }

    /** The atomic broadcast delivered a view's entry; if it is the view installed here, delivery may start. */
    void onViewDelivered(View delivered) {
        if (view == null || !view.equals(delivered)) {
            return;
        }
        established = true;
        for (Map.Entry<Id, Message> e : new HashMap<>(messages).entrySet()) {
            check(e.getKey(), e.getValue());
        }
    }

    private void check(Id id, Message m) {
        if (view == null || !established) {
            return;
        }
        if (!m.delivered && m.payload != null) {
            int count = 0;
            for (MemberId h : m.holders) {
                if (view.contains(h)) {
                    count++;
                }
            }
            if (count >= view.majority()) {
                deliver(id, m);
            }
        }
        if (m.delivered && m.holders.containsAll(view.members())) {
            messages.remove(id);
        }
    }

    private void deliver(Id id, Message m) {
        m.delivered = true;
        delivered.add(id.origin, id.seq);
        engine.countDelivery(m.payload.length);
        engine.sink.reliable(id.origin, m.payload);
    }

    /** Whether a message this member holds is not yet held by every member of the view. */
    boolean awaitingOthers() {
        if (view == null) {
            return false;
        }
        for (Message m : messages.values()) {
            if (m.payload != null && !m.holders.containsAll(view.members())) {
                return true;
            }
        }
        return false;
    }

    int held() {
        return messages.size();
    }
}
