package io.polycert.bench.oracle;

import io.polycert.core.group.GroupStatistics;
import io.polycert.oracle.CommitTimings;
import io.polycert.oracle.CostModelOracle;
import io.polycert.oracle.MetricsMonitor;
import io.polycert.oracle.ModelTree;
import io.polycert.oracle.ModelTreeTrainer;
import io.polycert.oracle.OracleContext;
import io.polycert.oracle.Outcome;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import io.polycert.oracle.TrainingCollector;
import io.polycert.oracle.TrainingData;
import io.polycert.oracle.TransactionProfile;
import io.polycert.oracle.UcbOracle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one oracle query costs on the commit path: UCB and DistUCB ({@code choose}), the decision-tree oracle
 * (three cost forecasts, each a model-tree prediction over the monitor's features), and one model-tree prediction
 * alone. The model is trained on synthetic samples shaped like real ones (24 features).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class OracleQueryBenchmark {
    private ProtocolOracle ucb;
    private ProtocolOracle distUcb;
    private CostModelOracle decisionTree;
    private ModelTree model;
    private double[] features;
    private TransactionProfile[] profiles;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        SplittableRandom random = new SplittableRandom(1);
        profiles = new TransactionProfile[1024];
        for (int i = 0; i < profiles.length; i++) {
            profiles[i] = new TransactionProfile((int) Math.pow(10, random.nextInt(6)) + random.nextInt(9),
                    2, 16);
        }
        ucb = UcbOracle.builder().build();
        // DistUCB with gossip (epochs off): its query also merges the other replicas' statistics
        java.util.function.Supplier<ProtocolOracle> gossiping = () -> io.polycert.bench.workload.Contenders.oracle(
                "dist-ucb-gossip", Duration.ofMillis(1), null);
        distUcb = gossiping.get();
        ProtocolOracle[] others = {gossiping.get(), gossiping.get()};
        for (ProtocolOracle o : new ProtocolOracle[] {ucb, distUcb, others[0], others[1]}) {
            teach(o, random);
        }
        sleepMillis(2);
        for (ProtocolOracle o : others) {
            distUcb.gossipReceived(o.gossipToSend());
        }
        model = syntheticModel(random);
        decisionTree = CostModelOracle.builder().model(model).monitorPeriodMillis(100).build();
        decisionTree.attach(new IdleReplica());
        for (int i = 0; i < 5_000; i++) {
            TransactionProfile p = profiles[i % profiles.length];
            for (Protocol protocol : Protocol.values()) {
                decisionTree.observe(new CommitTimings(protocol, p, 20_000, 100 + p.readSetSize(), 5_000, 1_000, 2_000,
                        100_000, protocol == Protocol.VC ? 80_000 : -1));
            }
        }
        features = new double[model.featureCount()];
        for (int i = 0; i < features.length; i++) {
            features[i] = random.nextDouble(1000);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        decisionTree.close();
    }

    private void teach(ProtocolOracle oracle, SplittableRandom random) {
        for (int i = 0; i < 20_000; i++) {
            TransactionProfile p = profiles[i % profiles.length];
            Protocol chosen = oracle.choose(p);
            oracle.record(chosen, p, 50_000 + random.nextInt(200_000), Outcome.COMMITTED);
        }
    }

    private static ModelTree syntheticModel(SplittableRandom random) {
        List<String> names = new ArrayList<>();
        names.add(TrainingCollector.SIZE);
        names.addAll(MetricsMonitor.featureNames().subList(0, 23));
        TrainingData.Builder data = TrainingData.builder(TrainingCollector.TARGET, names);
        for (int i = 0; i < 10_000; i++) {
            double[] x = new double[names.size()];
            for (int f = 0; f < x.length; f++) {
                x[f] = random.nextDouble(1000);
            }
            double y = x[0] < 500 ? 80 + 0.1 * x[0] + 0.05 * x[3] : 120 + 0.3 * x[0] - 0.02 * x[5];
            data.add(y + random.nextGaussian() * 5, x);
        }
        return ModelTreeTrainer.builder().build().train(data.build());
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private TransactionProfile nextProfile() {
        next = (next + 1) & (profiles.length - 1);
        return profiles[next];
    }

    @Benchmark
    public Protocol ucbChoose() {
        return ucb.choose(nextProfile());
    }

    @Benchmark
    public Protocol distUcbChoose() {
        return distUcb.choose(nextProfile());
    }

    @Benchmark
    public Protocol decisionTreeChoose() {
        return decisionTree.choose(nextProfile());
    }

    @Benchmark
    public double modelTreePredict() {
        features[0] = next++ & 1023;
        return model.predict(features);
    }

    /** A replica doing nothing: the monitor samples real JVM metrics and zero group counters. */
    private static final class IdleReplica implements OracleContext, GroupStatistics {
        @Override public GroupStatistics group() { return this; }
        @Override public long deliveryThreadId() { return Thread.currentThread().getId(); }
        @Override public long replayLagNanos() { return 0; }
        @Override public long selfDeliveries() { return 0; }
        @Override public double meanSelfDeliveryNanos() { return 0; }
        @Override public int undeliveredBroadcasts() { return 0; }
        @Override public long orderedDeliveries() { return 0; }
        @Override public long bytesSent() { return 0; }
        @Override public long bytesDelivered() { return 0; }
        @Override public long droppedMessages() { return 0; }
        @Override public long messagesSent() { return 0; }
        @Override public long multicastDeliveries() { return 0; }
        @Override public long multicastWaitNanos() { return 0; }
    }
}
