package io.polycert.bench.faults;

import io.polycert.bench.workload.BankWorkload;
import io.polycert.bench.workload.Workloads;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import io.polycert.kvstore.Replica;
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
 * <p>Spec: {@code bank-audit:accounts=100,readSet=1,audits=20[,history=DIR]}.
 */
public final class AuditedBankWorkload implements FaultWorkload {
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
    private final Object fileLock = new Object();
    private FileOutputStream badFile;

    public AuditedBankWorkload(int accounts, int readSet, int auditPercent, Path historyDir) {
        if (auditPercent < 0 || auditPercent > 100) {
            throw new IllegalArgumentException("audits must be a percentage, was " + auditPercent);
        }
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
                dir == null || dir.isEmpty() ? null : Path.of(dir));
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
    public void populate(Replica replica) {
        bank.populate(replica);
    }

    @Override
    public Client client(Replica replica, long seed) {
        return client(replica, new Slot(0, 1, 0, 1, seed));
    }

    @Override
    public Client client(Replica replica, Slot slot) {
        Client transfer = bank.client(replica, slot);
        VBox<Long>[] all = bank.accountsAt(replica);
        long expected = BankWorkload.INITIAL * accounts;
        SplittableRandom random = new SplittableRandom(slot.seed() ^ 0x5DEECE66DL);
        return () -> {
            if (gate.quiesced()) {
                sleep(20);
                return "idle";
            }
            gate.enter();
            try {
                if (random.nextInt(100) < auditPercent) {
                    long total = replica.stm().readOnly(() -> {
                        long sum = 0;
                        for (VBox<Long> b : all) {
                            sum += b.get();
                        }
                        return sum;
                    });
                    audits.increment();
                    if (total != expected) {
                        badAudit(total, expected);
                    }
                    return "audit";
                }
                String kind = transfer.next();
                transfers.increment();
                return kind;
            } catch (TransactionAbortedException e) {
                aborted.increment();
                throw e;
            } catch (RuntimeException e) {
                if (replica.stm().isClosed()) {
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

    private void badAudit(long total, long expected) {
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
        List<String> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path f : s.filter(p -> p.getFileName().toString().startsWith("audit-")).sorted().toList()) {
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

    @Override
    public long check(Replica replica) {
        return bank.check(replica);
    }

    /**
     * Commands: {@code quiesce TIMEOUT_MS}, {@code resume}, {@code stats} (result: {@code AUDITS BAD TRANSFERS
     * ABORTED ERRORS INFLIGHT}).
     */
    @Override
    public String command(Replica replica, String[] args) throws InterruptedException {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: workload quiesce|resume|stats");
        }
        switch (args[0]) {
            case "quiesce": {
                return Integer.toString(gate.quiesce(args.length > 1 ? Long.parseLong(args[1]) : 10_000));
            }
            case "resume":
                gate.resume();
                return "";
            case "stats":
                return audits.sum() + " " + badAudits.sum() + " " + transfers.sum() + " " + aborted.sum() + " "
                        + errors.sum() + " " + gate.inFlight();
            default:
                throw new IllegalArgumentException("unknown bank-audit command '" + args[0]
                        + "' (known: quiesce, resume, stats)");
        }
    }
}
