package io.polycert.bench.workload;

import io.polycert.oracle.CommitTimings;
import io.polycert.oracle.OracleContext;
import io.polycert.oracle.Outcome;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import io.polycert.oracle.TransactionProfile;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * One replica's oracle, which the benchmark switches between trials so one cluster measures every protocol and
 * oracle. Whatever it switches to is attached to the replica's group when it is first used.
 */
public final class SwitchableOracle implements ProtocolOracle {
    private volatile ProtocolOracle delegate = ProtocolOracle.always(Protocol.NVC);
    private volatile OracleContext context;
    private final Set<ProtocolOracle> attached = Collections.newSetFromMap(new IdentityHashMap<>());

    public synchronized void use(ProtocolOracle oracle) {
        if (context != null && attached.add(oracle)) {
            oracle.attach(context);
        }
        this.delegate = oracle;
    }

    public ProtocolOracle current() {
        return delegate;
    }

    @Override
    public synchronized void attach(OracleContext context) {
        this.context = context;
        if (attached.add(delegate)) {
            delegate.attach(context);
        }
    }

    /** Closes every oracle this replica used. */
    @Override
    public synchronized void close() {
        attached.forEach(ProtocolOracle::close);
        attached.clear();
    }

    @Override
    public Protocol choose(TransactionProfile profile) {
        return delegate.choose(profile);
    }

    @Override
    public void record(Protocol protocol, TransactionProfile profile, long latencyNanos, Outcome outcome) {
        delegate.record(protocol, profile, latencyNanos, outcome);
    }

    @Override
    public void observe(CommitTimings timings) {
        delegate.observe(timings);
    }

    @Override
    public byte[] gossipToSend() {
        return delegate.gossipToSend();
    }

    @Override
    public void gossipReceived(byte[] gossip) {
        delegate.gossipReceived(gossip);
    }

    @Override
    public long commitTag(TransactionProfile profile) {
        return delegate.commitTag(profile);
    }

    @Override
    public void commitDelivered(long position, long tag) {
        delegate.commitDelivered(position, tag);
    }

    @Override
    public void commitDecided(long tag, Protocol protocol, boolean committed) {
        delegate.commitDecided(tag, protocol, committed);
    }
}
