package io.polycert.oracle;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records training samples on a live replica (the Replicated Training idea): for each of this replica's commit
 * broadcasts, its self-delivery latency (the target, µs), its size and the monitor's features, as CSV lines in
 * {@link TrainingData}'s format, written by a background thread.
 *
 * <p>Collecting must never slow the replica down: samples are rate-limited, queued without blocking (dropped and
 * counted when the writer falls behind), and collection <b>pauses</b> while certification lags behind the
 * delivery stream by more than {@code pauseAbove}, <b>resuming</b> only once the lag is back under
 * {@code resumeBelow}. The gap between the two (hysteresis) keeps a replica hovering near the limit from
 * switching on and off with every sample.
 */
public final class TrainingCollector implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TrainingCollector.class);
    public static final String TARGET = "ab_latency_us";
    public static final String SIZE = "msgSize";

    private final MetricsMonitor monitor;
    private final OracleContext context;
    private final long pauseAboveNanos;
    private final long resumeBelowNanos;
    private final long minGapNanos;
    private final BlockingQueue<Sample> lines = new ArrayBlockingQueue<>(8_192);
    private final BufferedWriter writer;
    private final Thread writerThread;
    private final AtomicLong lastSampleAt = new AtomicLong(Long.MIN_VALUE / 2);
    private final LongAdder written = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final LongAdder pauses = new LongAdder();
    private volatile boolean paused;
    private volatile boolean closed;

    /**
     * @param maxSamplesPerSecond at most this many samples are kept (the rest are skipped, not queued)
     */
    public TrainingCollector(Path file, MetricsMonitor monitor, OracleContext context, long pauseAboveMillis,
            long resumeBelowMillis, int maxSamplesPerSecond) throws IOException {
        this.monitor = Objects.requireNonNull(monitor, "monitor");
        this.context = Objects.requireNonNull(context, "context");
        if (resumeBelowMillis < 0 || pauseAboveMillis <= resumeBelowMillis) {
            throw new IllegalArgumentException("need 0 <= resumeBelow < pauseAbove, got " + resumeBelowMillis
                    + " and " + pauseAboveMillis + " ms");
        }
        if (maxSamplesPerSecond < 1) {
            throw new IllegalArgumentException("maxSamplesPerSecond must be positive, got " + maxSamplesPerSecond);
        }
        this.pauseAboveNanos = TimeUnit.MILLISECONDS.toNanos(pauseAboveMillis);
        this.resumeBelowNanos = TimeUnit.MILLISECONDS.toNanos(resumeBelowMillis);
        this.minGapNanos = 1_000_000_000L / maxSamplesPerSecond;
        boolean fresh = !Files.exists(file) || Files.size(file) == 0;
        this.writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
        if (fresh) {
            writer.write(header());
            writer.newLine();
        }
        this.writerThread = new Thread(this::writeLoop, "polycert-training-" + file.getFileName());
        writerThread.setDaemon(true);
        writerThread.start();
    }

    /** The CSV header: the target, the message size, then the monitor's features. */
    public static String header() {
        StringBuilder b = new StringBuilder(TARGET).append(',').append(SIZE);
        for (String name : MetricsMonitor.featureNames()) {
            b.append(',').append(name);
        }
        return b.toString();
    }

    /** Offers one sample; cheap and non-blocking. */
    public void offer(long broadcastNanos, int messageBytes) {
        if (closed || broadcastNanos < 0 || !collecting()) {
            return;
        }
        long now = System.nanoTime();
        long last = lastSampleAt.get();
        if (now - last < minGapNanos || !lastSampleAt.compareAndSet(last, now)) {
            return;
        }
        if (!lines.offer(new Sample(broadcastNanos, messageBytes, monitor.features()))) {
            dropped.increment();
        }
    }

    /** Formatted on the writer thread, not the committing one. */
    private record Sample(long broadcastNanos, int messageBytes, double[] features) {
        String csv() {
            StringBuilder b = new StringBuilder(32 + features.length * 10);
            b.append(String.format(Locale.ROOT, "%.1f", broadcastNanos / 1000.0)).append(',').append(messageBytes);
            for (double v : features) {
                b.append(',').append(String.format(Locale.ROOT, "%.5g", v));
            }
            return b.toString();
        }
    }

    /** Whether samples are being taken: false while paused by lag. */
    public boolean collecting() {
        long lag = context.replayLagNanos();
        if (paused) {
            if (lag < resumeBelowNanos) {
                paused = false;
            }
        } else if (lag > pauseAboveNanos) {
            paused = true;
            pauses.increment();
        }
        return !paused;
    }

    public long written() {
        return written.sum();
    }

    public long dropped() {
        return dropped.sum();
    }

    /** How many times collection paused because the replica fell behind. */
    public long pauses() {
        return pauses.sum();
    }

    private void writeLoop() {
        try {
            while (!closed || !lines.isEmpty()) {
                Sample sample = lines.poll(100, TimeUnit.MILLISECONDS);
                if (sample == null) {
                    writer.flush();
                    continue;
                }
                writer.write(sample.csv());
                writer.newLine();
                written.increment();
            }
            writer.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            LOG.warn("training samples could not be written; collection stops", e);
            closed = true;
        }
    }

    /** Writes what is queued and closes the file. */
    @Override
    public void close() {
        closed = true;
        try {
            writerThread.join(5_000);
            writer.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
