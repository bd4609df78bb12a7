package io.polycert.bench.workload;

import java.util.function.LongSupplier;

/**
 * A nanosecond clock that runs only during its contender's turns. The benchmarks run every contender on one
 * cluster in turns; on the wall clock an adaptive oracle would see its load as mostly idle (in the oracle
 * benchmark its own turns are a tenth of the time or less), and its time-based rules (statistics fading with a
 * half-life, epochs, gossip expiry) would run that much faster against its own load than they do in production. On
 * this clock the turns join end to end, as if the contender had the cluster alone.
 */
public final class TurnClock implements LongSupplier {
    /** Wall time spent outside turns so far, and whether a turn is on (else {@code stoppedAt} is when it ended). */
    private record State(long offset, long stoppedAt, boolean running) {
    }

    private final LongSupplier wall;
    private volatile State state;

    public TurnClock() {
        this(System::nanoTime);
    }

    TurnClock(LongSupplier wall) {
        this.wall = wall;
        long now = wall.getAsLong();
        this.state = new State(now, now, false); // reads 0 until the first turn
    }

    /** The contender's turn begins: the clock moves on from where it stopped. */
    public synchronized void start() {
        State s = state;
        if (!s.running()) {
            state = new State(s.offset() + wall.getAsLong() - s.stoppedAt(), 0, true);
        }
    }

    /** The contender's turn ends: the clock stands still until the next {@link #start}. */
    public synchronized void stop() {
        State s = state;
        if (s.running()) {
            state = new State(s.offset(), wall.getAsLong(), false);
        }
    }

    @Override
    public long getAsLong() {
        State s = state; // one volatile read: the oracles ask a few times per commit, from every replica's threads
        return (s.running() ? wall.getAsLong() : s.stoppedAt()) - s.offset();
    }
}
