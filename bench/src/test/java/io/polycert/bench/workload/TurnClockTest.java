package io.polycert.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TurnClockTest {
    private final AtomicLong wall = new AtomicLong(1_000);
    private final TurnClock clock = new TurnClock(wall::get);

    @Test
    void standsStillBetweenTurnsAndJoinsTheTurnsEndToEnd() {
        assertEquals(0, clock.getAsLong(), "stopped before the first turn");
        wall.addAndGet(500);
        assertEquals(0, clock.getAsLong());
        clock.start();
        wall.addAndGet(100);
        assertEquals(100, clock.getAsLong(), "runs during a turn");
        clock.stop();
        wall.addAndGet(10_000); // the other contenders' turns
        assertEquals(100, clock.getAsLong());
        clock.start();
        assertEquals(100, clock.getAsLong(), "the next turn starts where the last one ended");
        wall.addAndGet(40);
        assertEquals(140, clock.getAsLong());
    }

    @Test
    void repeatedStartsAndStopsChangeNothing() {
        clock.start();
        wall.addAndGet(30);
        clock.start();
        assertEquals(30, clock.getAsLong());
        clock.stop();
        wall.addAndGet(70);
        clock.stop();
        clock.start();
        wall.addAndGet(5);
        assertEquals(35, clock.getAsLong());
    }

    @Test
    void theContenderInUseIsTheOneWhoseClockRuns() throws InterruptedException {
        TurnClocks clocks = new TurnClocks();
        TurnClock a = clocks.of("a");
        clocks.use("a");
        Thread.sleep(5);
        clocks.use("b");
        long aAtSwitch = a.getAsLong();
        assertTrue(aAtSwitch >= 5_000_000, "a ran during its use: " + aAtSwitch);
        Thread.sleep(5);
        assertEquals(aAtSwitch, a.getAsLong(), "a stands still while b is in use");
        assertTrue(clocks.of("b").getAsLong() >= 5_000_000);
        clocks.use("b");
        assertTrue(clocks.of("b").getAsLong() >= 5_000_000, "using the same contender again keeps its clock running");
        clocks.stop();
        long bAtStop = clocks.of("b").getAsLong();
        Thread.sleep(5);
        assertEquals(bAtStop, clocks.of("b").getAsLong(), "stopped: no contender's clock runs");
    }
}
