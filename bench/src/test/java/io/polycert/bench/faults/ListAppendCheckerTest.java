package io.polycert.bench.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.bench.faults.History.Append;
import io.polycert.bench.faults.History.FinalRead;
import io.polycert.bench.faults.History.Op;
import io.polycert.bench.faults.History.Outcome;
import io.polycert.bench.faults.ListAppendChecker.Anomaly;
import io.polycert.bench.faults.ListAppendChecker.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ListAppendCheckerTest {

    /** Synthetic histories: {@code "1:10 2:20"} appends 10 to key 1 and 20 to key 2; {@code "3=10.11 4="} reads. */
    static final class H {
        final List<Op> ops = new ArrayList<>();
        final List<FinalRead> finals = new ArrayList<>();
        long next = 1;

        H op(Outcome outcome, String cause, String appends, String reads) {
            List<Append> a = new ArrayList<>();
            for (String s : appends.trim().split("\\s+")) {
                if (!s.isEmpty()) {
                    String[] kv = s.split(":");
                    a.add(new Append(Long.parseLong(kv[0]), Long.parseLong(kv[1])));
                }
            }
            long id = next++;
            ops.add(new Op(id, 0, 1, 0, id * 10, outcome == Outcome.UNKNOWN ? -1 : id * 10 + 5, outcome, cause, a,
                    reads(reads)));
            return this;
        }

        H ok(String appends, String reads) {
            return op(Outcome.COMMITTED, null, appends, reads);
        }

        H aborted(String appends) {
            return op(Outcome.ABORTED, "CONFLICT", appends, "");
        }

        H unknown(String appends) {
            return op(Outcome.UNKNOWN, null, appends, "");
        }

        H fin(int member, String lists) {
            finals.add(new FinalRead(member, 100 + member, reads(lists), 0));
            return this;
        }

        static Map<Long, long[]> reads(String s) {
            Map<Long, long[]> m = new LinkedHashMap<>();
            for (String r : s.trim().split("\\s+")) {
                if (!r.isEmpty()) {
                    int eq = r.indexOf('=');
                    m.put(Long.parseLong(r.substring(0, eq)), History.decodeList(r.substring(eq + 1)));
                }
            }
            return m;
        }

        Result check() {
            return ListAppendChecker.check(ops, finals);
        }
    }

    private static Set<Anomaly> types(Result r) {
        return r.counts().isEmpty() ? EnumSet.noneOf(Anomaly.class) : EnumSet.copyOf(r.counts().keySet());
    }

    private static void assertExactly(Result r, Anomaly... expected) {
        Set<Anomaly> want = expected.length == 0 ? EnumSet.noneOf(Anomaly.class) : EnumSet.of(expected[0], expected);
        assertEquals(want, types(r), r.describe());
    }

    @Test
    void aSerialHistoryIsClean() {
        Result r = new H()
                .ok("1:1", "2=")
                .ok("2:2 1:3", "3=")
                .ok("3:4 3:5", "1=1.3 2=2")
                .ok("1:6", "2=2 3=4.5")
                .fin(0, "1=1.3.6 2=2 3=4.5").fin(1, "1=1.3.6 2=2 3=4.5")
                .check();
        assertExactly(r);
        assertTrue(r.valid());
        assertEquals(4, r.committed());
        assertEquals(0, r.lostAcknowledged());
        assertTrue(r.edges() > 0);
    }

    @Test
    void unknownOutcomesCountAsCommittedOnlyWhenObserved() {
        Result r = new H()
                .unknown("1:10")             // observed: committed
                .ok("", "1=10")
                .unknown("2:20")             // never observed, not in the final lists: never happened
                .aborted("3:30")             // aborted, never observed
                .unknown("4:40")             // observed by a later transaction: committed
                .ok("5:50", "4=40")
                .fin(0, "1=10 4=40 5=50").fin(1, "1=10 4=40 5=50")
                .check();
        assertExactly(r);
        assertEquals(2, r.committed());
        assertEquals(1, r.aborted());
        assertEquals(3, r.unknown());
        assertEquals(2, r.unknownCommitted());
    }

    /** Every abort cause is a decided abort: one the replica reports after leaving is no exception (review). */
    @Test
    void aReadOfAnAppendAbortedBecauseItsReplicaLeftIsG1a() {
        Result r = new H().op(Outcome.ABORTED, "REPLICA_LEFT", "1:1", "").ok("2:2", "1=1").check();
        assertExactly(r, Anomaly.G1A);
    }

    @Test
    void g0WriteCycle() {
        Result r = new H()
                .ok("1:1 2:2", "")
                .ok("1:3 2:4", "")
                .fin(0, "1=1.3 2=4.2")
                .check();
        assertExactly(r, Anomaly.G0);
        assertEquals(1, r.count(Anomaly.G0));
        assertTrue(r.examples().get(Anomaly.G0).contains("-ww->"), r.describe());
    }

    @Test
    void g1aReadOfAnAbortedAppend() {
        Result r = new H()
                .aborted("1:1")
                .ok("2:2", "1=1")
                .check();
        assertExactly(r, Anomaly.G1A);
        assertTrue(r.examples().get(Anomaly.G1A).contains("aborted"), r.describe());
    }

    /** A history built by hand may lack a cause; it used to throw NullPointerException. */
    @Test
    void g1aOfAnAbortWithoutACause() {
        Result r = new H().op(Outcome.ABORTED, null, "1:1", "").ok("2:2", "1=1").check();
        assertExactly(r, Anomaly.G1A);
    }

    @Test
    void g1aSeenOnlyInTheFinalLists() {
        Result r = new H().aborted("1:1").fin(0, "1=1").check();
        assertExactly(r, Anomaly.G1A);
    }

    @Test
    void g1bIntermediateRead() {
        Result r = new H()
                .ok("1:1 1:2", "")
                .ok("", "1=1")
                .fin(0, "1=1.2")
                .check();
        assertExactly(r, Anomaly.G1B);
    }

    @Test
    void g1bAppendsOfOneTransactionSplitInTheVersionOrder() {
        Result r = new H()
                .ok("1:1 1:2", "")
                .ok("1:3", "")
                .fin(0, "1=1.3.2")
                .check();
        assertTrue(types(r).contains(Anomaly.G1B), r.describe());
    }

    @Test
    void aTransactionsOwnTwoAppendsAreNotIntermediate() {
        Result r = new H()
                .ok("1:1 1:2", "")
                .ok("", "1=1.2")
                .ok("1:3", "")
                .fin(0, "1=1.2.3")
                .check();
        assertExactly(r);
    }

    @Test
    void g1cCircularInformationFlow() {
        Result r = new H()
                .ok("1:1", "2=2")
                .ok("2:2", "1=1")
                .fin(0, "1=1 2=2")
                .check();
        assertExactly(r, Anomaly.G1C);
        assertTrue(r.examples().get(Anomaly.G1C).contains("-wr->"), r.describe());
    }

    @Test
    void g2WriteSkew() {
        Result r = new H()
                .ok("2:2", "1=")
                .ok("1:1", "2=")
                .fin(0, "1=1 2=2")
                .check();
        assertExactly(r, Anomaly.G2);
        assertTrue(r.examples().get(Anomaly.G2).contains("-rw->"), r.describe());
    }

    @Test
    void g2WithOneAntiDependencyAmongWriteDependencies() {
        // T1 reads key 1 before T2's append, T2 appended after T1 to key 2: T1 -rw-> T2 -ww-> ... -> T1.
        Result r = new H()
                .ok("2:1", "1=")      // T1
                .ok("1:2", "")        // T2
                .ok("2:3", "1=2")     // T3 sees T2, appends to key 2 before T1 does in the version order
                .fin(0, "1=2 2=3.1")
                .check();
        assertExactly(r, Anomaly.G2);
    }

    @Test
    void lostAcknowledgedCommit() {
        Result r = new H()
                .ok("1:1", "")
                .ok("1:2", "")
                .fin(0, "1=2").fin(1, "1=2")
                .check();
        assertExactly(r, Anomaly.LOST_COMMIT);
        assertEquals(1, r.lostAcknowledged());
        assertEquals(0, r.lostObserved());
        assertTrue(r.examples().get(Anomaly.LOST_COMMIT).contains("1:1 is missing"), r.describe());
    }

    @Test
    void lostObservedWrite() {
        Result r = new H()
                .unknown("1:1")
                .ok("", "1=1")
                .fin(0, "1=").fin(1, "1=")
                .check();
        assertTrue(types(r).contains(Anomaly.LOST_COMMIT), r.describe());
        assertEquals(0, r.lostAcknowledged());
        assertEquals(1, r.lostObserved());
    }

    @Test
    void anUnobservedUnknownAppendIsNotLost() {
        Result r = new H().unknown("1:1").ok("1:2", "").fin(0, "1=2").check();
        assertExactly(r);
    }

    @Test
    void lostAtOneMemberIsAlsoDivergence() {
        Result r = new H()
                .ok("1:1", "")
                .fin(0, "1=1").fin(1, "1=")
                .check();
        assertExactly(r, Anomaly.LOST_COMMIT, Anomaly.DIVERGENCE);
        assertEquals(1, r.lostAcknowledged());
    }

    @Test
    void incompatibleOrder() {
        Result r = new H()
                .ok("1:1", "")
                .ok("1:2", "")
                .ok("", "1=1.2")
                .ok("", "1=2.1")
                .check();
        assertExactly(r, Anomaly.INCOMPATIBLE_ORDER);
        assertTrue(r.examples().get(Anomaly.INCOMPATIBLE_ORDER).contains("not a prefix"), r.describe());
    }

    @Test
    void duplicateAndGarbageValues() {
        Result r = new H()
                .ok("1:1", "")
                .ok("", "1=1.1")
                .check();
        assertTrue(types(r).contains(Anomaly.DUPLICATE_ELEMENT), r.describe());
        Result g = new H()
                .ok("1:1", "")
                .ok("", "2=1")
                .ok("", "1=99")
                .check();
        assertExactly(g, Anomaly.GARBAGE_READ);
        assertEquals(2, g.count(Anomaly.GARBAGE_READ));
    }

    @Test
    void abortedReadsAreIgnored() {
        Result r = new H()
                .ok("1:1", "")
                .op(Outcome.ABORTED, "CONFLICT", "2:2", "1=77") // an aborted attempt's reads do not count
                .fin(0, "1=1")
                .check();
        assertExactly(r);
    }

    @Test
    void duplicateValuesInInvocationsAreRefused() {
        H h = new H().ok("1:1", "").ok("2:1", "");
        assertThrows(IllegalArgumentException.class, h::check);
    }

    @Test
    void longChainsDoNotOverflowTheStack() {
        H h = new H();
        StringBuilder list = new StringBuilder();
        for (int i = 1; i <= 50_000; i++) {
            h.ok("1:" + i, "");
            list.append(i == 1 ? "" : ".").append(i);
        }
        h.fin(0, "1=" + list);
        Result r = h.check();
        assertExactly(r);
        assertEquals(50_000 - 1 + 1, r.edges()); // ww chain plus the final read's wr
    }

    @Test
    void theFileFormatRoundTripsAndATornLineIsIgnored(@TempDir Path dir) throws Exception {
        try (HistoryWriter w = new HistoryWriter(dir, 2, 4242, 1)) {
            w.invoke(10, List.of(new Append(1, 11), new Append(1, 12)));
            w.ok(10, Map.of(3L, new long[] {5, 6}));
            w.invoke(20, List.of(new Append(2, 21)));
            w.fail(20, "CONFLICT");
            w.invoke(30, List.of(new Append(2, 31)));
            w.info(30, "StmClosedException: closed\nnext line");
            w.invoke(40, List.of(new Append(4, 41))); // no completion: unknown
        }
        Path file = dir.resolve("la-m2-p4242-t1.hist");
        Files.writeString(file, "OK 40 99 -", StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
        ListAppendWorkload.writeFinal(dir.resolve("final-m2-p4242.txt"), 2, 4242, Map.of(1L, new long[] {11, 12}),
                77);
        Files.writeString(dir.resolve("final-m3-p4343.txt"), "F 1 3 4343 5\n1=11.12\n"); // incomplete: ignored
        History h = History.read(dir);
        assertEquals(4, h.ops().size());
        Op a = h.ops().get(0);
        assertEquals(Outcome.COMMITTED, a.outcome());
        assertEquals(2, a.member());
        assertEquals(4242, a.process());
        assertEquals(1, a.thread());
        assertEquals(List.of(new Append(1, 11), new Append(1, 12)), a.appends());
        assertEquals(List.of(5L, 6L), java.util.Arrays.stream(a.reads().get(3L)).boxed().toList());
        assertEquals(Outcome.ABORTED, h.ops().get(1).outcome());
        assertEquals("CONFLICT", h.ops().get(1).cause());
        assertEquals(Outcome.UNKNOWN, h.ops().get(2).outcome());
        assertTrue(h.ops().get(2).cause().startsWith("StmClosedException"));
        assertEquals(Outcome.UNKNOWN, h.ops().get(3).outcome());
        assertEquals(-1, h.ops().get(3).completeNanos());
        assertEquals(1, h.finals().size());
        assertEquals(77, h.finals().get(0).digest());
        assertEquals(4, h.maxKey());
        assertNull(History.readFinal(dir.resolve("final-m3-p4343.txt")));
        Result r = ListAppendChecker.check(h);
        assertExactly(r, Anomaly.GARBAGE_READ); // 5 and 6 at key 3 were appended by nobody
    }

    @Test
    void valuesEncodeMemberProcessThreadAndCounter() {
        long v = ListAppendWorkload.value(127, 0x3F_FFFF, 63, (1L << 26) - 1, 3);
        assertTrue(v > 0);
        assertEquals(Long.MAX_VALUE, v);
        assertTrue(ListAppendWorkload.value(1, 5, 0, 0, 0) != ListAppendWorkload.value(0, 5, 1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> ListAppendWorkload.value(128, 1, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> ListAppendWorkload.value(0, 1, 0, 1L << 26, 0));
    }
}
