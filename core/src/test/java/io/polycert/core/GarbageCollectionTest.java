package io.polycert.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class GarbageCollectionTest {

    @Test
    void millionUpdatesKeepTheVersionChainShortWithoutReaders() {
        Stm stm = Stm.create();
        VBox<Long> box = stm.newBox(0L);
        int maxChain = 0;
        for (long i = 1; i <= 1_000_000; i++) {
            long next = i;
            stm.atomic(() -> box.put(next));
            if (i % 1000 == 0) {
                maxChain = Math.max(maxChain, box.versionCount());
            }
        }
        assertEquals(1_000_000L, box.get());
        assertTrue(maxChain <= Stm.COLLECT_EVERY + 2, "version chain grew to " + maxChain);
    }

    @Test
    void versionsNeededByALiveSnapshotAreKeptThenCollected() throws Exception {
        Stm stm = Stm.create();
        VBox<Integer> box = stm.newBox(0);
        Transaction reader = stm.beginReadOnly();
        CompletableFuture.runAsync(() -> {
            for (int i = 1; i <= 1000; i++) {
                int v = i;
                stm.atomic(() -> box.put(v));
            }
        }).get();
        assertEquals(0, box.get(), "the old snapshot still reads its version");
        assertTrue(box.versionCount() > 1000, "versions after the snapshot are kept while it lives");
        reader.commit();
        for (int i = 1001; i <= 1000 + Stm.COLLECT_EVERY; i++) {
            box.put(i); // the collector runs every COLLECT_EVERY versions
        }
        assertTrue(box.versionCount() <= Stm.COLLECT_EVERY + 2, "collected after the reader ended: "
                + box.versionCount());
        assertEquals(1000 + Stm.COLLECT_EVERY, box.get());
    }
}
