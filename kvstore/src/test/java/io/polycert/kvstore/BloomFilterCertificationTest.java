package io.polycert.kvstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.certification.CertificationStatistics;
import io.polycert.core.AbortCause;
import io.polycert.core.Transaction;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.VBox;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import io.polycert.oracle.TransactionProfile;
import io.polycert.oracle.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * End to end: BFC transactions that read boxes nobody writes, while another thread keeps writing other boxes, abort
 * only by filter false positives, and those are as rare as the filters promise.
 *
 * <p>How rare that is depends on how many ids each filter is checked against, which is every id certified between
 * the transaction's snapshot and its certification. On a shared machine a commit sometimes stalls for tens of
 * milliseconds while the writer commits hundreds of times, and no forecast sees that coming; a bound on the raw
 * abort rate would test the machine. So the test checks two things the library controls: the false positives seen
 * match those expected from the filters' fill and the ids actually checked (a filter that matched more than it
 * should, or the same ids on every retry, fails this), and the filters were sized for at least as many ids as
 * they met in at least four commits of five (the forecast).
 */
class BloomFilterCertificationTest {

    @Property(tries = 6)
    void falsePositiveAbortsAreAsRareAsTheFiltersPromise(@ForAll @IntRange(min = 1, max = 3_000) int readSet)
            throws Exception {
        CaseResult result = run(readSet);
        assertEquals(List.of(), result.violations(), result.toString());
    }

    /** What one case measured: the reader's false positives and what its replica's statistics expected. */
    record CaseResult(int readSet, int attempts, int falsePositives, double expected, long checked, long underSized,
            List<String> firstAborts) {

        /** What this case breaks of the test's bounds (none, normally). */
        List<String> violations() {
            List<String> broken = new ArrayList<>();
            if (checked != attempts) {
                broken.add("every attempt's filter is checked");
            }
            // Poisson-like: the count exceeds its mean by more than 3 standard deviations plus 3 very rarely.
            if (falsePositives > expected + 3 * Math.sqrt(expected) + 3) {
                broken.add("no more false positives than expected");
            }
            // Under-sized filters come from commits that stall while the writer goes on: at most 22 of 400 in a case
            // over three scans of 60 (BloomFilterScanTest) on the shared 2-core machine; a forecast fed by the wrong
            // commits gave 11% to 52%.
            if (underSized > checked / 5) {
                broken.add("at most a fifth of the filters under-sized");
            }
            return broken;
        }

        @Override
        public String toString() {
            return "read-set " + readSet + ": " + falsePositives + " false positives in " + attempts + " attempts, "
                    + String.format("%.2f", expected) + " expected; " + underSized + " of " + checked
                    + " filters met more ids than sized for; first aborts: " + firstAborts;
        }
    }

    /** One case: a reader of {@code readSet} boxes nobody writes commits 400 times beside a busy writer. */
    static CaseResult run(int readSet) throws Exception {
        try (ReplicaCluster cluster = new ReplicaCluster()) {
            ProtocolOracle bfcForReaders = new ProtocolOracle() {
                @Override
                public Protocol choose(TransactionProfile profile) {
                    return profile.readSetSize() > 1 ? Protocol.BFC : Protocol.NVC;
                }

                @Override
                public void record(Protocol protocol, TransactionProfile profile, long latencyNanos, Outcome outcome) {
                }
            };
            Replica a = cluster.start("A", bfcForReaders);
            int chunks = (readSet + 399) / 400;
            for (int c = 0; c < chunks; c++) {
                VBox<VBox<Long>[]> chunk = a.root("read" + c);
                int size = Math.min(400, readSet - c * 400);
                a.stm().atomic(() -> {
                    @SuppressWarnings("unchecked")
                    VBox<Long>[] boxes = new VBox[size];
                    for (int i = 0; i < size; i++) {
                        boxes[i] = a.stm().newBox(1L);
                    }
                    chunk.put(boxes);
                });
            }
            VBox<Long>[] writerBoxes = newBoxes(a, 50);
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = new Thread(() -> { // writes boxes the readers never read (single-box: NVC)
                int i = 0;
                while (!stop.get()) {
                    VBox<Long> w = writerBoxes[i++ % writerBoxes.length];
                    a.stm().atomic(() -> w.put(w.get() + 1));
                }
            });
            writer.start();
            VBox<Long> mine = a.root("mine");
            a.stm().atomic(() -> mine.put(0L));
            int attempts = 400;
            int falsePositives = 0;
            List<String> reasons = new ArrayList<>();
            for (int t = 0; t < attempts; t++) {
                Transaction tx = a.stm().begin();
                for (int c = 0; c < chunks; c++) {
                    for (VBox<Long> b : a.<VBox<Long>[]>root("read" + c).get()) {
                        b.get();
                    }
                }
                mine.put(mine.get() + 1);
                try {
                    tx.commit();
                } catch (TransactionAbortedException e) {
                    assertTrue(e.abortCause() == AbortCause.BLOOM_FILTER_FALSE_POSITIVE, e.toString());
                    falsePositives++;
                    reasons.add(e.getMessage());
                }
            }
            stop.set(true);
            writer.join();
            CertificationStatistics stats = a.statistics();
            return new CaseResult(readSet, attempts, falsePositives, stats.bloomExpectedFalsePositives(),
                    stats.bloomFiltersChecked(), stats.bloomFiltersUnderSized(),
                    List.copyOf(reasons.subList(0, Math.min(5, reasons.size()))));
        }
    }

    @SuppressWarnings("unchecked")
    private static VBox<Long>[] newBoxes(Replica r, int n) {
        VBox<VBox<Long>[]> root = r.root("writer");
        r.stm().atomic(() -> {
            VBox<Long>[] boxes = new VBox[n];
            for (int i = 0; i < n; i++) {
                boxes[i] = r.stm().newBox(0L);
            }
            root.put(boxes);
        });
        return r.stm().readOnly(root::get);
    }
}
