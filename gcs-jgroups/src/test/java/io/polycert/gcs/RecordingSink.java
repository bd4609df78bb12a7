package io.polycert.gcs;

import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Records what one simulated member delivers, checking as it goes: positions increase per member, a position
 * never holds two different things across members, nothing is delivered twice. The "application state" is the count and a running hash of the ordered payloads, which is
 * also what state transfer carries.
 */
final class RecordingSink implements DeliverySink {
    private final SimNetwork.Node node;
    private final SimNetwork.History history;
    long count;
    long hash = 0xcbf29ce484222325L;
    long lastPosition;
    final List<String> ordered = new ArrayList<>();
    final List<View> views = new ArrayList<>();
    final Set<String> orderedSet = new HashSet<>();
    final List<String> reliable = new ArrayList<>();
    /** Reliable broadcasts of departed members shown before a view (not deliveries). */
    final List<String> heldFromDeparted = new ArrayList<>();
    final List<String> multicast = new ArrayList<>();
    final List<String> direct = new ArrayList<>();
    boolean blocked;
    int statesInstalled;
    /** Views, reliable deliveries and state installs in the order they happened. */
    final List<String> events = new ArrayList<>();

    RecordingSink(SimNetwork.Node node, SimNetwork.History history) {
        this.node = node;
        this.history = history;
    }

    private void position(long position, String what) {
        if (position <= lastPosition) { // increasing; gaps are positions of dropped duplicates
            history.violations.add(node + " delivered position " + position + " after " + lastPosition);
        }
        lastPosition = position;
        String before = history.positions.putIfAbsent(position, what);
        if (before != null && !before.equals(what)) {
            history.violations.add(node + " delivered " + what + " at position " + position + " where another member"
                    + " delivered " + before);
        }
    }

    @Override
    public void ordered(MemberId origin, long position, byte[] payload) {
        String s = new String(payload, StandardCharsets.UTF_8);
        position(position, s);
        if (!orderedSet.add(s)) {
            history.violations.add(node + " delivered " + s + " twice");
        }
        ordered.add(s);
        count++;
        hash = RecordingMember.fnv(hash, payload);
    }

    @Override
    public void view(View view, long position) {
        if (position != lastPosition) { // a joiner gets the view its state was taken at, already counted
            position(position, "view" + view.epoch() + view.members());
        }
        views.add(view);
        events.add("view " + view.epoch());
        blocked = false;
    }

    @Override
    public void reliable(MemberId origin, byte[] payload) {
        String s = new String(payload, StandardCharsets.UTF_8);
        if (reliable.contains(s)) {
            history.violations.add(node + " delivered reliable " + s + " twice");
        }
        reliable.add(s);
        events.add("reliable " + s);
    }

    @Override
    public void heldFromDeparted(MemberId origin, byte[] payload) {
        String s = new String(payload, StandardCharsets.UTF_8);
        if (heldFromDeparted.contains(s)) {
            history.violations.add(node + " showed " + s + " as held from departed " + origin + " twice");
        }
        heldFromDeparted.add(s);
        events.add("held " + s);
    }

    @Override
    public void multicast(MemberId origin, byte[] payload) {
        String s = new String(payload, StandardCharsets.UTF_8);
        if (multicast.contains(s)) {
            history.violations.add(node + " delivered multicast " + s + " twice");
        }
        List<MemberId> dests = history.multicastSent.get(s);
        if (dests != null && !dests.contains(node.id)) {
            history.violations.add(node + " delivered multicast " + s + " meant for " + dests);
        }
        multicast.add(s);
    }

    @Override
    public void direct(MemberId origin, byte[] payload) {
        direct.add(new String(payload, StandardCharsets.UTF_8));
    }

    @Override
    public void blocked(View view) {
        blocked = true;
    }

    @Override
    public void captureState(Consumer<byte[]> then) {
        then.accept(ByteBuffer.allocate(24).putLong(count).putLong(hash).putLong(lastPosition).array());
    }

    /** Why this member gave up its join as incompatible, or null. */
    Exception incompatible;

    @Override
    public void incompatible(Exception reason) {
        incompatible = reason;
        events.add("incompatible");
    }

    @Override
    public void installState(byte[] state, Runnable then) {
        ByteBuffer b = ByteBuffer.wrap(state);
        count = b.getLong();
        hash = b.getLong();
        lastPosition = b.getLong();
        statesInstalled++;
        events.add("state");
        if (holdStateCallbacks) {
            heldStateCallbacks.add(then);
        } else {
            then.run();
        }
    }

    /**
     * While set, the callbacks that report a state installed wait in {@link #heldStateCallbacks}, as when the
     * delivery thread is slow to install a large state; the test runs them when it chooses.
     */
    boolean holdStateCallbacks;
    final List<Runnable> heldStateCallbacks = new ArrayList<>();
}
