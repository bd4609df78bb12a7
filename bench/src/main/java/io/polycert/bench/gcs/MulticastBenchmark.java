package io.polycert.bench.gcs;

import io.polycert.core.group.GroupListener;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import io.polycert.gcs.GroupStack;
import io.polycert.gcs.JGroupsGroup;
import io.polycert.gcs.TomVariant;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Skeen total-order multicast, TOM-3 (coordinated) against TOM-2 (decentralized): latency from multicast to the
 * origin's own delivery and protocol messages per multicast, for 2, 3 and 5 destinations among 5 in-JVM members.
 * Each member keeps one multicast in flight (latency without queueing), addressed to itself and k-1 others.
 */
public final class MulticastBenchmark {

    /** Settings of a run. */
    public record Options(int members, int[] destinations, double seconds) {
        public static Options defaults() {
            return new Options(5, new int[] {2, 3, 5}, 3);
        }
    }

    /** One variant at one destination count. */
    public record Row(TomVariant variant, int destinations, double multicastsPerSecond, double p50Micros,
            double p99Micros, double messagesPerMulticast) {
    }

    private final Options options;
    private final PrintStream out;

    public MulticastBenchmark(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public List<Row> run() throws Exception {
        out.printf(Locale.ROOT, "Total-order multicast: %d in-JVM members, one multicast in flight per member, %.1f s"
                + " per case%n", options.members(), options.seconds());
        out.printf(Locale.ROOT, "%-14s %5s %14s %10s %10s %14s%n", "variant", "dests", "multicasts/s", "p50 us",
                "p99 us", "msgs/multicast");
        List<Row> rows = new ArrayList<>();
        for (int k : options.destinations()) {
            for (TomVariant variant : TomVariant.values()) {
                Row r = trial(variant, k);
                rows.add(r);
                out.printf(Locale.ROOT, "%-14s %5d %14.0f %10.0f %10.0f %14.2f%n", r.variant(), r.destinations(),
                        r.multicastsPerSecond(), r.p50Micros(), r.p99Micros(), r.messagesPerMulticast());
            }
        }
        return rows;
    }

    private Row trial(TomVariant variant, int k) throws Exception {
        String cluster = "tom-" + variant + "-" + UUID.randomUUID();
        List<Member> members = new ArrayList<>();
        try {
            for (int i = 0; i < options.members(); i++) {
                members.add(new Member(cluster, "m" + i, variant));
            }
            for (Member m : members) {
                while (m.viewSize < options.members()) {
                    Thread.sleep(10);
                }
            }
            List<MemberId> ids = new ArrayList<>();
            for (Member m : members) {
                ids.add(m.group.self());
            }
            boolean[] stop = {false};
            List<Thread> senders = new ArrayList<>();
            for (int i = 0; i < members.size(); i++) {
                Member m = members.get(i);
                int index = i;
                Thread t = new Thread(() -> {
                    SplittableRandom random = new SplittableRandom(index);
                    while (!stop[0]) {
                        try {
                            m.inFlight.acquire();
                        } catch (InterruptedException e) {
                            return;
                        }
                        List<MemberId> dests = new ArrayList<>(List.of(ids.get(index)));
                        while (dests.size() < k) {
                            MemberId d = ids.get(random.nextInt(ids.size()));
                            if (!dests.contains(d)) {
                                dests.add(d);
                            }
                        }
                        m.group.multicast(dests, ByteBuffer.allocate(64).putLong(System.nanoTime()).array());
                    }
                });
                senders.add(t);
                t.start();
            }
            Thread.sleep(1000);
            long sentBefore = 0;
            long deliveredBefore = 0;
            for (Member m : members) {
                m.latency.reset();
                sentBefore += m.group.statistics().protocolMessagesSent();
                deliveredBefore += m.own;
            }
            long start = System.nanoTime();
            Thread.sleep((long) (options.seconds() * 1000));
            double elapsed = (System.nanoTime() - start) / 1e9;
            long sent = 0;
            long multicasts = 0;
            Histogram merged = new Histogram(3);
            for (Member m : members) {
                sent += m.group.statistics().protocolMessagesSent();
                multicasts += m.own;
                merged.add(m.latency);
            }
            stop[0] = true;
            for (Member m : members) {
                m.inFlight.release(1000);
            }
            for (Thread t : senders) {
                t.join(5000);
            }
            long done = multicasts - deliveredBefore;
            return new Row(variant, k, done / elapsed, merged.getValueAtPercentile(50) / 1000.0,
                    merged.getValueAtPercentile(99) / 1000.0, (double) (sent - sentBefore) / Math.max(1, done));
        } finally {
            for (Member m : members) {
                m.group.close();
            }
        }
    }

    private static final class Member implements GroupListener {
        final JGroupsGroup group;
        final ConcurrentHistogram latency = new ConcurrentHistogram(3);
        final Semaphore inFlight = new Semaphore(1);
        volatile int viewSize;
        volatile long own;

        Member(String cluster, String name, TomVariant variant) {
            group = JGroupsGroup.builder(cluster).memberName(name).stack(GroupStack.embedded()).tomVariant(variant)
                    .listener(this).join();
        }

        @Override
        public void deliverOrdered(MemberId origin, long position, byte[] payload) {
        }

        @Override
        public void viewInstalled(View view, long position) {
            viewSize = view.size();
        }

        @Override
        public void deliverMulticast(MemberId origin, byte[] payload) {
            if (origin.equals(group.self())) {
                latency.recordValue(Math.max(0, System.nanoTime() - ByteBuffer.wrap(payload).getLong()));
                own++;
                inFlight.release();
            }
        }
    }
}
