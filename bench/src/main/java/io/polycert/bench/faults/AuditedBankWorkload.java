package io.polycert.bench.faults;

import io.polycert.bench.faults.FaultStore.Register;
import io.polycert.bench.workload.BankWorkload;
import io.polycert.bench.workload.Workloads;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

/**
 * The {@link BankWorkload} (transfers of 1 between random accounts) with concurrent read-only audits: in
 * {@code audits} percent of its operations a client sums every account in one read-only transaction, and a total
 * other than {@code accounts * 1000} is an anomaly. Each wrong total is written at once, with one unbuffered
 * write, to {@code audit-m<MEMBER>-p<PID>.log} in the history directory (line {@code BAD NANOS TOTAL EXPECTED}),
 * so it survives the member being killed.
 *
 * <p>Over full replication the accounts are the {@link BankWorkload}'s box array; over partial replication each
 * account is a register {@code bank-I} of the store (so accounts spread over their owners). Either way each
 * transfer is one attempt, never retried: it reads {@code readSet} consecutive accounts from a random start, then
 * moves 1 between two random accounts. Every attempt and its outcome go to a {@link TransferLedger}, against
 * which the harness checks every final balance: a transfer acknowledged and lost, or reported aborted and applied,
 * leaves the total intact but not the balances.
 *
 * <p>Spec: {@code bank-audit:accounts=100,readSet=1,audits=20[,history=DIR][,lies=N]}. {@code lies} exists for the
 * harness's own test: the member records its first N aborted transfers as committed, which the ledger check must
 * then report.
 */
public final class AuditedBankWorkload implements FaultWorkload {
    /** Register name prefix of the accounts under partial replication. */
    public static final String ACCOUNT_PREFIX = "bank-";

    private final BankWorkload bank;
    private final int accounts;
    private final int readSet;
    private final int auditPercent;
    private final Path historyDir;
    private volatile int member = -1;
    private final ClientGate gate = new ClientGate();
    private final LongAdder audits = new LongAdder();
    private final LongAdder badAudits = new LongAdder();
    private final LongAdder transfers = new LongAdder();
    private final LongAdder aborted = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final int lies;
    /** Aborted transfers still to be recorded as committed ({@code lies}), and how many were. */
    private final java.util.concurrent.atomic.AtomicInteger liesLeft;
    private final LongAdder liesTold = new LongAdder();
    private final Object fileLock = new Object();
    private FileOutputStream badFile;

    public AuditedBankWorkload(int accounts, int readSet, int auditPercent, Path historyDir) {
        this(accounts, readSet, auditPercent, historyDir, 0);
    }

    AuditedBankWorkload(int accounts, int readSet, int auditPercent, Path historyDir, int lies) {
        if (auditPercent < 0 || auditPercent > 100) {
            throw new IllegalArgumentException("audits must be a percentage, was " + auditPercent);
        }
        if (lies < 0) {
            throw new IllegalArgumentException("lies must be 0 or more, was " + lies);
        }
        this.lies = lies;
        this.liesLeft = new java.util.concurrent.atomic.AtomicInteger(lies);
        this.bank = new BankWorkload(accounts, readSet, 100, BankWorkload.Conflicts.RANDOM);
        this.accounts = accounts;
        this.readSet = readSet;
        this.auditPercent = auditPercent;
        this.historyDir = historyDir;
    }

    static AuditedBankWorkload fromParameters(Map<String, String> p) {
        String dir = p.remove("history");
        return new AuditedBankWorkload(Workloads.intParam(p, "accounts", 100),
                Workloads.intParam(p, "readSet", 1), Workloads.intParam(p, "audits", 20),
                dir == null || dir.isEmpty() ? null : Path.of(dir), Workloads.intParam(p, "lies", 0));
    }

    @Override
    public String name() {
        return "bank-audit";
    }

    @Override
    public Map<String, String> parameters() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("accounts", Integer.toString(accounts));
        p.put("readSet", Integer.toString(readSet));
        p.put("audits", Integer.toString(auditPercent));
        if (historyDir != null) {
            p.put("history", historyDir.toString());
        }
        if (lies > 0) {
            p.put("lies", Integer.toString(lies));
        }
        return p;
    }

    @Override
    public ValueCodec codec() {
        return bank.codec();
    }

    @Override
    public void attach(int member) {
        this.member = member;
    }

    @Override
    public void populate(FaultStore store) {
        if (store instanceof ReplicaFaultStore) {
            bank.populate(((ReplicaFaultStore) store).replica());
            return;
        }
        List<Register<Long>> all = registers(store);
        store.untilCommitted(false, 100, () -> {
            all.forEach(a -> a.put(BankWorkload.INITIAL));
            return null;
        });
    }

    /** Under partial replication: every account can be read here (its owners applied the populating commit). */
    @Override
    public boolean populated(FaultStore store) {
        if (store instanceof ReplicaFaultStore) {
            return true; // the harness waits for the populating version instead
        }
        List<Register<Long>> all = registers(store);
        return store.untilCommitted(true, 100, () -> all.stream().allMatch(a -> a.get() != null));
    }

    @Override
    public List<String> registers(long maxKey) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < accounts; i++) {
            names.add(ACCOUNT_PREFIX + i);
        }
        return names;
    }

    private List<Register<Long>> registers(FaultStore store) {
        List<Register<Long>> all = new ArrayList<>();
        for (String name : registers(-1)) {
            all.add(store.register(name));
        }
        return all;
    }

    /** The sum of every account, null (not yet applied) read as 0. */
    private static long sum(List<Register<Long>> all) {
        long sum = 0;
        for (Register<Long> a : all) {
            Long v = a.get();
            sum += v == null ? 0 : v;
        }
        return sum;
    }

    /**
     * The accounts as registers of {@code store}: over full replication the {@link BankWorkload}'s box array, over
     * partial replication the registers {@code bank-I}.
     */
    private List<Register<Long>> accounts(FaultStore store) {
        if (!(store instanceof ReplicaFaultStore full)) {
            return registers(store);
        }
        List<Register<Long>> all = new ArrayList<>();
        for (VBox<Long> box : bank.accountsAt(full.replica())) {
            all.add(ReplicaFaultStore.register(box));
        }
        return all;
    }

    /** One attempt: reads {@code readSet} consecutive accounts from {@code start}, then moves 1 from one to another. */
    private void transfer(FaultStore store, List<Register<Long>> all, int start, int from, int to) {
        store.attempt(() -> {
            for (int i = 0; i < readSet; i++) { // the read-set, as in BankWorkload
                all.get((start + i) % accounts).get();
            }
            Register<Long> a = all.get(from);
            a.put(a.get() - 1);
            Register<Long> b = all.get(to);
            b.put(b.get() + 1);
            return null;
        });
    }

    @Override
    public Client client(FaultStore store, Slot slot) {
        SplittableRandom random = new SplittableRandom(slot.seed() ^ 0x5DEECE66DL);
        SplittableRandom draws = new SplittableRandom(slot.seed());
        List<Register<Long>> all = accounts(store);
        TransferLedger ledger = historyDir == null ? null : new TransferLedger(historyDir,
                member >= 0 ? member : slot.member(), ProcessHandle.current().pid(), slot.thread());
        long expected = BankWorkload.INITIAL * accounts;
        return () -> {
            if (gate.quiesced()) {
                sleep(20);
                return "idle";
            }
            gate.enter();
            try {
                if (random.nextInt(100) < auditPercent) {
                    long total = store.readOnly(() -> sum(all));
                    audits.increment();
                    if (total != expected) {
                        badAudit(total, expected);
                    }
                    return "audit";
                }
                recordedTransfer(store, all, ledger, draws.nextInt(accounts), draws.nextInt(accounts),
                        draws.nextInt(accounts));
                return "transfer";
            } catch (TransactionAbortedException e) {
                aborted.increment();
                if (!e.abortCause().isRetryable()) {
                    sleep(10); // cut off, or keys lost: retrying at once would only spin, as no real client does
                }
                throw e;
            } catch (RuntimeException e) {
                if (store.isClosed()) {
                    throw e;
                }
                errors.increment();
                sleep(10);
                return "error";
            } finally {
                gate.exit();
            }
        };
    }

    /** One transfer attempt, written to the ledger before it starts and once it has ended. */
    private void recordedTransfer(FaultStore store, List<Register<Long>> all, TransferLedger ledger, int start,
            int from, int to) {
        long seq = ledger == null ? 0 : ledger.invoke(from, to);
        try {
            transfer(store, all, start, from, to);
        } catch (TransactionAbortedException e) {
            if (ledger != null && liesLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                ledger.committed(seq); // the harness's own test: a lie the ledger check must catch
                liesTold.increment();
            } else if (ledger != null) {
                ledger.aborted(seq, e.abortCause().name());
            }
            throw e;
        } catch (RuntimeException e) { // it may have committed: only a read of the balances can tell
            if (ledger != null) {
                ledger.unknown(seq);
            }
            throw e;
        }
        if (ledger != null) {
            ledger.committed(seq);
        }
        transfers.increment();
    }

    /** Counts a wrong total and records it in the history directory (package-private for tests). */
    void badAudit(long total, long expected) {
        badAudits.increment();
        System.err.println("bank-audit: an audit saw a total of " + total + ", not " + expected);
        if (historyDir == null) {
            return;
        }
        synchronized (fileLock) {
            try {
                if (badFile == null) {
                    badFile = new FileOutputStream(historyDir.resolve("audit-m" + Math.max(0, member) + "-p"
                            + ProcessHandle.current().pid() + ".log").toFile(), true);
                }
                badFile.write(("BAD " + System.nanoTime() + " " + total + " " + expected + "\n")
                        .getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                System.err.println("bank-audit: cannot record a bad audit: " + e);
            }
        }
    }

    /** Wrong totals recorded in {@code dir} by every member process. */
    public static List<String> badAudits(Path dir) {
        return badAudits(dir, "audit-");
    }

    /**
     * How many of the wrong totals that member process {@code pid} counted ({@code reported}, from {@code stats})
     * are missing from its file in {@code dir}: its write failed, and the failure went to its stderr only.
     */
    public static long unrecordedBadAudits(Path dir, int member, long pid, long reported) {
        return Math.max(0, reported - badAudits(dir, "audit-m" + member + "-p" + pid + ".log").size());
    }

    private static List<String> badAudits(Path dir, String prefix) {
        List<String> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path f : s.filter(p -> p.getFileName().toString().startsWith(prefix)).sorted().toList()) {
                for (String line : History.completeLines(f)) {
                    if (line.startsWith("BAD ")) {
                        out.add(f.getFileName() + ": " + line);
                    }
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot list " + dir, e);
        }
        return out;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Full replication: the {@link BankWorkload}'s check. Partial: the total of every account, read in one
     * transaction through this member, must be the initial one; the digest is of every balance.
     */
    @Override
    public long check(FaultStore store) {
        if (store instanceof ReplicaFaultStore) {
            return bank.check(((ReplicaFaultStore) store).replica());
        }
        long[] balances = balances(store);
        long total = java.util.Arrays.stream(balances).sum();
        if (total != BankWorkload.INITIAL * accounts) {
            throw new IllegalStateException("the accounts at " + store.self() + " hold " + total + ", not "
                    + BankWorkload.INITIAL * accounts);
        }
        return java.util.Arrays.hashCode(balances);
    }

    /** Every account's balance, read in one read-only transaction through this member. */
    private long[] balances(FaultStore store) {
        List<Register<Long>> all = accounts(store);
        return store.untilCommitted(true, 100, () -> {
            long[] b = new long[accounts];
            for (int i = 0; i < accounts; i++) {
                Long v = all.get(i).get();
                if (v == null) {
                    throw new IllegalStateException("account " + i + " is missing at " + store.self());
                }
                b[i] = v;
            }
            return b;
        });
    }

    /**
     * Commands: {@code quiesce TIMEOUT_MS}, {@code resume}, {@code stats} (result: {@code AUDITS BAD TRANSFERS
     * ABORTED ERRORS INFLIGHT LIES}, the last the aborted transfers recorded as committed, see {@code lies}),
     * {@code balances} (every account's balance, space-separated).
     */
    @Override
    public String command(FaultStore store, String[] args) throws InterruptedException {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: workload quiesce|resume|stats|balances");
        }
        switch (args[0]) {
            case "quiesce": {
                return Integer.toString(gate.quiesce(args.length > 1 ? Long.parseLong(args[1]) : 10_000));
            }
            case "resume":
                gate.resume();
                return "";
            case "balances": {
                StringBuilder sb = new StringBuilder();
                for (long b : balances(store)) {
                    sb.append(sb.length() == 0 ? "" : " ").append(b);
                }
                return sb.toString();
            }
            case "stats":
                return audits.sum() + " " + badAudits.sum() + " " + transfers.sum() + " " + aborted.sum() + " "
                        + errors.sum() + " " + gate.inFlight() + " " + liesTold.sum();
            default:
                throw new IllegalArgumentException("unknown bank-audit command '" + args[0]
                        + "' (known: quiesce, resume, stats, balances)");
        }
    }
}
