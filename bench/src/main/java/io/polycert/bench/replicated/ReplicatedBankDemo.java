package io.polycert.bench.replicated;

import io.polycert.core.Stm;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.VBox;
import io.polycert.bench.gcs.EmulatedNetwork;
import io.polycert.gcs.GroupStack;
import io.polycert.kvstore.Replica;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The README's main job: three replicas in this JVM (JGroups over shared loopback) run bank transfers with
 * read-sets of mixed sizes, certified by NVC, BFC or VC as the threshold oracle picks, while read-only audits check
 * the total at every replica. A progress line every second; at the end every replica must hold the same balances
 * and the right total.
 */
public final class ReplicatedBankDemo {
    private final int replicas;
    private final int threadsPerReplica;
    private final int accounts;
    private final double seconds;
    private final PrintStream out;

    public ReplicatedBankDemo(int replicas, int threadsPerReplica, int accounts, double seconds, PrintStream out) {
        this.replicas = replicas;
        this.threadsPerReplica = threadsPerReplica;
        this.accounts = accounts;
        this.seconds = seconds;
        this.out = out;
    }

    public void run() throws InterruptedException {
        out.printf(Locale.ROOT, "PolyCert replicated bank: %d replicas in this JVM (JGroups shared loopback), %d"
                + " thread(s) each, %,d accounts, %.0f s%n", replicas, threadsPerReplica, accounts, seconds);
        try (BankCluster bank = new BankCluster(replicas, accounts, GroupStack.embedded(), EmulatedNetwork.NONE)) {
            bank.use(() -> ProtocolOracle.thresholds(50, 500));
            LongAdder commits = new LongAdder();
            LongAdder aborts = new LongAdder();
            LongAdder audits = new LongAdder();
            AtomicReference<String> lastGaveUp = new AtomicReference<>();
            long deadline = System.nanoTime() + (long) (seconds * 1e9);
            List<Thread> workers = new ArrayList<>();
            int[] readSets = {1, 10, 200, 5_000};
            for (int t = 0; t < replicas * threadsPerReplica; t++) {
                int replica = t % replicas;
                long seed = t;
                Thread w = new Thread(() -> {
                    Replica r = bank.replicas.get(replica);
                    Stm stm = r.stm();
                    VBox<Long>[] a = bank.accountsAt.get(replica);
                    SplittableRandom random = new SplittableRandom(seed);
                    while (System.nanoTime() < deadline) {
                        if (random.nextInt(20) == 0) {
                            long total = stm.readOnly(() -> {
                                long s = 0;
                                for (VBox<Long> b : a) {
                                    s += b.get();
                                }
                                return s;
                            });
                            if (total != BankCluster.INITIAL * a.length) {
                                throw new IllegalStateException(r + " audit saw total " + total);
                            }
                            audits.increment();
                            continue;
                        }
                        int readSet = Math.min(a.length, readSets[random.nextInt(readSets.length)]);
                        int start = random.nextInt(a.length);
                        int from = random.nextInt(a.length);
                        int to = random.nextInt(a.length);
                        try {
                            stm.atomic(() -> {
                                long s = 0;
                                for (int i = 0; i < readSet; i++) {
                                    s += a[(start + i) % a.length].get();
                                }
                                if (s < 0) {
                                    throw new IllegalStateException("negative balances");
                                }
                                a[from].put(a[from].get() - 1);
                                a[to].put(a[to].get() + 1);
                            });
                            commits.increment();
                        } catch (TransactionAbortedException e) {
                            aborts.increment(); // retries exhausted: the whole-bank reads conflict most
                            lastGaveUp.set(e.getMessage());
                        }
                    }
                }, "demo-" + t);
                workers.add(w);
                w.start();
            }
            long start = System.nanoTime();
            while (workers.stream().anyMatch(Thread::isAlive)) {
                workers.get(0).join(1000);
                double elapsed = (System.nanoTime() - start) / 1e9;
                out.printf(Locale.ROOT, "  %5.1f s  %,10d commits (%,8.0f/s)  %,6d gave up  %,6d audits  mix %s%n",
                        elapsed, commits.sum(), commits.sum() / elapsed, aborts.sum(), audits.sum(), mix(bank));
            }
            for (Thread w : workers) {
                w.join();
            }
            if (lastGaveUp.get() != null) {
                out.println("  last transaction given up: " + lastGaveUp.get());
            }
            long version = bank.replicas.get(0).stm().latestVersion();
            for (Replica r : bank.replicas) {
                while (r.stm().latestVersion() < version) {
                    Thread.onSpinWait();
                }
            }
            for (int i = 0; i < bank.replicas.size(); i++) {
                long total = bank.total(i);
                out.printf(Locale.ROOT, "  %s at version %,d: total %,d (%s)%n", bank.replicas.get(i),
                        bank.replicas.get(i).stm().latestVersion(), total,
                        total == BankCluster.INITIAL * accounts ? "invariant holds" : "INVARIANT BROKEN");
                if (total != BankCluster.INITIAL * accounts) {
                    throw new IllegalStateException("bank invariant broken at replica " + i);
                }
            }
        }
    }

    private static String mix(BankCluster bank) {
        StringBuilder sb = new StringBuilder();
        for (Protocol p : Protocol.values()) {
            long n = 0;
            for (Replica r : bank.replicas) {
                n += r.statistics().of(p).committed();
            }
            sb.append(sb.length() == 0 ? "" : " ").append(p).append('=').append(n);
        }
        return sb.toString();
    }
}
