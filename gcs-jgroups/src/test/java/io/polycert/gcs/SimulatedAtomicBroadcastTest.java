package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.group.NotInMajorityException;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The uniform atomic broadcast on a simulated network: orders, crashes, partitions and joins. */
class SimulatedAtomicBroadcastTest {

    private static void assertNoViolations(List<String> violations) {
        assertTrue(violations.isEmpty(), () -> String.join("\n", violations.subList(0, Math.min(20,
                violations.size()))));
    }

    @Test
    void membersDeliverTheSameSequenceIncludingTheirOwn() {
        SimNetwork net = SimNetwork.founded(1, 3);
        for (int i = 0; i < 50; i++) {
            for (SimNetwork.Node n : net.nodes) {
                net.broadcast(n, n + "-" + i);
            }
            net.run(net.random.nextInt(20));
        }
        net.runUntilQuiet();
        assertNoViolations(GroupChecks.atomicBroadcast(net));
        for (SimNetwork.Node n : net.nodes) {
            assertEquals(150, n.sink.count);
            assertEquals(1, n.sink.views.size());
            assertEquals(0, n.engine.undelivered());
        }
        assertEquals(net.nodes.get(0).sink.ordered, net.nodes.get(2).sink.ordered);
    }

    /**
     * A joiner's state install outlives its epoch, and the next epoch it joins, of a history founded apart, has its
     * view entry at the same position (found by reading in a review of 2026-12-06; RELIABILITY.md). A and B found
     * groups apart. A orders one message and takes in J: its view entry is at position 3. J installs A's state, but
     * before that install reports back, J is cut from A and merged with B, whose history is newer (B installed a
     * view of its own after A took J in) and whose next view entry is at position 3 too. J installs B's state. The
     * late report of A's state must not count for B's epoch, or J would deliver A's view in B's group.
     */
    @Test
    void aLateStateInstallOfAnotherHistoryDoesNotCountForALaterEpochAtTheSamePosition() {
        SimNetwork net = new SimNetwork(1, Settings.defaults());
        SimNetwork.Node a = net.add("A");
        SimNetwork.Node b = net.add("B");
        net.partition(List.of(List.of(a), List.of(b)));
        net.runUntilQuiet();
        net.broadcast(a, "a1");
        net.runUntilQuiet();
        SimNetwork.Node j = net.add("J");
        j.partition = a.partition;
        j.sink.holdStateCallbacks = true;
        net.installView(List.of(a, j));
        net.runUntilQuiet();
        assertEquals(1, j.sink.heldStateCallbacks.size(), "J installed A's state; its report waits");
        assertTrue(j.engine.ab.describe().contains("awaitedMarker=3 "), j.engine.ab.describe());
        net.installView(List.of(b)); // B's history now has the newest epoch
        net.runUntilQuiet();
        j.partition = b.partition; // cut from A, merged with B
        net.installView(List.of(a));
        net.installView(List.of(b, j));
        net.runUntilQuiet();
        assertEquals(List.of(b.id, j.id), j.engine.ab.installedView().members(), j.engine.ab.describe());
        assertTrue(j.engine.ab.describe().contains("awaitedMarker=3 "), "the same position: " + j.engine.ab.describe());
        assertEquals(2, j.sink.heldStateCallbacks.size(), "J installed B's state too; both reports wait");
        j.sink.holdStateCallbacks = false;
        j.sink.heldStateCallbacks.forEach(Runnable::run); // A's report first, then B's
        net.runUntilQuiet();
        assertFalse(j.sink.views.stream().anyMatch(v -> v.members().contains(a.id)),
                "J delivered a view of A's history: " + j.sink.views);
        assertEquals(List.of(b.id, j.id), j.sink.views.get(j.sink.views.size() - 1).members(), j.sink.views.toString());
        net.broadcast(b, "b1");
        net.runUntilQuiet();
        assertEquals(List.of("b1"), j.sink.ordered);
        assertEquals(b.sink.hash, j.sink.hash, "J's state is B's");
    }

    /**
     * The chunks of a state can come before the NEW_EPOCH that says which epoch they are for (the provider is not
     * always the coordinator, and JGroups does not order unicasts after multicasts). J joins A (view entry at 3)
     * and gets nothing of A's state; then B, C and J form a view of B's newer history, whose view entry is at 3 too.
     * B's chunks reach J while J still waits for A's state at 3: they must wait for B's epoch, not be taken as A's.
     */
    @Test
    void stateChunksOfAnotherHistoryAtTheSamePositionWaitForTheirEpoch() {
        SimNetwork net = new SimNetwork(1, Settings.defaults());
        SimNetwork.Node a = net.add("A");
        SimNetwork.Node b = net.add("B");
        SimNetwork.Node c = net.add("C");
        net.partition(List.of(List.of(a), List.of(b, c)));
        net.runUntilQuiet();
        net.broadcast(a, "a1");
        net.runUntilQuiet();
        SimNetwork.Node j = net.add("J");
        j.partition = a.partition;
        net.installView(List.of(a, j));
        for (int step = 0; step < 10_000 && !j.engine.ab.describe().contains("awaitedMarker=3 "); step++) {
            net.run(1);
        }
        assertTrue(j.engine.ab.describe().contains("awaitedMarker=3 "), j.engine.ab.describe());
        j.held = true; // A's state never reaches J
        net.runUntilQuiet();
        net.intercept(a, j);
        net.installView(List.of(b, c)); // B's history now has the newest epoch
        net.runUntilQuiet();
        j.partition = b.partition;
        j.held = false;
        net.installView(List.of(a));
        net.installView(List.of(b, c, j));
        net.messagesSent.clear();
        for (int step = 0; step < 10_000 && net.sent(MessageType.NEW_EPOCH, b, j) == 0; step++) {
            net.run(1);
        }
        assertEquals(1, net.sent(MessageType.NEW_EPOCH, b, j), "B announced its epoch to J");
        j.held = true; // J hears nothing more until B and C have delivered the view entry and sent the state
        net.runUntilQuiet();
        List<byte[]> toJ = net.intercept(b, j);
        List<byte[]> reordered = new ArrayList<>();
        toJ.stream().filter(m -> m[0] == MessageType.STATE_CHUNK).forEach(reordered::add);
        assertFalse(reordered.isEmpty(), "B sent its state to J");
        toJ.stream().filter(m -> m[0] != MessageType.STATE_CHUNK).forEach(reordered::add);
        net.release(b, j, reordered); // the chunks first, then the NEW_EPOCH
        j.held = false;
        net.runUntilQuiet();
        assertEquals(List.of(b.id, c.id, j.id), j.engine.ab.installedView().members(), j.engine.ab.describe());
        assertFalse(j.sink.views.stream().anyMatch(v -> v.members().contains(a.id)),
                "J delivered a view of A's history: " + j.sink.views);
        assertEquals(List.of(b.id, c.id, j.id), j.sink.views.get(j.sink.views.size() - 1).members(),
                "J delivered B's view: " + j.sink.views + "; " + j.engine.ab.describe());
        net.broadcast(c, "c1");
        net.runUntilQuiet();
        assertEquals(List.of("c1"), j.sink.ordered, j.engine.ab.describe());
        assertEquals(b.sink.hash, j.sink.hash, "J's state is B's");
    }

    /**
     * With three members, a member other than the coordinator delivers on the coordinator's batch (the two hold a
     * majority) and only the coordinator needs its acknowledgement; the coordinator's batch is its own. So one
     * broadcast costs two ACKs, not six (the coordinator's two and each other member's to both others).
     */
    @Test
    void withThreeMembersOnlyTheCoordinatorHearsAcknowledgements() {
        SimNetwork net = SimNetwork.founded(1, 3);
        SimNetwork.Node a = net.nodes.get(0);
        SimNetwork.Node b = net.nodes.get(1);
        SimNetwork.Node c = net.nodes.get(2);
        net.messagesSent.clear();
        net.broadcast(b, "x");
        net.runUntilQuiet();
        for (SimNetwork.Node n : net.nodes) {
            assertEquals(List.of("x"), n.sink.ordered, n + " delivered it");
        }
        assertEquals(1, net.sent(MessageType.ACK, b, a));
        assertEquals(1, net.sent(MessageType.ACK, c, a));
        assertEquals(2, net.sent(MessageType.ACK), "no other acknowledgement: " + net.messagesSent);
    }

    /** With five, the others need each other's acknowledgements to deliver: they still go to everyone. */
    @Test
    void withFiveMembersAcknowledgementsStillGoToEveryone() {
        SimNetwork net = SimNetwork.founded(1, 5);
        SimNetwork.Node a = net.nodes.get(0);
        net.messagesSent.clear();
        net.broadcast(net.nodes.get(1), "x");
        net.runUntilQuiet();
        for (SimNetwork.Node n : net.nodes) {
            assertEquals(List.of("x"), n.sink.ordered, n + " delivered it");
            for (SimNetwork.Node to : net.nodes) {
                if (n != a && to != n) {
                    assertEquals(1, net.sent(MessageType.ACK, n, to), n + " to " + to);
                }
            }
            assertEquals(0, net.sent(MessageType.ACK, a, n), "the coordinator's batch is its acknowledgement");
        }
    }

    /**
     * Members of three still discard what everyone holds: each tells everyone its acknowledgement every
     * {@link AtomicBroadcast#ACK_GOSSIP_ENTRIES} entries and at each tick (and a member discards as it delivers).
     */
    @Test
    void withThreeMembersWhatEveryoneHoldsIsStillDiscarded() {
        SimNetwork net = SimNetwork.founded(1, 3);
        SimNetwork.Node b = net.nodes.get(1);
        SimNetwork.Node c = net.nodes.get(2);
        int n = 3 * AtomicBroadcast.ACK_GOSSIP_ENTRIES;
        for (int i = 0; i < n; i++) {
            net.broadcast(b, "m" + i);
            net.runUntilQuiet();
        }
        long delivered = c.engine.ab.nextDeliver() - 1;
        assertTrue(c.engine.ab.firstHeld() > delivered - 2 * AtomicBroadcast.ACK_GOSSIP_ENTRIES,
                "C holds from " + c.engine.ab.firstHeld() + " of " + delivered);
        for (SimNetwork.Node m : net.nodes) {
            tick(m);
        }
        net.runUntilQuiet();
        net.broadcast(b, "last"); // a member discards when it delivers
        net.runUntilQuiet();
        for (SimNetwork.Node m : net.nodes) {
            assertTrue(m.engine.ab.firstHeld() > delivered, m + " holds from " + m.engine.ab.firstHeld()
                    + " of " + delivered + " after a tick");
        }
    }

    /**
     * What a member other than the coordinator keeps for the others, and reports when the coordinator leaves, is
     * bounded in bytes too: 200 entries of 16 KB, each delivered before the next is sent and no tick, are 3.2 MB
     * that every member holds; an acknowledgement told to everyone only every 256 entries left all of it in the
     * logs of B and C, and in both their recovery reports to B.
     */
    @Test
    void withThreeMembersWhatEveryoneHoldsIsBoundedInBytesToo() {
        SimNetwork net = SimNetwork.founded(1, 3);
        SimNetwork.Node a = net.nodes.get(0);
        SimNetwork.Node b = net.nodes.get(1);
        SimNetwork.Node c = net.nodes.get(2);
        String padding = "x".repeat(16 * 1024);
        for (int i = 0; i < 200; i++) {
            net.broadcast(i % 2 == 0 ? b : c, "m" + i + padding);
            net.runUntilQuiet();
        }
        for (SimNetwork.Node m : net.nodes) {
            assertEquals(200, m.sink.count, m + " delivered all");
            assertTrue(m.engine.ab.heldBytes() < 3 << 19, m + " holds " + m.engine.ab.heldBytes() + " bytes from "
                    + m.engine.ab.firstHeld() + " of " + (m.engine.ab.nextDeliver() - 1) + " delivered");
        }
        net.bytesSent.clear();
        net.crash(a);
        net.runUntilQuiet();
        long reported = net.bytesSent.getOrDefault(MessageType.RECOVER_STATE, 0L);
        assertTrue(reported < 5 << 19, "recovery reports of " + reported + " bytes for entries B and C both hold");
        net.broadcast(b, "after");
        net.runUntilQuiet();
        assertEquals(201, c.sink.count);
        assertNoViolations(GroupChecks.atomicBroadcast(net));
    }

    @Test
    void membersThatJoinOneByOneReceiveStateAndThenTheStream() {
        SimNetwork net = new SimNetwork(7, Settings.defaults());
        SimNetwork.Node a = net.add("A");
        net.installView(List.of(a));
        net.runUntilQuiet();
        for (int i = 0; i < 20; i++) {
            net.broadcast(a, "a" + i);
        }
        SimNetwork.Node b = net.add("B");
        net.installView(List.of(a, b));
        net.run(30);
        for (int i = 0; i < 20; i++) {
            net.broadcast(a, "a2-" + i);
        }
        net.runUntilQuiet();
        SimNetwork.Node c = net.add("C");
        net.installView(List.of(a, b, c));
        for (int i = 0; i < 20; i++) {
            net.broadcast(b, "b" + i);
            net.run(5);
        }
        net.runUntilQuiet();
        assertNoViolations(GroupChecks.atomicBroadcast(net));
        assertEquals(60, c.sink.count, "C's state covers what was ordered before it joined");
        assertEquals(1, c.sink.statesInstalled);
        assertEquals(1, b.sink.statesInstalled);
    }

    /**
     * The scenario that breaks JGroups' SEQUENCER: A orders, B never hears A, C sends M, A crashes. B and C must
     * still agree.
     */
    @Test
    void sequencerCrashWithALaggingMemberDoesNotDiverge() {
        for (long seed = 0; seed < 200; seed++) {
            SimNetwork net = SimNetwork.founded(seed, 3);
            SimNetwork.Node a = net.nodes.get(0);
            SimNetwork.Node b = net.nodes.get(1);
            SimNetwork.Node c = net.nodes.get(2);
            net.broadcast(a, "m0");
            net.runUntilQuiet();
            b.deafTo.add(a.index); // DISCARD on B: it drops everything A sends
            net.broadcast(c, "M");
            net.run(net.random.nextInt(40));
            net.crash(a);
            net.broadcast(b, "N");
            net.runUntilQuiet();
            List<String> violations = GroupChecks.atomicBroadcast(net);
            long s = seed;
            assertTrue(violations.isEmpty(), () -> "seed " + s + ": " + violations);
            assertEquals(b.sink.ordered, c.sink.ordered, "seed " + seed);
            assertTrue(c.sink.ordered.contains("M") && c.sink.ordered.contains("N"), "seed " + seed);
        }
    }

    @Property(tries = 2000)
    void randomCrashesAndJoinsNeverCauseDivergenceLossOrDuplicates(@ForAll long seed,
            @ForAll @IntRange(min = 3, max = 5) int members, @ForAll @IntRange(min = 1, max = 2) int crashes,
            @ForAll boolean join) {
        SimNetwork net = SimNetwork.founded(seed, members);
        int crashesLeft = Math.min(crashes, (members - 1) / 2); // keep a majority alive
        int joinAt = join ? net.random.nextInt(60) : -1;
        for (int round = 0; round < 60; round++) {
            for (SimNetwork.Node n : net.alive()) {
                if (net.random.nextInt(3) == 0) {
                    net.broadcast(n, n + "-" + round);
                }
            }
            net.run(net.random.nextInt(30));
            if (crashesLeft > 0 && net.random.nextInt(20) == 0) {
                List<SimNetwork.Node> alive = net.alive();
                net.crash(alive.get(net.random.nextInt(alive.size())));
                crashesLeft--;
            }
            if (round == joinAt) {
                SimNetwork.Node joiner = net.add("J" + round);
                List<SimNetwork.Node> view = new ArrayList<>(net.alive());
                net.installView(view);
            }
        }
        net.runUntilQuiet();
        assertNoViolations(GroupChecks.atomicBroadcast(net));
        assertFalse(GroupChecks.correct(net).isEmpty());
    }

    /**
     * Views of two to four members with a crash, up to two joins (a joiner sometimes coordinates, as after a merge)
     * and ticks now and then (a review's probe of the acknowledgements change, which found the bug below).
     */
    @Property(tries = 1000)
    void smallViewsWithCrashesJoinsAndTicksNeverLoseOrDiverge(@ForAll long seed,
            @ForAll @IntRange(min = 2, max = 4) int members, @ForAll @IntRange(min = 0, max = 2) int joins,
            @ForAll boolean ticks) {
        SimNetwork net = SimNetwork.founded(seed, members);
        int crashesLeft = members >= 3 ? 1 : 0;
        int joinsLeft = joins;
        for (int round = 0; round < 60; round++) {
            for (SimNetwork.Node n : net.alive()) {
                if (net.random.nextInt(3) == 0) {
                    net.broadcast(n, n + "-" + round);
                }
            }
            net.run(net.random.nextInt(30));
            if (ticks && net.random.nextInt(4) == 0) {
                for (SimNetwork.Node n : net.alive()) {
                    if (net.random.nextBoolean()) {
                        n.engine.tick(System.nanoTime());
                        n.dirty = true;
                    }
                }
            }
            if (crashesLeft > 0 && net.random.nextInt(15) == 0) {
                List<SimNetwork.Node> alive = net.alive();
                net.crash(alive.get(net.random.nextInt(alive.size())));
                crashesLeft--;
            }
            if (joinsLeft > 0 && net.random.nextInt(20) == 0) {
                net.add("J" + round);
                List<SimNetwork.Node> view = new ArrayList<>(net.alive());
                if (net.random.nextBoolean()) {
                    java.util.Collections.rotate(view, 1); // the joiner coordinates (as after a merge)
                }
                net.installView(view);
                joinsLeft--;
            }
        }
        net.runUntilQuiet();
        assertNoViolations(GroupChecks.atomicBroadcast(net));
        assertFalse(GroupChecks.correct(net).isEmpty());
    }

    /**
     * A DATA of an older epoch that reaches a coordinator late is not ordered: A had dropped C's messages 6 and 7,
     * received while it recovered an epoch it did not coordinate; C's message 8, sent to A under the epoch before,
     * reached A during the recovery of the next, which A coordinated, and A ordered it; C's resends of 6 and 7 then
     * came after it and were dropped as duplicates. C-24 and C-25 were delivered by nobody. (Seed of the review's
     * probe; it depends on the exact message pattern, so the property above carries the general case.)
     */
    @Test
    void aLateDataOfAnOlderEpochIsNotOrderedAheadOfItsSendersResends() {
        smallViewsWithCrashesJoinsAndTicksNeverLoseOrDiverge(-4609657L, 4, 2, false);
    }

    @Property(tries = 2000)
    void randomPartitionsAndHealsKeepOneHistory(@ForAll long seed, @ForAll @IntRange(min = 3, max = 5) int members) {
        SimNetwork net = SimNetwork.founded(seed, members);
        for (int round = 0; round < 60; round++) {
            for (SimNetwork.Node n : net.alive()) {
                if (net.random.nextInt(3) == 0 && !n.sink.blocked) {
                    try {
                        net.broadcast(n, n + "-" + round);
                    } catch (io.polycert.core.group.NotInMajorityException e) {
                        // a minority refuses; fine
                    }
                }
            }
            net.run(net.random.nextInt(30));
            int action = net.random.nextInt(15);
            List<SimNetwork.Node> alive = net.alive();
            if (action == 0) {
                List<SimNetwork.Node> shuffled = new ArrayList<>(alive);
                java.util.Collections.shuffle(shuffled, net.random);
                int cut = 1 + net.random.nextInt(shuffled.size() - 1);
                net.partition(List.of(shuffled.subList(0, cut), shuffled.subList(cut, shuffled.size())));
            } else if (action == 1) {
                net.heal(alive.get(net.random.nextInt(alive.size())));
            }
        }
        net.heal(net.alive().get(0));
        net.runUntilQuiet();
        List<String> violations = new ArrayList<>(net.history.violations);
        List<SimNetwork.Node> correct = GroupChecks.correct(net);
        for (SimNetwork.Node n : correct) {
            if (n.sink.hash != correct.get(0).sink.hash || n.sink.count != correct.get(0).sink.count) {
                violations.add(n + " ended with a different history than " + correct.get(0));
            }
        }
        assertNoViolations(violations);
        assertFalse(correct.isEmpty(), "after the final heal the group is primary again");
    }

    @Test
    void minorityRefusesAndCatchesUpAfterTheHeal() {
        SimNetwork net = SimNetwork.founded(3, 3);
        SimNetwork.Node a = net.nodes.get(0);
        SimNetwork.Node b = net.nodes.get(1);
        SimNetwork.Node c = net.nodes.get(2);
        for (int i = 0; i < 10; i++) {
            net.broadcast(b, "before" + i);
        }
        net.runUntilQuiet();
        net.partition(List.of(List.of(a), List.of(b, c)));
        net.runUntilQuiet();
        assertTrue(a.sink.blocked, "A alone is a minority of {A, B, C}");
        assertThrows(NotInMajorityException.class, () -> a.engine.broadcast("refused".getBytes()));
        for (int i = 0; i < 10; i++) {
            net.broadcast(c, "during" + i);
        }
        net.runUntilQuiet();
        assertEquals(20, b.sink.count);
        assertEquals(10, a.sink.count, "the minority delivered nothing new");
        net.heal(b);
        net.runUntilQuiet();
        assertNoViolations(GroupChecks.atomicBroadcast(net));
        assertEquals(20, a.sink.count, "A caught up");
        assertFalse(a.sink.blocked);
    }

    @Test
    void aMemberAloneOfTwoBlocksButTheGroupResumesWhenTheOtherReturns() {
        SimNetwork net = SimNetwork.founded(5, 2);
        SimNetwork.Node a = net.nodes.get(0);
        SimNetwork.Node b = net.nodes.get(1);
        net.broadcast(a, "x");
        net.runUntilQuiet();
        net.partition(List.of(List.of(a), List.of(b)));
        net.runUntilQuiet();
        assertTrue(a.sink.blocked && b.sink.blocked, "neither half of two is a majority");
        net.heal(a);
        net.runUntilQuiet();
        net.broadcast(b, "y");
        net.runUntilQuiet();
        assertNoViolations(GroupChecks.atomicBroadcast(net));
        assertEquals(List.of("x", "y"), b.sink.ordered);
    }

    @Test
    void aMemberTooFarBehindIsExcludedAndComesBackWithTheState() {
        aLaggardIsExcludedAndComesBack(20, Settings.DEFAULT_MAX_LAG_BYTES, "");
    }

    /** The same bound in bytes: 50 messages of 1 KB, far below the bound in entries, are 50 KB behind. */
    @Test
    void aMemberTooManyBytesBehindIsExcludedAndComesBackWithTheState() {
        aLaggardIsExcludedAndComesBack(Settings.DEFAULT_MAX_LAG, 20_000, "x".repeat(1000));
    }

    private static void aLaggardIsExcludedAndComesBack(int maxLag, long maxLagBytes, String padding) {
        for (long seed = 1; seed <= 10; seed++) {
            SimNetwork net = new SimNetwork(seed, new Settings(1, TotalOrderMulticast.Variant.DECENTRALIZED, 20_000,
                    maxLag, maxLagBytes, Settings.DEFAULT_STALL_NANOS));
            List<SimNetwork.Node> nodes = List.of(net.add("A"), net.add("B"), net.add("C"));
            net.installView(nodes);
            net.runUntilQuiet();
            SimNetwork.Node a = nodes.get(0);
            SimNetwork.Node c = nodes.get(2);
            c.deafTo.add(a.index); // C hears nothing: A and B, a majority, go on without it
            c.deafTo.add(nodes.get(1).index);
            for (int i = 0; i < 50; i++) {
                net.broadcast(a, "m" + i + padding);
                net.run(20);
            }
            net.runUntilQuiet();
            assertEquals(List.of(c.id), net.excludeRequests, "seed " + seed + ": A excluded C once");
            assertEquals(50, a.sink.count, "seed " + seed);
            assertEquals(0, c.sink.count, "seed " + seed);
            c.deafTo.clear();
            net.heal(a);
            net.runUntilQuiet();
            assertTrue(c.sink.statesInstalled > 0, "seed " + seed + ": C came back with the state");
            assertEquals(a.sink.hash, c.sink.hash, "seed " + seed);
            net.broadcast(c, "after");
            net.runUntilQuiet();
            assertEquals(51, c.sink.count, "seed " + seed);
            assertNoViolations(GroupChecks.atomicBroadcast(net));
        }
    }

    /**
     * Flow control: a member that keeps acknowledging, only slower than the others, sets the group's pace. The
     * coordinator holds back what would put it more than a fifth of the lag bound behind, instead of excluding it
     * (a state transfer each time). Without flow control, 40 broadcasts while C is held put it 40 entries behind,
     * past the bound of 20, and it was excluded.
     */
    @Test
    void aSlowMemberThatKeepsAcknowledgingSetsThePaceInsteadOfBeingExcluded() {
        for (long seed = 1; seed <= 10; seed++) {
            SimNetwork net = fortyWhileCIsHeld(seed); // C receives nothing for a while ...
            SimNetwork.Node a = net.nodes.get(0);
            SimNetwork.Node b = net.nodes.get(1);
            SimNetwork.Node c = net.nodes.get(2);
            assertTrue(a.sink.count < 2 + 40, "seed " + seed + ": A held some back for C, delivered " + a.sink.count);
            for (int round = 0; round < 200 && c.sink.count < 42; round++) {
                c.held = false; // ... then catches up at its own pace, acknowledging as it goes
                net.run(40);
                c.held = true;
                net.run(40);
                if (round % 5 == 4) {
                    tick(a);
                }
            }
            c.held = false;
            net.runUntilQuiet();
            assertEquals(List.of(), net.excludeRequests, "seed " + seed + ": nobody excluded");
            assertEquals(42, c.sink.count, "seed " + seed);
            // C has caught up: the next broadcast is ordered at once, not held until a tick notices
            net.broadcast(b, "after");
            net.runUntilQuiet();
            assertEquals(43, c.sink.count, "seed " + seed + ": held back on a budget from before C caught up");
            assertEquals(a.sink.hash, c.sink.hash, "seed " + seed);
            assertEquals(a.sink.hash, b.sink.hash, "seed " + seed);
            assertNoViolations(GroupChecks.atomicBroadcast(net));
        }
    }

    /**
     * A member that stops acknowledging (stopped, or cut off) is not waited for: after a tick period without its
     * acknowledgements the others go on, and the lag bound excludes it; it comes back with the state.
     */
    @Test
    void aMemberThatStopsAcknowledgingIsNotWaitedForAndIsExcluded() {
        for (long seed = 1; seed <= 10; seed++) {
            SimNetwork net = fortyWhileCIsHeld(seed); // and C stays stopped
            SimNetwork.Node a = net.nodes.get(0);
            SimNetwork.Node c = net.nodes.get(2);
            net.runUntilQuiet();
            assertTrue(a.sink.count < 42, "seed " + seed + ": held back while C still counted as progressing");
            tick(a); // C acknowledged nothing since the last tick
            net.runUntilQuiet();
            assertEquals(List.of(c.id), net.excludeRequests, "seed " + seed);
            assertEquals(42, a.sink.count, "seed " + seed);
            c.held = false; // resumed: it merges back and takes the state
            net.heal(a);
            net.runUntilQuiet();
            assertEquals(a.sink.hash, c.sink.hash, "seed " + seed);
            assertNoViolations(GroupChecks.atomicBroadcast(net));
        }
    }

    /**
     * Three founded members (lag bound 20) that each acknowledged something between two ticks of A's; then C
     * receives nothing while A and B broadcast 40 messages.
     */
    private static SimNetwork fortyWhileCIsHeld(long seed) {
        SimNetwork net = new SimNetwork(seed, new Settings(1, TotalOrderMulticast.Variant.DECENTRALIZED, 20_000, 20,
                Settings.DEFAULT_MAX_LAG_BYTES, Settings.DEFAULT_STALL_NANOS));
        List<SimNetwork.Node> nodes = List.of(net.add("A"), net.add("B"), net.add("C"));
        net.installView(nodes);
        net.runUntilQuiet();
        tick(nodes.get(0));
        net.broadcast(nodes.get(0), "first");
        net.runUntilQuiet();
        tick(nodes.get(0));
        net.broadcast(nodes.get(1), "second");
        net.runUntilQuiet();
        tick(nodes.get(0)); // B and C acknowledged since the last tick: both count as progressing
        nodes.get(2).held = true;
        for (int i = 0; i < 40; i++) {
            net.broadcast(nodes.get(i % 2), "m" + i);
            net.run(20);
        }
        return net;
    }

    private static void tick(SimNetwork.Node n) {
        n.engine.tick(System.nanoTime());
        n.engine.flush();
    }

    /**
     * After a member far behind is excluded, each survivor reports to the new coordinator only what a member of
     * the new view may lack, not everything the excluded member lacked: with a long lag, every member sending all
     * of it at once was what exhausted the new coordinator's heap.
     */
    @Test
    void theRecoveryAfterExcludingALaggardCarriesOnlyWhatTheNewViewMayLack() {
        forSeedsOfThree((seed, net, a, b, c) -> {
            c.deafTo.add(a.index); // C falls behind: A and B, a majority, go on without it
            c.deafTo.add(b.index);
            String padding = "x".repeat(1000);
            for (int i = 0; i < 50; i++) {
                net.broadcast(i % 2 == 0 ? a : b, "m" + i + padding);
                net.run(20);
            }
            net.runUntilQuiet();
            assertEquals(50, a.sink.count, "seed " + seed);
            net.bytesSent.clear();
            net.installView(List.of(a, b)); // C excluded
            net.runUntilQuiet();
            long reported = net.bytesSent.getOrDefault(MessageType.RECOVER_STATE, 0L);
            assertTrue(reported < 5_000, "seed " + seed + ": recovery reports of " + reported + " bytes for 50"
                    + " entries of 1 KB that A and B both hold");
            net.broadcast(b, "after");
            c.deafTo.clear();
            net.heal(a);
            net.runUntilQuiet();
            assertEquals(a.sink.hash, c.sink.hash, "seed " + seed + ": C came back with the group's history");
            assertNoViolations(GroupChecks.atomicBroadcast(net));
        });
    }

    /**
     * A member's broadcast that the group delivered while the member was cut off is settled when the member takes
     * the group's state: it is not delivered again, and it no longer counts as in flight. It used to stay pending
     * for good (sent again at every view change, dropped as a duplicate each time) and kept its room in the sender
     * window, which such episodes could fill until every broadcast of the member waited for ever.
     */
    @Test
    void aBroadcastDeliveredWhileItsOriginWasCutOffIsSettledByTheState() {
        forSeedsOfThree((seed, net, a, b, c) -> {
            c.deafTo.add(a.index); // C's broadcast reaches A, but C hears nothing back
            c.deafTo.add(b.index);
            net.broadcast(c, "c1");
            net.runUntilQuiet();
            assertEquals(List.of("c1"), a.sink.ordered, "seed " + seed + ": A and B delivered C's broadcast");
            assertEquals(1, c.engine.undelivered(), "seed " + seed);
            net.installView(List.of(a, b)); // C excluded
            net.runUntilQuiet();
            c.deafTo.clear();
            net.heal(a);
            net.runUntilQuiet();
            assertTrue(c.sink.statesInstalled > 0, "seed " + seed + ": C came back with the state");
            assertEquals(0, c.engine.undelivered(), "seed " + seed + ": C's broadcast is still in flight");
            net.installView(List.of(a, b, c)); // a later view change sends nothing again
            net.runUntilQuiet();
            assertEquals(List.of("c1"), a.sink.ordered, "seed " + seed);
            assertNoViolations(GroupChecks.atomicBroadcast(net));
        });
    }

    /**
     * A coordinator the others excluded while it was stopped wakes up in a view nobody else has: once it has
     * heard no acknowledgement for the stall timeout, it excludes the silent members, finds itself alone (a
     * minority) and comes back when the group heals.
     */
    @Test
    void aCoordinatorLeftInAViewOfItsOwnExcludesTheSilentAndComesBack() {
        forSeedsOfThree((seed, net, a, b, c) -> {
            leaveBehind(net, a, b, c);
            if (seed % 2 == 0) {
                net.reliable(a, "stuck"); // waiting for others to hold a reliable broadcast counts as well
            } else {
                net.broadcast(a, "stuck");
            }
            net.runUntilQuiet();
            assertEquals(1, a.sink.count, "seed " + seed + ": A delivers nothing without acknowledgements");
            a.engine.tick(System.nanoTime()); // not stalled long enough yet
            assertTrue(net.excludeRequests.isEmpty(), "seed " + seed);
            assertStalledCoordinatorComesBack(seed, net, a, b, c);
        });
    }

    /**
     * The same, when the stale coordinator's own view changed after it woke up (its failure detection suspected a
     * member): it recovers a view the others never installed, asks them for their state and waits in recovery,
     * where nobody answers. After the stall timeout without a word from anyone it excludes them there too.
     */
    @Test
    void aCoordinatorWaitingInRecoveryForMembersThatIgnoreItExcludesThemAndComesBack() {
        forSeedsOfThree((seed, net, a, b, c) -> {
            leaveBehind(net, a, b, c);
            net.installViewOnlyAt(a, List.of(a, b, c)); // A's own view changed: it recovers, and nobody answers
            net.runUntilQuiet();
            assertEquals(AtomicBroadcast.Mode.RECOVERING, a.engine.ab.mode(), "seed " + seed);
            a.engine.tick(System.nanoTime());
            assertStalledCoordinatorComesBack(seed, net, a, b, c);
        });
    }

    /**
     * A coordinator left behind, silent for longer than the stall timeout, coordinates the view that merges it back.
     * Its silence clock starts again with that view: it does not exclude the others because their answers take
     * a while (in seed 103 it asked GMS to exclude all four 250 ms after sending its request).
     */
    @Test
    void aCoordinatorMergedBackAfterALongSilenceGivesItsNewViewTime() {
        forSeedsOfThree((seed, net, a, b, c) -> {
            leaveBehind(net, a, b, c);
            net.runUntilQuiet();
            long silentSince = System.nanoTime();
            a.engine.tick(silentSince);
            b.held = true;
            c.held = true;
            net.heal(a); // A coordinates the merged view
            net.runUntilQuiet();
            assertEquals(AtomicBroadcast.Mode.RECOVERING, a.engine.ab.mode(), "seed " + seed);
            a.engine.tick(silentSince + Settings.DEFAULT_STALL_NANOS + 1);
            net.runUntilQuiet();
            assertEquals(List.of(), net.excludeRequests, "seed " + seed + ": A's request has only just gone out");
            b.held = false;
            c.held = false;
            net.runUntilQuiet();
            assertMergedBack(seed, net, a, b);
        });
    }

    /** A left behind is back in one view of all three, with B's history. */
    private static void assertMergedBack(long seed, SimNetwork net, SimNetwork.Node a, SimNetwork.Node b) {
        assertEquals(AtomicBroadcast.Mode.NORMAL, a.engine.ab.mode(), "seed " + seed);
        assertEquals(3, a.engine.ab.installedView().members().size(), "seed " + seed);
        assertEquals(b.sink.hash, a.sink.hash, "seed " + seed + ": A has the group's history");
        assertNoViolations(GroupChecks.atomicBroadcast(net));
    }

    /** B and C exclude their coordinator A, which does not notice, and go on. */
    private static void leaveBehind(SimNetwork net, SimNetwork.Node a, SimNetwork.Node b, SimNetwork.Node c) {
        net.broadcast(a, "before");
        net.runUntilQuiet();
        net.installView(List.of(b, c));
        net.runUntilQuiet();
        net.broadcast(b, "without-a");
    }

    /** A, left behind, stalls for the stall timeout: it excludes B and C, blocks, and comes back at the heal. */
    private static void assertStalledCoordinatorComesBack(long seed, SimNetwork net, SimNetwork.Node a,
            SimNetwork.Node b, SimNetwork.Node c) {
        a.engine.tick(System.nanoTime() + Settings.DEFAULT_STALL_NANOS + 1);
        net.runUntilQuiet();
        assertEquals(List.of(b.id, c.id), net.excludeRequests, "seed " + seed);
        assertTrue(a.sink.blocked, "seed " + seed + ": A alone is a minority");
        net.heal(b);
        net.runUntilQuiet();
        assertFalse(a.sink.blocked, "seed " + seed);
        assertEquals(b.sink.hash, a.sink.hash, "seed " + seed + ": A has the group's history");
        assertNoViolations(GroupChecks.atomicBroadcast(net));
    }

    /** A scenario on three founded members A, B and C (A coordinates), for seeds 1 to 10. */
    private interface ThreeMembers {
        void run(long seed, SimNetwork net, SimNetwork.Node a, SimNetwork.Node b, SimNetwork.Node c);
    }

    private static void forSeedsOfThree(ThreeMembers scenario) {
        for (long seed = 1; seed <= 10; seed++) {
            SimNetwork net = SimNetwork.founded(seed, 3);
            scenario.run(seed, net, net.nodes.get(0), net.nodes.get(1), net.nodes.get(2));
        }
    }

    @Test
    void malformedMessagesAreDroppedAndCounted() {
        SimNetwork net = SimNetwork.founded(9, 3);
        SimNetwork.Node a = net.nodes.get(0);
        java.util.Random r = new java.util.Random(42);
        for (int i = 0; i < 10_000; i++) {
            byte[] junk = new byte[r.nextInt(64)];
            r.nextBytes(junk);
            a.engine.onMessage(net.nodes.get(1).id, junk);
        }
        net.broadcast(a, "still-works");
        net.runUntilQuiet();
        assertTrue(a.engine.dropped() > 9_000, "dropped " + a.engine.dropped());
        assertNoViolations(GroupChecks.atomicBroadcast(net));
        assertTrue(net.nodes.get(2).sink.ordered.contains("still-works"));
    }
}
