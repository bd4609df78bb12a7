package io.polycert.bench.faults;

import io.polycert.bench.faults.FaultStore.Register;
import io.polycert.bench.workload.Workloads;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.codec.ValueCodec;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Elle-style list-append ({@code list-append}): keys are registers {@code la-KEY} of a {@link FaultStore} (root
 * boxes under full replication, keys of a partitioned map under partial replication) holding immutable
 * {@code long[]} lists (null is the empty list). Each operation is one transaction attempt that appends a
 * globally unique value ({@link #value}) to 1 to {@code appends} keys and reads the whole list of 1 to
 * {@code reads} other keys; in {@code dup} percent of them it appends twice to one key, so that reads of an
 * intermediate state (G1b) would show. With {@code history=DIR} every operation is recorded ({@link History}).
 *
 * <p>Keys rotate so lists stay short: there are {@code keys} slots, and slot s uses keys s, s + keys, s + 2 keys,
 * ...; a client moves a slot on to its next key once it sees the current one hold {@code maxLength} values. A
 * slot's keys therefore fill in order, and scanning keys from 0 until {@code keys} consecutive empty ones finds
 * every non-empty key.
 *
 * <p>Spec: {@code list-append:keys=10,maxLength=64,reads=3,appends=3,dup=10[,history=DIR]}.
 */
public final class ListAppendWorkload implements FaultWorkload {
    /** Root name prefix of the lists. */
    public static final String PREFIX = "la-";

    private final int keys;
    private final int maxLength;
    private final int reads;
    private final int appends;
    private final int dupPercent;
    private final Path historyDir;

    private volatile int member = -1;
    private final ClientGate gate = new ClientGate();
    private final AtomicInteger threadsStarted = new AtomicInteger();
    private final LongAdder invoked = new LongAdder();
    private final LongAdder committed = new LongAdder();
    private final LongAdder aborted = new LongAdder();
    private final LongAdder unknown = new LongAdder();

    /**
     * @param keys active key slots (at least reads + appends)
     * @param maxLength values after which a key is retired
     * @param reads most keys an operation reads (at least 1)
     * @param appends most keys an operation appends to (at least 1)
     * @param dupPercent operations that append twice to one of their keys
     * @param historyDir where to record the history, or null not to
     */
    public ListAppendWorkload(int keys, int maxLength, int reads, int appends, int dupPercent, Path historyDir) {
        if (reads < 1 || appends < 1 || appends > 3) {
            throw new IllegalArgumentException("reads must be at least 1 and appends between 1 and 3, were " + reads
                    + " and " + appends);
        }
        if (keys < reads + appends) {
            throw new IllegalArgumentException("keys must be at least reads + appends = " + (reads + appends)
                    + ", was " + keys);
        }
        if (maxLength < 1 || dupPercent < 0 || dupPercent > 100) {
            throw new IllegalArgumentException("maxLength must be positive and dup a percentage, were " + maxLength
                    + " and " + dupPercent);
        }
        this.keys = keys;
        this.maxLength = maxLength;
        this.reads = reads;
        this.appends = appends;
        this.dupPercent = dupPercent;
        this.historyDir = historyDir;
    }

    /** Builds one from spec parameters (removing those it takes). */
    static ListAppendWorkload fromParameters(Map<String, String> p) {
        String dir = p.remove("history");
        return new ListAppendWorkload(Workloads.intParam(p, "keys", 10), Workloads.intParam(p,
                "maxLength", 64), Workloads.intParam(p, "reads", 3), Workloads.intParam(p, "appends", 3),
                Workloads.intParam(p, "dup", 10), dir == null || dir.isEmpty() ? null : Path.of(dir));
    }

    @Override
    public String name() {
        return "list-append";
    }

    @Override
    public Map<String, String> parameters() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("keys", Integer.toString(keys));
        p.put("maxLength", Integer.toString(maxLength));
        p.put("reads", Integer.toString(reads));
        p.put("appends", Integer.toString(appends));
        p.put("dup", Integer.toString(dupPercent));
        if (historyDir != null) {
            p.put("history", historyDir.toString());
        }
        return p;
    }

    /** Where the history is recorded, or null. */
    public Path historyDir() {
        return historyDir;
    }

    @Override
    public ValueCodec codec() {
        return ValueCodec.standard(); // long[] is built in
    }

    @Override
    public void attach(int member) {
        if (member < 0 || member > 127) {
            throw new IllegalArgumentException("member index must be 0..127, was " + member);
        }
        this.member = member;
    }

    @Override
    public void populate(FaultStore store) {
        store.untilCommitted(false, 100, () -> {
            for (int k = 0; k < keys; k++) {
                Register<long[]> list = store.register(PREFIX + k);
                if (list.get() == null) {
                    list.put(new long[0]);
                }
            }
            return null;
        });
    }

    /** Always: a list never written reads as empty. */
    @Override
    public boolean populated(FaultStore store) {
        return true;
    }

    @Override
    public List<String> registers(long maxKey) {
        List<String> names = new ArrayList<>();
        for (long k = 0; k <= Math.max(maxKey, keys - 1); k++) {
            names.add(PREFIX + k);
        }
        return names;
    }

    // ---- values --------------------------------------------------------------------------------------------

    /**
     * A globally unique value: member (7 bits), process id (22 bits), client thread (6 bits), the thread's
     * operation counter (26 bits) and the append's index in its operation (2 bits). An operation's id is its
     * value with index 0.
     */
    public static long value(int member, long pid, int thread, long counter, int index) {
        if (member < 0 || member > 127 || thread < 0 || thread > 63 || counter < 0 || counter >= (1L << 26)
                || index < 0 || index > 3) {
            throw new IllegalArgumentException("cannot encode member " + member + " thread " + thread + " counter "
                    + counter + " index " + index);
        }
        return ((long) member << 56) | ((pid & 0x3F_FFFFL) << 34) | ((long) thread << 28) | (counter << 2) | index;
    }

    // ---- clients -------------------------------------------------------------------------------------------

    @Override
    public Client client(FaultStore store, Slot slot) {
        int m = member >= 0 ? member : slot.member();
        int thread = slot.thread();
        threadsStarted.incrementAndGet();
        return new ListClient(store, m, ProcessHandle.current().pid(), thread, new SplittableRandom(slot.seed()));
    }

    private final class ListClient implements Client {
        private final FaultStore store;
        private final int memberIndex;
        private final long pid;
        private final int thread;
        private final SplittableRandom random;
        private final long[] generation = new long[keys];
        private final Map<Long, Register<long[]>> lists = new HashMap<>();
        private final HistoryWriter writer;
        private final int[] slots;
        private long counter;

        ListClient(FaultStore store, int memberIndex, long pid, int thread, SplittableRandom random) {
            this.store = store;
            this.memberIndex = memberIndex;
            this.pid = pid;
            this.thread = thread;
            this.random = random;
            this.slots = new int[keys];
            for (int i = 0; i < keys; i++) {
                slots[i] = i;
            }
            value(memberIndex, pid, thread, 0, 0); // fails fast on an index out of range
            this.writer = historyDir == null ? null : new HistoryWriter(historyDir, memberIndex, pid, thread);
        }

        private Register<long[]> list(long key) {
            return lists.computeIfAbsent(key, k -> store.register(PREFIX + k));
        }

        private long keyOf(int slot) {
            return slot + generation[slot] * keys;
        }

        private void observe(int slot, long key, long[] list) {
            if (list != null && list.length >= maxLength && keyOf(slot) == key) {
                generation[slot]++;
            }
        }

        @Override
        public String next() {
            if (gate.quiesced()) {
                sleep(20);
                return "idle";
            }
            int nAppends = 1 + random.nextInt(appends);
            int nReads = 1 + random.nextInt(reads);
            for (int i = 0; i < nAppends + nReads; i++) { // a partial shuffle picks distinct slots
                int j = i + random.nextInt(keys - i);
                int t = slots[i];
                slots[i] = slots[j];
                slots[j] = t;
            }
            long id = value(memberIndex, pid, thread, counter++, 0);
            List<History.Append> planned = new ArrayList<>(nAppends + 1);
            int[] appendSlots = new int[nAppends + 1];
            for (int i = 0; i < nAppends; i++) {
                appendSlots[i] = slots[i];
                planned.add(new History.Append(keyOf(slots[i]), id | i));
            }
            if (random.nextInt(100) < dupPercent) { // a second append to one of its keys
                int i = random.nextInt(nAppends);
                appendSlots[nAppends] = slots[i];
                planned.add(new History.Append(keyOf(slots[i]), id | nAppends));
            }
            int[] readSlots = Arrays.copyOfRange(slots, nAppends, nAppends + nReads);
            gate.enter();
            invoked.increment();
            try {
                if (writer != null) {
                    writer.invoke(id, planned);
                }
                return run(id, planned, appendSlots, readSlots);
            } finally {
                gate.exit();
            }
        }

        private String run(long id, List<History.Append> planned, int[] appendSlots, int[] readSlots) {
            Map<Long, long[]> seen = new LinkedHashMap<>();
            boolean readsFirst = random.nextBoolean();
            try {
                store.attempt(() -> {
                    if (readsFirst) {
                        readAll(readSlots, seen);
                    }
                    for (int i = 0; i < planned.size(); i++) {
                        History.Append a = planned.get(i);
                        Register<long[]> list = list(a.key());
                        long[] old = list.get();
                        observe(appendSlots[i], a.key(), old);
                        long[] next = old == null ? new long[1] : Arrays.copyOf(old, old.length + 1);
                        next[next.length - 1] = a.value();
                        list.put(next);
                    }
                    if (!readsFirst) {
                        readAll(readSlots, seen);
                    }
                    return null;
                });
            } catch (TransactionAbortedException e) {
                aborted.increment();
                if (writer != null) {
                    writer.fail(id, e.abortCause().name());
                }
                if (!e.abortCause().isRetryable()) {
                    sleep(10); // cut off, or keys lost: retrying at once would only spin, as no real client does
                }
                throw e;
            } catch (RuntimeException e) {
                return unknown(id, e); // e.g. OutcomeUnknownException: it may have committed
            }
            committed.increment();
            if (writer != null) {
                writer.ok(id, seen);
            }
            return "append";
        }

        private void readAll(int[] readSlots, Map<Long, long[]> seen) {
            for (int s : readSlots) {
                long key = keyOf(s);
                long[] l = list(key).get();
                observe(s, key, l);
                seen.put(key, l == null ? new long[0] : l);
            }
        }

        private String unknown(long id, RuntimeException e) {
            unknown.increment();
            if (writer != null) {
                writer.info(id, e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            if (store.isClosed()) {
                throw e; // the runner stops quietly
            }
            sleep(10);
            return "error";
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- checking and commands ------------------------------------------------------------------------------

    /**
     * Every non-empty list at {@code store} up to at least {@code maxKey}, in one read-only transaction (retried
     * if partial replication's validation aborts it): keys are scanned until {@code keys} consecutive empty ones
     * past {@code maxKey}.
     */
    public Map<Long, long[]> readAll(FaultStore store, long maxKey) {
        return store.untilCommitted(true, 100, () -> {
            Map<Long, long[]> lists = new TreeMap<>();
            int emptyRun = 0;
            for (long k = 0; k <= maxKey || emptyRun < keys; k++) {
                long[] l = store.<long[]>register(PREFIX + k).get();
                if (l == null || l.length == 0) {
                    emptyRun++;
                } else {
                    emptyRun = 0;
                    lists.put(k, l);
                }
            }
            return lists;
        });
    }

    /** A digest of lists: equal digests mean equal lists. */
    public static long digest(Map<Long, long[]> lists) {
        long d = 17;
        for (Map.Entry<Long, long[]> e : new TreeMap<>(lists).entrySet()) {
            if (e.getValue().length == 0) {
                continue;
            }
            d = d * 31 + e.getKey();
            for (long v : e.getValue()) {
                d = d * 1_000_003 + v;
            }
            d = d * 31 + e.getValue().length;
        }
        return d;
    }

    /** Every list must hold distinct values; returns the digest of all lists. */
    @Override
    public long check(FaultStore store) {
        Map<Long, long[]> lists = readAll(store, -1);
        for (Map.Entry<Long, long[]> e : lists.entrySet()) {
            Set<Long> seen = new HashSet<>();
            for (long v : e.getValue()) {
                if (!seen.add(v)) {
                    throw new IllegalStateException("list " + e.getKey() + " at " + store.self() + " holds " + v
                            + " twice: an append was applied twice");
                }
            }
        }
        return digest(lists);
    }

    /**
     * Commands: {@code quiesce TIMEOUT_MS} (clients stop starting operations; waits for those in flight; result:
     * how many are still in flight), {@code resume}, {@code stats} (result: {@code INVOKED COMMITTED ABORTED
     * UNKNOWN INFLIGHT THREADS}), {@code final-read FILE MAXKEY} (writes the final read, result:
     * {@code DIGEST KEYS}).
     */
    @Override
    public String command(FaultStore store, String[] args) throws InterruptedException {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: workload quiesce|resume|stats|final-read ...");
        }
        switch (args[0]) {
            case "quiesce": {
                return Integer.toString(gate.quiesce(args.length > 1 ? Long.parseLong(args[1]) : 10_000));
            }
            case "resume":
                gate.resume();
                return "";
            case "stats":
                return invoked.sum() + " " + committed.sum() + " " + aborted.sum() + " " + unknown.sum() + " "
                        + gate.inFlight() + " " + threadsStarted.get();
            case "final-read": {
                if (args.length != 3) {
                    throw new IllegalArgumentException("usage: workload final-read FILE MAXKEY");
                }
                Path file = Path.of(args[1]);
                Map<Long, long[]> lists = readAll(store, Long.parseLong(args[2]));
                long digest = digest(lists);
                writeFinal(file, member < 0 ? 0 : member, ProcessHandle.current().pid(), lists, digest);
                return digest + " " + lists.size();
            }
            default:
                throw new IllegalArgumentException("unknown list-append command '" + args[0]
                        + "' (known: quiesce, resume, stats, final-read)");
        }
    }

    /** Writes a final read file ({@link History} format). */
    static void writeFinal(Path file, int member, long pid, Map<Long, long[]> lists, long digest) {
        StringBuilder sb = new StringBuilder();
        sb.append("F 1 ").append(member).append(' ').append(pid).append(' ').append(System.nanoTime()).append('\n');
        for (Map.Entry<Long, long[]> e : lists.entrySet()) {
            sb.append(e.getKey()).append('=');
            History.appendList(sb, e.getValue());
            sb.append('\n');
        }
        sb.append("END ").append(digest).append('\n');
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            try (FileOutputStream out = new FileOutputStream(file.toFile())) {
                out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the final read " + file, e);
        }
    }
}
