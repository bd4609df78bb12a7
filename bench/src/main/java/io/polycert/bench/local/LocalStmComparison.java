package io.polycert.bench.local;

import io.polycert.bench.report.Medians;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.function.IntFunction;

/**
 * The local (non-replicated) STM bank benchmark: PolyCert's STM side by side with ScalaSTM and Multiverse in one
 * run, so the ratios are measured under the same machine load. Trials of the STMs are interleaved round by round
 * and each STM's median round is reported.
 */
public final class LocalStmComparison {

    /** A workload mix: the share of read-only sums, and how many accounts a sum reads. */
    public record Mix(String name, int readOnlyPercent, int sumSize) {
    }

    /**
     * Settings of one comparison run. With {@code disjoint}, each thread transfers among its own share of the
     * accounts only (sums still read any), so the threads share no account: what is left between them is each
     * STM's global state, such as a version clock. With {@code clockedPeer}, two more contenders run Multiverse,
     * one with a shared counter read at each transaction's begin and incremented at each commit ({@link
     * ClockedBank}), one reading the system clock at both instead ({@link TimedBank}): what a global version clock,
     * or a hardware time base, alone costs the fastest peer, side by side.
     */
    public record Options(int threads, int accounts, double warmupSeconds, double trialSeconds, int rounds,
            boolean disjoint, boolean clockedPeer) {
        public Options {
            if (disjoint && accounts / threads < 2) {
                throw new IllegalArgumentException("disjoint transfers need at least 2 accounts per thread: "
                        + accounts + " accounts, " + threads + " threads");
            }
        }

        public static Options defaults() {
            return new Options(2, 1000, 1, 2, 5, false, false);
        }
    }

    /** One STM's result in one mix. */
    public record Row(String mix, String stm, double medianTxPerSecond, double[] rounds) {
    }

    private static final long INITIAL_BALANCE = 1_000;
    /** What the calibrating contenders add, by the suffix of their names. */
    private static final java.util.Map<String, String> CALIBRATIONS = java.util.Map.of(
            ClockedBank.SUFFIX, "the shared clock", TimedBank.SUFFIX, "reading the system clock");

    private final Options options;
    private final PrintStream out;

    public LocalStmComparison(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public static List<Mix> mixes(int accounts) {
        return List.of(
                new Mix("(a) transfers only", 0, 0),
                new Mix("(b) 90% read-only sums of 10 + 10% transfers", 90, 10),
                new Mix("(c) 90% read-only sums of all " + accounts + " + 10% transfers", 90, accounts));
    }

    public List<Row> run() throws InterruptedException {
        List<IntFunction<Bank>> banks = new ArrayList<>(List.of(
                n -> new PolyCertBank(n, INITIAL_BALANCE),
                n -> new ScalaStmBank(n, INITIAL_BALANCE),
                n -> new MultiverseBank(n, INITIAL_BALANCE)));
        if (options.clockedPeer()) {
            banks.add(n -> new ClockedBank(new MultiverseBank(n, INITIAL_BALANCE)));
            banks.add(n -> new TimedBank(new MultiverseBank(n, INITIAL_BALANCE)));
        }
        List<Row> rows = new ArrayList<>();
        out.printf(Locale.ROOT, "Local STM bank: %d threads, %d accounts%s, %d rounds of %.1f s (warm-up %.1f s)%n",
                options.threads(), options.accounts(), options.disjoint() ? " (transfers within each thread's share)"
                        : "", options.rounds(), options.trialSeconds(), options.warmupSeconds());
        for (Mix mix : mixes(options.accounts())) {
            List<Bank> instances = new ArrayList<>();
            for (IntFunction<Bank> factory : banks) {
                instances.add(factory.apply(options.accounts()));
            }
            double[][] perRound = new double[instances.size()][options.rounds()];
            for (Bank bank : instances) {
                trial(bank, mix, options.warmupSeconds());
            }
            for (int round = 0; round < options.rounds(); round++) {
                for (int k = 0; k < instances.size(); k++) {
                    int i = (k + round) % instances.size(); // rotate who goes first
                    perRound[i][round] = trial(instances.get(i), mix, options.trialSeconds());
                }
            }
            for (int i = 0; i < instances.size(); i++) {
                Bank bank = instances.get(i);
                long total = bank.sum(0, bank.accounts());
                if (total != INITIAL_BALANCE * bank.accounts()) {
                    throw new IllegalStateException(bank.name() + " broke the bank invariant: total " + total);
                }
                rows.add(new Row(mix.name(), bank.name(), Medians.of(perRound[i]), perRound[i]));
            }
        }
        print(rows, banks.size());
        return rows;
    }

    private double trial(Bank bank, Mix mix, double seconds) throws InterruptedException {
        int threads = options.threads();
        long[] committed = new long[threads];
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        long[] window = new long[2];
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread worker = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(id * 7919L + System.nanoTime());
                int n = bank.accounts();
                int share = options.disjoint() ? n / threads : n;
                int first = options.disjoint() ? id * share : 0;
                long count = 0;
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                long deadline = window[1];
                while (true) {
                    for (int k = 0; k < 64; k++) {
                        if (random.nextInt(100) < mix.readOnlyPercent()) {
                            bank.sum(random.nextInt(n), mix.sumSize());
                        } else {
                            int from = random.nextInt(share);
                            int to = random.nextInt(share - 1);
                            bank.transfer(first + from, first + (to >= from ? to + 1 : to), 1 + random.nextInt(10));
                        }
                        count++;
                    }
                    if (System.nanoTime() >= deadline) {
                        break;
                    }
                }
                committed[id] = count;
            }, bank.name() + "-worker-" + t);
            workers.add(worker);
            worker.start();
        }
        window[0] = System.nanoTime();
        window[1] = window[0] + (long) (seconds * 1e9);
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        double elapsed = (System.nanoTime() - window[0]) / 1e9;
        return Arrays.stream(committed).sum() / elapsed;
    }

    /** One contender's rate over another's, round by round (the rounds are paired: same index, same round). */
    static double[] ratios(double[] poly, double[] peer) {
        double[] r = new double[poly.length];
        for (int k = 0; k < r.length; k++) {
            r[k] = poly[k] / peer[k];
        }
        return r;
    }

    private static String list(double[] values) {
        StringBuilder sb = new StringBuilder();
        for (double v : values) {
            sb.append(String.format(Locale.ROOT, " %.2f", v));
        }
        return sb.toString();
    }

    /**
     * Prints the table, the ratios within rounds and the rounds; {@code rows} holds, per mix, one row per contender
     * in the same order, PolyCert first. A contender named after another plus the suffix of {@link ClockedBank} or
     * {@link TimedBank} also gets the line saying what that costs the other.
     */
    void print(List<Row> rows, int contenders) {
        List<String> names = rows.subList(0, contenders).stream().map(Row::stm).toList();
        int width = 14;
        for (String name : names) {
            width = Math.max(width, name.length() + " tx/s".length());
        }
        String text = " %" + width + "s";
        String rate = " %" + width + ".0f";
        String ratio = " %" + width + ".2f";
        out.println();
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-52s", "mix"));
        names.forEach(name -> header.append(String.format(Locale.ROOT, text, name + " tx/s")));
        names.stream().skip(1).forEach(name -> header.append(String.format(Locale.ROOT, text, "/" + name)));
        out.println(header);
        for (int i = 0; i < rows.size(); i += contenders) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-52s", rows.get(i).mix()));
            double poly = rows.get(i).medianTxPerSecond();
            for (int k = 0; k < contenders; k++) {
                line.append(String.format(Locale.ROOT, rate, rows.get(i + k).medianTxPerSecond()));
            }
            for (int k = 1; k < contenders; k++) {
                line.append(String.format(Locale.ROOT, ratio, poly / rows.get(i + k).medianTxPerSecond()));
            }
            out.println(line);
        }
        out.println("(median of the rounds; ratios are PolyCert / peer; the bank invariant held for every STM)");
        out.println();
        // The machine's noise comes in spells of seconds (two threads run about three times faster in some than
        // in others), so a ratio of two medians may compare rounds of different spells; a round's contenders
        // run back to back, so the ratio within each round, and their median, is the steadier figure.
        StringBuilder ratioHeader = new StringBuilder(String.format(Locale.ROOT, "%-52s", "ratios within each round"));
        names.stream().skip(1).forEach(name -> ratioHeader.append(String.format(Locale.ROOT, text, "/" + name)));
        out.println(ratioHeader + "   (median; every round, peer by peer, separated by |)");
        for (int i = 0; i < rows.size(); i += contenders) {
            double[] poly = rows.get(i).rounds();
            StringBuilder medians = new StringBuilder(String.format(Locale.ROOT, "%-52s", rows.get(i).mix()));
            StringBuilder everyRound = new StringBuilder();
            for (int k = 1; k < contenders; k++) {
                double[] ratios = ratios(poly, rows.get(i + k).rounds());
                medians.append(String.format(Locale.ROOT, ratio, Medians.of(ratios)));
                everyRound.append(k == 1 ? "" : " |").append(list(ratios));
            }
            out.println(medians + "  " + everyRound);
        }
        for (int clocked = 0; clocked < contenders; clocked++) {
            String name = names.get(clocked);
            int plus = name.lastIndexOf('+');
            String what = plus < 0 ? null : CALIBRATIONS.get(name.substring(plus));
            int plain = what == null ? -1 : names.indexOf(name.substring(0, plus));
            if (plain < 0) {
                continue;
            }
            out.println();
            out.printf(Locale.ROOT, "what %s costs %s (%s / %s, within each round):%n", what, names.get(plain), name,
                    names.get(plain));
            for (int i = 0; i < rows.size(); i += contenders) {
                double[] cost = ratios(rows.get(i + clocked).rounds(), rows.get(i + plain).rounds());
                out.printf(Locale.ROOT, "%-52s" + ratio + "  %s%n", rows.get(i).mix(), Medians.of(cost), list(cost));
            }
        }
        out.println();
        out.println("rounds (tx/s), to judge the noise:");
        for (Row row : rows) {
            StringBuilder sb = new StringBuilder();
            for (double v : row.rounds()) {
                sb.append(String.format(Locale.ROOT, " %,.0f", v));
            }
            out.printf(Locale.ROOT, "  %-16s %-52s%s%n", row.stm(), row.mix(), sb);
        }
    }
}
