package io.polycert.oracle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decision-tree oracle: forecasts each protocol's commit latency with PolyCert's cost model and picks the
 * least (eq. 1-3):
 *
 * <pre>
 *   T_NVC = Tm_NVC * m_NVC + Tv_NVC                 + T_AB(m_NVC)
 *   T_BFC = Tm_BFC * m_BFC + Tv_BFC + T_BF * reads  + T_AB(m_BFC)
 *   T_VC  = Tm_VC  * m_VC  + Tv_VC                  + T_AB(m_VC) + T_URB
 * </pre>
 *
 * where Tm is the marshalling time per byte, Tv the validation time (a line in the read-set size, per bucket), T_BF the Bloom filter build time per read,
 * T_URB the vote's self-delivery latency (all moving averages of what {@link #observe} reports), m the forecast
 * message size, and T_AB the atomic broadcast's self-delivery latency for a message of that size, forecast by a
 * {@link ModelTree} from the message size and the {@link MetricsMonitor}'s current features. Validation times are
 * kept per read-set bucket; the paper's eq. 2 borrows NVC's marshalling and VC's
 * validation averages for BFC, we keep BFC's own.
 *
 * <p>Each forecast is then made a cost per commit: (execution time + T_p) / (1 - abort rate of p), both moving
 * averages per bucket, since an aborted attempt is run and certified again (the paper forecasts one attempt; at
 * large read-sets the protocols abort at different rates).
 *
 * <p>A model whose training found it to forecast little (a cross-validated correlation under
 * {@link Builder#minModelCorrelation}, default {@value #DEFAULT_MIN_MODEL_CORRELATION}) is not used: a tree that
 * fits noise still splits on whatever it was given, and its forecasts then differ between protocols for no reason
 * (measured: such a tree sent 49% of its commits to VC where VC ran at half of NVC's rate; ORACLE.md).
 *
 * <p>Without a model, T_AB is a straight line in the message size fitted on-line to observed self-deliveries, so
 * the oracle is usable before any training; with a model, its forecast is kept within a factor 4 of that line (a
 * tree's linear leaves can extrapolate wildly), and a model that does not read the message size (training found
 * it uninformative) gets the line's cost per byte added: the model then speaks for the load, the line for size. Moving averages of durations clip a sample at four times the
 * current average: a shared machine's outliers would otherwise dominate them. Until a protocol has a few observations in a bucket it is tried
 * (round robin), and one decision in {@value #REFRESH_EVERY} goes to the protocol observed least recently there,
 * so no estimate goes stale.
 *
 * <p>Optionally records training samples ({@link TrainingCollector}) while it runs.
 */
public final class CostModelOracle implements ProtocolOracle {
    static final int REFRESH_EVERY = 200;
    /** Below this cross-validated correlation a trained model is not used (see the class comment). */
    public static final double DEFAULT_MIN_MODEL_CORRELATION = 0.5;
    private static final Logger LOG = LoggerFactory.getLogger(CostModelOracle.class);
    private static final int ARMS = Protocol.values().length;
    private static final int MIN_OBSERVATIONS = 5;
    /** Weight of a new observation in the moving averages. */
    private static final double ALPHA = 0.02;

    private final ModelTree model;
    /** A model given but not used, for toString; else null. */
    private final ModelTree ignoredModel;
    private final long monitorPeriodMillis;
    private final Path collectTo;
    private final long pauseAboveMillis;
    private final long resumeBelowMillis;
    private final int maxSamplesPerSecond;
    /** Position in the monitor's features of each model feature; -2 for the message size. */
    private final int[] positions;
    /** Whether the model reads monitored features (else the message size alone, usable before attaching). */
    private final boolean needsMonitor;
    /** Whether the model reads the message size (training may have found it uninformative and dropped it). */
    private final boolean modelSeesSize;
    private volatile MetricsMonitor monitor;
    private volatile TrainingCollector collector;

    // Moving averages; doubles updated under the lock of this oracle (observe is not on the hot path's critical
    // section: one short synchronized block per commit).
    private final double[] marshalPerByte = new double[ARMS];
    /**
     * Per read-set bucket and protocol: validation time as a line in the read-set size (VC's originator checks
     * every read; NVC scans the shorter of its reads and the recent writes; BFC checks the recent writes).
     */
    private final MovingLine[][] validation = new MovingLine[ReadSetBuckets.COUNT][ARMS];
    private final int[][] observations = new int[ReadSetBuckets.COUNT][ARMS];
    private final long[][] lastObserved = new long[ReadSetBuckets.COUNT][ARMS];
    /** Per read-set bucket and protocol: the share of attempts aborted (conflicts, false positives). */
    private final double[][] abortRate = new double[ReadSetBuckets.COUNT][ARMS];
    /** Per read-set bucket: the transactions' execution time before commit. */
    private final double[] execution = new double[ReadSetBuckets.COUNT];
    private double bloomPerRead;
    private double urb;
    /** Bytes a message carries per read id, for NVC and BFC; and its header (refined by observation). */
    private final double[] nvcBytesPerRead = filled(1.5);
    private final double[] bfcBytesPerRead = filled(2);
    private double overheadBytes = 40;
    private boolean vcSeen;
    /** On-line fit of broadcast latency (ns) against size (bytes), when there is no model. */
    private final MovingLine broadcastLine = new MovingLine();
    private final AtomicLongArray decisions = new AtomicLongArray(ReadSetBuckets.COUNT);
    private long clock;

    private CostModelOracle(Builder b) {
        boolean weak = b.model != null && b.model.crossValidatedCorrelation() < b.minModelCorrelation;
        this.model = weak ? null : b.model;
        this.ignoredModel = weak ? b.model : null;
        if (weak) {
            LOG.warn("not using the broadcast-latency model {}: its cross-validated correlation {} is under {};"
                    + " fitting broadcast latency on-line instead", b.model, b.model.crossValidatedCorrelation(),
                    b.minModelCorrelation);
        }
        this.monitorPeriodMillis = b.monitorPeriodMillis;
        this.collectTo = b.collectTo;
        this.pauseAboveMillis = b.pauseAboveMillis;
        this.resumeBelowMillis = b.resumeBelowMillis;
        this.maxSamplesPerSecond = b.maxSamplesPerSecond;
        for (MovingLine[] perBucket : validation) {
            for (int a = 0; a < ARMS; a++) {
                perBucket[a] = new MovingLine();
            }
        }
        if (model != null) {
            List<String> names = MetricsMonitor.featureNames();
            positions = new int[model.featureCount()];
            for (int i = 0; i < positions.length; i++) {
                String f = model.featureNames().get(i);
                positions[i] = f.equals(TrainingCollector.SIZE) ? -2 : names.indexOf(f);
                if (positions[i] == -1) {
                    throw new IllegalArgumentException("the model uses feature '" + f + "', which the monitor does"
                            + " not measure (it measures " + TrainingCollector.SIZE + " and " + names + ")");
                }
            }
            needsMonitor = java.util.Arrays.stream(positions).anyMatch(p -> p >= 0);
            modelSeesSize = java.util.Arrays.stream(positions).anyMatch(p -> p == -2);
        } else {
            positions = null;
            needsMonitor = false;
            modelSeesSize = false;
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Settings of a {@link CostModelOracle}. */
    public static final class Builder {
        private ModelTree model;
        private long monitorPeriodMillis = 100;
        private Path collectTo;
        private long pauseAboveMillis = 50;
        private long resumeBelowMillis = 10;
        private int maxSamplesPerSecond = 500;
        private double minModelCorrelation = DEFAULT_MIN_MODEL_CORRELATION;

        private Builder() {
        }

        /**
         * The least cross-validated correlation (recorded by {@link TrainModel}) at which a model is used (default
         * {@value #DEFAULT_MIN_MODEL_CORRELATION}); a model that does not record one is always used. -1 uses any.
         */
        public Builder minModelCorrelation(double correlation) {
            if (!(correlation >= -1 && correlation <= 1)) {
                throw new IllegalArgumentException("minModelCorrelation lies within [-1, 1], got " + correlation);
            }
            this.minModelCorrelation = correlation;
            return this;
        }

        /** The broadcast-latency model (from {@link TrainModel}); without one, a line fitted on-line. */
        public Builder model(ModelTree model) {
            this.model = Objects.requireNonNull(model, "model");
            return this;
        }

        /** Loads the model from its JSON file. */
        public Builder modelFile(Path file) {
            try {
                return model(ModelTree.load(file));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the oracle model " + file, e);
            }
        }

        /** How often the monitor samples (default 100 ms). */
        public Builder monitorPeriodMillis(long millis) {
            if (millis < 1) {
                throw new IllegalArgumentException("monitor period must be at least 1 ms, got " + millis);
            }
            this.monitorPeriodMillis = millis;
            return this;
        }

        /**
         * Records training samples to {@code file} (appending), pausing while certification lags more than
         * {@code pauseAboveMillis} behind delivery and resuming under {@code resumeBelowMillis}.
         */
        public Builder collectTrainingData(Path file, long pauseAboveMillis, long resumeBelowMillis,
                int maxSamplesPerSecond) {
            this.collectTo = Objects.requireNonNull(file, "file");
            this.pauseAboveMillis = pauseAboveMillis;
            this.resumeBelowMillis = resumeBelowMillis;
            this.maxSamplesPerSecond = maxSamplesPerSecond;
            return this;
        }

        public CostModelOracle build() {
            return new CostModelOracle(this);
        }
    }

    @Override
    public void attach(OracleContext context) {
        if (!needsMonitor && collectTo == null) {
            return; // nothing would read the features (no model that does, no training file): no sampling thread
        }
        MetricsMonitor m = MetricsMonitor.start(context, monitorPeriodMillis);
        monitor = m;
        if (collectTo != null) {
            try {
                collector = new TrainingCollector(collectTo, m, context, pauseAboveMillis, resumeBelowMillis,
                        maxSamplesPerSecond);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open the training file " + collectTo, e);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    @Override
    public Protocol choose(TransactionProfile profile) {
        int bucket = ReadSetBuckets.of(profile.readSetSize());
        long decision = decisions.incrementAndGet(bucket);
        double[] forecast = new double[ARMS];
        synchronized (this) {
            Protocol least = leastObserved(bucket);
            if (observations[bucket][least.ordinal()] < MIN_OBSERVATIONS) {
                return least;
            }
            if (decision % REFRESH_EVERY == 0) {
                return stalest(bucket);
            }
            forecastInto(profile, bucket, forecast);
        }
        return argMin(a -> forecast[a]);
    }

    private Protocol leastObserved(int bucket) {
        return argMin(a -> observations[bucket][a]);
    }

    private Protocol stalest(int bucket) {
        return argMin(a -> lastObserved[bucket][a]);
    }

    /** The protocol with the least value (the first of equals). */
    private static Protocol argMin(java.util.function.IntToDoubleFunction value) {
        int least = 0;
        for (int a = 1; a < ARMS; a++) {
            if (value.applyAsDouble(a) < value.applyAsDouble(least)) {
                least = a;
            }
        }
        return Protocol.values()[least];
    }

    /** Forecast commit latency (ns) of each protocol for this transaction. Caller holds the lock. */
    private void forecastInto(TransactionProfile profile, int bucket, double[] out) {
        int reads = profile.readSetSize();
        double base = overheadBytes + payloadBytes(profile);
        double mNvc = base + nvcBytesPerRead[bucket] * reads;
        double mBfc = base + bfcBytesPerRead[bucket] * reads;
        double mVc = base;
        MovingLine[] v = validation[bucket];
        int nvc = Protocol.NVC.ordinal();
        int bfc = Protocol.BFC.ordinal();
        int vc = Protocol.VC.ordinal();
        out[nvc] = marshalPerByte[nvc] * mNvc + v[nvc].at(reads) + broadcastNanos(mNvc);
        out[bfc] = marshalPerByte[bfc] * mBfc + v[bfc].at(reads) + bloomPerRead * reads + broadcastNanos(mBfc);
        out[vc] = marshalPerByte[vc] * mVc + v[vc].at(reads) + broadcastNanos(mVc) + urb;
        // An aborted attempt is run and certified again: what a commit costs is an attempt over the success rate.
        for (int a = 0; a < ARMS; a++) {
            out[a] = (execution[bucket] + out[a]) / Math.max(0.05, 1 - abortRate[bucket][a]);
        }
    }

    /** The forecast self-delivery latency of an atomic broadcast of {@code bytes}, in nanoseconds. */
    private double broadcastNanos(double bytes) {
        MetricsMonitor m = monitor;
        if (model != null && (m != null || !needsMonitor)) {
            double[] features = new double[positions.length];
            if (m != null) {
                m.features(positions, features);
            }
            for (int i = 0; i < positions.length; i++) {
                if (positions[i] == -2) {
                    features[i] = bytes;
                }
            }
            double forecast = Math.max(0, model.predict(features)) * 1000; // the model speaks microseconds
            if (!modelSeesSize) {
                // The model knows the load, not the size: add what bytes cost, from the on-line line's slope.
                forecast += broadcastLine.slope() * bytes;
            }
            // A tree's linear leaves can extrapolate wildly; keep it within a factor 4 of what is observed now.
            double observed = broadcastLine.at(bytes);
            return observed > 0 ? Math.min(4 * observed, Math.max(observed / 4, forecast)) : forecast;
        }
        return broadcastLine.at(bytes);
    }

    /** Learns abort rates; the times come from {@link #observe}. */
    @Override
    public void record(Protocol protocol, TransactionProfile profile, long latencyNanos, Outcome outcome) {
        if (outcome == Outcome.OTHER) {
            return;
        }
        int bucket = ReadSetBuckets.of(profile.readSetSize());
        synchronized (this) {
            double[] rates = abortRate[bucket];
            rates[protocol.ordinal()] = average(rates[protocol.ordinal()], outcome == Outcome.COMMITTED ? 0 : 1,
                    false);
        }
    }

    @Override
    public void observe(CommitTimings t) {
        TrainingCollector c = collector;
        if (c != null) {
            c.offer(t.broadcastNanos(), t.messageBytes());
        }
        int a = t.protocol().ordinal();
        int bucket = ReadSetBuckets.of(t.readSetSize());
        synchronized (this) {
            clock++;
            observations[bucket][a] = Math.min(Integer.MAX_VALUE - 1, observations[bucket][a] + 1);
            lastObserved[bucket][a] = clock;
            boolean first = observations[bucket][a] == 1;
            if (t.messageBytes() > 0) {
                marshalPerByte[a] = timeAverage(marshalPerByte[a], (double) t.marshalNanos() / t.messageBytes(),
                        first && marshalPerByte[a] == 0);
            }
            if (t.validationNanos() >= 0) {
                validation[bucket][a].add(t.readSetSize(), t.validationNanos());
            }
            if (t.executionNanos() >= 0) {
                execution[bucket] = timeAverage(execution[bucket], t.executionNanos(), execution[bucket] == 0);
            }
            if (t.protocol() == Protocol.BFC && t.bloomBuildNanos() >= 0 && t.readSetSize() > 0) {
                bloomPerRead = timeAverage(bloomPerRead, (double) t.bloomBuildNanos() / t.readSetSize(),
                        bloomPerRead == 0);
            }
            if (t.protocol() == Protocol.VC && t.voteNanos() >= 0) {
                urb = timeAverage(urb, t.voteNanos(), urb == 0);
            }
            learnSizes(t, first);
            if (t.broadcastNanos() >= 0) {
                broadcastLine.add(t.messageBytes(), t.broadcastNanos());
            }
        }
    }

    /** Bytes every protocol's message carries for the write-set: the values and an id per box. */
    private static double payloadBytes(TransactionProfile profile) {
        return profile.writeSetBytes() + 9.0 * profile.writeSetSize();
    }

    /** Refines the message-size forecast: the fixed overhead from VC, the bytes per read from NVC and BFC. */
    private void learnSizes(CommitTimings t, boolean firstInBucket) {
        double beyondWrites = t.messageBytes() - payloadBytes(t.profile());
        if (t.protocol() == Protocol.VC) {
            overheadBytes = average(overheadBytes, Math.max(0, beyondWrites), !vcSeen);
            vcSeen = true;
        } else if (t.readSetSize() > 0) {
            int bucket = ReadSetBuckets.of(t.readSetSize());
            double[] perRead = t.protocol() == Protocol.NVC ? nvcBytesPerRead : bfcBytesPerRead;
            perRead[bucket] = average(perRead[bucket], Math.max(0, (beyondWrites - overheadBytes) / t.readSetSize()),
                    firstInBucket);
        }
    }

    /** y as a line in x, fitted on exponentially weighted moments: recent samples count most. */
    private static final class MovingLine {
        private double sx;
        private double sy;
        private double sxx;
        private double sxy;
        private boolean fitted;

        void add(double x, double y) {
            boolean first = !fitted;
            if (!first) {
                y = Math.min(y, 4 * at(x) + 1_000); // robust, as in timeAverage
            }
            sx = average(sx, x, first);
            sy = average(sy, y, first);
            sxx = average(sxx, x * x, first);
            sxy = average(sxy, x * y, first);
            fitted = true;
        }

        /** The forecast at x, never negative; 0 before any sample. */
        double at(double x) {
            return fitted ? Math.max(0, sy + rawSlope() * (x - sx)) : 0;
        }

        /** How much y grows per unit of x, never negative (bigger messages are never faster). */
        double slope() {
            return fitted ? Math.max(0, rawSlope()) : 0;
        }

        private double rawSlope() {
            double varX = sxx - sx * sx;
            return varX > 1e-9 * Math.max(1, sxx) ? (sxy - sx * sy) / varX : 0;
        }
    }

    private static double[] filled(double value) {
        double[] a = new double[ReadSetBuckets.COUNT];
        java.util.Arrays.fill(a, value);
        return a;
    }

    /**
     * A moving average of a duration, robust to the outliers of a shared machine (a collection, a descheduled
     * thread): a sample counts for at most four times the current average. A real rise still gets through, a
     * factor 1.06 per sample.
     */
    private static double timeAverage(double current, double sample, boolean first) {
        return first ? sample : average(current, Math.min(sample, 4 * current + 1_000), false);
    }

    private static double average(double current, double sample, boolean first) {
        return first ? sample : current + ALPHA * (sample - current);
    }

    @Override
    public void close() {
        TrainingCollector c = collector;
        if (c != null) {
            c.close();
        }
        MetricsMonitor m = monitor;
        if (m != null) {
            m.close();
        }
    }

    /** Whether this oracle forecasts broadcasts with the model it was given (false without one, or if declined). */
    public boolean usesModel() {
        return model != null;
    }

    /** Whether a monitor samples the replica's features for this oracle (for tests). */
    boolean monitoring() {
        return monitor != null;
    }

    /** The forecast commit latency of each protocol for such a transaction, in µs: for logs and benchmarks. */
    public String describe(TransactionProfile profile) {
        int bucket = ReadSetBuckets.of(profile.readSetSize());
        double[] f = new double[ARMS];
        synchronized (this) {
            forecastInto(profile, bucket, f);
            return String.format(java.util.Locale.ROOT, "cost per commit NVC %.0f, BFC %.0f, VC %.0f us (aborts"
                    + " %.1f/%.1f/%.1f%%, execution %.0f us, AB of %.0f/%.0f/%.0f bytes %.0f/%.0f/%.0f us, URB %.0f us)",
                    f[0] / 1000, f[1] / 1000, f[2] / 1000, 100 * abortRate[bucket][0], 100 * abortRate[bucket][1],
                    100 * abortRate[bucket][2], execution[bucket] / 1000,
                    overheadBytes + payloadBytes(profile) + nvcBytesPerRead[bucket] * profile.readSetSize(),
                    overheadBytes + payloadBytes(profile) + bfcBytesPerRead[bucket] * profile.readSetSize(),
                    overheadBytes + payloadBytes(profile),
                    broadcastNanos(overheadBytes + payloadBytes(profile) + nvcBytesPerRead[bucket]
                            * profile.readSetSize()) / 1000,
                    broadcastNanos(overheadBytes + payloadBytes(profile) + bfcBytesPerRead[bucket]
                            * profile.readSetSize()) / 1000,
                    broadcastNanos(overheadBytes + payloadBytes(profile)) / 1000, urb / 1000);
        }
    }

    @Override
    public String toString() {
        return "decision-tree(" + (model != null ? model : ignoredModel == null ? "on-line line fit"
                : String.format(Locale.ROOT, "on-line line fit; %s not used: cross-validated correlation %.3f",
                        ignoredModel, ignoredModel.crossValidatedCorrelation())) + ")";
    }
}
