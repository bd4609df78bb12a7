package io.polycert.bench.gcs;

import io.polycert.core.group.GroupMember;
import io.polycert.gcs.JGroupsGroup;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.jgroups.Event;
import org.jgroups.Message;
import org.jgroups.View;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;

/**
 * A JGroups layer, above the transport of an in-JVM member, that sends as if over an {@link EmulatedNetwork}
 * link: messages leave one after another, each taking its bytes' time at the link's bandwidth (a multicast once per
 * other member, as TCP sends it; plus 90 bytes of Ethernet, IP and TCP framing per 1,448 bytes), and are handed to
 * the transport once the latency has passed after their last byte. One thread per member does the waiting, so
 * nothing blocks the threads that send. Messages a member sends itself (a unicast to its own address) skip the
 * link; a multicast's own copy is looped back by the transport below, so it arrives with the others (PolyCert's
 * engine hands a member its own messages itself, so only plain JGroups members see this). Benchmarks only.
 *
 * <p>The thread hands each message to the in-JVM transport, which runs the receivers' stacks on it; if that
 * takes long, later messages leave late. {@link #summary(List)} reports how late, so a run shows how faithful its
 * emulation was.
 */
public final class EmulatedLink extends Protocol {
    /** Bytes of payload per TCP segment on Ethernet (MTU 1,500 less IP and TCP headers with timestamps). */
    private static final int SEGMENT = 1_448;
    /** Per segment: Ethernet header, FCS, preamble and inter-frame gap (38), IP (20) and TCP (32) headers. */
    private static final int FRAMING = 90;

    private final EmulatedNetwork network;
    private final double nanosPerByte;
    private final LinkedBlockingQueue<Scheduled> queue = new LinkedBlockingQueue<>();
    private final Thread sender;
    private volatile boolean stopped;
    private volatile int members = 1;
    /** This member's address, once known: unicasts to it skip the link. */
    private volatile org.jgroups.Address self;
    // guarded by this
    private long linkFreeAt;
    private long busyNanos;
    private long messages;
    private long wireBytes;
    private final long startedAt = System.nanoTime();
    private final Histogram lateness = new Histogram(3);
    /** Sends that threw (only the sender thread writes it). */
    private int failures;

    private record Scheduled(long due, Message message) {
    }

    private EmulatedLink(EmulatedNetwork network) {
        if (network.isNone()) {
            throw new IllegalArgumentException("no network to emulate");
        }
        this.network = network;
        this.nanosPerByte = 8e9 / network.bitsPerSecond();
        this.sender = new Thread(this::sendLoop, "emulated-link");
        this.sender.setDaemon(true);
    }

    /**
     * Inserts a new link above the transport of {@code member}, whose stack must have been built with
     * {@code GroupStack.faultInjection()} (the link goes right above its DISCARD layer), and starts it.
     */
    public static EmulatedLink insertInto(GroupMember member, EmulatedNetwork network) {
        if (!(member instanceof JGroupsGroup group)) {
            throw new IllegalArgumentException("an emulated link needs a JGroups member, not " + member);
        }
        return insertAbove(group.discard(), network);
    }

    /** Inserts a new link directly above {@code below} in its running stack, and starts it. */
    public static EmulatedLink insertAbove(Protocol below, EmulatedNetwork network) {
        EmulatedLink link = new EmulatedLink(network);
        ProtocolStack stack = below.getProtocolStack();
        link.setProtocolStack(stack);
        View view = stack.getChannel().getView();
        if (view != null) {
            link.members = view.size();
        }
        link.self = stack.getChannel().getAddress();
        stack.insertProtocolInStack(link, below, ProtocolStack.Position.ABOVE);
        link.sender.start();
        return link;
    }

    /** Bytes on the wire for one copy of a message of {@code bytes}: its segments' framing included. */
    static long onTheWire(int bytes) {
        int segments = Math.max(1, (bytes + SEGMENT - 1) / SEGMENT);
        return bytes + (long) FRAMING * segments;
    }

    @Override
    public Object down(Event evt) {
        if (evt.type() == Event.VIEW_CHANGE) {
            members = evt.<View>arg().size();
        }
        return down_prot.down(evt);
    }

    @Override
    public Object down(Message msg) {
        if (msg.getDest() != null && msg.getDest().equals(self)) {
            return down_prot.down(msg);
        }
        int copies = msg.getDest() == null ? Math.max(1, members - 1) : 1;
        long bytes = copies * onTheWire(msg.size());
        long transmit = (long) (bytes * nanosPerByte);
        long due;
        synchronized (this) {
            long now = System.nanoTime();
            linkFreeAt = Math.max(now, linkFreeAt) + transmit;
            busyNanos += transmit;
            messages++;
            wireBytes += bytes;
            due = linkFreeAt + network.latency().toNanos();
            queue.add(new Scheduled(due, msg));
        }
        return null;
    }

    private void sendLoop() {
        // A flag, not only interruption: this thread runs other members' stacks, which may swallow an interrupt.
        while (!stopped) {
            Scheduled next;
            try {
                next = queue.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                continue;
            }
            if (next == null) {
                continue;
            }
            long wait;
            while ((wait = next.due() - System.nanoTime()) > 0 && !stopped) {
                LockSupport.parkNanos(wait);
            }
            synchronized (this) {
                lateness.recordValue(Math.max(0, -wait) / 1_000);
            }
            try {
                down_prot.down(next.message());
            } catch (Throwable e) {
                // The channel may be closing (the message is lost, as on a real link), or a receiver's stack, run
                // on this thread, failed: either way this link goes on sending.
                failures++;
                if (failures <= 3) {
                    System.err.println("emulated link: sending a message failed: " + e);
                }
            }
        }
        queue.clear();
    }

    /**
     * Over {@code links} (one per member): messages, megabytes on the wire, the busiest link's busy share, and how
     * late messages left (p50 / p99 / max).
     */
    public static String summary(List<EmulatedLink> links) {
        Totals totals = new Totals(links.get(0).network);
        links.forEach(totals::add);
        return totals.toString();
    }

    /**
     * What links carried, summed as each is added, so that a run of many short-lived clusters need not keep their
     * links (and through them, their closed stacks) to the end.
     */
    public static final class Totals {
        private final EmulatedNetwork network;
        private long messages;
        private long bytes;
        private double busiest;
        private final Histogram lateness = new Histogram(3);

        public Totals(EmulatedNetwork network) {
            this.network = network;
        }

        /** Adds what {@code link} carried so far; its busy share counts the time until now. */
        public synchronized void add(EmulatedLink link) {
            synchronized (link) {
                messages += link.messages;
                bytes += link.wireBytes;
                busiest = Math.max(busiest, link.busyNanos / (double) (System.nanoTime() - link.startedAt));
                lateness.add(link.lateness);
            }
        }

        @Override
        public synchronized String toString() {
            return String.format(Locale.ROOT, "%s: %,d messages, %,.1f MB on the wire, busiest link %.1f%% busy,"
                    + " messages left late by p50 %d / p99 %d / max %,d us", network, messages, bytes / 1e6,
                    100 * busiest, lateness.getValueAtPercentile(50), lateness.getValueAtPercentile(99),
                    lateness.getMaxValue());
        }
    }

    /** Bytes this link has sent so far, framing and copies included. */
    synchronized long wireBytes() {
        return wireBytes;
    }

    @Override
    public void stop() {
        stopped = true;
        sender.interrupt();
        super.stop();
    }

    @Override
    public void destroy() {
        stopped = true;
        sender.interrupt();
        super.destroy();
    }
}
