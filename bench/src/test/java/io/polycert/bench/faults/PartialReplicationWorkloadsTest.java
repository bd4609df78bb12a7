package io.polycert.bench.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.bench.workload.Workload;
import io.polycert.certification.partial.CommitProtocol;
import io.polycert.core.TransactionAbortedException;
import io.polycert.gcs.GroupStack;
import io.polycert.kvstore.PartitionedStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault workloads over partial replication, without faults: three {@link PartitionedStore} members in this JVM
 * (degree 2, total order), clients at each, then the same checks as a campaign: the history checks clean, every
 * key's owners agree, the audits never saw a wrong total.
 */
class PartialReplicationWorkloadsTest {

    /** Three members of a fresh cluster, each attempting every transaction once. */
    private static List<PartitionedFaultStore> start(FaultWorkload workload) throws Exception {
        String cluster = "partial-" + UUID.randomUUID();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<PartitionedFaultStore>> starting = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                PartitionedStore.Builder b = PartitionedStore.builder(cluster).memberName("m" + i)
                        .stack(GroupStack.embedded()).codec(workload.codec()).protocol(CommitProtocol.TOTAL_ORDER)
                        .replicationDegree(2).minimumMembers(3);
                starting.add(pool.submit(() -> PartitionedFaultStore.start(b)));
            }
            List<PartitionedFaultStore> stores = new ArrayList<>();
            for (Future<PartitionedFaultStore> f : starting) {
                stores.add(f.get());
            }
            return stores;
        } finally {
            pool.shutdown();
        }
    }

    /** Runs two client threads per member for {@code millis}; returns the operations that committed. */
    private static long load(FaultWorkload workload, List<PartitionedFaultStore> stores, long millis)
            throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        long[] done = new long[stores.size() * 2];
        for (int m = 0; m < stores.size(); m++) {
            for (int t = 0; t < 2; t++) {
                Workload.Client c = workload.client(stores.get(m), new Workload.Slot(m, stores.size(), t, 2,
                        31L * m + t));
                int slot = m * 2 + t;
                Thread th = new Thread(() -> {
                    while (!stop.get()) {
                        try {
                            if (!List.of("idle", "error").contains(c.next())) {
                                done[slot]++;
                            }
                        } catch (TransactionAbortedException e) {
                            // recorded by the workload
                        }
                    }
                });
                threads.add(th);
                th.start();
            }
        }
        Thread.sleep(millis);
        stop.set(true);
        for (Thread th : threads) {
            th.join(30_000);
        }
        long sum = 0;
        for (long d : done) {
            sum += d;
        }
        return sum;
    }

    private static List<String> owners(List<PartitionedFaultStore> stores, FaultWorkload workload, long maxKey,
            Path dir) {
        Map<Integer, Path> files = new LinkedHashMap<>();
        Map<Integer, String> ids = new LinkedHashMap<>();
        for (int i = 0; i < stores.size(); i++) {
            Path f = dir.resolve("owned-m" + i + ".txt");
            OwnerCheck.write(f, stores.get(i), workload.registers(maxKey));
            files.put(i, f);
            ids.put(i, OwnerCheck.id(stores.get(i).store().self()));
        }
        return OwnerCheck.compare(files, ids);
    }

    /** Compares owners until they agree (the last commits reach some owners a message delay later). */
    private static List<String> ownersAgree(List<PartitionedFaultStore> stores, FaultWorkload workload, long maxKey,
            Path dir) throws InterruptedException {
        List<String> problems = owners(stores, workload, maxKey, dir);
        for (int i = 0; i < 50 && !problems.isEmpty(); i++) {
            Thread.sleep(100);
            problems = owners(stores, workload, maxKey, dir);
        }
        return problems;
    }

    @Test
    void listAppendOverPartialReplicationChecksClean(@TempDir Path dir) throws Exception {
        ListAppendWorkload workload = (ListAppendWorkload) FaultWorkloads.fromSpec(
                "list-append:keys=8,maxLength=20,reads=2,appends=3,dup=25,history=" + dir);
        List<PartitionedFaultStore> stores = start(workload);
        try {
            workload.populate(stores.get(0));
            long committed = load(workload, stores, 3000);
            long maxKey = History.read(dir).maxKey();
            assertEquals(List.of(), ownersAgree(stores, workload, maxKey, dir));
            List<String> digests = new ArrayList<>();
            for (int i = 0; i < stores.size(); i++) {
                digests.add(workload.command(stores.get(i), new String[] {"final-read",
                        dir.resolve("final-m" + i + "-p1.txt").toString(), Long.toString(maxKey)}).split(" ")[0]);
            }
            assertEquals(1, digests.stream().distinct().count(), "final reads differ: " + digests);
            History h = History.read(dir);
            ListAppendChecker.Result r = ListAppendChecker.check(h);
            System.err.println("list-append over partial replication: " + r.describe() + "; " + committed
                    + " commits");
            assertTrue(r.valid(), r.describe());
            assertTrue(r.committed() > 50, r.describe());
            assertEquals(0, r.lostAcknowledged());
            assertTrue(maxKey >= 8, "keys rotate: max key " + maxKey);
        } finally {
            stores.forEach(PartitionedFaultStore::close);
        }
    }

    @Test
    void auditedBankOverPartialReplicationKeepsItsTotal(@TempDir Path dir) throws Exception {
        AuditedBankWorkload workload = (AuditedBankWorkload) FaultWorkloads.fromSpec(
                "bank-audit:accounts=20,readSet=2,audits=30,history=" + dir);
        List<PartitionedFaultStore> stores = start(workload);
        try {
            workload.populate(stores.get(1));
            for (PartitionedFaultStore s : stores) {
                for (int i = 0; i < 100 && !workload.populated(s); i++) {
                    Thread.sleep(20);
                }
                assertTrue(workload.populated(s));
            }
            long committed = load(workload, stores, 3000);
            assertEquals(List.of(), ownersAgree(stores, workload, -1, dir));
            long digest = workload.check(stores.get(0));
            for (PartitionedFaultStore s : stores) {
                assertEquals(digest, workload.check(s));
            }
            String[] stats = workload.command(stores.get(0), new String[] {"stats"}).split(" ");
            System.err.println("bank-audit over partial replication: " + committed + " commits; stats "
                    + String.join(" ", stats));
            assertEquals(List.of(), AuditedBankWorkload.badAudits(dir));
            assertEquals("0", stats[1], "no wrong audit");
            assertTrue(Long.parseLong(stats[0]) > 10 && Long.parseLong(stats[2]) > 10, "audits and transfers ran");
            assertTrue(Files.list(dir).noneMatch(p -> p.getFileName().toString().startsWith("audit-")));
        } finally {
            stores.forEach(PartitionedFaultStore::close);
        }
    }

    @Test
    void ownerCheckReportsDisagreement(@TempDir Path dir) throws Exception {
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        Files.writeString(a, "O 1 1:1 3\nx 1:1,2:2 4 99\ny 2:2,1:1 2 7\n");
        Files.writeString(b, "O 1 2:2 3\nx 1:1,2:2 4 98\ny 2:2,1:1 2 7\n");
        Map<Integer, Path> files = Map.of(0, a, 1, b);
        Map<Integer, String> ids = Map.of(0, "1:1", 1, "2:2");
        List<String> problems = OwnerCheck.compare(files, ids);
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("x: owners disagree"), problems.get(0));
        Files.writeString(b, "O 1 2:2 3\nx 2:2,3:3 4 99\ny 2:2,1:1 2 7\n");
        assertTrue(OwnerCheck.compare(files, ids).get(0).contains("place it differently"));
        Files.writeString(a, "O 1 1:1 3\nx 2:2,3:3 - -\ny 2:2,1:1 2 7\n");
        assertTrue(OwnerCheck.compare(files, ids).get(0).contains("not a live member"));
        Files.writeString(a, "O 1 1:1 3\nbroken\n");
        assertThrows(IllegalArgumentException.class, () -> OwnerCheck.compare(files, ids));
    }
}
