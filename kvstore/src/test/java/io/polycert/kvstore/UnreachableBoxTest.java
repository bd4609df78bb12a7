package io.polycert.kvstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.VBox;
import io.polycert.core.testing.Await;
import io.polycert.oracle.ProtocolOracle;
import org.junit.jupiter.api.Test;

/**
 * The object registry's contract: a shared box must stay reachable from replicated state. A box one replica keeps
 * only in a variable is collected at the others; when a later commit names it there, that replica reports it
 * (statistics and an error log) instead of silently starting the box empty.
 */
class UnreachableBoxTest {

    @Test
    void aBoxNoReplicatedStateReachedIsReportedWhereItWasCollected() throws Exception {
        try (ReplicaCluster cluster = new ReplicaCluster()) {
            Replica a = cluster.start("A", ProtocolOracle.distUcb());
            Replica b = cluster.start("B", ProtocolOracle.distUcb());
            VBox<Long> orphan = a.stm().atomic(() -> a.stm().newBox(5L)); // reachable at A only, through `orphan`
            Await.until("B applied the creation", () -> b.stm().latestVersion() == a.stm().latestVersion());
            Await.until("B collected the box nothing reaches", () -> {
                System.gc();
                return b.registry().find(orphan.id()) == null;
            });
            VBox<VBox<Long>> root = a.root("holder");
            a.stm().atomic(() -> root.put(orphan));
            Await.until("B applied the link", () -> b.stm().latestVersion() == a.stm().latestVersion());

            assertEquals(5L, a.stm().readOnly(() -> root.get().get()));
            VBox<VBox<Long>> rootAtB = b.root("holder");
            assertThrows(IllegalStateException.class, () -> b.stm().readOnly(() -> rootAtB.get().get()),
                    "the box starts empty where it was collected");
            assertEquals(1, b.statistics().unknownBoxes(), "and that is counted");
            assertEquals(0, a.statistics().unknownBoxes());
            assertTrue(b.registry().find(orphan.id()) != null);
        }
    }
}
