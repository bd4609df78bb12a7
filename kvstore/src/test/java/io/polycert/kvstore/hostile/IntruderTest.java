package io.polycert.kvstore.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.group.GroupListener;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import io.polycert.core.testing.Await;
import io.polycert.gcs.GroupJoinException;
import io.polycert.gcs.GroupStack;
import io.polycert.gcs.JGroupsGroup;
import io.polycert.kvstore.Replica;
import io.polycert.kvstore.hostile.CommitWire.Tx;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Replicas on a secured stack (issue 8): a process without the cluster's secret, or with no security at all,
 * can neither join them nor get anything it sends applied: not a commit it broadcasts, not a vote, not a message
 * addressed to a replica directly. SecuredGroupTest shows the group side (joining, and broadcasts in a view of
 * the intruder's own); this is the replicas' side, with well-formed commit messages an intruder would send.
 */
class IntruderTest {
    private static final byte[] SECRET = "the replicas' cluster secret".getBytes(StandardCharsets.UTF_8);
    private static final byte[] WRONG = "a guess at the cluster secret".getBytes(StandardCharsets.UTF_8);
    private final String cluster = "secured-" + UUID.randomUUID();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private static GroupStack secured(byte[] secret) {
        return GroupStack.embedded().failureDetection(Duration.ofSeconds(2)).secured(secret);
    }

    private static final class Intruder implements GroupListener {
        final AtomicInteger delivered = new AtomicInteger();

        @Override
        public void deliverOrdered(MemberId origin, long position, byte[] payload) {
            delivered.incrementAndGet();
        }

        @Override
        public void viewInstalled(View view, long position) {
        }
    }

    /** Returns whether it got to send (false: the coordinator turned it away before it had a view). */
    private boolean intrude(String name, GroupStack stack, List<Replica> rs, byte[] commit, byte[] vote) {
        Intruder listener = new Intruder();
        JGroupsGroup intruder;
        try {
            intruder = JGroupsGroup.builder(cluster).memberName(name).stack(stack).listener(listener)
                    .joinTimeout(Duration.ofSeconds(30)).join();
        } catch (GroupJoinException refused) {
            return false;
        }
        synchronized (closeables) {
            closeables.add(intruder);
        }
        for (Replica r : rs) {
            assertFalse(r.view().contains(intruder.self()), "the intruder got into " + r + "'s view");
        }
        // in a view of its own: its broadcasts reach no replica; and it addresses the replicas directly too
        for (int i = 0; i < 20; i++) {
            intruder.broadcast(commit);
            intruder.reliableBroadcast(vote);
            for (Replica r : rs) {
                intruder.send(r.self(), commit);
            }
        }
        Await.until("the intruder's own broadcasts delivered to itself", () -> listener.delivered.get() == 20);
        return true;
    }

    @Test
    void anIntruderCanNeitherJoinNorInjectCommitsVotesOrDirectMessages() throws Exception {
        List<Replica> rs = new ArrayList<>();
        for (String name : List.of("A", "B")) {
            Replica r = Replica.builder(cluster).memberName(name).codec(HostileHarness.CODEC).stack(secured(SECRET))
                    .oracle(HostileHarness.cyclingOracle()).start();
            closeables.add(r);
            rs.add(r);
        }
        Replica a = rs.get(0);
        a.stm().atomic(() -> a.<Long>root("x").put(1L));
        Await.until("B has x", () -> rs.get(1).stm().readOnly(() -> rs.get(1).root("x").get()) != null);
        // B's announcement of its codec registrations may be ordered after x: a commit of B's own follows it.
        Replica b = rs.get(1);
        b.stm().atomic(() -> b.<Long>root("y").put(1L));
        Await.until("A has y", () -> a.stm().readOnly(() -> a.root("y").get()) != null);
        long version = a.stm().latestVersion();
        String digest = HostileHarness.digest(a);
        long[] ordered = rs.stream().mapToLong(r -> r.group().statistics().orderedDeliveries()).toArray();
        // What an intruder would like to have applied: a blind write of x, and a vote.
        byte[] commit = CommitWire.encode(new Tx(CommitWire.NVC, 1, version, new byte[0], 0,
                new long[] {a.root("x").id()}, new boolean[] {false}, new long[0], 0, 0, 0, null,
                HostileHarness.CODEC.toBytes(666L)));
        byte[] vote = CommitWire.vote(1, true);

        // Two intruders at once (turning each away takes JGroups some seconds): one with a wrong secret, one with
        // no security at all. Each ends up in a view of its own, or is refused outright.
        List<GroupStack> stacks = List.of(secured(WRONG), GroupStack.embedded().failureDetection(Duration.ofSeconds(2)));
        List<CompletableFuture<Boolean>> intruders = new ArrayList<>();
        for (int k = 0; k < stacks.size(); k++) {
            String name = "X" + k;
            GroupStack stack = stacks.get(k);
            intruders.add(CompletableFuture.supplyAsync(() -> intrude(name, stack, rs, commit, vote)));
        }
        int sent = 0;
        for (CompletableFuture<Boolean> f : intruders) {
            sent += f.get(90, TimeUnit.SECONDS) ? 1 : 0;
        }
        // Not only turned away: at least one intruder must have sent its commits, votes and direct messages, or
        // the checks below would show nothing about injection.
        assertTrue(sent > 0, "every intruder was refused before it could send anything");
        Thread.sleep(1000); // anything that got through would be applied by now
        for (int i = 0; i < rs.size(); i++) {
            Replica r = rs.get(i);
            assertEquals(2, r.view().size(), r + "'s view: " + r.view());
            assertEquals(version, r.stm().latestVersion(), r + " applied something");
            assertEquals(digest, HostileHarness.digest(r));
            assertEquals(ordered[i], r.group().statistics().orderedDeliveries(), r + " delivered something");
        }
        a.stm().atomic(() -> a.<Long>root("x").put(2L)); // the replicas go on
        Await.until("B has x = 2", () -> Long.valueOf(2).equals(rs.get(1).stm().readOnly(
                () -> rs.get(1).<Long>root("x").get())));
    }
}
