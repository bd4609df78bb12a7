package io.polycert.gcs;

import io.polycert.core.testing.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.group.NotInMajorityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.jgroups.Address;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The group layer over real JGroups (in-JVM members over SHARED_LOOPBACK), including fault injection. */
class JGroupsGroupTest {
    private final List<RecordingMember> members = new ArrayList<>();
    private final String cluster = "test-" + UUID.randomUUID();

    @AfterEach
    void leave() {
        RecordingMember.closeAll(members);
    }

    private RecordingMember join(String name, GroupStack stack) {
        RecordingMember m = RecordingMember.join(cluster, name, stack);
        members.add(m);
        return m;
    }

    private static GroupStack stack() {
        return GroupStack.embedded().failureDetection(Duration.ofMillis(1500)).faultInjection();
    }


    static void assertSameHistory(List<RecordingMember> group) {
        RecordingMember first = group.get(0);
        Await.until("identical histories " + group, () -> group.stream().allMatch(m -> m.count == first.count
                && m.hash == first.hash));
        for (RecordingMember m : group) {
            assertTrue(m.problems.isEmpty(), m.problems.toString());
        }
    }

    private static Address address(RecordingMember m) {
        return m.group.channel().getAddress();
    }

    @Test
    void concurrentSendersDeliverIdenticalSequences() throws Exception {
        RecordingMember a = join("A", stack());
        RecordingMember b = join("B", stack());
        RecordingMember c = join("C", stack());
        List<Thread> senders = new ArrayList<>();
        for (RecordingMember m : List.of(a, b, c)) {
            for (int t = 0; t < 2; t++) {
                int thread = t;
                Thread s = new Thread(() -> {
                    for (int i = 0; i < 2000; i++) {
                        m.broadcast(m.name + thread + "-" + i);
                    }
                });
                senders.add(s);
                s.start();
            }
        }
        for (Thread s : senders) {
            s.join();
        }
        Await.until("all 12000 delivered", () -> c.count == 12_000 && a.count == 12_000 && b.count == 12_000);
        assertSameHistory(List.of(a, b, c));
        assertEquals(a.ordered, b.ordered);
        assertEquals(12_000, new HashSet<>(a.ordered).size(), "no duplicates");
        assertTrue(a.group.statistics().meanSelfDeliveryNanos() > 0);
    }

    @Test
    void aMemberJoiningUnderLoadGetsStateThenTheStream() throws Exception {
        RecordingMember a = join("A", stack());
        RecordingMember b = join("B", stack());
        Thread sender = new Thread(() -> {
            for (int i = 0; i < 3000; i++) {
                a.broadcast("a-" + i);
                if (i % 500 == 0) {
                    sleep(20);
                }
            }
        });
        sender.start();
        sleep(100);
        RecordingMember c = join("C", stack());
        sender.join();
        Await.until("everything delivered", () -> a.count == 3000 && b.count == 3000 && c.count == 3000);
        assertSameHistory(List.of(a, b, c));
        assertTrue(c.ordered.size() < 3000, "C took part of the history as state: " + c.ordered.size());
    }

    /**
     * The scenario JGroups' SEQUENCER fails: A sequences, B drops everything from A, C sends M, A crashes. B and C
     * must end with the same history (and M in it).
     */
    @Test
    void sequencerCrashWhileAMemberLagsLeavesSurvivorsInAgreement() throws Exception {
        RecordingMember a = join("A", stack());
        RecordingMember b = join("B", stack());
        RecordingMember c = join("C", stack());
        a.broadcast("m0");
        Await.until("m0", () -> b.count == 1 && c.count == 1);
        b.group.discard().addIgnoreMember(address(a));
        c.broadcast("M");
        Await.until("C delivers M", () -> c.count == 2);
        a.group.discard().discardAll(true); // A falls silent: a crash as the others see it
        b.group.discard().resetIgnoredMembers();
        Await.until("view without A", () -> b.views.size() > 0 && b.views.get(b.views.size() - 1).size() == 2
                && c.views.get(c.views.size() - 1).size() == 2);
        b.broadcast("N");
        Await.until("N", () -> b.ordered.contains("N") && c.ordered.contains("N"));
        assertSameHistory(List.of(b, c));
        assertEquals(List.of("m0", "M", "N"), b.ordered);
        assertEquals(b.ordered, c.ordered);
    }

    @Test
    void randomCrashesAtRandomPointsNeverDiverge() throws Exception {
        for (long seed = 1; seed <= 3; seed++) {
            Random random = new Random(seed);
            String run = cluster + "-" + seed;
            List<RecordingMember> group = new ArrayList<>();
            for (String n : List.of("A", "B", "C", "D")) {
                RecordingMember m = RecordingMember.join(run, n, stack());
                group.add(m);
                members.add(m);
            }
            RecordingMember victim = group.get(random.nextInt(group.size()));
            int crashAt = random.nextInt(300);
            List<Thread> senders = new ArrayList<>();
            for (RecordingMember m : group) {
                Thread s = new Thread(() -> {
                    for (int i = 0; i < 300; i++) {
                        if (m == victim && i == crashAt) {
                            m.group.discard().discardAll(true);
                            return;
                        }
                        try {
                            m.broadcast(m.name + "-" + i);
                        } catch (RuntimeException e) {
                            return;
                        }
                    }
                });
                senders.add(s);
                s.start();
            }
            for (Thread s : senders) {
                s.join();
            }
            List<RecordingMember> survivors = new ArrayList<>(group);
            survivors.remove(victim);
            Await.until("survivors exclude " + victim.name, () -> survivors.stream().allMatch(
                    m -> m.views.get(m.views.size() - 1).size() == 3));
            for (RecordingMember m : survivors) {
                m.broadcast("after-" + m.name);
            }
            Await.until("post-crash messages", () -> survivors.stream().allMatch(m -> m.orderedSoFar().stream()
                    .filter(s -> s.startsWith("after-")).count() == 3));
            assertSameHistory(survivors);
            long expected = 3 * 300 + 3;
            assertTrue(survivors.get(0).count >= expected, "survivors lost messages: " + survivors);
            victim.close();
        }
    }

    @Test
    void minorityRefusesAndCatchesUpAfterThePartitionHeals() throws Exception {
        RecordingMember a = join("A", stack());
        RecordingMember b = join("B", stack());
        RecordingMember c = join("C", stack());
        a.broadcast("before");
        Await.until("before", () -> a.count == 1 && b.count == 1 && c.count == 1);
        a.group.discard().addIgnoreMember(address(b)).addIgnoreMember(address(c));
        b.group.discard().addIgnoreMember(address(a));
        c.group.discard().addIgnoreMember(address(a));
        Await.until("A in a minority", () -> a.blocked);
        assertThrows(NotInMajorityException.class, () -> a.broadcast("refused"));
        Await.until("B and C primary without A", () -> b.views.get(b.views.size() - 1).size() == 2);
        for (int i = 0; i < 50; i++) {
            b.broadcast("during-" + i);
        }
        Await.until("B and C continue", () -> b.count == 51 && c.count == 51);
        assertEquals(1, a.count, "the minority delivered nothing");
        for (RecordingMember m : List.of(a, b, c)) {
            m.group.discard().resetIgnoredMembers();
        }
        Await.until("merged", () -> !a.blocked && a.count == 51);
        a.broadcast("after");
        Await.until("after", () -> b.count == 52 && c.count == 52 && a.count == 52);
        assertSameHistory(List.of(a, b, c));
    }

    /** What the coordinator does with a member too far behind: GMS excludes it, and it merges back. */
    @Test
    void aMemberExcludedByTheCoordinatorComesBackThroughAMerge() throws Exception {
        RecordingMember a = join("A", stack());
        RecordingMember b = join("B", stack());
        RecordingMember c = join("C", stack());
        a.broadcast("before");
        Await.until("before", () -> a.count == 1 && b.count == 1 && c.count == 1);
        a.group.engine().transport.exclude(c.group.self());
        Await.until("A and B without C", () -> b.views.get(b.views.size() - 1).size() == 2);
        for (int i = 0; i < 20; i++) {
            b.broadcast("during-" + i);
        }
        Await.until("C back and caught up", () -> c.count == 21 && c.views.get(c.views.size() - 1).size() == 3
                && !c.blocked);
        c.broadcast("after");
        Await.until("after", () -> a.count == 22 && b.count == 22 && c.count == 22);
        assertSameHistory(List.of(a, b, c));
    }

    @Test
    void multicastDeliversInOneOrderToItsDestinationsOnly() throws Exception {
        for (TomVariant variant : TomVariant.values()) {
            String run = cluster + "-" + variant;
            List<RecordingMember> group = new ArrayList<>();
            for (String n : List.of("A", "B", "C", "D")) {
                RecordingMember m = RecordingMember.join(run, n, stack(), variant);
                group.add(m);
                members.add(m);
            }
            // join() returns once the joiner is in; the others install that view at their own pace
            Await.until("everyone sees four members", () -> group.stream().allMatch(m -> m.group.view().size() == 4));
            Random random = new Random(variant.ordinal());
            java.util.Map<String, List<io.polycert.core.group.MemberId>> sent = new java.util.HashMap<>();
            for (int i = 0; i < 400; i++) {
                RecordingMember from = group.get(random.nextInt(4));
                List<io.polycert.core.group.MemberId> dests = new ArrayList<>();
                for (RecordingMember d : group) {
                    if (random.nextBoolean()) {
                        dests.add(d.id());
                    }
                }
                if (dests.isEmpty()) {
                    dests.add(from.id());
                }
                String p = from.name + "-" + i;
                sent.put(p, dests);
                from.group.multicast(dests, p.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            Await.until("all multicasts delivered", () -> group.stream().allMatch(m -> m.multicast.size()
                    == sent.values().stream().filter(d -> d.contains(m.id())).count()));
            for (RecordingMember m : group) {
                for (String s : m.multicast) {
                    assertTrue(sent.get(s).contains(m.id()), m.name + " got " + s + " meant for " + sent.get(s));
                }
            }
            for (RecordingMember x : group) {
                for (RecordingMember y : group) {
                    List<String> common = new ArrayList<>(x.multicast);
                    common.retainAll(y.multicast);
                    List<String> inY = new ArrayList<>(y.multicast);
                    inY.retainAll(x.multicast);
                    assertEquals(common, inY, variant + ": " + x.name + " and " + y.name + " disagree on order");
                }
            }
        }
    }

    @Test
    void reliableBroadcastReachesEveryone() throws Exception {
        RecordingMember a = join("A", stack());
        RecordingMember b = join("B", stack());
        RecordingMember c = join("C", stack());
        for (int i = 0; i < 200; i++) {
            b.group.reliableBroadcast(("r" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        Await.until("reliable delivered", () -> a.reliable.size() == 200 && b.reliable.size() == 200
                && c.reliable.size() == 200);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
