package io.polycert.certification.partial;

import io.polycert.core.group.GroupMember;
import io.polycert.core.group.GroupStatistics;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.NotInMajorityException;
import io.polycert.core.group.View;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.BiConsumer;

/**
 * A group of {@code self} and {@code others} in view 1 that records what the engine multicasts and sends; a test
 * delivers by hand.
 */
public final class RecordingGroup implements GroupMember {
    public final List<byte[]> multicasts = new ArrayList<>();
    /** Point-to-point messages, in sending order. */
    public final List<Map.Entry<MemberId, byte[]>> sent = new ArrayList<>();
    /**
     * Called after each point-to-point message is recorded, on the sending thread and outside this group's lock:
     * a test can deliver there what a real group with inline delivery would deliver on that thread.
     */
    public volatile BiConsumer<MemberId, byte[]> onSend = (to, payload) -> { };
    /**
     * Refuse a multicast to a member out of the view, as the real group does. Off by default: many tests hand the
     * engine a view without installing it here first.
     */
    public volatile boolean refusesDestinationsOutOfView;
    private final MemberId self;
    private volatile View view;

    public RecordingGroup(MemberId self, MemberId... others) {
        this.self = self;
        List<MemberId> members = new ArrayList<>(List.of(self));
        members.addAll(List.of(others));
        this.view = new View(1, members, true);
    }

    /**
     * Attaches {@code engine} to this group and hands it placement 1 over {@code self} and the others, as the
     * rebalance and every other member's "done" would; returns the engine, ready.
     */
    public PartitionedEngine place(PartitionedEngine engine) {
        engine.attach(this);
        List<MemberId> members = view.members();
        engine.deliverMulticast(members.get(members.size() - 1), Message.encode(new Message.Rebalance(1, members)));
        for (MemberId m : members) {
            if (!m.equals(self)) {
                engine.deliverDirect(m, Message.encode(new Message.Done(1, 0)));
            }
        }
        if (!engine.isReady()) {
            throw new IllegalStateException(self + " is not ready after placement 1 over " + members);
        }
        return engine;
    }

    /**
     * Runs {@code body} in a read-write transaction of {@code engine} and commits it on another thread; returns
     * once the commit is multicast, with the commit's failure to come (null once committed).
     */
    public CompletableFuture<Throwable> commitInBackground(PartitionedEngine engine,
            Consumer<PartitionedTransaction> body) throws InterruptedException {
        int before = multicastCount();
        CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
            PartitionedTransaction tx = engine.begin(false);
            body.accept(tx);
            try {
                tx.commit();
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (multicastCount() == before && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        if (multicastCount() == before) {
            throw new AssertionError("the commit was not multicast within 10 s: " + outcome);
        }
        return outcome;
    }

    private synchronized int multicastCount() {
        return multicasts.size();
    }

    /** The first point-to-point message sent to {@code to} that {@code which} accepts, or null. */
    public synchronized byte[] firstSentTo(MemberId to, java.util.function.Predicate<Message> which) {
        return sent.stream().filter(e -> e.getKey().equals(to) && which.test(Message.decode(e.getValue())))
                .map(Map.Entry::getValue).findFirst().orElse(null);
    }

    @Override
    public MemberId self() {
        return self;
    }

    @Override
    public View view() {
        return view;
    }

    /** Installs a view in the group (the engine hears of it only when the test says so); in a minority view
     * multicasts are refused, as a real group refuses them. */
    public void install(View v) {
        this.view = v;
    }

    @Override
    public void broadcast(byte[] payload) {
        throw new UnsupportedOperationException("partial replication does not broadcast");
    }

    @Override
    public void reliableBroadcast(byte[] payload) {
    }

    @Override
    public synchronized void multicast(Collection<MemberId> destinations, byte[] payload) {
        if (!view.primary()) {
            throw new NotInMajorityException(self + " is in a minority view " + view.members());
        }
        for (MemberId d : destinations) {
            if (refusesDestinationsOutOfView && !view.contains(d)) {
                throw new IllegalArgumentException("destination " + d + " is not in the view " + view.members());
            }
        }
        multicasts.add(payload);
    }

    @Override
    public void send(MemberId destination, byte[] payload) {
        synchronized (this) {
            sent.add(Map.entry(destination, payload));
        }
        onSend.accept(destination, payload);
    }

    @Override
    public GroupStatistics statistics() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void close() {
    }
}
