package io.polycert.bench.replicated;

import io.polycert.oracle.Outcome;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import io.polycert.oracle.TransactionProfile;

/** An oracle the benchmark switches between trials, so one cluster measures every protocol. */
final class SwitchableOracle implements ProtocolOracle {
    private volatile ProtocolOracle delegate = ProtocolOracle.always(Protocol.NVC);

    void use(ProtocolOracle oracle) {
        this.delegate = oracle;
    }

    @Override
    public Protocol choose(TransactionProfile profile) {
        return delegate.choose(profile);
    }

    @Override
    public void record(Protocol protocol, TransactionProfile profile, long latencyNanos, Outcome outcome) {
        delegate.record(protocol, profile, latencyNanos, outcome);
    }
}
