package io.polycert.bench.replicated;

import io.polycert.oracle.CommitTimings;
import io.polycert.oracle.MetricsMonitor;
import io.polycert.oracle.OracleContext;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import io.polycert.oracle.TrainingCollector;
import io.polycert.oracle.TransactionProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** A static protocol, switched by the benchmark, that records training samples for the decision-tree oracle. */
final class TrainingRunOracle implements ProtocolOracle {
    private final Path file;
    private volatile Protocol protocol = Protocol.NVC;
    private MetricsMonitor monitor;
    private volatile TrainingCollector collector;

    TrainingRunOracle(Path file) {
        this.file = file;
    }

    void protocol(Protocol p) {
        this.protocol = p;
    }

    @Override
    public synchronized void attach(OracleContext context) {
        monitor = MetricsMonitor.start(context, 100);
        try {
            collector = new TrainingCollector(file, monitor, context, 50, 10, 300);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Protocol choose(TransactionProfile profile) {
        return protocol;
    }

    @Override
    public void record(Protocol p, TransactionProfile profile, long latencyNanos, io.polycert.oracle.Outcome outcome) {
    }

    @Override
    public void observe(CommitTimings timings) {
        TrainingCollector c = collector;
        if (c != null) {
            c.offer(timings.broadcastNanos(), timings.messageBytes());
        }
    }

    /** Samples written and paused episodes. */
    synchronized long[] counts() {
        return collector == null ? new long[2] : new long[] {collector.written(), collector.pauses()};
    }

    @Override
    public synchronized void close() {
        if (collector != null) {
            collector.close();
            collector = null;
        }
        if (monitor != null) {
            monitor.close();
            monitor = null;
        }
    }
}
