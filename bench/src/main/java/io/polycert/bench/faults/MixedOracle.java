package io.polycert.bench.faults;

import io.polycert.oracle.Outcome;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import io.polycert.oracle.TransactionProfile;
import java.util.SplittableRandom;

/**
 * Picks NVC, BFC or VC uniformly at random for every transaction, so that a fault campaign certifies with all
 * three protocols at once whatever the workload (member-process contender name {@code mixed}).
 */
public final class MixedOracle implements ProtocolOracle {
    private final SplittableRandom random;

    public MixedOracle(long seed) {
        this.random = new SplittableRandom(seed);
    }

    @Override
    public synchronized Protocol choose(TransactionProfile profile) {
        return Protocol.values()[random.nextInt(Protocol.values().length)];
    }

    @Override
    public void record(Protocol protocol, TransactionProfile profile, long latencyNanos, Outcome outcome) {
    }
}
