package io.polycert.bench.workload;

import io.polycert.oracle.CommitTimings;
import io.polycert.oracle.OracleContext;
import io.polycert.oracle.Outcome;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import io.polycert.oracle.TransactionProfile;

/** An oracle that passes every call to another; subclasses override what they change. */
public abstract class ForwardingOracle implements ProtocolOracle {

    /** The oracle the calls go to (it may change from call to call). */
    protected abstract ProtocolOracle delegate();

    @Override
    public Protocol choose(TransactionProfile profile) {
        return delegate().choose(profile);
    }

    @Override
    public void record(Protocol protocol, TransactionProfile profile, long latencyNanos, Outcome outcome) {
        delegate().record(protocol, profile, latencyNanos, outcome);
    }

    @Override
    public void attach(OracleContext context) {
        delegate().attach(context);
    }

    @Override
    public void observe(CommitTimings timings) {
        delegate().observe(timings);
    }

    @Override
    public void close() {
        delegate().close();
    }

    @Override
    public byte[] gossipToSend() {
        return delegate().gossipToSend();
    }

    @Override
    public void gossipReceived(byte[] gossip) {
        delegate().gossipReceived(gossip);
    }

    @Override
    public long commitTag(TransactionProfile profile) {
        return delegate().commitTag(profile);
    }

    @Override
    public void commitDelivered(long position, long tag) {
        delegate().commitDelivered(position, tag);
    }

    @Override
    public void commitDecided(long tag, Protocol protocol, boolean committed) {
        delegate().commitDecided(tag, protocol, committed);
    }
}
