package io.polycert.bench.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.bench.report.RunResult;
import io.polycert.bench.workload.BankWorkload;
import io.polycert.bench.workload.ReplicaLoad;
import io.polycert.bench.workload.Runner;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ProcessClusterTest {
    private static final ProcessCluster.Options OPTIONS = ProcessCluster.Options.defaults().withHeap("512m")
            .withStartTimeout(Duration.ofSeconds(60));

    @Test
    void threeMemberProcessesRunTheBankOverTcpAndAgree() throws Exception {
        BankWorkload bank = new BankWorkload(1000, 10);
        List<ProcessHandle> handles = new ArrayList<>();
        long t0 = System.nanoTime();
        try (ProcessCluster cluster = ProcessCluster.start(3, bank, OPTIONS)) {
            log("started", t0);
            assertEquals(3, cluster.size());
            assertFalse(cluster.sameJvm());
            for (int i = 0; i < 3; i++) {
                handles.add(cluster.process(i));
                assertTrue(cluster.process(i).isAlive());
                assertNotEquals(ProcessHandle.current().pid(), cluster.pid(i));
                assertEquals(Long.toString(cluster.pid(i)), cluster.command(i, "pid"));
                assertTrue(cluster.command(i, "view").startsWith("3 true "), cluster.command(i, "view"));
            }
            cluster.populate();
            log("populated", t0);

            List<ReplicaLoad.Partial> nvc = measure(cluster, "nvc", 2, 42);
            log("nvc measured", t0);
            for (ReplicaLoad.Partial p : nvc) {
                assertTrue(p.committed() > 0, "nothing committed: " + p);
                assertEquals(2, p.timeline().size(), "one sample per second");
                assertTrue(p.seconds() > 1.5 && p.seconds() < 5, "a 2 s window, was " + p.seconds());
                assertTrue(p.latencyNanos().getTotalCount() > 0);
                assertTrue(p.broadcastTransactions() > 0);
                for (long[] second : p.timeline()) {
                    assertEquals(0, second[2] + second[3], "static NVC: no BFC or VC commits");
                }
                assertTrue(p.timeline().stream().mapToLong(s -> s[1]).sum() > 0, "NVC commits in the timeline");
            }
            RunResult result = ReplicaLoad.combine("bank", "nvc", bank.parameters(), nvc, cluster.sameJvm());
            assertTrue(result.committed() > 0);
            assertEquals(2, result.timeline().size());
            List<Long> digests = cluster.check();
            assertEquals(3, digests.size());
            assertEquals(1, digests.stream().distinct().count(), "digests differ: " + digests);
            log("checked", t0);

            List<ReplicaLoad.Partial> vc = measure(cluster, "vc", 1, 43);
            for (ReplicaLoad.Partial p : vc) {
                assertTrue(p.committed() > 0, "nothing committed: " + p);
                assertEquals(1, p.timeline().size());
                assertEquals(0, p.timeline().get(0)[1] + p.timeline().get(0)[2], "static VC: no NVC or BFC commits");
                assertTrue(p.timeline().get(0)[3] > 0, "VC commits in the timeline");
            }
            List<Long> after = cluster.check();
            assertEquals(1, after.stream().distinct().count(), "digests differ: " + after);
            assertNotEquals(digests.get(0), after.get(0), "the transfers changed the state");
            log("vc measured and checked", t0);

            // The benchmark runner drives it like the in-JVM cluster (dist-ucb agrees its epochs across the processes).
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            List<RunResult> run = new Runner(cluster, bank, new Runner.Options(List.of("dist-ucb"), 1, 0.2, 1, 1, 7,
                    0), Map.of("replicas", "3"), new PrintStream(text, true, StandardCharsets.UTF_8)).run();
            assertEquals(1, run.size());
            assertTrue(run.get(0).committed() > 0, text.toString(StandardCharsets.UTF_8));
            log("runner with dist-ucb", t0);

            // A bad command gets an error reply, and the member keeps serving.
            IllegalStateException bad = assertThrows(IllegalStateException.class,
                    () -> cluster.command(1, "frobnicate"));
            assertTrue(bad.getMessage().contains("unknown command 'frobnicate'"), bad.getMessage());
            IllegalStateException noLoad = assertThrows(IllegalStateException.class, cluster::beginMeasuring);
            assertTrue(noLoad.getMessage().contains("no load is running"), noLoad.getMessage());
            assertEquals(0, cluster.progress()[0]);

            // SIGKILL one member: the others go on without it.
            cluster.kill(2);
            assertFalse(handles.get(2).isAlive());
            assertEquals(List.of(0, 1), cluster.live());
            IllegalStateException gone = assertThrows(IllegalStateException.class, () -> cluster.command(2, "version"));
            assertTrue(gone.getMessage().contains("member 2 (pid " + handles.get(2).pid()), gone.getMessage());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!cluster.command(0, "view").startsWith("2 true ")) {
                assertTrue(System.nanoTime() < deadline, "the survivors never excluded member 2: "
                        + cluster.command(0, "view"));
                Thread.sleep(50);
            }
            log("member 2 killed and excluded", t0);
            List<ReplicaLoad.Partial> survivors = measure(cluster, "nvc", 1, 44);
            assertEquals(2, survivors.size());
            assertTrue(survivors.get(0).committed() > 0);
            List<Long> last = cluster.check();
            assertEquals(2, last.size());
            assertEquals(last.get(0), last.get(1));
            log("survivors measured and checked", t0);
            for (int i = 0; i < 3; i++) {
                for (String line : cluster.recentOutput(i)) {
                    assertFalse(line.startsWith("[stdout] "), "member " + i + " logged to stdout: " + line);
                }
            }
        }
        log("closed", t0);
        for (ProcessHandle h : handles) {
            h.onExit().get(5, TimeUnit.SECONDS);
            assertFalse(h.isAlive(), "member process " + h.pid() + " is still running");
        }
    }

    private static List<ReplicaLoad.Partial> measure(ProcessCluster cluster, String contender, int seconds,
            long seed) throws Exception {
        cluster.use(contender);
        cluster.startLoad(1, seed);
        try {
            Thread.sleep(300);
            cluster.beginMeasuring();
            long start = System.nanoTime();
            for (int s = 1; s <= seconds; s++) {
                long due = start + s * 1_000_000_000L;
                Thread.sleep(Math.max(0, (due - System.nanoTime()) / 1_000_000));
                cluster.sample();
            }
            List<ReplicaLoad.Partial> partials = cluster.endMeasuring();
            long[] progress = cluster.progress();
            assertTrue(progress[0] > 0, "progress counts commits");
            return partials;
        } finally {
            cluster.stopLoad();
        }
    }

    @Test
    void aMemberWithABadWorkloadSpecFailsFast() throws InterruptedException {
        long t0 = System.nanoTime();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> ProcessCluster.start(3, "bank:accounts=ten", OPTIONS.withHeap("256m")));
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
        assertTrue(e.getMessage().contains("failed to start"), e.getMessage());
        assertTrue(e.getMessage().contains("accounts must be a whole number, was 'ten'"), e.getMessage());
        assertTrue(seconds < 20, "took " + seconds + " s");
        log("bad spec rejected", t0);
        // No member is left behind.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (memberChildren() > 0) {
            assertTrue(System.nanoTime() < deadline, "member processes left running");
            Thread.sleep(50);
        }
    }

    /** Live child processes of this JVM that run a member. */
    private static long memberChildren() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().arguments().map(a -> List.of(a).contains(MemberProcess.class.getName()))
                        .orElse(false))
                .count();
    }

    @Test
    void freePortsAreDistinctAndErrorsFitOneLine() {
        assertThrows(IllegalArgumentException.class, () -> ProcessCluster.start(0, new BankWorkload(10, 1)));
        int[] ports = ProcessCluster.freePorts(3);
        assertEquals(3, java.util.Arrays.stream(ports).distinct().count());
        assertEquals("a b", MemberProcess.oneLine(new IllegalStateException("a\nb")));
    }

    private static void log(String what, long t0) {
        System.err.printf("ProcessClusterTest: %-32s %6.1f s%n", what, (System.nanoTime() - t0) / 1e9);
    }
}
