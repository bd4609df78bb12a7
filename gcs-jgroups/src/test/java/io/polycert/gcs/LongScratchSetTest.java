package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class LongScratchSetTest {

    /** Random adds, lookups and clears, from keys that collide often, against a HashSet. */
    @Property(tries = 300)
    void behavesLikeASetThatIsEmptiedOnClear(@ForAll("operations") List<Long> operations) {
        LongScratchSet set = new LongScratchSet();
        Set<Long> model = new HashSet<>();
        for (long op : operations) {
            if (op == Long.MIN_VALUE) {
                set.clear();
                model.clear();
            } else if (op % 3 == 0) {
                assertEquals(model.contains(op / 3), set.contains(op / 3), "contains " + op / 3);
            } else {
                assertEquals(model.add(op), set.add(op), "add " + op);
            }
            assertEquals(model.size(), set.size());
        }
        for (long k : model) {
            assertTrue(set.contains(k), "kept " + k);
        }
    }

    @Provide
    Arbitrary<List<Long>> operations() {
        Arbitrary<Long> small = Arbitraries.longs().between(-300, 300);
        Arbitrary<Long> any = Arbitraries.longs();
        Arbitrary<Long> clear = Arbitraries.just(Long.MIN_VALUE);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(30, small), net.jqwik.api.Tuple.of(10, any), net.jqwik.api.Tuple.of(1, clear))
                .list().ofMaxSize(2_000);
    }

    @Test
    void growsPastItsFirstTableAndEmptiesAtOnce() {
        LongScratchSet set = new LongScratchSet();
        for (long k = 0; k < 100_000; k++) {
            assertTrue(set.add(k * 1_000_003));
        }
        assertEquals(100_000, set.size());
        assertTrue(set.contains(99_999L * 1_000_003));
        set.clear();
        assertEquals(0, set.size());
        assertFalse(set.contains(0));
        assertFalse(set.contains(99_999L * 1_000_003));
        assertTrue(set.add(0));
    }
}
