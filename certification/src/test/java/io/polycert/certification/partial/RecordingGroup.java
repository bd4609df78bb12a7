package io.polycert.certification.partial;

import io.polycert.core.group.GroupMember;
import io.polycert.core.group.GroupStatistics;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * A group of two members, {@code self} and {@code other}, that records what the engine multicasts and drops
 * everything else; a test delivers by hand.
 */
public final class RecordingGroup implements GroupMember {
    public final List<byte[]> multicasts = new ArrayList<>();
    private final MemberId self;
    private final View view;

    public RecordingGroup(MemberId self, MemberId other) {
        this.self = self;
        this.view = new View(1, List.of(self, other), true);
    }

    @Override
    public MemberId self() {
        return self;
    }

    @Override
    public View view() {
        return view;
    }

    @Override
    public void broadcast(byte[] payload) {
        throw new UnsupportedOperationException("partial replication does not broadcast");
    }

    @Override
    public void reliableBroadcast(byte[] payload) {
    }

    @Override
    public synchronized void multicast(Collection<MemberId> destinations, byte[] payload) {
        multicasts.add(payload);
    }

    @Override
    public void send(MemberId destination, byte[] payload) {
    }

    @Override
    public GroupStatistics statistics() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void close() {
    }
}
