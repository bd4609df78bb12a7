package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Uniform reliable broadcast across view changes, on the simulated network. The application decides about a
 * departed member's pending business when the view without it arrives (a VC transaction whose originator left is
 * resolved from the votes the members report), so whatever that member may have delivered must reach the others
 * first; and a member that comes back must not act on a message before it has the group's state.
 */
class SimulatedReliableBroadcastTest {

    private static SimNetwork founded(long seed) {
        SimNetwork net = new SimNetwork(seed, Settings.defaults());
        List<SimNetwork.Node> nodes = new ArrayList<>();
        for (String name : List.of("A", "B", "C", "D", "E")) {
            nodes.add(net.add(name));
        }
        net.installView(nodes);
        net.runUntilQuiet();
        return net;
    }

    private static int index(SimNetwork.Node n, String event) {
        int i = n.sink.events.indexOf(event);
        assertTrue(i >= 0, n + " never had '" + event + "': " + n.sink.events);
        return i;
    }

    @Test
    void aMessageItsDepartedOriginDeliveredReachesTheOthersBeforeTheViewWithoutIt() {
        for (long seed = 1; seed <= 30; seed++) {
            SimNetwork net = founded(seed);
            SimNetwork.Node a = net.nodes.get(0);
            SimNetwork.Node b = net.nodes.get(1);
            SimNetwork.Node c = net.nodes.get(2);
            SimNetwork.Node d = net.nodes.get(3);
            SimNetwork.Node e = net.nodes.get(4);
            // Only B and C receive A's message, and neither hears the other: A counts itself, B and C (a
            // majority of five) and delivers; B and C each know two holders and wait.
            d.deafTo.add(a.index);
            e.deafTo.add(a.index);
            b.deafTo.add(c.index);
            c.deafTo.add(b.index);
            net.reliable(a, "vote");
            net.runUntilQuiet();
            assertEquals(List.of("vote"), a.sink.reliable, "seed " + seed + ": A delivered");
            assertTrue(b.sink.reliable.isEmpty() && c.sink.reliable.isEmpty(), "seed " + seed);
            for (SimNetwork.Node n : net.nodes) {
                n.deafTo.clear();
            }

            net.partition(List.of(List.of(a), List.of(b, c, d, e)));
            net.runUntilQuiet();
            for (SimNetwork.Node n : List.of(b, c)) {
                String viewWithoutA = "view " + n.sink.views.get(n.sink.views.size() - 1).epoch();
                assertTrue(index(n, "reliable vote") < index(n, viewWithoutA), "seed " + seed + ": " + n
                        + " got the view without A before A's message: " + n.sink.events);
            }
            for (SimNetwork.Node n : List.of(d, e)) {
                assertEquals(List.of("vote"), n.sink.reliable, "seed " + seed + ": " + n + " (relayed)");
            }

            // A, cut off, sends again; back in the group, it delivers that only once it has the group's state.
            net.reliable(a, "late");
            for (int i = 0; i < 5; i++) {
                net.broadcast(b, "during" + i); // the group moves on, so A needs its state to come back
            }
            net.runUntilQuiet();
            net.heal(b);
            net.runUntilQuiet();
            assertTrue(a.sink.statesInstalled > 0, "seed " + seed + ": A took the group's state");
            assertTrue(index(a, "state") < index(a, "reliable late"), "seed " + seed + ": " + a.sink.events);
            for (SimNetwork.Node n : net.nodes) {
                assertTrue(n.sink.reliable.contains("late"), "seed " + seed + ": " + n);
            }
            assertTrue(net.history.violations.isEmpty(), String.join("\n", net.history.violations));
        }
    }
}
