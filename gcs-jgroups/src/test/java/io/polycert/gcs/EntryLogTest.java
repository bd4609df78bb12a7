package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.polycert.core.group.MemberId;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The log's byte accounting, which the coordinator's bound on a laggard's lag in bytes reads: checked against a
 * plain list of the entries held, through random appends (past the ring's first growth), discards, truncations
 * and resets.
 */
class EntryLogTest {
    private static final MemberId ORIGIN = new MemberId(0, 1, "A");

    @Property(tries = 300)
    void bytesAfterMatchesTheEntriesHeld(@ForAll @Size(max = 60) List<@IntRange(min = 0, max = 99) Integer> ops) {
        EntryLog log = new EntryLog();
        List<Integer> sizes = new ArrayList<>(); // payload size of each entry held, from log.first()
        long first = 1;
        int step = 0;
        for (int op : ops) {
            step++;
            if (op < 70) { // append a run of entries, so the ring grows past its initial 1024 slots
                for (int i = 0; i < 40 * (op % 7 + 1); i++) {
                    int size = (op * 31 + i * 7 + step) % 300;
                    log.append(new Entry(first + sizes.size(), ORIGIN, first + sizes.size(), MessageType.ENTRY_APP,
                            new byte[size]));
                    sizes.add(size);
                }
            } else if (op < 85) {
                int keep = sizes.isEmpty() ? 0 : (op * 13 + step) % (sizes.size() + 1);
                log.discardUpTo(first + keep - 1);
                sizes.subList(0, keep).clear();
                first += keep;
            } else if (op < 97) {
                int keep = sizes.isEmpty() ? 0 : (op * 17 + step) % (sizes.size() + 1);
                log.truncateAfter(first + keep - 1);
                sizes.subList(keep, sizes.size()).clear();
            } else {
                first = first + sizes.size() + op;
                log.reset(first);
                sizes.clear();
            }
            assertEquals(first, log.first());
            assertEquals(first + sizes.size() - 1, log.last());
            for (long seq = first - 2; seq <= log.last() + 1; seq++) {
                long expected = 0;
                for (int k = (int) Math.max(0, seq - first + 1); k < sizes.size(); k++) {
                    expected += sizes.get(k);
                }
                assertEquals(expected, log.bytesAfter(seq), "bytes after " + seq + " of " + first + ".." + log.last());
            }
        }
    }

    @Property(tries = 20)
    void anEntryOutOfSequenceIsRefused(@ForAll @IntRange(min = 2, max = 50) int gap) {
        EntryLog log = new EntryLog();
        log.append(new Entry(1, ORIGIN, 1, MessageType.ENTRY_APP, new byte[1]));
        assertThrows(IllegalStateException.class,
                () -> log.append(new Entry(gap + 1, ORIGIN, 2, MessageType.ENTRY_APP, new byte[1])));
        assertEquals(1, log.bytesAfter(0));
    }
}
