package io.polycert.gcs;

import io.polycert.core.group.GroupListener;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.StateHandler;
import io.polycert.core.group.View;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A test member over real JGroups: its "application state" is the count and a running hash of the ordered
 * messages (transferred to joiners), plus the lists of what it delivered.
 */
class RecordingMember implements GroupListener, StateHandler {
    final String name;
    JGroupsGroup group;
    volatile long count;
    volatile long hash = 0xcbf29ce484222325L;
    volatile long lastPosition;
    final List<String> ordered = Collections.synchronizedList(new ArrayList<>());
    final List<String> multicast = Collections.synchronizedList(new ArrayList<>());
    final List<String> reliable = Collections.synchronizedList(new ArrayList<>());
    final List<View> views = new CopyOnWriteArrayList<>();
    final List<String> problems = new CopyOnWriteArrayList<>();
    volatile boolean blocked;

    RecordingMember(String name) {
        this.name = name;
    }

    static RecordingMember join(String cluster, String name, GroupStack stack) {
        return join(cluster, name, stack, TomVariant.DECENTRALIZED);
    }

    static RecordingMember join(String cluster, String name, GroupStack stack, TomVariant variant) {
        RecordingMember m = new RecordingMember(name);
        m.group = JGroupsGroup.builder(cluster).memberName(name).stack(stack).listener(m).stateHandler(m)
                .tomVariant(variant).join();
        return m;
    }

    MemberId id() {
        return group.self();
    }

    @Override
    public void deliverOrdered(MemberId origin, long position, byte[] payload) {
        if (position <= lastPosition) {
            problems.add(name + " delivered position " + position + " after " + lastPosition);
        }
        lastPosition = position;
        ordered.add(new String(payload, java.nio.charset.StandardCharsets.UTF_8));
        hash = fnv(hash, payload);
        count++;
    }

    /** The running hash of a delivery sequence: FNV-1a over each payload, then a separator. */
    static long fnv(long h, byte[] payload) {
        for (byte b : payload) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        return (h ^ 0xff) * 0x100000001b3L;
    }

    @Override
    public void viewInstalled(View view, long position) {
        views.add(view);
        blocked = false;
        lastPosition = Math.max(lastPosition, position);
    }

    @Override
    public void deliverMulticast(MemberId origin, byte[] payload) {
        multicast.add(new String(payload, java.nio.charset.StandardCharsets.UTF_8));
    }

    @Override
    public void deliverReliable(MemberId origin, byte[] payload) {
        reliable.add(new String(payload, java.nio.charset.StandardCharsets.UTF_8));
    }

    @Override
    public void blocked(View view) {
        blocked = true;
    }

    @Override
    public void writeState(OutputStream out) throws IOException {
        DataOutputStream d = new DataOutputStream(out);
        d.writeLong(count);
        d.writeLong(hash);
        d.writeLong(lastPosition);
    }

    @Override
    public void readState(InputStream in) throws IOException {
        DataInputStream d = new DataInputStream(in);
        count = d.readLong();
        hash = d.readLong();
        lastPosition = d.readLong();
    }

    void broadcast(String s) {
        group.broadcast(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    void close() {
        group.close();
    }

    /** A copy of what was ordered so far (the list itself may grow while a test looks at it). */
    List<String> orderedSoFar() {
        synchronized (ordered) {
            return new ArrayList<>(ordered);
        }
    }

    /** Closes every member, ignoring those that are already gone (killed by the test). */
    static void closeAll(Iterable<RecordingMember> members) {
        for (RecordingMember m : members) {
            try {
                m.close();
            } catch (RuntimeException ignored) {
                // already gone
            }
        }
    }

    @Override
    public String toString() {
        return name + "(count=" + count + ", hash=" + Long.toHexString(hash) + ")";
    }
}
