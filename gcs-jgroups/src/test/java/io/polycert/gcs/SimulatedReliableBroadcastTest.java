package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Uniform reliable broadcast across view changes, on the simulated network. The application decides about a
 * departed member's pending business when the view without it arrives (a VC transaction whose originator left is
 * resolved from the votes the members report), so whatever that member may have delivered must be shown to its
 * holders first (shown, not delivered: a lone holder may crash, see SimulatedMulticastTest's
 * reliableBroadcastIsUniformUnderCrashes); and a member that comes back must not act on a message before it has the
 * group's state.
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

    /**
     * JGroups hands a message to the engine on a receiver thread that races the view change, so a departed
     * origin's own copy can reach some members only after they installed the view without it (bug 9 in
     * RELIABILITY.md). Each survivor gets A's copy before the view, after it, or never, as the seed draws; whatever
     * some survivors deliver, all must (uniform agreement: a VC vote delivered by some survivors only would
     * otherwise be waited for by the others until the next view). Seed 1 is the case that failed: B, C and D got
     * the copy late, delivered it on their three acknowledgements, and E, without a copy, never did.
     */
    @Test
    void aDepartedOriginsCopyArrivingAfterTheViewWithoutItIsDeliveredByAllOrNone() {
        for (long seed = 1; seed <= 200; seed++) {
            SimNetwork net = founded(seed);
            java.util.Random random = new java.util.Random(seed);
            SimNetwork.Node a = net.nodes.get(0);
            List<SimNetwork.Node> survivors = net.nodes.subList(1, 5);
            net.reliable(a, "late");
            List<List<byte[]>> late = new ArrayList<>();
            for (int i = 0; i < survivors.size(); i++) {
                SimNetwork.Node n = survivors.get(i);
                List<byte[]> copy = net.intercept(a, n);
                int when = seed == 1 ? (i < 3 ? 1 : 2) : random.nextInt(3); // 0 before, 1 after, 2 never
                if (when == 0) {
                    net.release(a, n, copy);
                }
                late.add(when == 1 ? copy : List.of());
            }
            net.crash(a); // what was released may or may not arrive before the view: a random prefix does
            net.runUntilQuiet();
            for (int i = 0; i < survivors.size(); i++) {
                net.release(a, survivors.get(i), late.get(i));
            }
            net.runUntilQuiet();
            long delivered = survivors.stream().filter(n -> n.sink.reliable.contains("late")).count();
            assertTrue(delivered == 0 || delivered == survivors.size(), "seed " + seed + ": " + delivered
                    + " of the 4 survivors delivered A's message: " + survivors.stream()
                            .map(n -> n + "=" + n.sink.reliable).toList());
            assertTrue(net.history.violations.isEmpty(), String.join("\n", net.history.violations));
        }
    }

    /** A, B and C in one view. */
    private static SimNetwork three(long seed) {
        SimNetwork net = new SimNetwork(seed, Settings.defaults());
        net.installView(List.of(net.add("A"), net.add("B"), net.add("C")));
        net.runUntilQuiet();
        return net;
    }

    /**
     * A, excluded by B and C but still in its own epoch, sends; only B gets the copy, after installing its epoch
     * without A, and B's relay and acknowledgement reach A too (as IP multicast would). A must not deliver on them.
     */
    private static void assertTheExcludedOriginIgnoresALateHolder(SimNetwork net, long seed) {
        SimNetwork.Node a = net.nodes.get(0);
        SimNetwork.Node b = net.nodes.get(1);
        SimNetwork.Node c = net.nodes.get(2);
        net.reliable(a, "vote");
        List<byte[]> toB = net.intercept(a, b);
        net.intercept(a, c); // C never gets A's own copy
        c.held = true;
        net.release(a, b, toB); // B gets A's copy late: it holds it, relays it and acknowledges it
        net.runUntilQuiet();
        List<byte[]> fromB = net.intercept(b, c);
        assertTrue(!fromB.isEmpty(), "seed " + seed + ": B relayed and acknowledged");
        net.release(b, a, fromB);
        a.held = false;
        net.runUntilQuiet();
        assertTrue(!a.sink.reliable.contains("vote"), "seed " + seed + ": A delivered its message on the word of B,"
                + " which B gave only in its epoch without A");

        c.held = false;
        net.release(b, c, fromB);
        net.runUntilQuiet();
        for (SimNetwork.Node n : List.of(b, c)) {
            assertEquals(List.of("vote"), n.sink.reliable, "seed " + seed + ": " + n);
        }
    }

    /**
     * An origin the others excluded, still in its old view (its own failure detection has not caught up), must not
     * count towards its majority a member that received its message only after installing the view without it:
     * that view's members were not shown the message, so they resolved the origin's business without it (a VC
     * vote: the origin would tell its client "committed" while the group aborted). Over IP multicast (the UDP
     * stack) such a member's relay and acknowledgement still reach the origin; here they are handed to it. Found by
     * a review (RELIABILITY.md, bug 10); copies and acknowledgements now carry their sender's epoch.
     */
    @Test
    void anExcludedOriginDoesNotCountAHolderThatGotItsMessageAfterTheViewWithoutIt() {
        for (long seed = 1; seed <= 30; seed++) {
            SimNetwork net = three(seed);
            SimNetwork.Node a = net.nodes.get(0);
            SimNetwork.Node b = net.nodes.get(1);
            SimNetwork.Node c = net.nodes.get(2);
            long oldEpoch = a.engine.ab.installedView().epoch();
            a.held = true; // A hears nothing of the view change: it stays in its old view
            net.installView(List.of(b, c));
            net.runUntilQuiet();
            for (SimNetwork.Node n : List.of(b, c)) {
                assertTrue(n.engine.ab.installedView().epoch() > oldEpoch, "seed " + seed + ": " + n);
            }
            assertTheExcludedOriginIgnoresALateHolder(net, seed);
            for (SimNetwork.Node n : List.of(b, c)) {
                assertTrue(n.sink.heldFromDeparted.isEmpty(), "seed " + seed + ": " + n + " held nothing of A's");
            }
        }
    }

    /**
     * The same, where the excluded origin's last epoch and the others' next one have one number: the origin, as
     * coordinator, installed an epoch whose announcement reached nobody, and the others, recovering without it, gave
     * their next view the same number (a review's schedule). Claims are tagged with the epoch's ballot, which tells
     * the two apart; an epoch number would not. The origin's epoch is also never established here, so since reliable
     * broadcast waits for that ({@link #anEpochNoLaterViewAccountsForDeliversNothing}) it delivers nothing on either
     * account, and this test would pass with numbers too.
     */
    @Test
    void anExcludedOriginDoesNotCountAHolderOfAnotherEpochWithTheSameNumber() {
        for (long seed = 1; seed <= 30; seed++) {
            SimNetwork net = three(seed);
            SimNetwork.Node a = net.nodes.get(0);
            SimNetwork.Node b = net.nodes.get(1);
            SimNetwork.Node c = net.nodes.get(2);

            // A new transport view: B and C answer A's recovery, then hear nothing more (A's announcement is lost).
            net.messagesSent.clear();
            net.installView(List.of(a, b, c));
            int steps = 0;
            while (!(b.held && c.held)) {
                assertTrue(net.step() && ++steps < 100_000, "seed " + seed + ": B and C answer the recovery");
                for (SimNetwork.Node n : List.of(b, c)) {
                    n.held |= net.sent(MessageType.RECOVER_STATE, n, a) > 0;
                }
            }
            net.runUntilQuiet();
            long aEpoch = a.engine.ab.installedView().epoch();
            net.intercept(a, b);
            net.intercept(a, c);
            a.held = true;
            b.held = false;
            c.held = false;
            net.installView(List.of(b, c));
            net.runUntilQuiet();
            assertEquals(aEpoch, b.engine.ab.installedView().epoch(), "seed " + seed + ": one number, two epochs");
            assertEquals(List.of(b.id, c.id), b.engine.ab.installedView().members(), "seed " + seed);
            assertTheExcludedOriginIgnoresALateHolder(net, seed);
        }
    }

    /**
     * An epoch that no later primary view accounts for delivers nothing (a review's schedule). R coordinates a view
     * of the old members R, X and Y and two joiners, A and C; its announcement of the new epoch reaches only the
     * joiners, and X and Y move on to a view of their own, a majority of the old epoch. R, A and C are three of the
     * new epoch's five members: if R delivered its message on A's and C's acknowledgements, X and Y would decide
     * R's business (its VC vote) without it. The atomic broadcast delivers nothing in an epoch until a majority of
     * the epoch before holds its view entry; reliable broadcast now waits for that entry too.
     */
    @Test
    void anEpochNoLaterViewAccountsForDeliversNothing() {
        for (long seed = 1; seed <= 30; seed++) {
            SimNetwork net = new SimNetwork(seed, Settings.defaults());
            SimNetwork.Node r = net.add("R");
            SimNetwork.Node x = net.add("X");
            SimNetwork.Node y = net.add("Y");
            net.installView(List.of(r, x, y));
            net.runUntilQuiet();
            SimNetwork.Node a = net.add("A");
            SimNetwork.Node c = net.add("C");

            net.messagesSent.clear();
            net.installView(List.of(r, x, y, a, c));
            int steps = 0;
            while (!(x.held && y.held)) { // X and Y answer R's recovery, then hear nothing more from the others
                assertTrue(net.step() && ++steps < 100_000, "seed " + seed + ": X and Y answer the recovery");
                for (SimNetwork.Node n : List.of(x, y)) {
                    n.held |= net.sent(MessageType.RECOVER_STATE, n, r) > 0;
                }
            }
            net.runUntilQuiet();
            assertEquals(5, r.engine.ab.installedView().size(), "seed " + seed + ": R installed the new epoch");
            net.reliable(r, "vote");
            net.runUntilQuiet();
            assertTrue(!r.sink.reliable.contains("vote"), "seed " + seed + ": R delivered in an epoch that only it"
                    + " and the joiners installed");

            for (SimNetwork.Node n : List.of(r, a, c)) { // X and Y move on without them
                net.intercept(n, x);
                net.intercept(n, y);
            }
            x.deafTo.addAll(List.of(r.index, a.index, c.index));
            y.deafTo.addAll(List.of(r.index, a.index, c.index));
            x.held = false;
            y.held = false;
            net.installView(List.of(x, y));
            net.runUntilQuiet();
            assertEquals(List.of(x.id, y.id), x.engine.ab.installedView().members(), "seed " + seed);
            assertTrue(x.sink.views.get(x.sink.views.size() - 1).primary(), "seed " + seed + ": X and Y go on");
            for (SimNetwork.Node n : List.of(x, y)) {
                assertTrue(!n.sink.reliable.contains("vote") && !n.sink.heldFromDeparted.contains("vote"),
                        "seed " + seed + ": " + n + " never had R's message");
            }
        }
    }

    /**
     * A claim from an epoch this member has not installed yet waits for it; it is not dropped. The first version of
     * the rule above dropped it, and a random schedule of SimulatedMulticastTest (seed -1934813, 5 members) lost a
     * delivery: D got the others' acknowledgements of a departed origin's message before it installed their epoch,
     * and its payload only after, and nobody acknowledged it again.
     */
    @Test
    void aClaimFromANewerEpochCountsOnceTheMemberInstallsIt() {
        for (long seed = 1; seed <= 30; seed++) {
            SimNetwork net = founded(seed);
            SimNetwork.Node a = net.nodes.get(0);
            SimNetwork.Node b = net.nodes.get(1);
            SimNetwork.Node c = net.nodes.get(2);
            SimNetwork.Node d = net.nodes.get(3);
            SimNetwork.Node e = net.nodes.get(4);
            net.reliable(b, "orphan"); // only A gets B's copy, and B crashes
            for (SimNetwork.Node n : List.of(c, d, e)) {
                net.intercept(b, n);
            }
            net.release(b, a, net.intercept(b, a));
            int steps = 0;
            while (a.engine.urb.held() == 0) {
                assertTrue(net.step() && ++steps < 100_000, "seed " + seed + ": A receives B's copy");
            }
            net.messagesSent.clear();
            net.crash(b); // the view without B: D answers the recovery, then hears only C's and E's acknowledgements
            steps = 0;
            while (!d.held) {
                assertTrue(net.step() && ++steps < 100_000, "seed " + seed + ": D answers the recovery");
                d.held = net.sent(MessageType.RECOVER_STATE, d, a) > 0;
            }
            net.runUntilQuiet();
            List<byte[]> fromA = net.intercept(a, d); // the new epoch and A's relay of B's message
            d.held = false;
            net.runUntilQuiet();
            net.release(a, d, fromA);
            net.runUntilQuiet();
            for (SimNetwork.Node n : List.of(a, c, d, e)) {
                assertEquals(List.of("orphan"), n.sink.reliable, "seed " + seed + ": " + n);
            }
            assertTrue(net.history.violations.isEmpty(), String.join("\n", net.history.violations));
        }
    }

    @Test
    void aMessageItsDepartedOriginDeliveredIsShownToItsHoldersBeforeTheViewWithoutIt() {
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
                assertTrue(index(n, "held vote") < index(n, viewWithoutA), "seed " + seed + ": " + n
                        + " got the view without A before it was shown A's message: " + n.sink.events);
            }
            for (SimNetwork.Node n : List.of(b, c, d, e)) { // delivered by all, once a majority of the view held it
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
