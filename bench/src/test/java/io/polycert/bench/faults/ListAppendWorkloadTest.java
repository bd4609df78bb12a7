package io.polycert.bench.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.bench.workload.InJvmCluster;
import io.polycert.bench.workload.Workloads;
import io.polycert.gcs.GroupStack;
import io.polycert.kvstore.Replica;
import io.polycert.oracle.Protocol;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The list-append workload on three replicas in this JVM: its recorded history checks clean. */
class ListAppendWorkloadTest {

    @Test
    void threeReplicasInThisJvmProduceACleanHistory(@TempDir Path dir) throws Exception {
        ListAppendWorkload workload = (ListAppendWorkload) FaultWorkloads.fromSpec(
                "list-append:keys=8,maxLength=20,reads=2,appends=3,dup=25,history=" + dir);
        assertEquals(workload.parameters(), ((ListAppendWorkload) FaultWorkloads.fromSpec(
                Workloads.specOf(workload))).parameters());
        long[] byProtocol = new long[3];
        try (InJvmCluster cluster = new InJvmCluster(3, workload, GroupStack.embedded(), Duration.ofSeconds(1),
                null)) {
            cluster.populate();
            cluster.use("ucb");
            cluster.startLoad(2, 42);
            Thread.sleep(3000);
            cluster.stopLoad();
            List<Long> digests = cluster.check();
            assertEquals(1, digests.stream().distinct().count(), "digests differ: " + digests);
            History partial = History.read(dir);
            long maxKey = partial.maxKey();
            assertTrue(maxKey >= 8, "keys rotate: max key " + maxKey);
            for (int i = 0; i < 3; i++) {
                Replica r = cluster.replicas().get(i);
                String reply = workload.command(r, new String[] {"final-read",
                        dir.resolve("final-m" + i + "-p1.txt").toString(), Long.toString(maxKey)});
                assertEquals(Long.toString(digests.get(0)), reply.split(" ")[0]);
                for (Protocol p : Protocol.values()) {
                    byProtocol[p.ordinal()] += r.statistics().of(p).committed();
                }
            }
        }
        History h = History.read(dir);
        assertEquals(3, h.finals().size());
        ListAppendChecker.Result r = ListAppendChecker.check(h);
        System.err.println("list-append in one JVM: " + r.describe() + "; NVC/BFC/VC " + byProtocol[0] + "/"
                + byProtocol[1] + "/" + byProtocol[2]);
        assertTrue(r.valid(), r.describe());
        assertTrue(r.committed() > 100, r.describe());
        assertTrue(r.aborted() > 0, "some conflicts: " + r.describe());
        assertEquals(0, r.lostAcknowledged());
        assertTrue(h.ops().stream().anyMatch(o -> o.appends().size() > o.appends().stream()
                .map(History.Append::key).distinct().count()), "some operations append twice to a key");
        assertTrue(h.ops().stream().map(History.Op::member).distinct().count() == 3);
    }

    @Test
    void badSpecsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> FaultWorkloads.fromSpec("list-append:keys=2"));
        assertThrows(IllegalArgumentException.class, () -> FaultWorkloads.fromSpec("list-append:colour=red"));
        assertThrows(IllegalArgumentException.class, () -> FaultWorkloads.fromSpec("bank-audit:audits=200"));
        assertEquals("bank", FaultWorkloads.fromSpec("bank:accounts=10").name());
    }
}
