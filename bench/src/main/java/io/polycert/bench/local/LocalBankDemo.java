package io.polycert.bench.local;

import io.polycert.core.Stm;
import io.polycert.core.VBox;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * Bank transfers on one embedded STM, with a progress line every second and the invariant checked at the end
 * (the replicated version of this demo comes with the certification engine).
 */
public final class LocalBankDemo {
    private final int threads;
    private final int accounts;
    private final double seconds;
    private final PrintStream out;

    public LocalBankDemo(int threads, int accounts, double seconds, PrintStream out) {
        this.threads = threads;
        this.accounts = accounts;
        this.seconds = seconds;
        this.out = out;
    }

    public void run() throws InterruptedException {
        Stm stm = Stm.create();
        List<VBox<Long>> balance = new ArrayList<>();
        for (int i = 0; i < accounts; i++) {
            balance.add(stm.newBox(100L));
        }
        LongAdder transfers = new LongAdder();
        LongAdder audits = new LongAdder();
        long start = System.nanoTime();
        long deadline = start + (long) (seconds * 1e9);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long seed = t;
            Thread worker = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                while (System.nanoTime() < deadline) {
                    if (random.nextInt(10) == 0) {
                        long total = stm.readOnly(() -> balance.stream().mapToLong(VBox::get).sum());
                        if (total != 100L * accounts) {
                            throw new IllegalStateException("audit saw total " + total);
                        }
                        audits.increment();
                    } else {
                        VBox<Long> from = balance.get(random.nextInt(accounts));
                        VBox<Long> to = balance.get(random.nextInt(accounts));
                        long amount = random.nextInt(10);
                        stm.atomic(() -> {
                            from.put(from.get() - amount);
                            to.put(to.get() + amount);
                        });
                        transfers.increment();
                    }
                }
            }, "demo-worker-" + t);
            workers.add(worker);
            worker.start();
        }
        out.printf(Locale.ROOT, "PolyCert STM demo: %d threads, %d accounts, %.0f s (embedded, not replicated)%n",
                threads, accounts, seconds);
        while (workers.stream().anyMatch(Thread::isAlive)) {
            workers.get(0).join(1000);
            double elapsed = (System.nanoTime() - start) / 1e9;
            out.printf(Locale.ROOT, "  %5.1f s  %,12d transfers  %,10d audits  %,12.0f tx/s%n", elapsed,
                    transfers.sum(), audits.sum(), (transfers.sum() + audits.sum()) / elapsed);
        }
        for (Thread w : workers) {
            w.join();
        }
        long total = stm.readOnly(() -> balance.stream().mapToLong(VBox::get).sum());
        out.printf(Locale.ROOT, "total balance %d (expected %d): %s%n", total, 100L * accounts,
                total == 100L * accounts ? "invariant holds" : "INVARIANT BROKEN");
        if (total != 100L * accounts) {
            throw new IllegalStateException("bank invariant broken");
        }
    }
}
