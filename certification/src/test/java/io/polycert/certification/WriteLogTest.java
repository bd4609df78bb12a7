package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.polycert.core.codec.BoxResolver;
import io.polycert.core.codec.CodecException;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class WriteLogTest {

    /** Both ways of certifying a read-set (scan the reads, or scan the recent writes) reach the same decision. */
    @Property(tries = 200)
    void readWrittenAfterAgreesWithAPerReadCheck(@ForAll @IntRange(min = 0, max = 3_000) int reads,
            @ForAll @IntRange(min = 1, max = 200) int versions, @ForAll @IntRange(min = 1, max = 20) int perVersion,
            @ForAll long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long universe = 1 + random.nextInt(50_000);
        WriteLog log = new WriteLog(1_000, Long.MAX_VALUE, 0);
        for (int v = 1; v <= versions; v++) {
            long[] ids = new long[perVersion];
            for (int i = 0; i < perVersion; i++) {
                ids[i] = random.nextLong(universe);
            }
            log.committed(v, ids);
        }
        long[] readIds = random.longs(reads, 0, universe).sorted().distinct().toArray();
        long snapshot = random.nextLong(versions + 1);
        boolean expected = Arrays.stream(readIds).anyMatch(id -> log.writtenAfter(id, snapshot));
        Long found = log.readWrittenAfter(readIds, snapshot);
        assertEquals(expected, found != null);
        if (found != null) {
            assertEquals(true, log.writtenAfter(found, snapshot), "the reported read was overwritten");
            assertEquals(true, Arrays.binarySearch(readIds, found) >= 0, "the reported id was read");
        }
    }

    @org.junit.jupiter.api.Test
    void hugeWriteSetsDropOldVersionsEarlyButKeepTheNewest() {
        WriteLog log = new WriteLog(1_000, 100, 0);
        for (int v = 1; v <= 5; v++) {
            long[] ids = new long[30];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = v * 1_000L + i;
            }
            log.committed(v, ids);
        }
        assertEquals(2, log.horizon(), "versions 3-5 (90 ids) fit in 100; 2-5 would not");
        assertEquals(true, log.writtenAfter(5_000, 4));
        assertEquals(false, log.writtenAfter(2_000, 1), "version 2's ids are forgotten");
        log.committed(6, new long[500]);
        assertEquals(5, log.horizon(), "one version larger than the bound is still kept, alone");
        assertEquals(true, log.writtenAfter(0, 5));
    }

    /**
     * The log against the plainest model of it, a queue of (version, ids) trimmed to the window and the id bound:
     * after every commit (write-sets from empty to far over the bound, so the rings grow, wrap and shrink; windows
     * past the versions ring's first 64 slots) the horizon, what was written after every snapshot and in which
     * order, which ids were not, and a copy through the wire agree.
     */
    @Property(tries = 300)
    void agreesWithAQueueOfVersions(@ForAll @IntRange(min = 16, max = 160) int window,
            @ForAll @IntRange(min = 1_024, max = 3_000) int maxIds, @ForAll @IntRange(min = 1, max = 400) int commits,
            @ForAll long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long start = random.nextInt(1_000);
        WriteLog log = new WriteLog(window, maxIds, start);
        ArrayDeque<long[]> model = new ArrayDeque<>(); // each: version, then its ids
        long heldIds = 0;
        for (long v = start + 1; v <= start + commits; v++) {
            int size = switch (random.nextInt(10)) {
                case 0 -> 0;
                case 1 -> maxIds + random.nextInt(2_000); // alone over the bound
                case 2 -> random.nextInt(maxIds / 2);
                default -> random.nextInt(8);
            };
            long[] ids = random.longs(size, 0, 500).toArray();
            log.committed(v, ids);
            long[] entry = new long[ids.length + 1];
            entry[0] = v;
            System.arraycopy(ids, 0, entry, 1, ids.length);
            model.addLast(entry);
            heldIds += ids.length;
            while (model.size() > window || (heldIds > maxIds && model.size() > 1)) {
                heldIds -= model.pollFirst().length - 1;
            }
            assertEquals(model.peekFirst()[0] - 1, log.horizon(), "horizon after version " + v);
            assertAgree(model, log, random.nextLong(log.horizon() - 3, v + 1));
        }
        ValueOutput out = new ValueOutput(ValueCodec.standard());
        log.write(out);
        WriteLog copy = WriteLog.read(new ValueInput(ValueCodec.standard(), out.toByteArray(), BoxResolver.none()),
                window, maxIds);
        assertEquals(log.latest(), copy.latest());
        assertEquals(log.horizon(), copy.horizon());
        for (long snapshot = log.horizon() - 1; snapshot <= log.latest(); snapshot++) {
            assertAgree(model, copy, snapshot);
        }
    }

    private static void assertAgree(ArrayDeque<long[]> model, WriteLog log, long snapshot) {
        List<Long> expected = new ArrayList<>();
        for (var it = model.descendingIterator(); it.hasNext(); ) {
            long[] entry = it.next();
            if (entry[0] <= snapshot) {
                break;
            }
            for (int i = 1; i < entry.length; i++) {
                expected.add(entry[i]);
            }
        }
        List<Long> seen = new ArrayList<>();
        log.anyWrittenAfter(snapshot, id -> !seen.add(id));
        assertEquals(expected, seen, "ids written after " + snapshot + ", newest version first");
        assertEquals(expected.size(), log.writesAfter(snapshot), "count written after " + snapshot);
        if (snapshot >= log.horizon()) {
            for (long id : expected) {
                assertEquals(true, log.writtenAfter(id, snapshot), "id " + id + " after " + snapshot);
            }
            for (long id = 0; id < 500; id += 37) { // and ids not written since: a sample of the ids drawn
                assertEquals(expected.contains(id), log.writtenAfter(id, snapshot), "id " + id + " after " + snapshot);
            }
        }
    }

    @org.junit.jupiter.api.Test
    void aTransferredLogWhoseVersionsAreNotConsecutiveIsRefused() {
        ValueOutput out = new ValueOutput(ValueCodec.standard());
        out.writeVarLong(12).writeVarInt(2);
        out.writeVarLong(10).writeVarInt(1).writeLong(7);
        out.writeVarLong(12).writeVarInt(1).writeLong(8);
        CodecException e = org.junit.jupiter.api.Assertions.assertThrows(CodecException.class, () -> WriteLog.read(
                new ValueInput(ValueCodec.standard(), out.toByteArray(), BoxResolver.none()), 100, 1_000));
        assertEquals("write log: version 12 after 10", e.getMessage());

        ValueOutput endsEarly = new ValueOutput(ValueCodec.standard());
        endsEarly.writeVarLong(12).writeVarInt(1).writeVarLong(10).writeVarInt(0);
        e = org.junit.jupiter.api.Assertions.assertThrows(CodecException.class, () -> WriteLog.read(
                new ValueInput(ValueCodec.standard(), endsEarly.toByteArray(), BoxResolver.none()), 100, 1_000));
        assertEquals("write log: versions end at 10, latest is 12", e.getMessage());
    }
}
