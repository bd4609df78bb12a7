package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.polycert.core.group.MemberId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jgroups.JChannel;
import org.jgroups.protocols.DISCARD;
import org.junit.jupiter.api.Test;

/**
 * The transport hands a member its own multicasts itself and sends them to the others with DONT_LOOPBACK. If a
 * layer of the stack ignored that flag (a JGroups upgrade, a layer we add), each own multicast would arrive
 * twice, and the engine, which tolerates duplicates, would hide it. So: every multicast reaches every member
 * exactly once, its sender included, on each kind of stack we build, with messages large enough to be
 * fragmented and with a member isolated by DISCARD (which loops messages back itself).
 */
class JGroupsTransportTest {

    /** Records what one member receives, per sender, in order. */
    private static final class Recorder implements Transport.Handler {
        final Map<MemberId, List<byte[]>> received = new ConcurrentHashMap<>();
        final List<TransportView> views = new CopyOnWriteArrayList<>();

        @Override
        public void receive(MemberId from, byte[] message) {
            received.computeIfAbsent(from, k -> new CopyOnWriteArrayList<>()).add(message);
        }

        @Override
        public void viewChanged(TransportView view) {
            views.add(view);
        }

        int count(MemberId from) {
            return received.getOrDefault(from, List.of()).size();
        }
    }

    private record Member(JGroupsTransport transport, Recorder recorder) {
    }

    private static List<Member> start(GroupStack stack, int n) throws Exception {
        String cluster = "transport-" + UUID.randomUUID();
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            JChannel channel = stack.newChannel();
            MemberId self = MemberId.random("t" + i);
            channel.name("t" + i);
            org.jgroups.util.UUID address = new org.jgroups.util.UUID(self.high(), self.low());
            channel.addAddressGenerator(() -> address);
            JGroupsTransport t = new JGroupsTransport(channel, self);
            Recorder r = new Recorder();
            t.handler(r);
            t.connect(cluster);
            members.add(new Member(t, r));
        }
        await(() -> members.stream().allMatch(m -> !m.recorder.views.isEmpty()
                && m.recorder.views.get(m.recorder.views.size() - 1).members().size() == n), "views of " + n);
        return members;
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(5);
        }
    }

    private static byte[] payload(int sender, int i, int size) {
        byte[] b = new byte[size];
        java.util.Arrays.fill(b, (byte) (31 * sender + i));
        b[0] = (byte) sender;
        b[1] = (byte) i;
        return b;
    }

    /** Each member multicasts small and fragmented messages, and sends one to itself; all arrive exactly once. */
    private static void checkExactlyOnce(GroupStack stack) throws Exception {
        List<Member> members = start(stack, 3);
        try {
            int[] sizes = {16, 150_000, 32}; // 150,000 bytes: three FRAG4 fragments
            for (int s = 0; s < members.size(); s++) {
                for (int i = 0; i < sizes.length; i++) {
                    members.get(s).transport.multicast(payload(s, i, sizes[i]));
                }
                members.get(s).transport.send(members.get(s).transport.self(), payload(s, 9, 8));
            }
            for (Member receiver : members) {
                for (int s = 0; s < members.size(); s++) {
                    Member sender = members.get(s);
                    int expected = sizes.length + (sender == receiver ? 1 : 0);
                    await(() -> receiver.recorder.count(sender.transport.self()) >= expected, receiver.transport.self()
                            + " hearing " + sender.transport.self());
                }
            }
            Thread.sleep(300); // time for a duplicate to show up
            for (Member receiver : members) {
                for (int s = 0; s < members.size(); s++) {
                    Member sender = members.get(s);
                    List<byte[]> got = receiver.recorder.received.get(sender.transport.self());
                    int expected = sizes.length + (sender == receiver ? 1 : 0);
                    assertEquals(expected, got.size(), receiver.transport.self() + " from " + sender.transport.self()
                            + " on " + stack);
                    if (sender == receiver) { // point-to-point and multicast are not ordered with each other
                        got = got.stream().filter(b -> b[1] != 9).toList();
                    }
                    for (int i = 0; i < sizes.length; i++) {
                        assertArrayEquals(payload(s, i, sizes[i]), got.get(i), "in sending order");
                    }
                }
            }
        } finally {
            members.forEach(m -> m.transport.close());
        }
    }

    @Test
    void everyMulticastArrivesOnceAtEveryMemberItsSenderIncluded() throws Exception {
        checkExactlyOnce(GroupStack.embedded());
        checkExactlyOnce(GroupStack.embedded().secured("a shared secret of 32 bytes......".getBytes()));
        checkExactlyOnce(GroupStack.embedded().faultInjection());
    }

    @Test
    void anIsolatedMemberStillHearsItsOwnMulticastsOnce() throws Exception {
        List<Member> members = start(GroupStack.embedded().faultInjection(), 2);
        try {
            Member isolated = members.get(0);
            DISCARD discard = isolated.transport.channel().getProtocolStack().findProtocol(DISCARD.class);
            discard.discardAll(true); // DISCARD then loops this member's multicasts back itself
            isolated.transport.multicast(payload(0, 0, 16));
            isolated.transport.multicast(payload(0, 1, 150_000));
            await(() -> isolated.recorder.count(isolated.transport.self()) >= 2, "own copies");
            Thread.sleep(300);
            assertEquals(2, isolated.recorder.count(isolated.transport.self()));
        } finally {
            members.forEach(m -> m.transport.close());
        }
    }
}
