package io.polycert.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.group.GroupStatistics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MonitoringTest {

    /** Counters a test moves by hand. */
    static final class FakeGroup implements GroupStatistics, OracleContext {
        final AtomicLong delivered = new AtomicLong();
        final AtomicLong sent = new AtomicLong();
        final AtomicLong ordered = new AtomicLong();
        final AtomicLong lagNanos = new AtomicLong();
        volatile int undelivered;

        @Override public long selfDeliveries() { return ordered.get() / 3; }
        @Override public double meanSelfDeliveryNanos() { return 100_000; }
        @Override public int undeliveredBroadcasts() { return undelivered; }
        @Override public long orderedDeliveries() { return ordered.get(); }
        @Override public long bytesSent() { return sent.get(); }
        @Override public long bytesDelivered() { return delivered.get(); }
        @Override public long droppedMessages() { return 0; }
        @Override public long messagesSent() { return 0; }
        @Override public long multicastDeliveries() { return 0; }
        @Override public long multicastWaitNanos() { return 0; }
        @Override public GroupStatistics group() { return this; }
        @Override public long deliveryThreadId() { return Thread.currentThread().getId(); }
        @Override public long replayLagNanos() { return lagNanos.get(); }
    }

    @Test
    void ratesAreMeasuredOverEachWindow() {
        FakeGroup group = new FakeGroup();
        MetricsMonitor monitor = MetricsMonitor.manual(group, 100);
        List<String> names = MetricsMonitor.featureNames();
        long now = 0;
        for (int i = 0; i <= 30; i++) {
            // 1,000 bytes per 100 ms for 2 s, then 5,000 per 100 ms
            group.delivered.addAndGet(i == 0 ? 0 : i <= 20 ? 1_000 : 5_000);
            group.undelivered = i;
            monitor.sample(now);
            now += 100_000_000L;
        }
        double[] f = monitor.features();
        assertEquals(50_000, f[names.indexOf("bytesUp_100ms")], 1e-6);
        assertEquals(50_000, f[names.indexOf("bytesUp_1s")], 1e-6);
        // 10 s window: only 3 s of samples, so over what there is: 20,000 + 50,000 bytes in 3 s
        assertEquals(70_000 / 3.0, f[names.indexOf("bytesUp_10s")], 1e-6);
        assertEquals(30, f[names.indexOf("undelivMsgs")]);
        assertTrue(f[names.indexOf("freeMemMB")] > 0);
        assertEquals(6 * 3 + 5, names.size());
    }

    @Test
    void collectionPausesWhenBehindAndResumesOnlyWhenCaughtUp(@TempDir Path dir) throws Exception {
        FakeGroup group = new FakeGroup();
        MetricsMonitor monitor = MetricsMonitor.manual(group, 100);
        monitor.sample(0);
        Path file = dir.resolve("samples.csv");
        try (TrainingCollector collector = new TrainingCollector(file, monitor, group, 50, 10, 1_000_000)) {
            assertTrue(collector.collecting());
            group.lagNanos.set(60_000_000); // 60 ms behind: pause
            assertFalse(collector.collecting());
            group.lagNanos.set(30_000_000); // better, but not caught up: stay paused (hysteresis)
            assertFalse(collector.collecting());
            collector.offer(123_000, 64); // ignored while paused
            group.lagNanos.set(5_000_000);
            assertTrue(collector.collecting());
            group.lagNanos.set(30_000_000); // under the pause threshold: keep going
            assertTrue(collector.collecting());
            assertEquals(1, collector.pauses());
            Thread.sleep(2);
            collector.offer(250_000, 1_000);
        }
        TrainingData data = TrainingData.readCsv(file);
        assertEquals(1, data.size(), "one sample: the one offered while paused was not kept");
        assertEquals(250, data.target(0), 1e-9);
        assertEquals(1_000, data.features(0)[data.featureNames().indexOf(TrainingCollector.SIZE)], 1e-9);
        assertEquals(TrainingCollector.TARGET, data.targetName());
    }

    @Test
    void collectorRefusesInvertedThresholds(@TempDir Path dir) {
        FakeGroup group = new FakeGroup();
        MetricsMonitor monitor = MetricsMonitor.manual(group, 100);
        assertThrows(IllegalArgumentException.class,
                () -> new TrainingCollector(dir.resolve("x.csv"), monitor, group, 10, 50, 100));
        assertFalse(Files.exists(dir.resolve("x.csv")));
    }
}
