package io.polycert.bench.workload;

import io.polycert.oracle.OracleContext;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * One replica's oracle, which the benchmark switches between trials so one cluster measures every protocol and
 * oracle. Whatever it switches to is attached to the replica's group when it is first used.
 */
public final class SwitchableOracle extends ForwardingOracle {
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
    protected ProtocolOracle delegate() {
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
}
