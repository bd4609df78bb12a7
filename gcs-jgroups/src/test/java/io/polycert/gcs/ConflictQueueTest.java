package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class ConflictQueueTest {

    private static final class Item extends ConflictQueue.Entry {
        final int id;

        Item(int id, long[] keys, long ts) {
            super(keys);
            this.id = id;
            this.ts = ts;
        }

        @Override
        public String toString() {
            return "m" + id + (isFinal ? "@" : "~") + ts;
        }
    }

    private static final Comparator<Item> ORDER = Comparator.<Item>comparingLong(i -> i.ts).thenComparingInt(i -> i.id);

    /**
     * What may be delivered, by the definition: in timestamp order, each final message that no message before it
     * and still undelivered conflicts with. Takes them out of {@code model}.
     */
    private static List<Item> takeReady(List<Item> model) {
        model.sort(ORDER);
        List<Item> ready = new ArrayList<>();
        List<Item> before = new ArrayList<>();
        for (Item m : model) {
            if (m.isFinal && before.stream().noneMatch(b -> conflict(b, m))) {
                ready.add(m);
            } else {
                before.add(m);
            }
        }
        model.removeAll(ready);
        return ready;
    }

    private static boolean conflict(Item a, Item b) {
        if (a.keys == null || b.keys == null) {
            return true;
        }
        for (long k : a.keys) {
            for (long l : b.keys) {
                if (k == l) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * One to three keys of six, sorted, sometimes repeated (data from the wire is sorted, not checked for repeats);
     * or one time in eight none: conflicts with all.
     */
    private static long[] randomKeys(Random random) {
        if (random.nextInt(8) == 0) {
            return null;
        }
        return random.longs(1 + random.nextInt(3), 0, 6).sorted().toArray();
    }

    /**
     * Random adds (proposals from a clock), timestamps made final (at the proposal or later, so messages move
     * back), final ones decided again (as a resolution does), and drops; after each, the queue hands out exactly
     * what the definition says may be delivered, in timestamp order, and keeps nothing deliverable back.
     */
    @Property(tries = 1000)
    void deliversExactlyWhatNoEarlierConflictingMessageHoldsBack(@ForAll long seed) {
        Random random = new Random(seed);
        ConflictQueue<Item> queue = new ConflictQueue<>(ORDER);
        List<Item> model = new ArrayList<>();
        List<Item> open = new ArrayList<>(); // added, not yet final
        long clock = 0;
        int ids = 0;
        for (int step = 0; step < 200; step++) {
            int op = random.nextInt(10);
            if (op < 5 || open.isEmpty()) {
                Item m = new Item(ids++, randomKeys(random), ++clock);
                queue.add(m);
                model.add(m);
                open.add(m);
            } else if (op < 9) {
                List<Item> finalOnes = model.stream().filter(i -> i.isFinal).toList();
                Item m = op == 8 && !finalOnes.isEmpty() ? finalOnes.get(random.nextInt(finalOnes.size()))
                        : open.remove(random.nextInt(open.size()));
                long ts = m.ts + random.nextInt(4) * (long) random.nextInt(8); // often unchanged, sometimes later
                clock = Math.max(clock, ts);
                List<Item> got = queue.makeFinal(m, ts);
                assertEquals(ts, m.ts, "its timestamp");
                assertTrue(m.isFinal, "final");
                assertEquals(names(takeReady(model)), names(got), "after " + m + " became final");
            } else {
                int drop = random.nextInt(ids);
                queue.removeIf(i -> i.id % 7 == drop % 7 && i.id <= drop);
                model.removeIf(i -> i.id % 7 == drop % 7 && i.id <= drop);
                open.removeIf(i -> i.id % 7 == drop % 7 && i.id <= drop);
                assertEquals(names(takeReady(model)), names(queue.takeAllReady()), "after a drop");
            }
            assertEquals(model.size(), queue.size(), "undelivered");
        }
        for (Item m : open) {
            queue.makeFinal(m, m.ts);
        }
        assertEquals(0, queue.size(), "every message final: all delivered");
        assertEquals(0, queue.indexedKeys(), "and the index is empty");
    }

    private static String names(List<Item> items) {
        return items.stream().map(i -> "m" + i.id).collect(Collectors.joining(" "));
    }

    /**
     * The pass this queue replaced looked past at most 1,024 undelivered messages: a final message behind more
     * undecided ones waited for a later pass. Now it goes at once when it conflicts with none of them.
     */
    @Test
    void aFinalMessageGoesPastAnyNumberOfUndecidedOnesItDoesNotConflictWith() {
        ConflictQueue<Item> queue = new ConflictQueue<>(ORDER);
        for (int i = 0; i < 5_000; i++) {
            queue.add(new Item(i, new long[] {i}, i + 1));
        }
        Item late = new Item(5_000, new long[] {-1}, 5_001);
        queue.add(late);
        assertEquals(List.of(late), queue.makeFinal(late, 5_001));
        Item behind = new Item(5_001, new long[] {7}, 5_002); // shares key 7 with undecided m7
        queue.add(behind);
        assertEquals(List.of(), queue.makeFinal(behind, 5_002));
        assertEquals(5_001, queue.size());
    }

    /** A message without keys holds back every message after it, and goes only from the head. */
    @Test
    void aMessageWithoutKeysIsABarrier() {
        ConflictQueue<Item> queue = new ConflictQueue<>(ORDER);
        Item first = new Item(0, new long[] {1}, 1);
        Item barrier = new Item(1, null, 2);
        Item after = new Item(2, new long[] {2}, 3);
        queue.add(first);
        queue.add(barrier);
        queue.add(after);
        assertEquals(List.of(), queue.makeFinal(after, 3), "behind the barrier");
        assertEquals(List.of(), queue.makeFinal(barrier, 2), "behind m0, which holds no key in common but is first");
        assertEquals(List.of(first, barrier, after), queue.makeFinal(first, 1));
        assertEquals(0, queue.indexedKeys());
    }
}
