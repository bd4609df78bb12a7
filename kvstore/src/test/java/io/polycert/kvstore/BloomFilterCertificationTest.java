package io.polycert.kvstore;

import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * End to end: BFC transactions that read boxes nobody writes, while other transactions keep writing other boxes,
 * must abort only by filter false positives, at no more than twice the configured extra abort rate (1%).
 */
class BloomFilterCertificationTest {

    @Property(tries = 6)
    void falsePositiveAbortsStayWithinTwiceTheConfiguredRate(@ForAll @IntRange(min = 1, max = 3_000) int readSet)
            throws Exception {
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
            double rate = (double) falsePositives / attempts;
            assertTrue(rate <= 0.02, "read-set " + readSet + ": false-positive abort rate " + rate + "; first aborts: "
                    + reasons.subList(0, Math.min(5, reasons.size())));
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
