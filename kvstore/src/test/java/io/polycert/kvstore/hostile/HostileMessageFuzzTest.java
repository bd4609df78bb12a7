package io.polycert.kvstore.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.polycert.certification.PolymorphicReplicationManager;
import io.polycert.core.VBox;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.GroupListener;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import io.polycert.core.testing.Await;
import io.polycert.gcs.GroupStack;
import io.polycert.gcs.JGroupsGroup;
import io.polycert.kvstore.Replica;
import io.polycert.kvstore.hostile.CommitWire.Field;
import io.polycert.kvstore.hostile.CommitWire.Parsed;
import io.polycert.kvstore.hostile.CommitWire.Tx;
import io.polycert.kvstore.hostile.CommitWire.Verdict;
import io.polycert.kvstore.hostile.HostileHarness.Account;
import io.polycert.kvstore.hostile.HostileHarness.LogCapture;
import io.polycert.kvstore.hostile.HostileHarness.Node;
import io.polycert.kvstore.hostile.HostileHarness.Probe;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Hostile input to full replication (issue 8): more than 10^4 malformed, truncated, mutated, replayed, oversized
 * and misattributed messages, generated from a seed, delivered to three live replicas A, B and C. A rogue member R
 * sits in their group: it records the real commit messages and votes of a deterministic workload, and the cases
 * are derived from them. Some 11,000 cases are handed to each replica's replication manager on its group's engine
 * thread, exactly as the group delivers (there a failure is pinned on its case, and what each case allocates is
 * measured, and a case may claim any sender); some 5,000 more, two of them oversized, R sends through the group
 * for real, by atomic and reliable broadcast, and 2,000 more to each replica point-to-point (vote queries, the
 * manager's one such message, and garbage).
 *
 * <p>What must hold: nothing escapes the manager's callbacks (no exception, no error logged by the group's
 * delivery), no case allocates much more than its own size (a length of 2^31-1 allocates nothing), the replicated
 * state of every replica is the same before and after (a digest of the version and every reachable box's value),
 * nothing hostile stays in a certification queue, the group stays up with all its members, every replica commits
 * with every protocol afterwards, and the manager logs what it drops at most about once a second per replica.
 *
 * <p>What the cases are: a message whose header does not decode is dropped on delivery, whoever it comes from. A
 * commit whose header decodes but whose values do not is a transaction of its sender: it is attributed to R, under
 * a transaction id R never used, and must never commit; when it is a voting (VC) one, R votes on it (commit or
 * abort, at random) right after, as an originator does. Well-formed commits are real transactions, not hostile
 * input, so a mutation that happens to yield one is not sent, with one exception: replays of the workload's
 * commit messages (each reads a box it writes, so as a replay it is stale, and certification must abort it), sent
 * by R as its own, and delivered again under their sender and transaction id (a duplicate delivery, which must be
 * dropped: a VC one would otherwise wait for a vote forever). At the end R sends commits of its own twice under
 * one transaction id, one per protocol, the VC one never voted on. Votes: malformed ones from anyone, replays of the workload's votes (finished transactions), and
 * votes from R for transactions R never sent. Resolution reports, the one message naming another member's
 * transaction, from R about strangers, about finished transactions of A, B and C, and about ones never started.
 *
 * <p>Reproduce with {@code -Dpolycert.fuzz.seed=...} (the seed is printed); a failure names the case and its
 * bytes. The workload is sequential, so the captured messages, and the cases derived from them, are the same from
 * run to run.
 */
class HostileMessageFuzzTest {
    private static final long SEED = Long.getLong("polycert.fuzz.seed", 0x5EEDF022L);
    private static final int WORKLOAD = 45;
    private static final int ACCOUNTS = 8;
    /** The type byte of the manager's one point-to-point message, a vote query (PolymorphicReplicationManager). */
    private static final byte VOTE_QUERY = 4;

    private final List<Replica> replicas = new ArrayList<>();
    private JGroupsGroup rogueGroup;

    @AfterEach
    void tearDown() {
        if (rogueGroup != null) {
            rogueGroup.close();
        }
        for (Replica r : replicas) {
            try {
                r.close();
            } catch (RuntimeException ignored) {
                // already gone
            }
        }
    }

    record Captured(MemberId origin, byte[] payload) {
    }

    record Case(int n, String category, boolean ordered, MemberId origin, byte[] payload) {
        String describe() {
            String hex = HexFormat.of().formatHex(payload, 0, Math.min(payload.length, 96));
            return "case " + n + " [" + category + "] " + (ordered ? "ordered" : "reliable") + " from " + origin
                    + ", " + payload.length + " bytes: " + hex + (payload.length > 96 ? "..." : "");
        }
    }

    /** R: a member of the group that only listens, records, and sends what the test tells it to. */
    static final class Rogue implements GroupListener {
        final MemberId self = MemberId.random("R");
        final List<Captured> ordered = new CopyOnWriteArrayList<>();
        final List<Captured> reliable = new CopyOnWriteArrayList<>();
        final AtomicLong ownOrdered = new AtomicLong();
        final AtomicLong ownReliable = new AtomicLong();

        @Override
        public void deliverOrdered(MemberId origin, long position, byte[] payload) {
            if (origin.equals(self)) {
                ownOrdered.incrementAndGet();
            } else {
                ordered.add(new Captured(origin, payload));
            }
        }

        @Override
        public void deliverReliable(MemberId origin, byte[] payload) {
            if (origin.equals(self)) {
                ownReliable.incrementAndGet();
            } else {
                reliable.add(new Captured(origin, payload));
            }
        }

        @Override
        public void viewInstalled(View view, long position) {
        }
    }

    @Test
    void hostileMessagesNeitherCrashAReplicaNorChangeItsState() throws Exception {
        System.out.println("HostileMessageFuzzTest: seed " + SEED + " (rerun with -Dpolycert.fuzz.seed=" + SEED + ")");
        long testStart = System.nanoTime();
        String cluster = "hostile-" + UUID.randomUUID();
        GroupStack stack = GroupStack.embedded().failureDetection(Duration.ofSeconds(3));
        for (String name : List.of("A", "B", "C")) {
            replicas.add(Replica.builder(cluster).memberName(name).codec(HostileHarness.CODEC).stack(stack)
                    .oracle(HostileHarness.cyclingOracle()).start());
        }
        Rogue rogue = new Rogue();
        rogueGroup = JGroupsGroup.builder(cluster).identity(rogue.self).stack(stack).listener(rogue).join();
        Await.until("A, B, C and R in one view", () -> replicas.stream().allMatch(r -> r.view().size() == 4));

        runWorkload();
        quiesce();
        List<Captured> txs = new ArrayList<>(rogue.ordered);
        int[] byProtocol = new int[3];
        for (Captured c : txs) {
            Parsed p = CommitWire.parseOrdered(c.payload());
            assertEquals(Verdict.WELL_FORMED_TX, p.verdict(), "the test's copy of the wire format is out of date");
            byProtocol[p.tx().protocol()]++;
        }
        assertTrue(byProtocol[0] > 5 && byProtocol[1] > 5 && byProtocol[2] > 5, "captured commits by protocol: "
                + Arrays.toString(byProtocol));
        // Votes reach R by reliable broadcast, which quiesce (the replicas' ordered deliveries) does not wait for;
        // give them a moment. Not every VC transaction has one (one whose snapshot fell out of the certification
        // window is aborted at the head without a vote), so only enough to replay is required.
        long votesDeadline = System.nanoTime() + 10_000_000_000L;
        for (int seen = -1; rogue.reliable.size() < byProtocol[2] && rogue.reliable.size() != seen
                && System.nanoTime() < votesDeadline; ) {
            seen = rogue.reliable.size(); // until they stop coming
            Thread.sleep(300);
        }
        List<Captured> votes = new ArrayList<>(rogue.reliable);
        assertTrue(votes.size() > 5, "captured votes: " + votes.size() + " for " + byProtocol[2] + " VC commits");
        for (Captured v : votes) {
            assertTrue(CommitWire.parseVote(v.payload()) != null, "the test's copy of the vote format is out of date");
        }
        String before = HostileHarness.digest(replicas.get(0));
        for (Replica r : replicas) {
            assertEquals(before, HostileHarness.digest(r), r + " differs before the fuzz");
        }
        long latest = replicas.get(0).stm().latestVersion();

        List<Probe> probes = replicas.stream().map(Probe::new).toList();
        Generator gen = new Generator(new SplittableRandom(SEED), txs, votes, rogue.self,
                replicas.stream().map(Replica::self).toList(), latest);
        List<String> escapes = new CopyOnWriteArrayList<>();
        List<String> overAllocations = new CopyOnWriteArrayList<>();
        try (LogCapture managerLog = new LogCapture(PolymorphicReplicationManager.class);
                LogCapture deliveryLog = new LogCapture("io.polycert.gcs.InlineDelivery");
                LogCapture loopLog = new LogCapture("io.polycert.gcs.EngineLoop")) {
            long fuzzStart = System.nanoTime();

            // ---- 1. straight into each replica's delivery callbacks, on its engine thread ----
            List<Case> direct = gen.directCases();
            long position = 1L << 40;
            for (int from = 0; from < direct.size(); from += 200) {
                List<Case> batch = direct.subList(from, Math.min(direct.size(), from + 200));
                for (Probe p : probes) {
                    deliver(p, batch, position, escapes, overAllocations);
                }
                position += batch.size();
            }
            assertTrue(escapes.isEmpty(), escapes.size() + " cases escaped, first: " + first(escapes));
            assertTrue(overAllocations.isEmpty(), overAllocations.size() + " cases allocated too much, first: "
                    + first(overAllocations));
            quiesce();
            assertAllInView(4);
            for (Replica r : replicas) {
                assertEquals(before, HostileHarness.digest(r), r + " changed state after the direct cases");
            }
            for (Probe p : probes) {
                assertEquals(0, p.queued(), p.replica + " still holds hostile transactions in its queue");
            }
            long directDone = System.nanoTime();

            // ---- 2. through the group: R sends by atomic and reliable broadcast ----
            long orderedBase = rogue.ownOrdered.get();
            long reliableBase = rogue.ownReliable.get();
            List<Case> network = gen.networkCases();
            long sentOrdered = network.stream().filter(Case::ordered).count();
            long sentReliable = network.size() - sentOrdered;
            for (Case c : network) {
                if (c.ordered()) {
                    rogueGroup.broadcast(c.payload());
                } else {
                    rogueGroup.reliableBroadcast(c.payload());
                }
            }
            Await.until("R's messages delivered", () -> rogue.ownOrdered.get() == orderedBase + sentOrdered
                    && rogue.ownReliable.get() == reliableBase + sentReliable);
            // Point-to-point: what R sends a replica directly (its only such message is a vote query), FIFO.
            List<byte[]> pointToPoint = gen.pointToPointCases();
            for (Replica r : replicas) {
                // The last one asks for a vote this replica gave on one of its own VC transactions: it sends the
                // vote again, and the copy reaching R shows it got past everything before it.
                long[] voted = votes.stream().filter(v -> v.origin().equals(r.self()))
                        .map(v -> CommitWire.parseVote(v.payload())).findFirst().orElseThrow();
                // Transaction ids are per replica, so some earlier well-formed queries may name that id too, and
                // are answered as well: the wait counts them.
                byte[] last = gen.voteQuery(voted[0], 0);
                long expected = answersFrom(rogue, r, voted[0]) + 1
                        + pointToPoint.stream().filter(b -> Arrays.equals(b, last)).count();
                for (byte[] b : pointToPoint) {
                    rogueGroup.send(r.self(), b);
                }
                rogueGroup.send(r.self(), last);
                Await.until(r + " answered R's last vote query", () -> answersFrom(rogue, r, voted[0])
                        >= expected);
            }
            quiesce();
            assertAllInView(4);

            // ---- 3. R's own commits twice under one transaction id, then R leaves ----
            List<Case> duplicates = gen.duplicateCases();
            for (Case c : duplicates) {
                rogueGroup.broadcast(c.payload());
            }
            Await.until("R's duplicates delivered", () -> rogue.ownOrdered.get()
                    == orderedBase + sentOrdered + duplicates.size());
            quiesce();
            assertAllInView(4);
            rogueGroup.close();
            rogueGroup = null;
            Await.until("A, B and C without R", () -> replicas.stream().allMatch(r -> r.view().size() == 3));
            quiesce();
            double fuzzSeconds = (System.nanoTime() - fuzzStart) / 1e9;

            assertAllInView(3);
            for (Replica r : replicas) {
                assertEquals(before, HostileHarness.digest(r), r + " changed state");
            }
            for (Probe p : probes) {
                assertEquals(0, p.queued(), p.replica + " still holds hostile transactions in its queue");
            }
            List<ILoggingEvent> failures = new ArrayList<>(deliveryLog.events());
            failures.addAll(loopLog.events());
            failures.removeIf(e -> !e.getLevel().isGreaterOrEqual(Level.ERROR));
            assertTrue(failures.isEmpty(), "a delivery failed: " + (failures.isEmpty() ? "" : failures.get(0)
                    .getFormattedMessage() + " " + failures.get(0).getThrowableProxy()));
            Map<String, Integer> warningsByReplica = new TreeMap<>();
            for (ILoggingEvent e : managerLog.events()) {
                if (e.getLevel().isGreaterOrEqual(Level.WARN)) {
                    String m = e.getFormattedMessage();
                    String who = m.startsWith("[") ? m.substring(1, m.indexOf(']')) : "?";
                    warningsByReplica.merge(who, 1, Integer::sum);
                }
            }
            int cases = direct.size() + network.size() + pointToPoint.size() + duplicates.size();
            System.out.printf("HostileMessageFuzzTest: %d cases (%d direct to each of 3 replicas, %d through the"
                    + " group, %d point-to-point to each replica, %d duplicates), by category %s; %d well-formed"
                    + " mutations not sent; direct %.1f s, fuzz %.1f s; warnings logged %s%n", cases, direct.size(),
                    network.size(), pointToPoint.size(), duplicates.size(), gen.counts, gen.skipped,
                    (directDone - fuzzStart) / 1e9, fuzzSeconds, warningsByReplica);
            assertTrue(cases >= 10_000, "only " + cases + " cases");
            // Rate-limited: about one line a second per replica (plus the first), however much was dropped.
            long allowed = (long) Math.ceil(fuzzSeconds) + 2;
            assertTrue(warningsByReplica.keySet().stream().allMatch(k -> replicas.stream()
                    .anyMatch(r -> r.self().name().equals(k))), "warnings that do not say which replica: "
                    + warningsByReplica);
            for (Replica r : replicas) {
                int n = warningsByReplica.getOrDefault(r.self().name(), 0);
                assertTrue(n >= 1, r + " never warned about what it dropped: " + warningsByReplica);
                assertTrue(n <= allowed, r + " logged " + n + " warnings in " + fuzzSeconds + " s: not rate-limited ("
                        + warningsByReplica + ")");
            }
        }

        // ---- 4. still serving: every replica commits with every protocol (the oracles cycle NVC, BFC, VC) ----
        for (int round = 0; round < 3; round++) {
            for (Replica r : replicas) {
                VBox<Long> counter = r.root("counter");
                r.stm().atomic(() -> counter.put(counter.get() + 1));
            }
        }
        quiesce();
        String after = HostileHarness.digest(replicas.get(0));
        for (Replica r : replicas) {
            assertEquals(after, HostileHarness.digest(r), r + " diverged after the fuzz");
            assertEquals((long) WORKLOAD + 9, (long) r.stm().readOnly(() -> r.<Long>root("counter").get()));
            assertEquals(latest + 9, r.stm().latestVersion());
        }
        System.out.printf("HostileMessageFuzzTest: %.1f s in all%n", (System.nanoTime() - testStart) / 1e9);
    }

    /** How many times R has received {@code replica}'s vote on its transaction {@code txId}. */
    private static long answersFrom(Rogue rogue, Replica replica, long txId) {
        return rogue.reliable.stream().filter(v -> v.origin().equals(replica.self())).map(v -> CommitWire
                .parseVote(v.payload())).filter(v -> v != null && v[0] == txId).count();
    }

    private static String first(List<String> l) {
        return l.isEmpty() ? "" : l.get(0);
    }

    private static long allocatedByThisThread() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getCurrentThreadAllocatedBytes();
    }

    private static void deliver(Probe p, List<Case> batch, long firstPosition, List<String> escapes,
            List<String> overAllocations) {
        p.onEngine(() -> {
            long position = firstPosition;
            for (Case c : batch) {
                long before = allocatedByThisThread();
                try {
                    if (c.ordered()) {
                        p.manager.deliverOrdered(c.origin(), position++, c.payload());
                    } else {
                        p.manager.deliverReliable(c.origin(), c.payload());
                    }
                } catch (Throwable t) {
                    escapes.add(p.replica + ", " + c.describe() + ": " + t);
                }
                long used = allocatedByThisThread() - before;
                if (used > 8L * c.payload().length + (4 << 20)) { // proportional to the input: never gigabytes
                    overAllocations.add(p.replica + ", " + c.describe() + ": allocated " + used + " bytes");
                }
            }
        });
    }

    private void assertAllInView(int size) {
        for (Replica r : replicas) {
            View v = r.view();
            assertTrue(v.primary() && v.size() == size, r + " is in view " + v);
            for (Replica other : replicas) {
                assertTrue(v.contains(other.self()), r + " lost " + other + ": " + v);
            }
        }
    }

    private void awaitSameVersion() {
        Await.until("replicas at the same version", () -> replicas.stream()
                .mapToLong(r -> r.stm().latestVersion()).distinct().count() == 1);
    }

    /** Waits until every replica is at the same version and nothing has been delivered for a while. */
    private void quiesce() throws InterruptedException {
        awaitSameVersion();
        long[] last = new long[replicas.size() * 2];
        long quietSince = System.nanoTime();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() - quietSince < 400_000_000L) {
            boolean changed = false;
            for (int i = 0; i < replicas.size(); i++) {
                var s = replicas.get(i).group().statistics();
                long o = s.orderedDeliveries();
                long b = s.bytesDelivered();
                if (o != last[2 * i] || b != last[2 * i + 1]) {
                    last[2 * i] = o;
                    last[2 * i + 1] = b;
                    changed = true;
                }
            }
            if (changed) {
                quietSince = System.nanoTime();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the group never went quiet");
            }
            Thread.sleep(50);
        }
        awaitSameVersion();
    }

    /**
     * A sequential workload over every kind of value (registered records, box arrays, nested values, strings,
     * byte arrays, new boxes), each transaction reading the counter it increments: replayed, any of its messages
     * is stale. After each commit every replica catches up, so snapshots, ids and messages are deterministic.
     */
    @SuppressWarnings("unchecked")
    private void runWorkload() {
        Replica a = replicas.get(0);
        VBox<VBox<Account>[]> accounts = a.root("accounts");
        a.stm().atomic(() -> {
            if (accounts.get() == null) {
                VBox<Account>[] boxes = new VBox[ACCOUNTS];
                for (int i = 0; i < ACCOUNTS; i++) {
                    boxes[i] = a.stm().newBox(new Account("owner-" + i, 100));
                }
                accounts.put(boxes);
                a.<Long>root("counter").put(0L);
            }
        });
        awaitSameVersion();
        for (int t = 0; t < WORKLOAD; t++) {
            Replica r = replicas.get(t % replicas.size());
            int i = t;
            r.stm().atomic(() -> {
                VBox<Long> counter = r.root("counter");
                counter.put(counter.get() + 1);
                VBox<Account>[] boxes = r.<VBox<Account>[]>root("accounts").get();
                VBox<Account> from = boxes[i % ACCOUNTS];
                VBox<Account> to = boxes[(3 * i + 1) % ACCOUNTS];
                from.put(new Account(from.get().owner(), from.get().balance() - 1));
                to.put(new Account(to.get().owner(), to.get().balance() + 1));
                if (i % 4 == 0) {
                    r.root("blob").put(("blob " + i).getBytes(StandardCharsets.UTF_8));
                }
                if (i % 5 == 1) {
                    r.root("note").put("note " + i + " é");
                }
                if (i % 6 == 2) {
                    r.root("tree").put(new Node((long) i, new Node(new int[] {i, -i}, boxes[0])));
                }
                if (i % 7 == 3) {
                    r.root("extra").put(r.stm().newBox(new long[] {i}));
                }
            });
            awaitSameVersion();
        }
    }

    // =========================================================================================================

    /** Derives the cases from the captured messages and the seed. */
    static final class Generator {
        private static final long[] LIES = {Integer.MAX_VALUE, 0xFFFF_FFFFL, 1L << 32, Long.MAX_VALUE, -1,
            Integer.MIN_VALUE, 1 << 28, (1 << 28) + 1, 65, 31};

        private final SplittableRandom random;
        private final List<Captured> txs;
        private final List<Captured> votes;
        private final MemberId rogue;
        private final List<MemberId> honest;
        private final MemberId stranger = new MemberId(0x5757L, 0x5757L, "stranger");
        /** The latest version when the fuzz starts: a commit with this snapshot passes certification. */
        private final long latest;
        /** Transaction ids R uses for its hostile commits: never reused, never voted on by anything else. */
        private long freshTxId = 1_000_000_000L;
        private int n;
        /** Through the group only R can send: every case is R's. */
        private boolean network;
        final Map<String, Integer> counts = new TreeMap<>();
        int skipped;

        Generator(SplittableRandom random, List<Captured> txs, List<Captured> votes, MemberId rogue,
                List<MemberId> honest, long latest) {
            this.random = random;
            this.txs = txs;
            this.votes = votes;
            this.rogue = rogue;
            this.honest = honest;
            this.latest = latest;
        }

        private MemberId anyOrigin() {
            if (network) {
                return rogue;
            }
            int k = random.nextInt(10);
            return k < 5 ? rogue : k < 8 ? honest.get(random.nextInt(honest.size())) : stranger;
        }

        private Captured anyTx() {
            return txs.get(random.nextInt(txs.size()));
        }

        private Tx anyTx(int protocol) {
            while (true) {
                Tx tx = CommitWire.parseOrdered(anyTx().payload()).tx();
                if (tx.protocol() == protocol) {
                    return tx;
                }
            }
        }

        private void add(List<Case> out, String category, boolean ordered, MemberId origin, byte[] payload) {
            out.add(new Case(n++, category, ordered, origin, payload));
            counts.merge(category, 1, Integer::sum);
        }

        /**
         * An ordered case: dropped ones go out as they are, from anyone; a commit with bad values goes out as
         * R's, under a fresh transaction id, followed for VC by R's vote; a well-formed commit is not sent.
         */
        private void ordered(List<Case> out, String category, byte[] payload, MemberId origin) {
            Parsed p = CommitWire.parseOrdered(payload);
            switch (p.verdict()) {
                case DROPPED -> add(out, category, true, origin != null && !network ? origin : anyOrigin(), payload);
                case BAD_VALUES -> {
                    Tx tx = p.tx().withTxId(freshTxId++);
                    byte[] renamed = CommitWire.encode(tx);
                    if (CommitWire.parseOrdered(renamed).verdict() != Verdict.BAD_VALUES) {
                        throw new AssertionError("renaming changed a case");
                    }
                    add(out, category, true, rogue, renamed);
                    if (tx.protocol() == CommitWire.VC) {
                        add(out, category + "+vote", false, rogue, CommitWire.vote(tx.txId(), random.nextBoolean()));
                    }
                }
                default -> skipped++;
            }
        }

        /** A reliable case: only malformed votes (well-formed ones are made on purpose, elsewhere). */
        private void reliable(List<Case> out, String category, byte[] payload, MemberId origin) {
            if (CommitWire.parseVote(payload) != null) {
                skipped++;
                return;
            }
            add(out, category, false, origin != null && !network ? origin : anyOrigin(), payload);
        }

        List<Case> directCases() {
            List<Case> out = new ArrayList<>();
            // (a) random bytes of random lengths, 0 to 64 KiB; half of them start like a real message
            for (int i = 0; i < 1500; i++) {
                byte[] b = new byte[random.nextInt(64 * 1024 + 1)];
                random.nextBytes(b);
                if (b.length > 1 && random.nextBoolean()) {
                    b[0] = (byte) (1 + random.nextInt(3));
                    b[1] = (byte) random.nextInt(3);
                }
                if (random.nextInt(4) == 0) {
                    reliable(out, "a-random", b, null);
                } else {
                    ordered(out, "a-random", b, null);
                }
            }
            // (b) every real message truncated at every offset
            for (Captured c : txs) {
                for (int len = 0; len < c.payload().length; len++) {
                    ordered(out, "b-truncated", Arrays.copyOf(c.payload(), len),
                            random.nextBoolean() ? c.origin() : null);
                }
            }
            for (Captured v : votes) {
                for (int len = 0; len < v.payload().length; len++) {
                    reliable(out, "b-truncated", Arrays.copyOf(v.payload(), len), v.origin());
                }
            }
            // (c) bit flips, mutated bytes, lying length fields, hostile values
            for (int i = 0; i < 2500; i++) {
                mutation(out);
            }
            // (d) replays
            replays(out);
            // (e) oversized
            oversized(out);
            // (f) reports about other members' transactions
            for (int i = 0; i < 300; i++) {
                add(out, "f-report", true, rogue, report());
            }
            return out;
        }

        List<Case> networkCases() {
            network = true;
            List<Case> out = new ArrayList<>();
            for (int i = 0; i < 1500; i++) {
                byte[] b = new byte[random.nextInt(64 * 1024 + 1)];
                random.nextBytes(b);
                if (b.length > 1 && random.nextBoolean()) {
                    b[0] = (byte) (1 + random.nextInt(3));
                    b[1] = (byte) random.nextInt(3);
                }
                if (i % 3 == 0) {
                    reliable(out, "net-a-random", b, rogue);
                } else {
                    ordered(out, "net-a-random", b, rogue);
                }
            }
            for (int i = 0; i < 1500; i++) {
                Captured c = anyTx();
                ordered(out, "net-b-truncated", Arrays.copyOf(c.payload(), random.nextInt(c.payload().length)),
                        rogue);
            }
            for (int i = 0; i < 1500; i++) {
                mutation(out);
            }
            for (int i = 0; i < 150; i++) {
                Tx tx = CommitWire.parseOrdered(anyTx().payload()).tx().withTxId(freshTxId++);
                add(out, "net-d-replay", true, rogue, CommitWire.encode(tx));
                if (tx.protocol() == CommitWire.VC) {
                    add(out, "net-d-replay+vote", false, rogue, CommitWire.vote(tx.txId(), false));
                }
            }
            for (int i = 0; i < 150; i++) {
                add(out, "net-d-vote-unknown", false, rogue, CommitWire.vote(unknownTxId(), random.nextBoolean()));
            }
            for (int i = 0; i < 150; i++) {
                add(out, "net-f-report", true, rogue, report());
            }
            byte[] big = new byte[8 << 20];
            random.nextBytes(big);
            big[0] = (byte) 77; // no such message
            add(out, "net-e-oversized", true, rogue, big);
            byte[] garbage = new byte[12 << 20];
            random.nextBytes(garbage);
            garbage[0] = (byte) 99; // an unknown type tag
            add(out, "net-e-oversized", true, rogue, CommitWire.encode(anyTx(CommitWire.NVC).withSnapshot(latest)
                    .withTxId(freshTxId++).withValues(garbage)));
            for (Case c : out) {
                if (!c.origin().equals(rogue)) {
                    throw new AssertionError("only R can send through the group: " + c.describe());
                }
            }
            return out;
        }

        /**
         * Point-to-point messages, which a replica gets only as vote queries ({@code 4}, then a transaction id of
         * its own): random bytes, a query cut short, a query with bytes after its id, queries for transactions
         * nobody started, and well-formed queries for the workload's transactions (a replica answers one of its
         * own decided VC transactions by sending its vote again, which changes nothing).
         */
        List<byte[]> pointToPointCases() {
            List<byte[]> out = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                byte[] b;
                switch (i % 5) {
                    case 0 -> {
                        b = new byte[random.nextInt(4097)];
                        random.nextBytes(b);
                    }
                    case 1 -> b = new byte[] {VOTE_QUERY};
                    case 2 -> b = voteQuery(txIdOf(anyTx()), 1 + random.nextInt(8));
                    case 3 -> b = voteQuery(unknownTxId(), 0);
                    default -> b = voteQuery(txIdOf(anyTx()), 0);
                }
                out.add(b);
                counts.merge("p2p-" + (char) ('a' + i % 5), 1, Integer::sum);
            }
            return out;
        }

        private static long txIdOf(Captured c) {
            return CommitWire.parseOrdered(c.payload()).tx().txId();
        }

        /** A vote query for {@code txId}, followed by {@code junk} random bytes. */
        byte[] voteQuery(long txId, int junk) {
            byte[] query = new io.polycert.core.codec.ValueOutput(HostileHarness.CODEC, 12).writeByte(VOTE_QUERY)
                    .writeVarLong(txId).toByteArray();
            byte[] b = Arrays.copyOf(query, query.length + junk);
            for (int k = query.length; k < b.length; k++) {
                b[k] = (byte) random.nextInt(256);
            }
            return b;
        }

        /**
         * R sends one of its commits twice under the same transaction id, for each protocol: the NVC and BFC ones
         * are stale and abort, and so must their copies; the VC one waits for a vote R never sends, until R leaves
         * and the survivors resolve it (abort), and its copy must not be left behind in the queue.
         */
        List<Case> duplicateCases() {
            List<Case> out = new ArrayList<>();
            for (int protocol = 0; protocol < 3; protocol++) {
                byte[] replay = CommitWire.encode(anyTx(protocol).withTxId(freshTxId++));
                add(out, "dup-replay", true, rogue, replay);
                add(out, "dup-replay-again", true, rogue, replay);
            }
            return out;
        }

        private long unknownTxId() {
            return (1L << 40) + random.nextLong(1L << 50);
        }

        private byte[] report() {
            int k = random.nextInt(4);
            int state = random.nextInt(3);
            if (k == 0) {
                return CommitWire.report(stranger, random.nextLong(1L << 20), state);
            }
            if (k == 1) { // a finished transaction of A, B or C
                Captured c = anyTx();
                return CommitWire.report(c.origin(), CommitWire.parseOrdered(c.payload()).tx().txId(), state);
            }
            if (k == 2) { // one they have not started (and never will: ids count from 1)
                return CommitWire.report(honest.get(random.nextInt(honest.size())), unknownTxId(), state);
            }
            return CommitWire.report(new MemberId(random.nextLong(), random.nextLong(), "ghost-" + random.nextInt(99)),
                    random.nextLong(), state);
        }

        private void mutation(List<Case> out) {
            if (random.nextInt(5) == 0) {
                byte[] v = votes.get(random.nextInt(votes.size())).payload().clone();
                switch (random.nextInt(3)) {
                    case 0 -> v[random.nextInt(v.length)] ^= (byte) (1 << random.nextInt(8));
                    case 1 -> v = Arrays.copyOf(v, v.length + 1 + random.nextInt(4));
                    default -> v[v.length - 1] = (byte) (2 + random.nextInt(250));
                }
                reliable(out, "c-mutated-vote", v, null);
                return;
            }
            Captured c = anyTx();
            Tx tx = CommitWire.parseOrdered(c.payload()).tx();
            byte[] b = c.payload().clone();
            switch (random.nextInt(8)) {
                case 0 -> {
                    for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                        b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
                    }
                    ordered(out, "c-bitflip", b, null);
                }
                case 1 -> {
                    b[random.nextInt(b.length)] = (byte) random.nextInt();
                    ordered(out, "c-byte", b, null);
                }
                case 2 -> {
                    int at = random.nextInt(b.length);
                    byte[] cut = new byte[b.length - 1];
                    System.arraycopy(b, 0, cut, 0, at);
                    System.arraycopy(b, at + 1, cut, at, b.length - at - 1);
                    ordered(out, "c-deleted-byte", cut, null);
                }
                case 3 -> {
                    byte[] longer = Arrays.copyOf(b, b.length + 1 + random.nextInt(16));
                    for (int i = b.length; i < longer.length; i++) {
                        longer[i] = (byte) random.nextInt();
                    }
                    ordered(out, "c-trailing", longer, null);
                }
                case 4, 5 -> ordered(out, "c-length-lie", lie(tx), null);
                default -> ordered(out, "c-hostile-values", CommitWire.encode(
                        tx.withSnapshot(random.nextBoolean() ? latest : random.nextLong(Long.MAX_VALUE))
                                .withValues(hostileValues(tx.writeIds().length))), null);
            }
        }

        private byte[] lie(Tx tx) {
            List<Field> fields = new ArrayList<>(List.of(Field.GOSSIP_LENGTH, Field.WRITE_COUNT));
            if (tx.protocol() == CommitWire.NVC) {
                fields.add(Field.READ_COUNT);
            } else if (tx.protocol() == CommitWire.BFC) {
                fields.add(Field.BLOOM_BITS);
                fields.add(Field.BLOOM_HASHES);
            }
            Field f = fields.get(random.nextInt(fields.size()));
            long claimed = random.nextInt(3) == 0 ? random.nextLong() : LIES[random.nextInt(LIES.length)];
            return CommitWire.encode(tx.withSnapshot(latest), f, claimed);
        }

        /** The values part of a commit of {@code n} writes, with something wrong in it. */
        private byte[] hostileValues(int n) {
            ValueOutput out = new ValueOutput(HostileHarness.CODEC, 64);
            int good = random.nextInt(n); // some honest values first
            for (int i = 0; i < good; i++) {
                out.writeValue((long) i);
            }
            switch (random.nextInt(11)) {
                case 0 -> out.writeVarInt(9).writeVarInt(Integer.MAX_VALUE); // a string of 2^31-1 bytes
                case 1 -> out.writeVarInt(10).writeVarInt(Integer.MAX_VALUE - random.nextInt(8)); // byte[]
                case 2 -> out.writeVarInt(11).writeVarInt(1 << 30); // int[2^30]
                case 3 -> out.writeVarInt(12).writeVarInt(Integer.MAX_VALUE); // long[]
                case 4 -> out.writeVarInt(HostileHarness.BOXES_TAG).writeVarInt(Integer.MAX_VALUE); // VBox[]
                case 5 -> out.writeVarInt(99 + random.nextInt(1 << 16)); // an unregistered type tag
                case 6 -> { // nested far deeper than the codec allows
                    for (int d = 0; d < 10_000; d++) {
                        out.writeVarInt(HostileHarness.NODE_TAG);
                    }
                }
                case 7 -> { // a gadget's own format: a Java-serialized object
                    byte[] serialized = javaSerialized();
                    out.writeRaw(serialized, 0, serialized.length);
                }
                case 8 -> out.writeVarLong(-1); // a negative tag
                case 9 -> out.writeVarInt(HostileHarness.ACCOUNT_TAG).writeVarInt(5).writeRaw(new byte[] {'a'}, 0, 1);
                default -> { // one value too many
                    for (int i = good; i <= n; i++) {
                        out.writeValue("extra");
                    }
                }
            }
            return out.toByteArray();
        }

        private void replays(List<Case> out) {
            for (Captured c : txs) {
                Tx tx = CommitWire.parseOrdered(c.payload()).tx();
                // a duplicate delivery: same sender, same transaction id
                add(out, "d-replay-duplicate", true, c.origin(), c.payload());
                for (int k = 0; k < 3; k++) { // R sending it again as its own
                    Tx mine = tx.withTxId(freshTxId++);
                    add(out, "d-replay-by-R", true, rogue, CommitWire.encode(mine));
                    if (mine.protocol() == CommitWire.VC) {
                        add(out, "d-replay-by-R+vote", false, rogue, CommitWire.vote(mine.txId(), false));
                    }
                }
            }
            for (Captured v : votes) { // votes for finished transactions
                add(out, "d-vote-finished", false, v.origin(), v.payload());
                add(out, "d-vote-finished", false, v.origin(), CommitWire.vote(CommitWire.parseVote(v.payload())[0],
                        random.nextBoolean()));
            }
            for (int i = 0; i < 200; i++) { // votes of R for transactions it never sent
                add(out, "d-vote-unknown", false, rogue, CommitWire.vote(random.nextBoolean()
                        ? random.nextLong(1, 100) : unknownTxId(), random.nextBoolean()));
            }
        }

        private void oversized(List<Case> out) {
            for (int i = 0; i < 2; i++) {
                byte[] b = new byte[(8 << 20) + random.nextInt(8 << 20)];
                random.nextBytes(b);
                b[0] = (byte) (i + 1);
                b[1] = 0;
                ordered(out, "e-oversized-random", b, rogue);
            }
            byte[] vote = new byte[9 << 20];
            random.nextBytes(vote);
            vote[0] = CommitWire.VOTE;
            vote[1] = 5;
            vote[2] = 1;
            reliable(out, "e-oversized-vote", vote, rogue);
            for (int protocol = 0; protocol < 3; protocol++) {
                byte[] garbage = new byte[12 << 20];
                random.nextBytes(garbage);
                garbage[0] = (byte) HostileHarness.NODE_TAG;
                ordered(out, "e-oversized-values", CommitWire.encode(anyTx(protocol).withSnapshot(latest)
                        .withValues(garbage)), null);
            }
            // a million writes (9 MB of ids, half of them roots) and no values for them
            int writes = 1_000_000;
            long[] ids = new long[writes];
            boolean[] created = new boolean[writes];
            for (int i = 0; i < writes; i++) {
                ids[i] = random.nextLong();
                created[i] = random.nextBoolean();
            }
            Tx many = new Tx(CommitWire.NVC, 0, latest, new byte[0], 0, ids, created, new long[0], 0, 0, 0, null,
                    new byte[] {0});
            ordered(out, "e-oversized-writes", CommitWire.encode(many), null);
            // a report naming a member with a 1 MiB name
            char[] name = new char[1 << 20];
            Arrays.fill(name, 'x');
            add(out, "e-oversized-report", true, rogue, CommitWire.report(new MemberId(1, 2, new String(name)), 7,
                    0));
            // 4 MiB of statistics for the oracle riding on a commit
            byte[] gossip = new byte[4 << 20];
            random.nextBytes(gossip);
            Tx tx = anyTx(CommitWire.NVC);
            ordered(out, "e-oversized-gossip", CommitWire.encode(tx.withGossip(gossip).withSnapshot(latest)
                    .withValues(hostileValues(tx.writeIds().length))), null);
        }
    }

    /** A Java-serialized object, the format gadget chains travel in: the codec must not know what to do with it. */
    static byte[] javaSerialized() {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                out.writeObject(new PriorityQueue<>(List.of("gadget")));
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
