package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.polycert.core.group.MemberId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class RememberedDecisionsTest {
    private static final List<MemberId> ORIGINS = List.of(new MemberId(1, 1, "a"), new MemberId(2, 2, "b"),
            new MemberId(3, 3, "c"));

    private record Key(MemberId origin, long txId) {
    }

    /**
     * The same answers, and the same oldest-first order, as the LinkedHashMap bounded by removeEldestEntry that it
     * replaces; a put says when it forgot the oldest to make room.
     */
    @Property(tries = 300)
    void behavesLikeABoundedInsertionOrderedMap(@ForAll long seed,
            @ForAll @IntRange(min = 1, max = 300) int capacity, @ForAll @IntRange(min = 0, max = 3_000) int puts) {
        SplittableRandom random = new SplittableRandom(seed);
        RememberedDecisions decisions = new RememberedDecisions(capacity);
        Map<Key, Boolean> model = new LinkedHashMap<>(16, 0.75f, false) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, Boolean> eldest) {
                return size() > capacity;
            }
        };
        long universe = 1 + random.nextInt(capacity * 3);
        for (int i = 0; i < puts; i++) {
            // Now and then an id anywhere (negative, huge): it takes the window's table on the side.
            long txId = random.nextInt(20) == 0 ? random.nextLong() : random.nextLong(universe);
            Key key = new Key(ORIGINS.get(random.nextInt(ORIGINS.size())), txId);
            boolean commit = random.nextBoolean();
            List<Key> before = new ArrayList<>(model.keySet());
            model.put(key, commit);
            boolean forgot = !model.keySet().containsAll(before);
            assertEquals(forgot, decisions.put(key.origin(), key.txId(), commit),
                    "whether putting " + key + " forgot the oldest");
            Key probe = new Key(ORIGINS.get(random.nextInt(ORIGINS.size())), random.nextLong(universe));
            assertEquals(model.get(probe), decisions.get(probe.origin(), probe.txId()));
            assertEquals(model.containsKey(probe), decisions.contains(probe.origin(), probe.txId()));
            assertEquals(model.size(), decisions.size());
        }
        List<String> expected = new ArrayList<>();
        model.forEach((k, v) -> expected.add(k.origin() + "/" + k.txId() + "=" + v));
        List<String> actual = new ArrayList<>();
        decisions.forEach((origin, txId, commit) -> actual.add(origin + "/" + txId + "=" + commit));
        assertEquals(expected, actual);
        decisions.clear();
        assertEquals(0, decisions.size());
        assertEquals(null, decisions.get(ORIGINS.get(0), 0));
    }

    @Test
    void aCapacityBelowOneIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new RememberedDecisions(0));
    }
}
