package io.polycert.bench.stmbench7;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.bench.workload.Workload;
import io.polycert.core.TransactionAbortedException;
import io.polycert.gcs.GroupStack;
import io.polycert.kvstore.Replica;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** STMBench7 on the small preset: populate, every operation, invariants, and agreement of three replicas. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class Stmbench7WorkloadTest {
    private final List<Replica> replicas = new ArrayList<>();

    @AfterEach
    void closeReplicas() {
        for (int i = replicas.size() - 1; i >= 0; i--) {
            replicas.get(i).close();
        }
    }

    private Replica start(String cluster, Workload w, String name) {
        Replica r = Replica.builder(cluster).memberName(name).stack(GroupStack.embedded()).codec(w.codec()).start();
        replicas.add(r);
        return r;
    }

    private Replica single(Workload w) {
        return start("sb7-" + UUID.randomUUID(), w, "solo");
    }

    private static Stmbench7Workload small(Sb7Mix mix) {
        return new Stmbench7Workload(Sb7Parameters.small(), mix, true, true);
    }

    private static void awaitVersion(Replica r, long version) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (r.stm().latestVersion() < version) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(r + " is at version " + r.stm().latestVersion() + ", not " + version);
            }
            Thread.sleep(5);
        }
    }

    /** {complex assemblies, base assemblies, composite parts} alive at {@code r}. */
    private static int[] counts(Replica r, Sb7Parameters p) {
        Structure s = Structure.attach(r, p);
        return r.stm().readOnly(() -> new int[] {
            Structure.live(s.freeComplexIds, p.maxComplexAssemblies()),
            Structure.live(s.freeBaseIds, p.maxBaseAssemblies()),
            Structure.live(s.freeCompositeIds, p.maxCompParts())});
    }

    // ---- parameters and mixes ----------------------------------------------------------------------------

    @Test
    void presetsHaveTheOriginalSizes() {
        Sb7Parameters full = Sb7Parameters.full();
        assertEquals(729, full.initialBaseAssemblies());
        assertEquals(364, full.initialComplexAssemblies());
        assertEquals(525, full.maxCompParts());
        assertEquals(105_000, full.maxAtomicParts());
        assertEquals("full", full.presetName());
        assertEquals("small", Sb7Parameters.small().withSeed(99).presetName());
        assertEquals("custom", new Sb7Parameters(3, 2, 1, 5, 4, 1, 10, 10, 1).presetName());
        Sb7Parameters small = Sb7Parameters.small();
        assertEquals(27, small.initialBaseAssemblies());
        assertEquals(13, small.initialComplexAssemblies());
        assertEquals(1 + 3 + 9, small.complexAssembliesAtLevel(4));
        assertEquals(27, small.baseAssembliesAtLevel(4));
        assertEquals(3, small.baseAssembliesAtLevel(2));
    }

    @Test
    void badParametersAreRefusedWithClearMessages() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Sb7Parameters(1, 3, 3, 30, 20, 3, 100, 100, 1));
        assertTrue(e.getMessage().contains("numAssmLevels"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new Sb7Parameters(4, 0, 3, 30, 20, 3, 100, 100, 1));
        assertTrue(e.getMessage().contains("numAssmPerAssm"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new Sb7Parameters(4, 3, 3, 30, 0, 3, 100, 100, 1));
        assertTrue(e.getMessage().contains("numAtomicPerComp"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new Sb7Parameters(4, 3, 3, 30, 20, -1, 100, 100, 1));
        assertTrue(e.getMessage().contains("numConnPerAtomic"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> new Sb7Parameters(4, 3, 3, 30, 20, 3, 100, 5_000_000, 1));
        assertTrue(e.getMessage().contains("manualSize"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new Sb7Parameters(20, 10, 3, 30, 20, 3, 100, 100, 1));
        assertTrue(e.getMessage().contains("base assemblies"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Sb7Parameters.preset("huge"));
        assertTrue(e.getMessage().contains("full, small"), e.getMessage());
    }

    @Test
    void mixesByNameAndTheOriginalWeights() {
        assertEquals(Sb7Mix.READ_DOMINATED, Sb7Mix.fromName("read-dominated"));
        assertEquals(Sb7Mix.READ_WRITE, Sb7Mix.fromName("read-write"));
        assertEquals(Sb7Mix.WRITE_DOMINATED, Sb7Mix.fromName("write-dominated"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Sb7Mix.fromName("mostly"));
        assertTrue(e.getMessage().contains("read-dominated, read-write, write-dominated"), e.getMessage());

        Map<String, List<String>> byCategory = Stmbench7Workload.operationNamesByCategory();
        assertEquals(List.of("long traversals", "short traversals", "operations", "structure modifications"),
                List.copyOf(byCategory.keySet()));
        assertEquals(12, byCategory.get("long traversals").size());
        assertEquals(10, byCategory.get("short traversals").size());
        assertEquals(15, byCategory.get("operations").size());
        assertEquals(8, byCategory.get("structure modifications").size());
        Set<String> readOnly = Stmbench7Workload.readOnlyOperationNames();
        assertEquals(Set.of("T1", "T4", "T6", "Q6", "Q7", "ST1", "ST2", "ST3", "ST4", "ST5", "ST9", "OP1", "OP2",
                "OP3", "OP4", "OP5", "OP6", "OP7", "OP8"), readOnly);

        for (Sb7Mix mix : Sb7Mix.values()) {
            for (boolean lt : new boolean[] {false, true}) {
                for (boolean sm : new boolean[] {false, true}) {
                    Stmbench7Workload w = new Stmbench7Workload(Sb7Parameters.small(), mix, lt, sm);
                    double total = 0;
                    double ro = 0;
                    for (List<String> names : byCategory.values()) {
                        for (String n : names) {
                            double pr = w.probabilityOf(n);
                            total += pr;
                            ro += readOnly.contains(n) ? pr : 0;
                            if (n.startsWith("T") || n.startsWith("Q")) {
                                assertEquals(lt, pr > 0, n);
                            } else if (n.startsWith("SM")) {
                                assertEquals(sm, pr > 0, n);
                            } else {
                                assertTrue(pr > 0, n);
                            }
                        }
                    }
                    assertEquals(1.0, total, 1e-9);
                    // the original's formula: read-only operations get their share of all but the SMs
                    double nonSm = (lt ? 5 : 0) + 40 + 45;
                    double expectedRo = nonSm * mix.readOnlyPercent() / 100.0
                            / (nonSm + (sm ? 10 * (100 - mix.readOnlyPercent()) / 100.0 : 0));
                    assertEquals(expectedRo, ro, 1e-9);
                }
            }
        }
        // within a category and kind, operations are equally likely (e.g. the 5 read-only short traversals)
        Stmbench7Workload rw = small(Sb7Mix.READ_WRITE);
        assertEquals(rw.probabilityOf("ST1"), rw.probabilityOf("ST9"), 1e-12);
        assertEquals(rw.probabilityOf("SM1"), rw.probabilityOf("SM8"), 1e-12);
    }

    @Test
    void workloadFromSettings() {
        Stmbench7Workload w = Stmbench7Workload.fromParameters(Map.of("preset", "small", "mix", "write-dominated",
                "long", "false", "sm", "true"));
        assertEquals(Map.of("preset", "small", "mix", "write-dominated", "longTraversals", "false",
                "structureModifications", "true", "seed", "7"), w.parameters());
        assertEquals(w.parameters(), Stmbench7Workload.fromParameters(w.parameters()).parameters());
        assertEquals("stmbench7", w.name());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Stmbench7Workload.fromParameters(Map.of("colour", "blue")));
        assertTrue(e.getMessage().contains("colour"), e.getMessage());
    }

    // ---- populate and check ------------------------------------------------------------------------------

    @Test
    void smallPresetBuildsDeterministicallyFromItsSeed() {
        Stmbench7Workload w = small(Sb7Mix.READ_WRITE);
        Replica a = single(w);
        assertThrows(IllegalStateException.class, () -> w.client(a, 1), "not populated yet");
        w.populate(a);
        long digest = w.check(a);
        assertEquals(digest, w.check(a));
        Sb7Parameters p = Sb7Parameters.small();
        assertEquals(List.of(13, 27, 30), List.of(counts(a, p)[0], counts(a, p)[1], counts(a, p)[2]));
        assertThrows(IllegalStateException.class, () -> w.populate(a), "populated twice");

        Replica b = single(w);
        w.populate(b);
        assertEquals(digest, w.check(b), "same seed, same structure");

        Stmbench7Workload other = new Stmbench7Workload(p.withSeed(8), Sb7Mix.READ_WRITE, true, true);
        Replica c = single(other);
        other.populate(c);
        assertNotEquals(digest, other.check(c), "another seed, another structure");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> w.check(c));
        assertTrue(e.getMessage().contains("populated with parameters"), e.getMessage());
    }

    @Test
    void everyOperationRunsAndKeepsTheInvariants() {
        Stmbench7Workload w = small(Sb7Mix.READ_WRITE);
        Replica r = single(w);
        w.populate(r);
        Stmbench7Workload.Sb7Client client = (Stmbench7Workload.Sb7Client) w.client(r, 11);
        long initial = w.check(r);

        // read-only operations change nothing
        for (String op : Stmbench7Workload.readOnlyOperationNames()) {
            for (int i = 0; i < 5; i++) {
                client.run(op);
            }
        }
        assertEquals(initial, w.check(r), "read-only operations");
        assertTrue(client.run("T1") > 0 && client.run("Q7") == 30 * 20, "T1 and Q7 visit atomic parts");

        // self-inverse updates: once changes the state, twice restores it
        for (String op : List.of("T2b", "T5", "OP11")) {
            client.run(op);
            long once = w.check(r);
            assertNotEquals(initial, once, op + " changed nothing");
            client.run(op);
            assertEquals(initial, w.check(r), op + " twice");
        }

        // SM1 creates the one composite part the pool has room for (30 * 1.05 = 31), then finds no id
        Sb7Parameters p = Sb7Parameters.small();
        assertEquals(1, client.run("SM1"));
        assertEquals(31, counts(r, p)[2]);
        assertEquals(0, client.run("SM1"));
        assertEquals(31, counts(r, p)[2]);
        w.check(r);

        // every operation, several times each, with the invariants checked after each kind
        for (List<String> names : Stmbench7Workload.operationNamesByCategory().values()) {
            for (String op : names) {
                for (int i = 0; i < 8; i++) {
                    client.run(op);
                }
                w.check(r);
            }
        }
        // structure modifications stay within their bounds, whatever they meet
        for (int i = 0; i < 300; i++) {
            client.run("SM" + (1 + i % 8));
        }
        w.check(r);
        int[] c = counts(r, p);
        assertTrue(c[0] >= p.minComplexAssemblies() && c[0] <= p.maxComplexAssemblies(), "complex " + c[0]);
        assertTrue(c[1] >= p.minBaseAssemblies() && c[1] <= p.maxBaseAssemblies(), "base " + c[1]);
        assertTrue(c[2] >= p.minCompParts() && c[2] <= p.maxCompParts(), "composite " + c[2]);
        assertNotEquals(initial, w.check(r));
        // and the mix keeps running on the modified structure
        for (int i = 0; i < 300; i++) {
            client.next();
        }
        w.check(r);
    }

    @Test
    void buildDateMovesReachTheIndexOnceAtTheEndOfTheOperation() {
        Stmbench7Workload w = small(Sb7Mix.WRITE_DOMINATED);
        Replica r = single(w);
        w.populate(r);
        Stmbench7Workload.Sb7Client client = (Stmbench7Workload.Sb7Client) w.client(r, 5);
        long initial = w.check(r);
        // T3c moves every part it visits four times, back to its first date: the index is not rewritten at all,
        // so not even the order of a date's ids changes (moving each part at once re-appended it at the end)
        assertTrue(client.run("T3c") > 0);
        assertEquals(initial, w.check(r), "T3c left the index and the parts as they were");
        // T3b moves each part once per visit; the check finds every part listed once, at its new date
        assertTrue(client.run("T3b") > 0);
        assertNotEquals(initial, w.check(r), "T3b changed dates");
        client.run("T3a");
        w.check(r);
    }

    // ---- replication -------------------------------------------------------------------------------------

    @Test
    void threeReplicasRunningTheWriteDominatedMixAgree() throws Exception {
        Stmbench7Workload w = new Stmbench7Workload(Sb7Parameters.small(), Sb7Mix.WRITE_DOMINATED, true, true);
        String cluster = "sb7-" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            start(cluster, w, "r" + i);
        }
        w.populate(replicas.get(0));
        long populated = replicas.get(0).stm().latestVersion();
        for (Replica r : replicas) {
            awaitVersion(r, populated);
        }
        long initial = w.check(replicas.get(0));
        for (Replica r : replicas) {
            assertEquals(initial, w.check(r), "populated state at " + r);
        }

        AtomicLong committed = new AtomicLong();
        AtomicLong gaveUp = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Set<String> seen = ConcurrentHashMap.newKeySet();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2_000);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            Workload.Client client = w.client(replicas.get(1 + t), 1000 + t);
            Thread thread = new Thread(() -> {
                try {
                    while (System.nanoTime() < end) {
                        try {
                            seen.add(client.next());
                            committed.incrementAndGet();
                        } catch (TransactionAbortedException e) {
                            gaveUp.incrementAndGet();
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "sb7-client-" + t);
            threads.add(thread);
            thread.start();
        }
        for (Thread t : threads) {
            t.join(60_000);
        }
        if (failure.get() != null) {
            throw new AssertionError("a client failed", failure.get());
        }
        assertTrue(committed.get() >= 20, committed + " operations ran (" + gaveUp + " gave up)");
        assertTrue(seen.stream().anyMatch(op -> !Stmbench7Workload.readOnlyOperationNames().contains(op)),
                "update operations ran: " + seen);

        long latest = 0;
        for (Replica r : replicas) {
            latest = Math.max(latest, r.stm().latestVersion());
        }
        for (Replica r : replicas) {
            awaitVersion(r, latest);
        }
        long digest = w.check(replicas.get(0));
        assertNotEquals(initial, digest, "the write-dominated mix changed the structure");
        for (Replica r : replicas) {
            assertEquals(digest, w.check(r), "state at " + r);
        }
    }
}
