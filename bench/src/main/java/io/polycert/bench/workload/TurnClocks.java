package io.polycert.bench.workload;

import java.util.HashMap;
import java.util.Map;

/**
 * One {@link TurnClock} per contender of a cluster that runs contenders in turns: the contender in use has its clock
 * running, every other one's stands still. Not thread-safe: the benchmark switches contenders from one thread.
 */
public final class TurnClocks {
    private final Map<String, TurnClock> clocks = new HashMap<>();
    private TurnClock running;

    /** The contender's clock, created stopped on first use. */
    public TurnClock of(String contender) {
        return clocks.computeIfAbsent(contender, c -> new TurnClock());
    }

    /** Stops the running contender's clock and starts this one's. */
    public void use(String contender) {
        TurnClock next = of(contender);
        if (running != null && running != next) {
            running.stop();
        }
        next.start();
        running = next;
    }

    /** Stops the running contender's clock (its turn is over and no other's has begun). */
    public void stop() {
        if (running != null) {
            running.stop();
            running = null;
        }
    }
}
