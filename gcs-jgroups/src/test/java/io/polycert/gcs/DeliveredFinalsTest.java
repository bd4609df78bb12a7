package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeliveredFinalsTest {
    private final MemberId a = new MemberId(0, 1, "A");
    private final MemberId b = new MemberId(0, 2, "B");
    private final MemberId c = new MemberId(0, 3, "C");

    @Test
    void remembersEachOriginsNewestNumbers() {
        DeliveredFinals finals = new DeliveredFinals(8, 4);
        for (long seq = 1; seq <= 20; seq++) {
            finals.put(a, seq, 100 + seq);
        }
        finals.put(b, 3, 7);
        assertEquals(120, finals.get(a, 20));
        assertEquals(113, finals.get(a, 13), "the 8 newest of A are kept");
        assertEquals(-1, finals.get(a, 12), "older ones gave their slot to a newer one");
        assertEquals(-1, finals.get(a, 21), "not delivered yet");
        assertEquals(7, finals.get(b, 3), "origins do not share slots");
        assertEquals(-1, finals.get(b, 11), "same slot as 3, other number");
        assertEquals(-1, finals.get(c, 1));
        assertEquals(-1, finals.get(a, 0), "numbers start at 1: an empty slot never matches");
    }

    @Test
    void sparseNumbersOfAnOriginAreKeptWhileTheirSlotIsFree() {
        // A destination of every other multicast of A (degree 2 of 4 members, say).
        DeliveredFinals finals = new DeliveredFinals(8, 4);
        for (long seq = 2; seq <= 16; seq += 2) {
            finals.put(a, seq, seq * 10);
        }
        assertEquals(100, finals.get(a, 10));
        assertEquals(160, finals.get(a, 16));
        assertEquals(-1, finals.get(a, 2), "16 took 8's slot, and 10 took 2's");
    }

    @Test
    void departedOriginsAreKeptUpToTheCapNewestDeparturesFirst() {
        DeliveredFinals finals = new DeliveredFinals(4, 1);
        finals.put(a, 1, 10);
        finals.put(b, 1, 20);
        finals.put(c, 1, 30);
        finals.retainOrigins(new View(2, List.of(a, b), true)); // C left: kept, one departure allowed
        assertEquals(30, finals.get(c, 1));
        assertEquals(3, finals.origins());

        finals.retainOrigins(new View(3, List.of(a), true)); // B left after C: C goes, B stays
        assertEquals(-1, finals.get(c, 1));
        assertEquals(20, finals.get(b, 1));
        assertEquals(2, finals.origins());

        finals.retainOrigins(new View(4, List.of(a, b), true)); // B merged back: no longer departed
        finals.put(c, 2, 40);
        finals.retainOrigins(new View(5, List.of(a, b), true));
        assertEquals(20, finals.get(b, 1));
        assertEquals(40, finals.get(c, 2), "C is the only departure now");
    }

    @Test
    void badSizesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new DeliveredFinals(6, 1));
        assertThrows(IllegalArgumentException.class, () -> new DeliveredFinals(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new DeliveredFinals(8, -1));
    }
}
