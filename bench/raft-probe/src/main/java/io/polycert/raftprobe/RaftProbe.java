package io.polycert.raftprobe;

import org.HdrHistogram.Histogram;
import org.jgroups.JChannel;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.FD_ALL3;
import org.jgroups.protocols.FRAG4;
import org.jgroups.protocols.SHARED_LOOPBACK;
import org.jgroups.protocols.SHARED_LOOPBACK_PING;
import org.jgroups.protocols.UNICAST3;
import org.jgroups.protocols.VERIFY_SUSPECT;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.jgroups.protocols.pbcast.STABLE;
import org.jgroups.protocols.raft.ELECTION;
import org.jgroups.protocols.raft.InMemoryLog;
import org.jgroups.protocols.raft.NO_DUPES;
import org.jgroups.protocols.raft.RAFT;
import org.jgroups.protocols.raft.REDIRECT;
import org.jgroups.protocols.raft.Role;
import org.jgroups.raft.Options;
import org.jgroups.raft.RaftHandle;
import org.jgroups.raft.StateMachine;

import java.io.DataInput;
import java.io.DataOutput;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Probe of jgroups-raft 1.1.4 as an engine for uniform atomic broadcast.
 *
 * <p>Three Raft members (A, B, C) run in this JVM over SHARED_LOOPBACK with an in-memory log
 * ({@link InMemoryLog}). Clients append payloads through the leader with {@link RaftHandle#setAsync};
 * every member's state machine folds the committed payloads into a running 64-bit FNV-1a hash and a count.
 *
 * <p>Phases: throughput sweep (1/4/16 outstanding requests, 1 KB), payload sweep (100 B, 10 KB) at the best
 * concurrency, a max_log_size comparison, a 3-way consistency check, adding a 4th member (D) dynamically,
 * then two crash scenarios on fresh clusters: leader channel closed mid-stream, and leader silently
 * isolated (all its traffic dropped by DISCARD) mid-stream.
 *
 * <p>Arguments (all optional, key=value): secs=10 (seconds per throughput phase), crashSecs=10,
 * maxLogSize=67108864, resendInterval=1000, fdTimeout=2000.
 */
public final class RaftProbe {

    // ------------------------------------------------------------------ configuration

    static int phaseSecs = 10;
    static int crashSecs = 10;
    static long maxLogSize = 64L * 1024 * 1024;
    static long resendInterval = 1000;
    static long fdTimeout = 2000;
    static final long REQUEST_TIMEOUT_MS = 1000;
    static final Options OPTS = Options.create(true); // ignore return value: apply() returns nothing useful

    static final long FNV_OFFSET = 0xcbf29ce484222325L;
    static final long FNV_PRIME = 0x100000001b3L;

    static final List<String[]> TABLE = new ArrayList<>();
    static final List<String> NOTES = new ArrayList<>();

    // ------------------------------------------------------------------ state machine

    /** Applies committed entries in order: running FNV-1a 64 over all payload bytes, count, optional id set. */
    static final class HashStateMachine implements StateMachine {
        private final boolean trackIds;
        private long count;
        private long hash = FNV_OFFSET;
        private long duplicates;
        private BitSet ids = new BitSet();

        HashStateMachine(boolean trackIds) { this.trackIds = trackIds; }

        @Override
        public synchronized byte[] apply(byte[] data, int offset, int length, boolean serializeResponse) {
            long h = hash;
            for (int i = offset, end = offset + length; i < end; i++) {
                h ^= (data[i] & 0xff);
                h *= FNV_PRIME;
            }
            hash = h;
            count++;
            if (trackIds && length >= 8) {
                long id = readLong(data, offset);
                if (id >= 0 && id < Integer.MAX_VALUE) {
                    if (ids.get((int) id)) duplicates++;
                    else ids.set((int) id);
                }
            }
            return null;
        }

        @Override
        public synchronized void writeContentTo(DataOutput out) throws Exception {
            out.writeLong(count);
            out.writeLong(hash);
            out.writeLong(duplicates);
            byte[] b = trackIds ? ids.toByteArray() : new byte[0];
            out.writeInt(b.length);
            out.write(b);
        }

        @Override
        public synchronized void readContentFrom(DataInput in) throws Exception {
            count = in.readLong();
            hash = in.readLong();
            duplicates = in.readLong();
            byte[] b = new byte[in.readInt()];
            in.readFully(b);
            ids = BitSet.valueOf(b);
        }

        synchronized long count() { return count; }
        synchronized long hash() { return hash; }
        synchronized long duplicates() { return duplicates; }
        synchronized BitSet idsCopy() { return (BitSet) ids.clone(); }
    }

    static long readLong(byte[] b, int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) v = (v << 8) | (b[off + i] & 0xff);
        return v;
    }

    static void writeLong(byte[] b, int off, long v) {
        for (int i = 7; i >= 0; i--) { b[off + i] = (byte) v; v >>>= 8; }
    }

    // ------------------------------------------------------------------ members and clusters

    static final class Member {
        final String id;
        final JChannel ch;
        final RaftHandle handle;
        final HashStateMachine sm;
        final DISCARD discard;
        volatile long becameLeaderNanos;
        volatile boolean routable = true; // clients may send to it

        Member(String id, JChannel ch, RaftHandle handle, HashStateMachine sm, DISCARD discard) {
            this.id = id; this.ch = ch; this.handle = handle; this.sm = sm; this.discard = discard;
        }

        RAFT raft() { return handle.raft(); }
    }

    static final class Cluster {
        final String name;
        final boolean trackIds;
        final List<Member> members = new ArrayList<>();

        Cluster(String name, boolean trackIds) { this.name = name; this.trackIds = trackIds; }

        Member start(String id, String raftMembers) throws Exception {
            DISCARD discard = new DISCARD();
            FD_ALL3 fd = new FD_ALL3();
            fd.setTimeout(fdTimeout);
            fd.setInterval(Math.max(100, fdTimeout / 4));
            RAFT raft = new RAFT()
                    .raftId(id)
                    .logClass(InMemoryLog.class.getName())
                    .logPrefix(name + "-" + id) // InMemoryLog keeps logs in a static map keyed by name
                    .resendInterval(resendInterval)
                    .maxLogSize(maxLogSize);
            raft.setMembers(raftMembers);
            JChannel ch = new JChannel(
                    new SHARED_LOOPBACK(),
                    new SHARED_LOOPBACK_PING(),
                    discard,
                    fd,
                    new VERIFY_SUSPECT().setTimeout(500),
                    new NAKACK2(),
                    new UNICAST3(),
                    new STABLE(),
                    new NO_DUPES(),
                    new GMS().setJoinTimeout(1000).printLocalAddress(false),
                    new FRAG4(),
                    new ELECTION(),
                    raft,
                    new REDIRECT()).name(id);
            HashStateMachine sm = new HashStateMachine(trackIds);
            RaftHandle h = new RaftHandle(ch, sm).raftId(id);
            Member m = new Member(id, ch, h, sm, discard);
            h.addRoleListener(role -> { if (role == Role.Leader) m.becameLeaderNanos = System.nanoTime(); });
            ch.connect(name);
            members.add(m);
            return m;
        }

        /** Routable member that believes it is leader, highest term first. */
        Member leader() {
            Member best = null;
            for (Member m : members) {
                if (!m.routable || !m.handle.isLeader()) continue;
                if (best == null || m.handle.currentTerm() > best.handle.currentTerm()) best = m;
            }
            return best;
        }

        Member awaitLeader(long timeoutMs) throws InterruptedException {
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (System.currentTimeMillis() < deadline) {
                Member l = leader();
                if (l != null) {
                    boolean agreed = true;
                    for (Member m : members)
                        if (m.routable && (m.handle.leader() == null || !m.handle.leader().equals(l.ch.getAddress())))
                            agreed = false;
                    if (agreed) return l;
                }
                Thread.sleep(5);
            }
            return null;
        }

        /** Waits until all given members have applied everything the leader committed. */
        boolean awaitConverged(List<Member> ms, long timeoutMs) throws InterruptedException {
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (System.currentTimeMillis() < deadline) {
                Member l = leader();
                if (l != null) {
                    long ci = l.raft().commitIndex();
                    boolean ok = ci == l.raft().lastAppended();
                    long c0 = l.sm.count();
                    for (Member m : ms)
                        if (m.raft().commitIndex() != ci || m.sm.count() != c0) ok = false;
                    if (ok) return true;
                }
                Thread.sleep(20);
            }
            return false;
        }

        /**
         * Closes followers first and the leader last. Closing the leader first makes the JGroups coordinator start a
         * voting round; if that coordinator is closed while voting with a majority still in its last view,
         * ELECTION's non-daemon "voting-thread" of jgroups-raft 1.1.4 keeps running after JChannel.close()
         * (observed once: the JVM did not exit).
         */
        void close() {
            List<Member> order = new ArrayList<>(members);
            Member l = leader();
            if (l != null) { order.remove(l); order.add(l); }
            for (Member m : order) {
                try { m.ch.close(); } catch (Throwable ignored) { }
                try { if (m.raft().log() != null) m.raft().log().delete(); } catch (Throwable ignored) { }
            }
        }
    }

    // ------------------------------------------------------------------ load generator

    static final class Load {
        final int concurrency;
        final int payloadSize;
        final boolean trackAcks;
        final Supplier<Member> router;
        final Semaphore permits;
        final AtomicLong nextId;
        final byte[] template;
        final Histogram hist = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
        final LongAdder acked = new LongAdder();
        final LongAdder failed = new LongAdder();
        final LongAdder rejected = new LongAdder();
        final BitSet ackedIds = new BitSet();
        final Object ackLock = new Object();
        long lastAckNanos, maxGapNanos, maxGapEndNanos;
        volatile long crashNanos = Long.MAX_VALUE;
        volatile long firstAckAfterCrashNanos;
        volatile Member firstAckAfterCrashBy;
        volatile boolean running = true;
        Thread submitter;

        Load(int concurrency, int payloadSize, boolean trackAcks, Supplier<Member> router, AtomicLong ids) {
            this.concurrency = concurrency;
            this.payloadSize = Math.max(payloadSize, 8);
            this.trackAcks = trackAcks;
            this.router = router;
            this.permits = new Semaphore(concurrency);
            this.nextId = ids;
            this.template = new byte[this.payloadSize];
            new Random(42).nextBytes(template);
        }

        void start() {
            submitter = new Thread(this::loop, "probe-submitter");
            submitter.setDaemon(true);
            submitter.start();
        }

        private void loop() {
            while (running) {
                try {
                    if (!permits.tryAcquire(10, TimeUnit.MILLISECONDS)) continue;
                } catch (InterruptedException e) { return; }
                Member m = router.get();
                if (m == null) {
                    permits.release();
                    LockSupport.parkNanos(200_000);
                    continue;
                }
                long id = nextId.getAndIncrement();
                byte[] buf = template.clone();
                writeLong(buf, 0, id);
                long t0 = System.nanoTime();
                CompletableFuture<byte[]> f;
                try {
                    f = m.handle.setAsync(buf, 0, buf.length, OPTS);
                } catch (Throwable t) { // not leader (any more), no leader, stopped...
                    rejected.increment();
                    permits.release();
                    LockSupport.parkNanos(200_000);
                    continue;
                }
                f.orTimeout(REQUEST_TIMEOUT_MS, TimeUnit.MILLISECONDS).whenComplete((r, ex) -> {
                    long now = System.nanoTime();
                    if (ex == null) {
                        acked.increment();
                        synchronized (ackLock) {
                            hist.recordValue(Math.min((now - t0) / 1000, hist.getHighestTrackableValue()));
                            if (trackAcks) ackedIds.set((int) id);
                            if (lastAckNanos != 0 && now - lastAckNanos > maxGapNanos) {
                                maxGapNanos = now - lastAckNanos;
                                maxGapEndNanos = now;
                            }
                            lastAckNanos = Math.max(lastAckNanos, now);
                            if (t0 > crashNanos && firstAckAfterCrashNanos == 0) {
                                firstAckAfterCrashNanos = now;
                                firstAckAfterCrashBy = m;
                            }
                        }
                    } else {
                        failed.increment();
                    }
                    permits.release();
                });
            }
        }

        /** Stops submitting and waits for outstanding requests to complete or time out. */
        void stop() throws InterruptedException {
            running = false;
            submitter.join(5000);
            if (permits.tryAcquire(concurrency, REQUEST_TIMEOUT_MS * 3, TimeUnit.MILLISECONDS))
                permits.release(concurrency);
        }
    }

    // ------------------------------------------------------------------ phases

    static final class Result {
        double entriesPerSec, mbPerSec;
        long p50, p99, p999, max, acked, failed, rejected;
    }

    static Result runThroughput(Cluster c, Member leader, int conc, int size, int secs, String label, boolean record)
            throws Exception {
        for (Member m : c.members) m.raft().resetStats();
        Load load = new Load(conc, size, false, () -> leader, new AtomicLong());
        double up0 = uptime();
        long start = System.nanoTime();
        load.start();
        Thread.sleep(secs * 1000L);
        long ackedInWindow = load.acked.sum();
        double elapsed = (System.nanoTime() - start) / 1e9;
        load.stop();
        Result r = new Result();
        r.entriesPerSec = ackedInWindow / elapsed;
        r.mbPerSec = r.entriesPerSec * size / (1024.0 * 1024.0);
        synchronized (load.ackLock) {
            r.p50 = load.hist.getValueAtPercentile(50);
            r.p99 = load.hist.getValueAtPercentile(99);
            r.p999 = load.hist.getValueAtPercentile(99.9);
            r.max = load.hist.getMaxValue();
        }
        r.acked = load.acked.sum();
        r.failed = load.failed.sum();
        r.rejected = load.rejected.sum();
        if (record) {
            TABLE.add(new String[]{label, String.valueOf(conc), String.valueOf(size),
                    String.format("%.0f", r.entriesPerSec), String.format("%.2f", r.mbPerSec),
                    String.valueOf(r.p50), String.valueOf(r.p99), String.valueOf(r.p999), String.valueOf(r.max),
                    String.valueOf(r.failed + r.rejected)});
            System.out.printf("  %-28s conc=%-3d size=%-6d %9.0f entries/s %8.2f MB/s  p50=%dus p99=%dus p99.9=%dus max=%dus failed=%d"
                            + "  [leader %s: entries per AppendEntries %s, snapshots=%s, resends=%s; JVM uptime %.1f-%.1f s]%n",
                    label, conc, size, r.entriesPerSec, r.mbPerSec, r.p50, r.p99, r.p999, r.max,
                    r.failed + r.rejected, leader.id, stat(leader, "avg_append_entries_batch_size"),
                    stat(leader, "num_snapshots"), stat(leader, "num_resends"), up0, uptime());
        }
        return r;
    }

    static double uptime() {
        return java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() / 1000.0;
    }

    static Object stat(Member m, String key) {
        try {
            Map<String, Map<String, Object>> s = m.ch.dumpStats("RAFT");
            Map<String, Object> raft = s.get("RAFT");
            return raft == null ? "?" : raft.get(key);
        } catch (Throwable t) {
            return "?";
        }
    }

    static String state(Member m) {
        return String.format("%s(count=%d, hash=%016x, commit=%d)", m.id, m.sm.count(), m.sm.hash(),
                m.raft().commitIndex());
    }

    static boolean sameState(List<Member> ms) {
        long c = ms.get(0).sm.count(), h = ms.get(0).sm.hash();
        for (Member m : ms) if (m.sm.count() != c || m.sm.hash() != h) return false;
        return true;
    }

    static void throughputCluster() throws Exception {
        System.out.println("== throughput cluster (A,B,C) ==");
        Cluster c = new Cluster("probe-tput", false);
        try {
            for (String id : new String[]{"A", "B", "C"}) c.start(id, "A,B,C");
            long t0 = System.nanoTime();
            Member leader = c.awaitLeader(15000);
            if (leader == null) throw new IllegalStateException("no leader elected within 15 s");
            System.out.printf("  leader=%s term=%d (agreed %d ms after C connected)%n", leader.id,
                    leader.handle.currentTerm(), (System.nanoTime() - t0) / 1_000_000);

            runThroughput(c, leader, 4, 1024, 2, "warm-up", false);

            int best = 1;
            double bestRate = -1;
            for (int conc : new int[]{1, 4, 16}) {
                Result r = runThroughput(c, leader, conc, 1024, phaseSecs, "1KB sweep", true);
                if (r.entriesPerSec > bestRate) { bestRate = r.entriesPerSec; best = conc; }
            }
            runThroughput(c, leader, best, 100, phaseSecs, "100B @best", true);
            runThroughput(c, leader, best, 10 * 1024, phaseSecs, "10KB @best", true);

            long saved = maxLogSize;
            for (Member m : c.members) m.raft().maxLogSize(1_000_000);
            runThroughput(c, leader, best, 1024, Math.max(1, phaseSecs / 2), "1KB @best max_log_size=1MB", true);
            for (Member m : c.members) m.raft().maxLogSize(saved);
            bestConcurrency = best;

            // consistency check
            boolean conv = c.awaitConverged(c.members, 15000);
            boolean same = sameState(c.members);
            String msg = String.format("3-member consistency: converged=%s identical=%s  %s", conv, same,
                    String.join(" ", c.members.stream().map(RaftProbe::state).toList()));
            System.out.println("  " + msg);
            NOTES.add(msg);

            // dynamic membership: add D
            long a0 = System.nanoTime();
            try {
                leader.handle.addServer("D").get(10, TimeUnit.SECONDS);
                long addMs = (System.nanoTime() - a0) / 1_000_000;
                long s0 = System.nanoTime();
                Member d = c.start("D", "A,B,C,D");
                boolean dconv = c.awaitConverged(c.members, 30000);
                long catchMs = (System.nanoTime() - s0) / 1_000_000;
                boolean dsame = sameState(c.members);
                String dmsg = String.format("add 4th member D: addServer committed in %d ms; D connected+caught up "
                                + "(converged=%s) in %d ms; 4-way identical=%s; D snapshots received=%s; members now %s; %s",
                        addMs, dconv, catchMs, dsame, stat(d, "num_snapshot_received"), leader.raft().members(),
                        state(d));
                System.out.println("  " + dmsg);
                NOTES.add(dmsg);
                // one short append burst with 4 members
                Result r4 = runThroughput(c, leader, best, 1024, Math.max(1, phaseSecs / 2), "1KB @best, 4 members", true);
                boolean conv4 = c.awaitConverged(c.members, 15000);
                String m4 = String.format("after 4-member burst: converged=%s identical=%s (%.0f entries/s)",
                        conv4, sameState(c.members), r4.entriesPerSec);
                System.out.println("  " + m4);
                NOTES.add(m4);
            } catch (Exception e) {
                String dmsg = "add 4th member D FAILED: " + e;
                System.out.println("  " + dmsg);
                NOTES.add(dmsg);
            }
        } finally {
            c.close();
        }
    }

    static int bestConcurrency = 4;

    /** mode "close": leader's channel closed mid-stream; mode "isolate": all leader traffic dropped (silent crash). */
    static void crashCluster(String mode) throws Exception {
        System.out.println("== crash scenario: " + mode + " ==");
        Cluster c = new Cluster("probe-crash-" + mode, true);
        try {
            for (String id : new String[]{"A", "B", "C"}) c.start(id, "A,B,C");
            Member leader = c.awaitLeader(15000);
            if (leader == null) throw new IllegalStateException("no leader elected within 15 s");
            final Member oldLeader = leader;
            String coord = c.members.get(0).ch.getView().getCoord().toString();
            Load load = new Load(bestConcurrency, 1024, true, c::leader, new AtomicLong());
            long start = System.nanoTime();
            load.start();
            long pre = crashSecs * 1000L * 3 / 10;
            Thread.sleep(pre);
            long ackedBefore = load.acked.sum();

            // --- crash ---
            long crash = System.nanoTime();
            load.crashNanos = crash;
            double crashUptime = uptime();
            oldLeader.routable = false; // clients lose their connection to it
            if (mode.equals("close")) {
                oldLeader.ch.close();
            } else {
                oldLeader.discard.discardAll(true);
            }
            long crashCallMs = (System.nanoTime() - crash) / 1_000_000;
            List<Member> survivors = new ArrayList<>(c.members);
            survivors.remove(oldLeader);

            Thread.sleep(crashSecs * 1000L - pre);
            load.stop();
            double elapsed = (System.nanoTime() - start) / 1e9;

            Member newLeader = c.awaitLeader(10000);
            long electedNanos = 0;
            for (Member m : survivors) if (m.becameLeaderNanos > crash) electedNanos = m.becameLeaderNanos;
            if (mode.equals("isolate")) { // take the isolated member down for good
                oldLeader.ch.close();
            }
            boolean conv = c.awaitConverged(survivors, 15000);
            boolean same = sameState(survivors);

            BitSet acked;
            synchronized (load.ackLock) { acked = (BitSet) load.ackedIds.clone(); }
            StringBuilder perSurvivor = new StringBuilder();
            long totalMissing = 0;
            for (Member m : survivors) {
                BitSet present = m.sm.idsCopy();
                BitSet missing = (BitSet) acked.clone();
                missing.andNot(present);
                BitSet extra = (BitSet) present.clone();
                extra.andNot(acked);
                totalMissing += missing.cardinality();
                perSurvivor.append(String.format(" %s: applied=%d, acked-but-missing=%d, applied-but-not-acked=%d, dup=%d;",
                        m.id, m.sm.count(), missing.cardinality(), extra.cardinality(), m.sm.duplicates()));
            }
            long maxGap, maxGapEnd;
            synchronized (load.ackLock) { maxGap = load.maxGapNanos; maxGapEnd = load.maxGapEndNanos; }
            String electMs = electedNanos == 0 ? "n/a" : String.valueOf((electedNanos - crash) / 1_000_000);
            String firstAck = load.firstAckAfterCrashNanos == 0 ? "none"
                    : String.valueOf((load.firstAckAfterCrashNanos - crash) / 1_000_000);
            String line = String.format(
                    "crash(%s) at JVM uptime %.1f s: old leader=%s (view coord=%s), new leader=%s; crash call took %d ms; new leader "
                            + "elected after %s ms; first ack of a post-crash request after %s ms; max gap between acks %d ms "
                            + "(ending %d ms after crash); acked=%d (before crash %d, %.0f entries/s overall), failed/timed-out=%d, "
                            + "rejected submits=%d; survivors converged=%s identical=%s (%s);%s acked-but-missing total=%d",
                    mode, crashUptime, oldLeader.id, coord, newLeader == null ? "none" : newLeader.id, crashCallMs, electMs, firstAck,
                    maxGap / 1_000_000, (maxGapEnd - crash) / 1_000_000, load.acked.sum(), ackedBefore,
                    load.acked.sum() / elapsed, load.failed.sum(), load.rejected.sum(), conv, same,
                    String.join(" ", survivors.stream().map(RaftProbe::state).toList()), perSurvivor, totalMissing);
            System.out.println("  " + line);
            NOTES.add(line);
            CRASH.put(mode, new String[]{mode, oldLeader.id, newLeader == null ? "none" : newLeader.id, electMs,
                    firstAck, String.valueOf(maxGap / 1_000_000), String.valueOf(load.acked.sum()),
                    String.valueOf(load.failed.sum()), String.valueOf(totalMissing), String.valueOf(same && conv)});
        } finally {
            c.close();
        }
    }

    static final Map<String, String[]> CRASH = new LinkedHashMap<>();

    // ------------------------------------------------------------------ main

    public static void main(String[] args) throws Exception {
        for (String a : args) {
            String[] kv = a.split("=", 2);
            if (kv.length != 2) continue;
            switch (kv[0]) {
                case "secs" -> phaseSecs = Integer.parseInt(kv[1]);
                case "crashSecs" -> crashSecs = Integer.parseInt(kv[1]);
                case "maxLogSize" -> maxLogSize = Long.parseLong(kv[1]);
                case "resendInterval" -> resendInterval = Long.parseLong(kv[1]);
                case "fdTimeout" -> fdTimeout = Long.parseLong(kv[1]);
                default -> System.out.println("ignoring unknown argument " + a);
            }
        }
        Logger.getLogger("org.jgroups").setLevel(Level.SEVERE);
        System.out.printf("jgroups-raft probe: secs=%d crashSecs=%d max_log_size=%d resend_interval=%d fd_timeout=%d "
                        + "request_timeout=%dms cores=%d jvm=%s%n", phaseSecs, crashSecs, maxLogSize, resendInterval,
                fdTimeout, REQUEST_TIMEOUT_MS, Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));
        long t0 = System.nanoTime();
        try {
            throughputCluster();
        } catch (Exception e) {
            System.out.println("throughput cluster FAILED: " + e);
            e.printStackTrace(System.out);
        }
        for (String mode : new String[]{"close", "isolate"}) {
            try {
                crashCluster(mode);
            } catch (Exception e) {
                System.out.println("crash scenario " + mode + " FAILED: " + e);
                e.printStackTrace(System.out);
            }
        }

        System.out.println();
        System.out.println("| phase | outstanding | payload B | entries/s | MB/s | p50 us | p99 us | p99.9 us | max us | failed |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|");
        for (String[] row : TABLE) System.out.println("| " + String.join(" | ", row) + " |");
        System.out.println();
        System.out.println("| crash mode | old leader | new leader | elected after ms | first post-crash ack ms | max ack gap ms "
                + "| acked | failed/timed out | acked but missing | survivors identical |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|");
        for (String[] row : CRASH.values()) System.out.println("| " + String.join(" | ", row) + " |");
        System.out.println();
        for (String n : NOTES) System.out.println("- " + n);
        System.out.printf("total run time %.1f s%n", (System.nanoTime() - t0) / 1e9);
        Thread.sleep(1000);
        List<String> lingering = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && !t.isDaemon() && t != Thread.currentThread()
                        && t.getThreadGroup() == Thread.currentThread().getThreadGroup())
                .map(Thread::getName).toList();
        if (!lingering.isEmpty()) {
            // exec:java would wait for these forever
            System.out.println("non-daemon threads still alive after all channels were closed: " + lingering
                    + " -> System.exit(0)");
            System.exit(0);
        }
    }

    private RaftProbe() { }

}
