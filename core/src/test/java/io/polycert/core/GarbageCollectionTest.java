package io.polycert.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
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

    /**
     * A thread's list of bodies to trim once holds more than a thousand entries while a long snapshot lives. None
     * may be dropped from it uncut: a box not written again would keep the versions the snapshot held back.
     */
    @Test
    void boxesWrittenOnceUnderALongSnapshotKeepOneVersionAfterIt() throws Exception {
        Stm stm = Stm.create();
        List<VBox<Integer>> boxes = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            boxes.add(stm.newBox(0));
        }
        Transaction reader = stm.beginReadOnly();
        CompletableFuture.runAsync(() -> {
            for (VBox<Integer> box : boxes) {
                stm.atomic(() -> box.put(1));
            }
        }).get();
        assertEquals(2, boxes.get(0).versionCount(), "the snapshot's version is kept while it lives");
        reader.commit();
        for (int i = 0; i < 2 * Stm.COLLECT_EVERY; i++) {
            stm.readOnly(() -> { }); // a quiet collection period
        }
        for (VBox<Integer> box : boxes) {
            assertEquals(1, box.versionCount(), box + " kept old versions");
        }
    }
}
