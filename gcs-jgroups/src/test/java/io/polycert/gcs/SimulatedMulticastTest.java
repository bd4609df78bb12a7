package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.group.MemberId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** Skeen total-order multicast (both variants) and uniform reliable broadcast on the simulated network. */
class SimulatedMulticastTest {

    private static void assertNoViolations(List<String> violations) {
        assertTrue(violations.isEmpty(), () -> String.join("\n", violations.subList(0, Math.min(20,
                violations.size()))));
    }

    private static SimNetwork founded(long seed, int members, TotalOrderMulticast.Variant variant) {
        SimNetwork net = new SimNetwork(seed, new Settings(1, variant, 20_000));
        List<SimNetwork.Node> nodes = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            nodes.add(net.add(String.valueOf((char) ('A' + i))));
        }
        net.installView(nodes);
        net.runUntilQuiet();
        return net;
    }

    private static List<SimNetwork.Node> randomDestinations(SimNetwork net) {
        List<SimNetwork.Node> alive = net.alive();
        List<SimNetwork.Node> dests = new ArrayList<>();
        for (SimNetwork.Node n : alive) {
            if (net.random.nextBoolean()) {
                dests.add(n);
            }
        }
        if (dests.isEmpty()) {
            dests.add(alive.get(net.random.nextInt(alive.size())));
        }
        return dests;
    }

    @Property(tries = 2000)
    void randomMulticastsAreDeliveredInOneOrderWithoutFailures(@ForAll long seed,
            @ForAll @IntRange(min = 2, max = 5) int members, @ForAll boolean decentralized) {
        SimNetwork net = founded(seed, members, decentralized ? TotalOrderMulticast.Variant.DECENTRALIZED
                : TotalOrderMulticast.Variant.COORDINATED);
        Map<String, MemberId> origins = new HashMap<>();
        for (int round = 0; round < 40; round++) {
            for (SimNetwork.Node n : net.alive()) {
                if (net.random.nextInt(2) == 0) {
                    String p = n + "-" + round;
                    origins.put(p, n.id);
                    net.multicast(n, randomDestinations(net), p);
                }
            }
            net.run(net.random.nextInt(25));
        }
        net.runUntilQuiet();
        assertNoViolations(GroupChecks.totalOrderMulticast(net));
        assertNoViolations(GroupChecks.multicastsOfCorrectOriginsDelivered(net, origins));
        for (SimNetwork.Node n : net.nodes) {
            assertEquals(0, n.engine.tom.pendingCount(), n + " still holds undelivered multicasts");
        }
    }

    @Property(tries = 2000)
    void originAndDestinationCrashesLeaveSurvivorsInAgreement(@ForAll long seed,
            @ForAll @IntRange(min = 3, max = 5) int members, @ForAll boolean decentralized) {
        SimNetwork net = founded(seed, members, decentralized ? TotalOrderMulticast.Variant.DECENTRALIZED
                : TotalOrderMulticast.Variant.COORDINATED);
        Map<String, MemberId> origins = new HashMap<>();
        int crashesLeft = (members - 1) / 2;
        for (int round = 0; round < 40; round++) {
            for (SimNetwork.Node n : net.alive()) {
                if (net.random.nextInt(2) == 0) {
                    String p = n + "-" + round;
                    origins.put(p, n.id);
                    net.multicast(n, randomDestinations(net), p);
                }
            }
            net.run(net.random.nextInt(25));
            if (crashesLeft > 0 && net.random.nextInt(12) == 0) {
                List<SimNetwork.Node> alive = net.alive();
                net.crash(alive.get(net.random.nextInt(alive.size())));
                crashesLeft--;
            }
        }
        net.runUntilQuiet();
        assertNoViolations(GroupChecks.totalOrderMulticast(net));
        assertNoViolations(GroupChecks.multicastsOfCorrectOriginsDelivered(net, origins));
        for (SimNetwork.Node n : GroupChecks.correct(net)) {
            assertEquals(0, n.engine.tom.pendingCount(), n + " is stuck with undelivered multicasts");
        }
    }

    @Test
    void singleDestinationTakesTheFastPath() {
        SimNetwork net = founded(1, 3, TotalOrderMulticast.Variant.COORDINATED);
        SimNetwork.Node a = net.nodes.get(0);
        SimNetwork.Node b = net.nodes.get(1);
        net.multicast(a, List.of(b), "solo");
        net.multicast(a, List.of(a), "self");
        net.runUntilQuiet();
        assertEquals(List.of("solo"), b.sink.multicast);
        assertEquals(List.of("self"), a.sink.multicast);
        assertTrue(net.nodes.get(2).sink.multicast.isEmpty(), "genuine: non-destinations see nothing");
    }

    @Property(tries = 2000)
    void reliableBroadcastIsUniformUnderCrashes(@ForAll long seed, @ForAll @IntRange(min = 3, max = 5) int members) {
        SimNetwork net = founded(seed, members, TotalOrderMulticast.Variant.DECENTRALIZED);
        int crashesLeft = (members - 1) / 2;
        for (int round = 0; round < 40; round++) {
            for (SimNetwork.Node n : net.alive()) {
                if (net.random.nextInt(2) == 0) {
                    net.reliable(n, n + "-" + round);
                }
            }
            net.run(net.random.nextInt(25));
            if (crashesLeft > 0 && net.random.nextInt(12) == 0) {
                List<SimNetwork.Node> alive = net.alive();
                net.crash(alive.get(net.random.nextInt(alive.size())));
                crashesLeft--;
            }
        }
        net.runUntilQuiet();
        assertNoViolations(GroupChecks.reliableBroadcast(net));
    }
}
