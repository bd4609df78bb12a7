package io.polycert.bench.gcs;

import io.polycert.bench.report.Medians;
import io.polycert.core.group.GroupListener;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import io.polycert.gcs.GroupStack;
import io.polycert.gcs.JGroupsGroup;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.protocols.BaseBundler;
import org.jgroups.protocols.FRAG4;
import org.jgroups.protocols.SEQUENCER;
import org.jgroups.protocols.SHARED_LOOPBACK;
import org.jgroups.protocols.SHARED_LOOPBACK_PING;
import org.jgroups.protocols.UNICAST3;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.jgroups.protocols.pbcast.STABLE;
import org.jgroups.stack.Protocol;

/**
 * Atomic-broadcast throughput and self-delivery latency, side by side in one run: raw JGroups multicast (no
 * ordering), JGroups SEQUENCER (total order, not uniform) and PolyCert's uniform atomic broadcast, with the same
 * in-JVM members, payloads and sender windows. Trials of the three are interleaved round by round.
 */
public final class BroadcastBenchmark {

    /** What is compared. */
    public enum Kind {
        RAW_MULTICAST("raw JGroups multicast"),
        SEQUENCER("JGroups SEQUENCER"),
        POLYCERT("PolyCert uniform AB");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /** Settings of a run. */
    public record Options(int members, int[] payloadSizes, double warmupSeconds, double seconds, int rounds,
            EmulatedNetwork network) {
        public Options(int members, int[] payloadSizes, double warmupSeconds, double seconds, int rounds) {
            this(members, payloadSizes, warmupSeconds, seconds, rounds, EmulatedNetwork.NONE);
        }

        public static Options defaults() {
            return new Options(3, new int[] {100, 1_000, 10_000, 100_000, 1_000_000}, 1, 3, 3);
        }
    }

    /**
     * One kind at one payload size, medians over rounds: throughput and self-delivery latency with a full sender
     * window, and latency with one message in flight per member (unloaded).
     */
    public record Row(int payload, Kind kind, double messagesPerSecond, double megabytesPerSecond, double p50Micros,
            double p99Micros, double idleP50Micros, double idleP99Micros) {
    }

    private final Options options;
    private final PrintStream out;
    private final java.util.Set<Kind> kinds;

    public BroadcastBenchmark(Options options, PrintStream out) {
        this(options, out, java.util.EnumSet.allOf(Kind.class));
    }

    public BroadcastBenchmark(Options options, PrintStream out, java.util.Set<Kind> kinds) {
        this.options = options;
        this.out = out;
        this.kinds = kinds;
    }

    public List<Row> run() throws Exception {
        totals = new EmulatedLink.Totals(options.network());
        out.printf(Locale.ROOT, "Atomic broadcast: %d in-JVM members, 1 sender each, %d rounds of %.1f s per kind%s%n",
                options.members(), options.rounds(), options.seconds(), options.network().isNone() ? ""
                        : ", network " + options.network());
        List<Row> rows = new ArrayList<>();
        for (int size : options.payloadSizes()) {
            double[][] rate = new double[Kind.values().length][options.rounds()];
            double[][] p50 = new double[Kind.values().length][options.rounds()];
            double[][] p99 = new double[Kind.values().length][options.rounds()];
            double[][] idle50 = new double[Kind.values().length][options.rounds()];
            double[][] idle99 = new double[Kind.values().length][options.rounds()];
            int window = Math.max(4, Math.min(1000, 16_000_000 / size));
            for (int round = 0; round < options.rounds(); round++) {
                for (int k = 0; k < Kind.values().length; k++) {
                    Kind kind = Kind.values()[(k + round) % Kind.values().length];
                    if (!kinds.contains(kind)) {
                        continue;
                    }
                    double[] r = trial(kind, size, window);
                    rate[kind.ordinal()][round] = r[0];
                    p50[kind.ordinal()][round] = r[1];
                    p99[kind.ordinal()][round] = r[2];
                    double[] idle = trial(kind, size, 1);
                    idle50[kind.ordinal()][round] = idle[1];
                    idle99[kind.ordinal()][round] = idle[2];
                }
            }
            for (Kind kind : Kind.values()) {
                if (!kinds.contains(kind)) {
                    continue;
                }
                int k = kind.ordinal();
                double m = Medians.of(rate[k]);
                rows.add(new Row(size, kind, m, m * size / 1e6, Medians.of(p50[k]), Medians.of(p99[k]),
                        Medians.of(idle50[k]), Medians.of(idle99[k])));
            }
            print(rows.subList(rows.size() - kinds.size(), rows.size()));
        }
        if (!options.network().isNone()) {
            out.println("  emulated network, all trials: " + totals);
        }
        return rows;
    }

    private void print(List<Row> sizeRows) {
        out.printf(Locale.ROOT, "%n%,d-byte payloads (delivered per member per second; self-delivery latency under that"
                + " load, and with one message in flight per member)%n", sizeRows.get(0).payload());
        for (Row r : sizeRows) {
            out.printf(Locale.ROOT, "  %-22s %10.0f msg/s %8.1f MB/s  loaded p50 %7.0f p99 %7.0f us  idle p50 %6.0f"
                    + " p99 %6.0f us%n", r.kind().label, r.messagesPerSecond(), r.megabytesPerSecond(), r.p50Micros(),
                    r.p99Micros(), r.idleP50Micros(), r.idleP99Micros());
        }
        if (sizeRows.size() == Kind.values().length) {
            Row raw = sizeRows.get(0);
            Row seq = sizeRows.get(1);
            Row poly = sizeRows.get(2);
            out.printf(Locale.ROOT, "  PolyCert / SEQUENCER throughput: %.2f   PolyCert / raw multicast: %.2f%n",
                    poly.messagesPerSecond() / seq.messagesPerSecond(),
                    poly.messagesPerSecond() / raw.messagesPerSecond());
        }
    }

    /** Returns {messages delivered per member per second, p50 us, p99 us}. */
    private double[] trial(Kind kind, int size, int window) throws Exception {
        String cluster = "bench-" + kind + "-" + UUID.randomUUID();
        List<Member> members = new ArrayList<>();
        List<EmulatedLink> links = new ArrayList<>();
        try {
            for (int i = 0; i < options.members(); i++) {
                members.add(kind == Kind.POLYCERT ? new PolyCertMember(cluster, "m" + i, window, options.network(),
                        links) : new JGroupsMember(cluster, "m" + i, window, kind == Kind.SEQUENCER,
                                options.network(), links));
            }
            for (Member m : members) {
                m.awaitView(options.members());
            }
            List<Thread> senders = new ArrayList<>();
            stop.set(false);
            for (int i = 0; i < members.size(); i++) {
                Member m = members.get(i);
                int index = i;
                Thread t = new Thread(() -> {
                    byte[] payload = new byte[size];
                    while (!stop.get()) {
                        try {
                            m.window.acquire();
                        } catch (InterruptedException e) {
                            return;
                        }
                        ByteBuffer.wrap(payload).putLong(System.nanoTime()).putInt(index);
                        m.send(payload.clone());
                    }
                }, "sender-" + i);
                senders.add(t);
                t.start();
            }
            Thread.sleep((long) (options.warmupSeconds() * 1000));
            long[] before = new long[members.size()];
            for (int i = 0; i < members.size(); i++) {
                before[i] = members.get(i).delivered.sum();
                members.get(i).latency.reset();
            }
            long start = System.nanoTime();
            Thread.sleep((long) (options.seconds() * 1000));
            double elapsed = (System.nanoTime() - start) / 1e9;
            double total = 0;
            Histogram merged = new Histogram(3);
            for (int i = 0; i < members.size(); i++) {
                total += members.get(i).delivered.sum() - before[i];
                merged.add(members.get(i).latency);
            }
            stop.set(true);
            for (Member m : members) {
                m.window.release(1_000_000);
            }
            for (Thread t : senders) {
                t.join(5000);
            }
            // Let what is in flight arrive before closing, so no member tears down mid-stream.
            long drainUntil = System.nanoTime() + 5_000_000_000L;
            for (Member m : members) {
                while (m.window.availablePermits() < 1_000_000 + window && System.nanoTime() < drainUntil) {
                    Thread.sleep(10);
                }
            }
            return new double[] {total / members.size() / elapsed, merged.getValueAtPercentile(50) / 1000.0,
                    merged.getValueAtPercentile(99) / 1000.0};
        } finally {
            for (Member m : members) {
                m.close();
            }
            links.forEach(totals::add);
        }
    }

    private final AtomicBoolean stop = new AtomicBoolean();
    /** What the emulated links of every trial carried (EmulatedNetwork), for the summary at the run's end. */
    private EmulatedLink.Totals totals;

    /** One member of any kind: counts deliveries, times its own messages, bounds what it has in flight. */
    abstract static class Member {
        final LongAdder delivered = new LongAdder();
        final ConcurrentHistogram latency = new ConcurrentHistogram(3);
        final Semaphore window;

        Member(int window) {
            this.window = new Semaphore(window);
        }

        void delivered(byte[] payload, int offset, boolean own) {
            delivered.increment();
            if (own) {
                long sentAt = ByteBuffer.wrap(payload, offset, 8).getLong();
                latency.recordValue(Math.max(0, System.nanoTime() - sentAt));
                window.release();
            }
        }

        /** The size of the latest view, set by each kind of member from its own view callback. */
        volatile int viewSize;

        abstract void send(byte[] payload);

        void awaitView(int size) throws InterruptedException {
            while (viewSize < size) {
                Thread.sleep(10);
            }
        }

        abstract void close();
    }

    static final class PolyCertMember extends Member implements GroupListener {
        final JGroupsGroup group;

        PolyCertMember(String cluster, String name, int window, EmulatedNetwork network, List<EmulatedLink> links) {
            super(window);
            group = JGroupsGroup.builder(cluster).memberName(name).stack(network.stackFor(GroupStack.embedded()))
                    .listener(this).maxOutstanding(Math.max(window, 1)).join();
            network.attach(group, links);
        }

        @Override
        public void deliverOrdered(MemberId origin, long position, byte[] payload) {
            delivered(payload, 0, origin.equals(group.self()));
        }

        @Override
        public void viewInstalled(View view, long position) {
            viewSize = view.size();
        }

        @Override
        void send(byte[] payload) {
            group.broadcast(payload);
        }

        @Override
        void close() {
            group.close();
        }
    }

    static final class JGroupsMember extends Member implements Receiver {
        final JChannel channel;

        JGroupsMember(String cluster, String name, int window, boolean sequencer, EmulatedNetwork network,
                List<EmulatedLink> links) throws Exception {
            super(window);
            List<Protocol> stack = new ArrayList<>(List.of(new SHARED_LOOPBACK(), new SHARED_LOOPBACK_PING(),
                    new NAKACK2(), new UNICAST3(), new STABLE().setDesiredAverageGossip(1000).setMaxBytes(8_000_000),
                    new GMS().printLocalAddress(false)));
            if (sequencer) {
                stack.add(new SEQUENCER()); // directly above GMS: see the notes on SEQUENCER placement
            }
            stack.add(new org.jgroups.protocols.UFC()); // JGroups flow control: safe here, the senders are ours
            stack.add(new org.jgroups.protocols.MFC());
            stack.add(new FRAG4());
            channel = new JChannel(stack).name(name);
            if (channel.getProtocolStack().getTransport().getBundler() instanceof BaseBundler b) {
                b.setCapacity(65536);
            }
            channel.setReceiver(this);
            channel.connect(cluster);
            if (!network.isNone()) {
                links.add(EmulatedLink.insertAbove(channel.getProtocolStack().getTransport(), network));
            }
        }

        @Override
        public void receive(Message msg) {
            delivered(msg.getArray(), msg.getOffset(), channel.getAddress().equals(msg.getSrc()));
        }

        @Override
        public void viewAccepted(org.jgroups.View view) {
            viewSize = view.size();
        }

        @Override
        void send(byte[] payload) {
            try {
                channel.send(new BytesMessage(null, payload));
            } catch (Exception e) {
                window.release();
            }
        }

        @Override
        void close() {
            channel.close();
        }
    }
}
