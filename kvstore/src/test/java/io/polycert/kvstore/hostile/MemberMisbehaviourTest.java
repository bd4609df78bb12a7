package io.polycert.kvstore.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.polycert.core.group.GroupListener;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import io.polycert.core.testing.Await;
import io.polycert.gcs.GroupStack;
import io.polycert.gcs.JGroupsGroup;
import io.polycert.kvstore.Replica;
import io.polycert.kvstore.hostile.CommitWire.Tx;
import io.polycert.kvstore.hostile.HostileHarness.Probe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Well-formed messages a member must not send, and that a member of the group (R) sends anyway: a vote for a
 * transaction that is certified without votes, and the same commit twice. Whatever they do, the replicas must do
 * it alike: these messages travel by two channels (atomic and reliable broadcast) that are not ordered with each
 * other, and a replica may have joined in between.
 */
class MemberMisbehaviourTest {
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final String cluster = "misbehaving-" + UUID.randomUUID();
    private final GroupStack stack = GroupStack.embedded().failureDetection(Duration.ofSeconds(3));

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private Replica replica(String name) {
        Replica r = Replica.builder(cluster).memberName(name).codec(HostileHarness.CODEC).stack(stack)
                .oracle(HostileHarness.cyclingOracle()).start();
        closeables.add(r);
        return r;
    }

    /** R: a member that sends what the test tells it to, and counts its own ordered deliveries. */
    private static final class Rogue implements GroupListener {
        final AtomicLong ownOrdered = new AtomicLong();
        final MemberId self = MemberId.random("R");

        @Override
        public void deliverOrdered(MemberId origin, long position, byte[] payload) {
            if (origin.equals(self)) {
                ownOrdered.incrementAndGet();
            }
        }

        @Override
        public void viewInstalled(View view, long position) {
        }
    }

    private JGroupsGroup rogue(Rogue listener) {
        JGroupsGroup g = JGroupsGroup.builder(cluster).identity(listener.self).stack(stack).listener(listener).join();
        closeables.add(g);
        return g;
    }

    /** A blind write of {@code value} to the root {@code name}, certified by {@code protocol}. */
    private static byte[] write(Replica any, int protocol, long txId, long snapshot, String name, long value) {
        long root = any.root(name).id();
        byte[] values = HostileHarness.CODEC.toBytes(value);
        return CommitWire.encode(new Tx(protocol, txId, snapshot, new byte[0], 0, new long[] {root},
                new boolean[] {false}, protocol == CommitWire.NVC ? new long[0] : null, 0, 0, 0, null, values));
    }

    private record Delivery(boolean ordered, byte[] payload) {
    }

    /**
     * R commits a VC transaction T1 (writes x) and an NVC transaction T2 (writes y), then votes abort on T2 (which
     * takes no vote) and commit on T1. The group orders T1 and T2, but not the votes against them: each replica
     * below gets one of the legal interleavings. Before the fix, a replica that had T2 queued behind T1 when the
     * stray vote came removed it, while one that got the vote first or after T2 was decided committed it: y
     * differed between replicas.
     */
    @Test
    void aVoteOnACommitCertifiedWithoutVotesIsIgnoredWhateverItsDeliveryOrder() {
        List<Replica> rs = List.of(replica("A"), replica("B"), replica("C"));
        Rogue r = new Rogue();
        rogue(r);
        Await.until("A, B, C and R", () -> rs.stream().allMatch(x -> x.view().size() == 4));
        long latest = rs.get(0).stm().latestVersion();
        Delivery t1 = new Delivery(true, write(rs.get(0), CommitWire.VC, 1, latest, "x", 1));
        Delivery t2 = new Delivery(true, write(rs.get(0), CommitWire.NVC, 2, latest, "y", 2));
        Delivery voteT2 = new Delivery(false, CommitWire.vote(2, false));
        Delivery voteT1 = new Delivery(false, CommitWire.vote(1, true));
        List<List<Delivery>> schedules = List.of(
                List.of(t1, t2, voteT2, voteT1), // T2 waits behind T1 when the stray vote comes
                List.of(voteT2, voteT1, t1, t2), // both votes before either commit
                List.of(t1, voteT1, t2, voteT2)); // the stray vote after T2 was decided
        for (int i = 0; i < rs.size(); i++) {
            Probe p = new Probe(rs.get(i));
            List<Delivery> schedule = schedules.get(i);
            p.onEngine(() -> {
                long position = 1L << 40;
                for (Delivery d : schedule) {
                    if (d.ordered()) {
                        p.manager.deliverOrdered(r.self, position++, d.payload());
                    } else {
                        p.manager.deliverReliable(r.self, d.payload());
                    }
                }
            });
        }
        String digest = HostileHarness.digest(rs.get(0));
        for (Replica x : rs) {
            assertEquals(Long.valueOf(1), x.stm().readOnly(() -> x.<Long>root("x").get()), x + ": T1 was voted commit");
            assertEquals(Long.valueOf(2), x.stm().readOnly(() -> x.<Long>root("y").get()), x + ": T2 needs no vote");
            assertEquals(digest, HostileHarness.digest(x), x + " diverged");
            assertEquals(0, new Probe(x).queued(), x + " holds a transaction");
        }
    }

    /**
     * R commits a blind write, C joins, then R sends the same commit again (same transaction id). Every replica
     * must apply it once: the old ones know it was delivered, and so must the one that joined since (it learns it
     * with the state). Before the fix every replica applied it twice; with a check that the joiner could not
     * make, the joiner alone would.
     */
    @Test
    void aCommitSentTwiceIsAppliedOnceEvenByAReplicaThatJoinedInBetween() {
        Replica a = replica("A");
        Replica b = replica("B");
        Rogue r = new Rogue();
        JGroupsGroup rogue = rogue(r);
        Await.until("A, B and R", () -> a.view().size() == 3 && b.view().size() == 3);
        long latest = a.stm().latestVersion();
        byte[] commit = write(a, CommitWire.NVC, 7, latest, "z", 5);
        rogue.broadcast(commit);
        Await.until("R's commit applied", () -> a.stm().latestVersion() == latest + 1
                && b.stm().latestVersion() == latest + 1);
        Replica c = replica("C");
        Await.until("C in", () -> a.view().size() == 4 && c.stm().latestVersion() == latest + 1);

        rogue.broadcast(commit); // the same transaction again
        rogue.broadcast(write(a, CommitWire.NVC, 8, latest + 1, "w", 1)); // and a new one, to know when it is past
        Await.until("R's messages delivered", () -> r.ownOrdered.get() == 3);
        List<Replica> rs = List.of(a, b, c);
        Await.until("the new commit everywhere", () -> rs.stream().allMatch(x -> x.stm().readOnly(
                () -> x.root("w").get()) != null));
        String digest = HostileHarness.digest(a);
        for (Replica x : rs) {
            assertEquals(latest + 2, x.stm().latestVersion(), x + " applied the copy");
            assertEquals(Long.valueOf(5), x.stm().readOnly(() -> x.<Long>root("z").get()));
            assertEquals(digest, HostileHarness.digest(x), x + " diverged");
        }
    }
}
