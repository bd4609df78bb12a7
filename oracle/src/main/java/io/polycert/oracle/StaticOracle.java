package io.polycert.oracle;

import java.util.Objects;

/** Always chooses one protocol: the non-adaptive baselines. */
final class StaticOracle implements ProtocolOracle {
    private final Protocol protocol;

    StaticOracle(Protocol protocol) {
        this.protocol = Objects.requireNonNull(protocol, "protocol");
    }

    @Override
    public Protocol choose(TransactionProfile profile) {
        return protocol;
    }

    @Override
    public void record(Protocol protocol, TransactionProfile profile, long latencyNanos, Outcome outcome) {
    }

    @Override
    public String toString() {
        return "static-" + protocol.name().toLowerCase();
    }
}
