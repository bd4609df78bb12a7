package io.polycert.kvstore;

import io.polycert.core.testing.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.certification.CertificationSettings;
import io.polycert.core.AbortCause;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.VBox;
import io.polycert.gcs.JGroupsGroup;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Crashes of a VC originator and of the sequencer, and oversized transactions. */
class ReplicaFailureTest {
    private final ReplicaCluster cluster = new ReplicaCluster();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        pool.shutdownNow();
        cluster.close();
    }

    /** Starts C, which certifies by voting, once root x = 1 is committed and has reached it. */
    private Replica startVotingWithX(Replica a) {
        Replica c = cluster.start("C", ProtocolOracle.always(Protocol.VC));
        VBox<Long> x = a.root("x");
        a.stm().atomic(() -> x.put(1L));
        Await.until("x everywhere", () -> c.stm().readOnly(() -> c.<Long>root("x").get()) != null);
        return c;
    }

    private static org.jgroups.protocols.DISCARD discard(Replica r) {
        return ((JGroupsGroup) r.group()).discard();
    }

    /**
     * C commits a VC transaction but its vote never leaves (its multicasts are dropped), then C falls silent. The
     * survivors must decide the transaction alike (abort: nobody has the vote) and go on.
     */
    @Test
    void voteLostWithItsOriginatorAbortsEverywhereAlike() throws Exception {
        Replica a = cluster.start("A", ProtocolOracle.always(Protocol.NVC));
        Replica b = cluster.start("B", ProtocolOracle.always(Protocol.NVC));
        Replica c = startVotingWithX(a);
        VBox<Long> x = a.root("x");
        discard(c).dropDownMulticasts(1_000_000); // C's vote (a reliable multicast) and acks go nowhere
        Future<?> stuck = pool.submit(() -> c.stm().atomic(() -> c.<Long>root("x").put(100L)));
        Thread.sleep(500); // its transaction (a unicast to the sequencer A) is ordered; the vote is lost
        discard(c).discardAll(true);
        Await.until("A and B without C", () -> a.view().size() == 2 && b.view().size() == 2);
        a.stm().atomic(() -> x.put(x.get() + 1));
        Await.until("A and B agree", () -> a.stm().latestVersion() == b.stm().latestVersion());
        assertEquals(2L, a.stm().readOnly(x::get), "C's transaction must not have committed");
        assertEquals(2L, b.stm().readOnly(() -> b.<Long>root("x").get()));
        stuck.cancel(true);
    }

    /** The same, but the vote reached the others before C crashed: it must commit everywhere. */
    @Test
    void voteDeliveredBeforeItsOriginatorCrashedCommitsEverywhere() throws Exception {
        Replica a = cluster.start("A", ProtocolOracle.always(Protocol.NVC));
        Replica b = cluster.start("B", ProtocolOracle.always(Protocol.NVC));
        Replica c = startVotingWithX(a);
        VBox<Long> x = a.root("x");
        c.stm().atomic(() -> c.<Long>root("x").put(100L));
        discard(c).discardAll(true);
        Await.until("A and B without C", () -> a.view().size() == 2 && b.view().size() == 2);
        // Not "same version": that holds before either installs C's commit too (safe today only because a vote
        // is delivered once a majority holds it, so before the view without C).
        Await.until("A and B hold C's write", () -> a.stm().readOnly(x::get) == 100L
                && b.stm().readOnly(() -> b.<Long>root("x").get()) == 100L);
        assertEquals(a.stm().latestVersion(), b.stm().latestVersion());
        assertEquals(100L, a.stm().readOnly(x::get));
        assertEquals(100L, b.stm().readOnly(() -> b.<Long>root("x").get()));
    }

    /**
     * The sequencer (A, the coordinator) falls silent while B and C commit transfers with every protocol. Every
     * transfer acknowledged to B or C must be there afterwards, and B and C must agree.
     */
    @Test
    void sequencerCrashUnderLoadLosesNothingAcknowledged() throws Exception {
        Replica a = cluster.start("A", ReplicaCluster.randomOracle(1));
        Replica b = cluster.start("B", ReplicaCluster.randomOracle(2));
        Replica c = cluster.start("C", ReplicaCluster.randomOracle(3));
        int n = 20;
        List<VBox<Long>> slots = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            slots.add(a.root("slot" + i));
        }
        a.stm().atomic(() -> slots.forEach(s -> s.put(0L)));
        Await.until("slots everywhere", () -> List.of(b, c).stream().allMatch(
                r -> r.stm().readOnly(() -> r.<Long>root("slot0").get()) != null));
        Map<String, Long> acknowledged = new ConcurrentHashMap<>(); // slot -> highest acknowledged counter
        AtomicBoolean stop = new AtomicBoolean();
        List<Future<?>> workers = new ArrayList<>();
        for (Replica r : List.of(b, c)) {
            workers.add(pool.submit(() -> {
                SplittableRandom random = new SplittableRandom(r.hashCode());
                while (!stop.get()) {
                    String slot = "slot" + random.nextInt(n);
                    try {
                        long v = r.stm().atomic(() -> {
                            VBox<Long> s = r.root(slot);
                            long next = s.get() + 1;
                            s.put(next);
                            return next;
                        });
                        acknowledged.merge(slot, v, Math::max);
                    } catch (TransactionAbortedException e) {
                        // not acknowledged: fine
                    }
                }
            }));
        }
        Thread.sleep(500);
        discard(a).discardAll(true);
        Await.until("B and C without A", () -> b.view().size() == 2 && c.view().size() == 2);
        Thread.sleep(500);
        stop.set(true);
        for (Future<?> w : workers) {
            w.get(30, TimeUnit.SECONDS);
        }
        Await.until("B and C agree", () -> b.stm().latestVersion() == c.stm().latestVersion());
        for (int i = 0; i < n; i++) {
            String slot = "slot" + i;
            long atB = b.stm().readOnly(() -> b.<Long>root(slot).get());
            long atC = c.stm().readOnly(() -> c.<Long>root(slot).get());
            assertEquals(atB, atC, slot);
            assertTrue(atB >= acknowledged.getOrDefault(slot, 0L), slot + " lost acknowledged increments: " + atB
                    + " < " + acknowledged.get(slot));
        }
        assertTrue(acknowledged.values().stream().mapToLong(Long::longValue).sum() > 20, "too little traffic");
    }

    @Test
    void anOversizedReadSetGoesByVotingAndAnOversizedWriteSetIsRefused() {
        CertificationSettings small = new CertificationSettings(16 * 1024, 0.01, 10_000);
        Replica a = cluster.start("A", ProtocolOracle.always(Protocol.NVC), small);
        Replica b = cluster.start("B", ProtocolOracle.always(Protocol.NVC), small);
        int chunks = 50;
        int perChunk = 400; // 20,000 boxes, created 400 per transaction to stay under the message limit
        for (int c = 0; c < chunks; c++) {
            VBox<VBox<Long>[]> chunk = a.root("chunk" + c);
            a.stm().atomic(() -> {
                @SuppressWarnings("unchecked")
                VBox<Long>[] boxes = new VBox[perChunk];
                for (int i = 0; i < perChunk; i++) {
                    boxes[i] = a.stm().newBox(1L);
                }
                chunk.put(boxes);
            });
        }
        VBox<Long> sum = a.root("sum");
        a.stm().atomic(() -> { // reads 20,000 boxes: as NVC their ids take more than 16 KB
            long s = 0;
            for (int c = 0; c < chunks; c++) {
                for (VBox<Long> box : a.<VBox<Long>[]>root("chunk" + c).get()) {
                    s += box.get();
                }
            }
            sum.put(s);
        });
        assertEquals(1, a.statistics().reroutedToVoting());
        assertEquals(1, a.statistics().of(Protocol.VC).committed());
        Await.until("sum at B", () -> b.stm().readOnly(() -> b.<Long>root("sum").get()) != null);
        assertEquals((long) chunks * perChunk, b.stm().readOnly(() -> b.<Long>root("sum").get()));
        VBox<Object> big = a.root("big");
        TransactionAbortedException e = org.junit.jupiter.api.Assertions.assertThrows(
                TransactionAbortedException.class, () -> a.stm().atomic(() -> big.put(new byte[64 * 1024])));
        assertEquals(AbortCause.TOO_LARGE, e.abortCause());
    }
}
