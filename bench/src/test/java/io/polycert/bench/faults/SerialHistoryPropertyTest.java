package io.polycert.bench.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.bench.faults.History.Append;
import io.polycert.bench.faults.History.FinalRead;
import io.polycert.bench.faults.History.Op;
import io.polycert.bench.faults.History.Outcome;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** A serial execution of random list-append transactions always checks clean. */
class SerialHistoryPropertyTest {

    @Property(tries = 200)
    void serialExecutionsAreClean(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 2) long seed,
            @ForAll @IntRange(min = 1, max = 300) int transactions, @ForAll @IntRange(min = 1, max = 8) int keys) {
        SplittableRandom random = new SplittableRandom(seed);
        Map<Long, long[]> state = new HashMap<>();
        List<Op> ops = new ArrayList<>();
        long nextValue = 1;
        int acknowledged = 0;
        for (int t = 0; t < transactions; t++) {
            List<Append> appends = new ArrayList<>();
            Map<Long, long[]> reads = new LinkedHashMap<>();
            int nAppends = random.nextInt(4);
            for (int i = 0; i < nAppends; i++) {
                appends.add(new Append(random.nextInt(keys), nextValue++));
            }
            if (!appends.isEmpty() && random.nextInt(4) == 0) { // append twice to one key
                appends.add(new Append(appends.get(0).key(), nextValue++));
            }
            int nReads = random.nextInt(4);
            for (int i = 0; i < nReads; i++) {
                long k = random.nextInt(keys);
                reads.put(k, state.getOrDefault(k, new long[0]).clone());
            }
            int roll = random.nextInt(10);
            Outcome outcome = roll < 6 ? Outcome.COMMITTED : roll < 8 ? Outcome.ABORTED : Outcome.UNKNOWN;
            boolean applied = outcome == Outcome.COMMITTED || (outcome == Outcome.UNKNOWN && random.nextBoolean());
            if (applied) {
                for (Append a : appends) {
                    long[] old = state.getOrDefault(a.key(), new long[0]);
                    long[] next = Arrays.copyOf(old, old.length + 1);
                    next[old.length] = a.value();
                    state.put(a.key(), next);
                }
            }
            if (outcome == Outcome.COMMITTED) {
                acknowledged++;
            }
            String cause = outcome == Outcome.ABORTED ? (random.nextBoolean() ? "CONFLICT" : "NOT_IN_MAJORITY")
                    : null;
            ops.add(new Op(t, random.nextInt(3), 1, 0, t * 2L, outcome == Outcome.UNKNOWN ? -1 : t * 2L + 1,
                    outcome, cause, appends, outcome == Outcome.COMMITTED ? reads : Map.of()));
        }
        List<FinalRead> finals = List.of(new FinalRead(0, 1, state, 0), new FinalRead(1, 2, state, 0));
        ListAppendChecker.Result r = ListAppendChecker.check(ops, finals);
        assertTrue(r.valid(), r.describe());
        assertEquals(acknowledged, r.committed());
        assertEquals(0, r.lostAcknowledged());
    }
}
