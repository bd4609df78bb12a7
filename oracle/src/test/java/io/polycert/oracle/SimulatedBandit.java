package io.polycert.oracle;

import java.util.SplittableRandom;

/** Commit latencies drawn from log-normal distributions with known medians per protocol: a bandit with an answer. */
final class SimulatedBandit {
    private final double[] medianMicros;
    private final double spread;
    private final SplittableRandom random;

    SimulatedBandit(long seed, double spread, double nvcMicros, double bfcMicros, double vcMicros) {
        this.medianMicros = new double[] {nvcMicros, bfcMicros, vcMicros};
        this.spread = spread;
        this.random = new SplittableRandom(seed);
    }

    Protocol best() {
        int best = 0;
        for (int a = 1; a < 3; a++) {
            if (medianMicros[a] < medianMicros[best]) {
                best = a;
            }
        }
        return Protocol.values()[best];
    }

    long latencyNanos(Protocol p) {
        double gaussian = Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
        return (long) (medianMicros[p.ordinal()] * 1000 * Math.exp(spread * gaussian));
    }

    /** Plays {@code steps} transactions; returns how many chose the best arm. */
    int play(ProtocolOracle oracle, int readSetSize, int steps) {
        TransactionProfile profile = new TransactionProfile(readSetSize, 2, 16);
        int best = 0;
        for (int i = 0; i < steps; i++) {
            Protocol p = oracle.choose(profile);
            if (p == best()) {
                best++;
            }
            oracle.record(p, profile, latencyNanos(p), Outcome.COMMITTED);
        }
        return best;
    }
}
