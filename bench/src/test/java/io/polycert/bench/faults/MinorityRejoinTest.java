package io.polycert.bench.faults;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.AbortCause;
import io.polycert.core.Transaction;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.VBox;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import io.polycert.gcs.GroupStack;
import io.polycert.gcs.JGroupsGroup;
import io.polycert.kvstore.Replica;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.jgroups.protocols.DISCARD;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The reduced reproduction of what the fault campaign found with partition schedules (e.g. seed 12): a replica
 * cut off into a minority view never got back. When the partition healed, the group treated it as a joiner and
 * sent it its state, but installing a state needed an STM that had committed nothing, so the replica stayed in its
 * minority view for good. Now the group's state is installed over the replica's own (a prefix of it: a minority
 * commits nothing) and the replica commits again; transactions running on it keep their snapshots.
 */
class MinorityRejoinTest {
    private final List<Replica> replicas = new ArrayList<>();

    @AfterEach
    void close() {
        for (int i = replicas.size() - 1; i >= 0; i--) {
            replicas.get(i).close();
        }
    }

    private static DISCARD discard(Replica r) {
        return ((JGroupsGroup) r.group()).discard();
    }

    private static org.jgroups.Address address(Replica r) {
        return new org.jgroups.util.UUID(r.self().high(), r.self().low());
    }

    private static void await(String what, BooleanSupplier condition, long ms) throws InterruptedException {
        long deadline = System.nanoTime() + ms * 1_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    private void cutOff(Replica c, Replica a, Replica b) throws InterruptedException {
        discard(c).addIgnoreMember(address(a)).addIgnoreMember(address(b));
        discard(a).addIgnoreMember(address(c));
        discard(b).addIgnoreMember(address(c));
        await("C in a minority view, A and B without it",
                () -> !c.view().primary() && a.view().size() == 2 && b.view().size() == 2, 20_000);
    }

    private void heal() {
        for (Replica r : replicas) {
            discard(r).resetIgnoredMembers();
        }
    }

    @Test
    void aReplicaCutOffIntoAMinorityRejoinsWhenThePartitionHeals() throws Exception {
        String cluster = "minority-" + UUID.randomUUID();
        GroupStack stack = GroupStack.embedded().failureDetection(Duration.ofMillis(1000)).faultInjection();
        Replica a = Replica.builder(cluster).memberName("A").stack(stack).minimumMembers(1).start();
        replicas.add(a);
        Replica b = Replica.builder(cluster).memberName("B").stack(stack).minimumMembers(2).start();
        replicas.add(b);
        Replica c = Replica.builder(cluster).memberName("C").stack(stack).minimumMembers(2).start();
        replicas.add(c);
        VBox<Long> x = a.root("x");
        a.stm().atomic(() -> x.put(1L));
        c.stm().atomic(() -> c.<Long>root("y").put(1L));
        await("C applied both", () -> c.stm().latestVersion() == 2 && a.stm().latestVersion() == 2, 10_000);

        // Round 1: the majority commits while C is away; a read-only transaction on C spans the install.
        cutOff(c, a, b);
        TransactionAbortedException refused = assertThrows(TransactionAbortedException.class,
                () -> c.stm().atomic(() -> c.<Long>root("y").put(9L)));
        assertEquals(AbortCause.NOT_IN_MAJORITY, refused.abortCause());
        a.stm().atomic(() -> x.put(2L)); // the majority goes on
        Transaction reader = c.stm().beginReadOnly();
        heal();
        await("C back in the primary view with the others' state", () -> c.view().primary() && c.view().size() == 3
                && c.stm().latestVersion() == a.stm().latestVersion(), 30_000);
        assertEquals(1L, c.<Long>root("x").get(), "the reader keeps its snapshot across the install");
        reader.commit();
        assertEquals(2L, c.stm().readOnly(() -> c.<Long>root("x").get()));
        assertDoesNotThrow(() -> c.stm().atomic(() -> c.<Long>root("y").put(2L)), "C commits again");
        await("A sees C's commit", () -> Long.valueOf(2L).equals(a.stm().readOnly(() -> a.<Long>root("y").get())),
                10_000);

        // Round 2: nothing commits while C is away, so there is no newer state to install.
        long version = a.stm().latestVersion();
        cutOff(c, a, b);
        heal();
        await("C back again", () -> c.view().primary() && c.view().size() == 3, 30_000);
        assertEquals(version, c.stm().latestVersion());
        assertDoesNotThrow(() -> c.stm().atomic(() -> c.<Long>root("y").put(3L)), "C commits again");
        await("B sees it", () -> Long.valueOf(3L).equals(b.stm().readOnly(() -> b.<Long>root("y").get())), 10_000);
        assertTrue(a.view().primary());
    }

    /**
     * The same under load, with every commit certified by voting (VC): the votes go by reliable broadcast, which
     * is not ordered with the state transfer, so a replica coming back must still learn every vote its queue waits
     * for. Found by the fault campaign's pause schedules (seeds 102, 103): a resumed member stayed behind for good.
     */
    @Test
    void aReplicaCutOffUnderVotingLoadCatchesUpWhenThePartitionHeals() throws Exception {
        String cluster = "minority-vc-" + UUID.randomUUID();
        GroupStack stack = GroupStack.embedded().failureDetection(Duration.ofMillis(1000)).faultInjection();
        for (String name : List.of("A", "B", "C")) {
            replicas.add(Replica.builder(cluster).memberName(name).stack(stack).minimumMembers(name.equals("A") ? 1 : 2)
                    .oracle(ProtocolOracle.always(Protocol.VC)).start());
        }
        Replica a = replicas.get(0);
        Replica b = replicas.get(1);
        Replica c = replicas.get(2);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        List<Thread> load = new ArrayList<>();
        for (Replica r : replicas) {
            for (int t = 0; t < 2; t++) {
                String key = r.self().name() + t;
                Thread thread = new Thread(() -> {
                    while (!stop.get()) {
                        try {
                            r.stm().atomic(() -> r.<Long>root(key).put(System.nanoTime()));
                        } catch (RuntimeException e) {
                            // refused in a minority, or aborted: go on
                        }
                    }
                });
                thread.start();
                load.add(thread);
            }
        }
        try {
            Thread.sleep(500);
            for (int round = 0; round < 3; round++) {
                cutOff(c, a, b);
                Thread.sleep(500);
                heal();
                await("C back", () -> c.view().primary() && c.view().size() == 3, 30_000);
                Thread.sleep(500);
            }
        } finally {
            stop.set(true);
            for (Thread t : load) {
                t.join(10_000);
            }
        }
        await("C applied all the others did", () -> c.stm().latestVersion() == a.stm().latestVersion()
                && b.stm().latestVersion() == a.stm().latestVersion(), 20_000);
    }

    @Test
    void theCoordinatorCutOffRejoinsWhenThePartitionHeals() throws Exception {
        String cluster = "minority-coord-" + UUID.randomUUID();
        GroupStack stack = GroupStack.embedded().failureDetection(Duration.ofMillis(1000)).faultInjection();
        for (String name : List.of("A", "B", "C")) {
            replicas.add(Replica.builder(cluster).memberName(name).stack(stack).minimumMembers(name.equals("A") ? 1 : 2)
                    .start());
        }
        Replica a = replicas.get(0);
        Replica b = replicas.get(1);
        Replica c = replicas.get(2);
        a.stm().atomic(() -> a.<Long>root("x").put(1L));
        await("all applied", () -> c.stm().latestVersion() == 1 && b.stm().latestVersion() == 1, 10_000);
        for (int round = 0; round < 2; round++) {
            cutOff(a, b, c);
            long round2 = round + 2;
            b.stm().atomic(() -> b.<Long>root("x").put(round2));
            heal();
            await("A back", () -> a.view().primary() && a.view().size() == 3 && b.view().size() == 3, 30_000);
            await("A caught up", () -> a.stm().latestVersion() == b.stm().latestVersion(), 10_000);
            assertDoesNotThrow(() -> a.stm().atomic(() -> a.<Long>root("y").put(round2)), "A commits again");
        }
    }
}
