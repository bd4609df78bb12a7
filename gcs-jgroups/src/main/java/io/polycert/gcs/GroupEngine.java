package io.polycert.gcs;

import io.polycert.core.codec.CodecException;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntConsumer;
import org.slf4j.LoggerFactory;

/**
 * One member's group-communication state machine: atomic broadcast, reliable broadcast, total-order multicast
 * and point-to-point messages over a {@link Transport}. Single-threaded and passive: a runtime feeds it events
 * (messages, views, local calls) one at a time on one thread, and calls {@link #flush()} when a burst of events
 * is over, which is when batches and acknowledgements go out. Tests drive it the same way from a simulated
 * network, deterministically.
 *
 * <p>A message that cannot be decoded is dropped, counted and logged (rate-limited); it never stops the engine.
 */
final class GroupEngine {
    final MemberId self;
    final Transport transport;
    final DeliverySink sink;
    final Settings settings;
    /** Messages from other members so far, and when {@link #tick} last saw that count move (engine thread). */
    private long heardFromOthers;
    private long heardCountAtTick = -1;
    private long lastHeardFromOthers = System.nanoTime();
    final RateLimitedLog log;
    final AtomicBroadcast ab;
    final ReliableBroadcast urb;
    final TotalOrderMulticast tom;
    private final Executor engineThread;
    private TransportView transportView;

    // Statistics, read from any thread.
    private final AtomicLong selfDeliveries = new AtomicLong();
    private volatile double meanSelfDeliveryNanos;
    private final LongAdder orderedDeliveries = new LongAdder();
    private final LongAdder bytesDelivered = new LongAdder();
    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final LongAdder multicastDeliveries = new LongAdder();
    private final LongAdder multicastWaitNanos = new LongAdder();
    private volatile int undelivered;
    private volatile IntConsumer onOwnDelivered = bytes -> { };
    /**
     * Point-to-point messages to other members, held until the burst of events is over ({@link #flush()}), when
     * each destination's go out as one transport message: a vote, a proposal and a final timestamp bound for one
     * member then cost one trip through the stack, not three. Insertion-ordered, so what goes to one member keeps
     * its order (the transport is FIFO per pair).
     */
    private final Map<MemberId, Outgoing> outbox = new LinkedHashMap<>();

    /** The messages held for one destination. */
    private static final class Outgoing {
        final List<byte[]> messages = new ArrayList<>(4);
        /** The encoded batch's size so far: its type and count (at most four bytes), then each message framed. */
        int bytes = 4;
    }

    /**
     * A batch is at most this many bytes, framing included: under the fragment size of the stacks (FRAG4's
     * 60,000 by default), as the atomic broadcast's batches are. A message this large or larger travels alone.
     */
    static final int MAX_BATCH_BYTES = 60_000;
    /** What a batch adds to a message: its length, at most three bytes for one under MAX_BATCH_BYTES. */
    private static final int FRAMING = 3;
    /** The messages sent inside batches beyond the first of each, so protocol messages can still be counted. */
    private final LongAdder batchedBeyondOne = new LongAdder();
    /** How many messages a batch may hold: a bound for the receiver, which trusts no count it is sent. */
    static final int MAX_BATCH_MESSAGES = 4096;

    GroupEngine(MemberId self, Transport transport, DeliverySink sink, Settings settings, Executor engineThread) {
        this.self = self;
        this.transport = transport;
        this.sink = sink;
        this.settings = settings;
        this.engineThread = engineThread;
        this.log = new RateLimitedLog(LoggerFactory.getLogger(GroupEngine.class), "[" + self + "]");
        this.ab = new AtomicBroadcast(this);
        this.urb = new ReliableBroadcast(this);
        this.tom = new TotalOrderMulticast(this, settings.tomVariant());
    }

    /** Runs a task on the engine thread later (for callbacks coming back from the delivery thread). */
    void post(Runnable task) {
        engineThread.execute(task);
    }

    TransportView transportView() {
        return transportView;
    }

    /** Called with the payload size of each of this member's own broadcasts as it is delivered. */
    void onOwnDelivered(IntConsumer callback) {
        this.onOwnDelivered = callback;
    }

    // ---- inputs -------------------------------------------------------------------------------------------

    void onMessage(MemberId from, byte[] message) {
        if (!from.equals(self)) {
            heardFromOthers++; // a count, not a clock read per message: tick turns it into a time
        }
        try {
            ValueInput in = Wire.in(message);
            byte type = in.readByte();
            switch (type) {
                case MessageType.BATCH -> onBatch(from, in);
                case MessageType.DATA -> ab.onData(from, in);
                case MessageType.ORDER -> ab.onOrder(from, in);
                case MessageType.ACK -> ab.onAck(from, in);
                case MessageType.RECOVER_REQUEST -> ab.onRecoverRequest(from, in);
                case MessageType.RECOVER_STATE -> ab.onRecoverState(from, in);
                case MessageType.UNNUMBERED_RECOVER_REQUEST, MessageType.UNNUMBERED_RECOVER_STATE ->
                        ab.incompatible(from, "unnumbered format (a build from before format 1)",
                                type == MessageType.UNNUMBERED_RECOVER_REQUEST);
                case MessageType.NEW_EPOCH -> ab.onNewEpoch(from, in);
                case MessageType.STATE_CHUNK -> ab.onStateChunk(from, in);
                case MessageType.URB -> urb.onMessage(from, in);
                case MessageType.URB_ACK -> urb.onAck(from, in);
                case MessageType.TOM_DATA -> tom.onData(from, in);
                case MessageType.TOM_PROPOSE -> tom.onPropose(from, in);
                case MessageType.TOM_FINAL -> tom.onFinal(from, in);
                case MessageType.DIRECT -> {
                    byte[] payload = in.readBytes();
                    countDelivery(payload.length);
                    sink.direct(from, payload);
                }
                default -> throw new CodecException("unknown message type " + type);
            }
        } catch (RuntimeException e) {
            dropped("a message of " + message.length + " bytes from " + from, e);
        }
    }

    /** Counts and logs (rate-limited) input that could not be decoded. */
    void dropped(String what, Throwable cause) {
        dropped.increment();
        log.dropped(what, cause);
    }

    /**
     * The messages of a batch, each handled as if it had come alone (one that cannot be decoded is dropped on its
     * own).
     */
    private void onBatch(MemberId from, ValueInput in) {
        for (byte[] m : batchMessages(in)) {
            onMessage(from, m);
        }
    }

    /**
     * The messages of a batch whose type byte {@code in} has consumed, all decoded before any is handled, so a
     * malformed batch is dropped whole. A batch inside a batch is refused: the sender never builds one.
     */
    static byte[][] batchMessages(ValueInput in) {
        int n = in.readLength(2);
        if (n > MAX_BATCH_MESSAGES) {
            throw new CodecException("a batch of " + n + " messages");
        }
        byte[][] messages = new byte[n][];
        for (int i = 0; i < n; i++) {
            messages[i] = in.readBytes();
            if (messages[i].length == 0 || messages[i][0] == MessageType.BATCH) {
                throw new CodecException("an empty message or a batch inside a batch");
            }
        }
        in.expectEnd();
        return messages;
    }

    void onView(TransportView view) {
        transportView = view;
        // The silence the stall check counts starts again at the next tick: a coordinator merged back after a stop
        // had heard nothing for long, but its request for this view has only just gone out.
        heardCountAtTick = -1;
        urb.suspend();
        ab.onTransportView(view);
    }

    void flush() {
        try {
            ab.flush();
            urb.flush();
        } finally {
            // Whatever the broadcasts' flush ran into, what waits for other members goes: a failure there must not
            // hold up point-to-point traffic (Skeen's messages, votes) until the next burst.
            flushOutbox();
            undelivered = ab.undelivered();
        }
    }

    /**
     * Sends a point-to-point message at the next {@link #flush()}. Messages to this member itself go at once:
     * they never touch the transport's stack, and their order among themselves is kept either way.
     */
    void sendTo(MemberId to, byte[] message) {
        if (to.equals(self)) {
            transport.send(to, message);
            return;
        }
        Outgoing o = outbox.get(to);
        if (message.length + FRAMING + 4 > MAX_BATCH_BYTES) {
            if (o != null) {
                flushTo(to, outbox.remove(to)); // what was queued before it goes first
            }
            transport.send(to, message);
            return;
        }
        if (o == null) {
            o = new Outgoing();
            outbox.put(to, o);
        } else if (o.bytes + message.length + FRAMING > MAX_BATCH_BYTES
                || o.messages.size() == MAX_BATCH_MESSAGES) {
            flushTo(to, o);
            o = new Outgoing();
            outbox.put(to, o);
        }
        o.messages.add(message);
        o.bytes += message.length + FRAMING;
    }

    /** Messages sent inside batches beyond the first of each (any thread). */
    long batchedBeyondOne() {
        return batchedBeyondOne.sum();
    }

    private void flushOutbox() {
        if (outbox.isEmpty()) {
            return;
        }
        for (Iterator<Map.Entry<MemberId, Outgoing>> it = outbox.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<MemberId, Outgoing> e = it.next();
            it.remove(); // before sending: a send that throws must not leave it to go out twice
            flushTo(e.getKey(), e.getValue());
        }
    }

    private void flushTo(MemberId to, Outgoing o) {
        if (o.messages.size() == 1) {
            transport.send(to, o.messages.get(0));
            return;
        }
        batchedBeyondOne.add(o.messages.size() - 1);
        ValueOutput out = Wire.out(MessageType.BATCH, o.bytes);
        out.writeVarInt(o.messages.size());
        for (byte[] m : o.messages) {
            out.writeBytes(m);
        }
        transport.send(to, out.toByteArray());
    }

    // ---- local calls (engine thread) --------------------------------------------------------------------

    void broadcast(byte[] payload) {
        bytesSent.add(payload.length);
        ab.broadcast(MessageType.ENTRY_APP, payload);
    }

    void reliableBroadcast(byte[] payload) {
        bytesSent.add(payload.length);
        urb.broadcast(payload);
    }

    /** {@code conflictKeys} null: the message conflicts with every other. */
    void multicast(Collection<MemberId> destinations, long[] conflictKeys, byte[] payload) {
        bytesSent.add(payload.length);
        tom.multicast(destinations, conflictKeys, payload);
    }

    void send(MemberId to, byte[] payload) {
        bytesSent.add(payload.length);
        ValueOutput out = Wire.out(MessageType.DIRECT, payload.length + 8);
        out.writeBytes(payload);
        sendTo(to, out.toByteArray());
    }

    // ---- hooks from the layers ------------------------------------------------------------------------

    /**
     * A primary view was installed. A member still waiting for the group's state delivers no reliable broadcast
     * until it has it: acting on one (a vote) against its old state could decide what the group decided otherwise
     * while it was away.
     */
    void viewInstalled(View view, Ballot ballot, boolean hasState) {
        urb.epochInstalled(ballot);
        if (hasState) {
            urb.onViewInstalled(view);
        }
        tom.onViewInstalled(view);
    }

    /** A view's entry reached its place in the atomic-broadcast order (its epoch is established). */
    void viewDelivered(View view) {
        tom.onViewDelivered(view);
        urb.onViewDelivered(view);
    }

    /** This member took the group's state: what it held of multicasts in flight belongs to its old life. */
    void stateInstalled(View view) {
        tom.stateInstalled(view);
        urb.onViewInstalled(view); // its epoch was installed with the view (viewInstalled)
    }

    /**
     * Periodic check, with the current {@link System#nanoTime()}. A coordinator that has heard nothing from any
     * other member for {@code stallNanos} while it waits for them (entries to acknowledge, or a reliable broadcast
     * not yet held by all) is most likely no longer a member for them: stopped (SIGSTOP) long enough to be
     * excluded, it wakes up in a view nobody else has, and failure detection cannot tell it (the others answer its
     * suspicions). It excludes them, finds itself in a minority, and merges back like a partitioned member. The
     * same holds while it coordinates a view change of its own and waits for answers that never come.
     */
    void tick(long now) {
        ab.tick(); // flow control's progress check; what it releases goes out at the loop's flush
        if (heardFromOthers != heardCountAtTick) {
            heardCountAtTick = heardFromOthers;
            lastHeardFromOthers = now;
        }
        boolean waiting = ab.coordinatingOthers() && (ab.coordinatorAwaitingAcks() || urb.awaitingOthers())
                || ab.coordinatorAwaitingRecovery();
        if (now - lastHeardFromOthers >= settings.stallNanos() && waiting) {
            ab.excludeOthers((now - lastHeardFromOthers) / 1_000_000);
        }
    }

    void viewBlocked(View view) {
        urb.suspend();
        tom.cutOff();
    }

    void ownDelivered(long latencyNanos, int bytes) {
        long n = selfDeliveries.incrementAndGet();
        double mean = meanSelfDeliveryNanos;
        meanSelfDeliveryNanos = n == 1 ? latencyNanos : mean + (latencyNanos - mean) / Math.min(n, 1000);
        orderedDeliveries.increment();
        onOwnDelivered.accept(bytes);
    }

    /** One of this member's broadcasts was delivered without it (while it was away): it takes no more room. */
    void ownSettled(int bytes) {
        onOwnDelivered.accept(bytes);
    }

    void countDelivery(int bytes) {
        bytesDelivered.add(bytes);
    }

    void countMulticastDelivery(long waitedNanos) {
        multicastDeliveries.increment();
        multicastWaitNanos.add(waitedNanos);
    }

    long multicastDeliveries() {
        return multicastDeliveries.sum();
    }

    long multicastWaitNanos() {
        return multicastWaitNanos.sum();
    }

    void countOrdered() {
        orderedDeliveries.increment();
    }

    // ---- statistics -------------------------------------------------------------------------------------

    long selfDeliveries() {
        return selfDeliveries.get();
    }

    double meanSelfDeliveryNanos() {
        return meanSelfDeliveryNanos;
    }

    long orderedDeliveries() {
        return orderedDeliveries.sum();
    }

    long bytesDelivered() {
        return bytesDelivered.sum();
    }

    long bytesSent() {
        return bytesSent.sum();
    }

    long dropped() {
        return dropped.sum();
    }

    int undelivered() {
        return undelivered;
    }
}
