package io.polycert.gcs;

import io.polycert.core.group.GroupListener;
import io.polycert.core.group.GroupMember;
import io.polycert.core.group.GroupStatistics;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.NotInMajorityException;
import io.polycert.core.group.StateHandler;
import io.polycert.core.group.View;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.jgroups.JChannel;
import org.jgroups.protocols.DELAY;
import org.jgroups.protocols.DISCARD;

/**
 * A member of a PolyCert group over JGroups.
 *
 * <pre>{@code
 * GroupMember member = JGroupsGroup.builder("bank")
 *         .stack(GroupStack.embedded())
 *         .listener(myListener)
 *         .stateHandler(myState)
 *         .join();
 * }</pre>
 *
 * {@link Builder#join()} returns once the member is in a primary view and, if it joined a running group, has
 * received the group's state: from then on it delivers every message ordered after that point.
 */
public final class JGroupsGroup implements GroupMember {
    private final JGroupsTransport transport;
    private final EngineLoop loop;
    private final DeliverySink delivery;
    private final GroupEngine engine;
    private final SendWindow window;
    private final String name;
    private final Duration broadcastTimeout;
    private volatile View view;
    private volatile boolean closed;
    private volatile java.util.concurrent.Future<?> ticks;
    private final CompletableFuture<View> firstPrimaryView = new CompletableFuture<>();

    private JGroupsGroup(Builder b) throws Exception {
        this.name = b.memberName;
        this.broadcastTimeout = b.broadcastTimeout;
        JChannel channel = b.stack.newChannel();
        channel.name(b.memberName);
        // Our own address, so the engine exists before connect() starts delivering views and messages.
        MemberId self = b.identity != null ? b.identity : MemberId.random(b.memberName);
        org.jgroups.util.UUID address = new org.jgroups.util.UUID(self.high(), self.low());
        channel.addAddressGenerator(() -> address);
        this.transport = new JGroupsTransport(channel, self);
        this.loop = new EngineLoop(b.memberName);
        this.window = new SendWindow(b.maxOutstanding, b.maxOutstandingBytes);
        Consumer<View> beforeListener = v -> this.view = v; // a listener may multicast to the new members
        Consumer<View> onView = v -> {
            if (v.primary()) {
                firstPrimaryView.complete(v);
            }
        };
        Consumer<Exception> stateRefused = e -> {
            if (!firstPrimaryView.completeExceptionally(e)) {
                // Back from a minority and unable to take the group's state: it would count toward majorities and
                // never deliver again. It leaves (not on this thread: leaving waits for the delivery it is in).
                Thread leave = new Thread(this::close, "polycert-leave-" + name);
                leave.setDaemon(true);
                leave.start();
            }
        };
        this.delivery = b.inlineDelivery
                ? new InlineDelivery(b.listener, b.stateHandler, beforeListener, onView, stateRefused)
                : new DeliveryThread(b.memberName, b.listener, b.stateHandler, beforeListener, onView, stateRefused);
        this.engine = new GroupEngine(self, transport, delivery,
                new Settings(b.minimumMembers, b.tomVariant.internal(), b.maxOutstanding, Settings.DEFAULT_MAX_LAG,
                        Settings.maxLagBytesFor(b.maxOutstandingBytes), stallNanos(b.stack)), loop);
        engine.onOwnDelivered(window::release);
        transport.handler(new Transport.Handler() {
            @Override
            public void receive(MemberId from, byte[] message) {
                loop.execute(() -> engine.onMessage(from, message));
            }

            @Override
            public void viewChanged(TransportView v) {
                loop.execute(() -> engine.onView(v));
            }
        });
        loop.start(engine);
        try {
            transport.connect(b.cluster);
            // Often enough for flow control's progress check, which waits for a lagging member only while its
            // acknowledgements moved within the last tick period (AtomicBroadcast#tick).
            long every = Math.min(TICK_MILLIS, Math.max(100, TimeUnit.NANOSECONDS.toMillis(stallNanos(b.stack)) / 4));
            ticks = channel.getProtocolStack().getTransport().getTimer().scheduleWithFixedDelay(
                    () -> loop.execute(() -> engine.tick(System.nanoTime())), every, every, TimeUnit.MILLISECONDS);
            firstPrimaryView.get(b.joinTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            close();
            throw new GroupJoinException(b.memberName + " joined cluster '" + b.cluster + "' but got no primary view"
                    + " with the group's state within " + b.joinTimeout + " (too few members to found it, see"
                    + " minimumMembers, or the group's majority is unreachable)", e);
        } catch (ExecutionException e) {
            close();
            throw new GroupJoinException("joining cluster '" + b.cluster + "' failed: " + e.getCause().getMessage(),
                    e.getCause());
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    /** How often the engine checks for stalls and lagging members, at most. */
    static final long TICK_MILLIS = 250;

    /** Three failure-detection timeouts: see {@link Settings#stallNanos()}. */
    private static long stallNanos(GroupStack stack) {
        Duration fd = stack.failureTimeout();
        return fd == null ? Settings.DEFAULT_STALL_NANOS : 3 * fd.toNanos();
    }

    /**
     * JGroups' DISCARD layer, for fault-injection tests and harnesses: drop messages, isolate this member, ignore
     * others. Present only if the stack was built with {@link GroupStack#faultInjection()}.
     *
     * @throws IllegalStateException if it is not in the stack
     */
    public DISCARD discard() {
        DISCARD d = transport.channel().getProtocolStack().findProtocol(DISCARD.class);
        if (d == null) {
            throw new IllegalStateException("no DISCARD layer: build the stack with GroupStack.faultInjection()");
        }
        return d;
    }

    /** JGroups' DELAY layer, present when the stack was built with {@link GroupStack#faultInjection()}. */
    DELAY delay() {
        return transport.channel().getProtocolStack().findProtocol(DELAY.class);
    }

    JChannel channel() {
        return transport.channel();
    }

    GroupEngine engine() {
        return engine;
    }

    @Override
    public MemberId self() {
        return engine.self;
    }

    @Override
    public View view() {
        return view;
    }

    @Override
    public void broadcast(byte[] payload) {
        Objects.requireNonNull(payload, "payload");
        checkUsable();
        try {
            // An inline listener must not wait on itself; everyone else waits, but not for ever: a member whose
            // broadcasts stop being delivered (cut off in a view the others left) must not hang its callers.
            if (!window.acquire(payload.length, !loop.inEngine(), broadcastTimeout.toNanos())) {
                throw new IllegalStateException(name + ": none of its " + window.messages() + " broadcasts in"
                        + " flight was delivered within " + broadcastTimeout + " (view " + view + "), so this one"
                        + " was not sent");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for flow control", e);
        }
        loop.execute(() -> {
            try {
                engine.broadcast(payload);
            } catch (NotInMajorityException e) {
                window.release(payload.length);
            }
        });
    }

    @Override
    public void reliableBroadcast(byte[] payload) {
        Objects.requireNonNull(payload, "payload");
        checkUsable();
        loop.execute(() -> engine.reliableBroadcast(payload));
    }

    @Override
    public void multicast(Collection<MemberId> destinations, byte[] payload) {
        multicastKeyed(destinations, null, payload);
    }

    @Override
    public void multicast(Collection<MemberId> destinations, long[] conflictKeys, byte[] payload) {
        Objects.requireNonNull(conflictKeys, "conflictKeys");
        if (conflictKeys.length == 0) {
            throw new IllegalArgumentException("a multicast ordered by its conflicts needs at least one conflict key");
        }
        multicastKeyed(destinations, conflictKeys.clone(), payload);
    }

    private void multicastKeyed(Collection<MemberId> destinations, long[] conflictKeys, byte[] payload) {
        Objects.requireNonNull(payload, "payload");
        checkUsable();
        List<MemberId> dests = List.copyOf(destinations);
        View v = view;
        for (MemberId d : dests) {
            if (v != null && !v.contains(d)) {
                throw new IllegalArgumentException("destination " + d + " is not in the view " + v.members());
            }
        }
        loop.execute(() -> {
            try {
                engine.multicast(dests, conflictKeys, payload);
            } catch (IllegalArgumentException e) {
                engine.log.warn("multicast dropped: {}", e.getMessage());
            }
        });
    }

    @Override
    public void send(MemberId destination, byte[] payload) {
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(destination, "destination");
        // Allowed in a minority view too: a point-to-point message orders nothing, and a member merging back may
        // have to answer before its new view reaches it.
        checkOpen();
        loop.execute(() -> engine.send(destination, payload));
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(name + " has left the group");
        }
    }

    private void checkUsable() {
        checkOpen();
        View v = view;
        if (v != null && !v.primary()) {
            throw new NotInMajorityException(name + " is in a minority view " + v.members()
                    + " and cannot reach the group's majority");
        }
    }

    @Override
    public GroupStatistics statistics() {
        GroupEngine e = engine;
        return new GroupStatistics() {
            @Override
            public long selfDeliveries() {
                return e.selfDeliveries();
            }

            @Override
            public double meanSelfDeliveryNanos() {
                return e.meanSelfDeliveryNanos();
            }

            @Override
            public int undeliveredBroadcasts() {
                return e.undelivered();
            }

            @Override
            public long orderedDeliveries() {
                return e.orderedDeliveries();
            }

            @Override
            public long bytesSent() {
                return e.bytesSent();
            }

            @Override
            public long bytesDelivered() {
                return e.bytesDelivered();
            }

            @Override
            public long droppedMessages() {
                return e.dropped();
            }

            @Override
            public long messagesSent() {
                return transport.messagesSent();
            }

            @Override
            public long protocolMessagesSent() {
                return transport.messagesSent() + e.batchedBeyondOne();
            }

            @Override
            public long multicastDeliveries() {
                return e.multicastDeliveries();
            }

            @Override
            public long multicastWaitNanos() {
                return e.multicastWaitNanos();
            }
        };
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        java.util.concurrent.Future<?> t = ticks;
        if (t != null) {
            t.cancel(false);
        }
        transport.close();
        loop.stop();
        if (delivery instanceof DeliveryThread thread) {
            thread.stop();
        }
    }

    @Override
    public String toString() {
        return "JGroupsGroup[" + name + "]";
    }

    public static Builder builder(String cluster) {
        return new Builder(cluster);
    }

    /** Settings of a member; {@link #join()} creates it. */
    public static final class Builder {
        private final String cluster;
        private String memberName = "member-" + Long.toHexString(System.nanoTime() & 0xffffff);
        private GroupStack stack = GroupStack.embedded();
        private GroupListener listener;
        private StateHandler stateHandler = StateHandler.NONE;
        private TomVariant tomVariant = TomVariant.DECENTRALIZED;
        private int minimumMembers = 1;
        private int maxOutstanding = 20_000;
        private long maxOutstandingBytes = 64L << 20;
        private Duration joinTimeout = Duration.ofSeconds(30);
        private Duration broadcastTimeout = Duration.ofSeconds(30);
        private MemberId identity;
        private boolean inlineDelivery;

        private Builder(String cluster) {
            if (cluster == null || cluster.isBlank()) {
                throw new IllegalArgumentException("the cluster needs a name");
            }
            this.cluster = cluster;
        }

        public Builder memberName(String name) {
            this.memberName = Objects.requireNonNull(name, "name");
            return this;
        }

        public Builder stack(GroupStack stack) {
            this.stack = Objects.requireNonNull(stack, "stack");
            return this;
        }

        public Builder listener(GroupListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        public Builder stateHandler(StateHandler stateHandler) {
            this.stateHandler = Objects.requireNonNull(stateHandler, "stateHandler");
            return this;
        }

        public Builder tomVariant(TomVariant variant) {
            this.tomVariant = Objects.requireNonNull(variant, "variant");
            return this;
        }

        /**
         * Members that must be present to found a new group (default 1). Set it to a majority of the intended
         * cluster size so that two halves started apart can never both found one.
         */
        public Builder minimumMembers(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("minimumMembers must be at least 1, was " + n);
            }
            this.minimumMembers = n;
            return this;
        }

        /** Own broadcasts allowed in flight before {@code broadcast} blocks (default 20,000). */
        public Builder maxOutstanding(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxOutstanding must be at least 1, was " + n);
            }
            this.maxOutstanding = n;
            return this;
        }

        /**
         * How many bytes of its own broadcasts a member may have in flight (sent, not yet delivered) before
         * {@code broadcast} waits; default 64 MiB. With {@link #maxOutstanding(int)}, this is the group's flow
         * control: it bounds the memory every member spends on the stream.
         */
        public Builder maxOutstandingBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("maxOutstandingBytes must be at least 1, was " + bytes);
            }
            this.maxOutstandingBytes = bytes;
            return this;
        }

        /**
         * How long {@code broadcast} may wait for room in the sender window (see {@link #maxOutstanding}) before
         * it gives up with an {@link IllegalStateException}, sending nothing (default 30 s). The window stays full
         * only while this member's broadcasts are not being delivered, for instance in a view the others left.
         */
        public Builder broadcastTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("broadcastTimeout must be positive, was " + timeout);
            }
            this.broadcastTimeout = timeout;
            return this;
        }

        public Builder joinTimeout(Duration timeout) {
            this.joinTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * Calls the listener where the engine delivers instead of on a delivery thread of its own: one hand-off
         * less per message. Only for listeners that never block and return quickly (microseconds); calls are
         * still one at a time, in order.
         */
        public Builder inlineDelivery() {
            this.inlineDelivery = true;
            return this;
        }

        /**
         * The identity to join with (default: a fresh random one), for callers that need it before the join
         * completes. Its name must be the member name. Never reuse one across incarnations.
         */
        public Builder identity(MemberId identity) {
            this.identity = Objects.requireNonNull(identity, "identity");
            this.memberName = identity.name();
            return this;
        }

        /**
         * Joins the group and waits until this member is in a primary view with the group's state.
         *
         * @throws GroupJoinException if that does not happen within the join timeout, or the stack fails
         */
        public JGroupsGroup join() {
            if (listener == null) {
                throw new IllegalStateException("a listener is required: builder.listener(...)");
            }
            try {
                return new JGroupsGroup(this);
            } catch (GroupJoinException | IllegalArgumentException e) {
                throw e; // already says what is wrong (an unusable stack, for instance)
            } catch (Exception e) {
                throw new GroupJoinException("could not join cluster '" + cluster + "' as " + memberName + ": " + e, e);
            }
        }
    }
}
