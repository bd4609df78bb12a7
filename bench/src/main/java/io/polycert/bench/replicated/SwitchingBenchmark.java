package io.polycert.bench.replicated;

import io.polycert.bench.gcs.EmulatedNetwork;
import io.polycert.bench.workload.Contenders;
import io.polycert.bench.workload.ForwardingOracle;
import io.polycert.bench.workload.TurnClock;
import io.polycert.bench.workload.TurnClocks;
import io.polycert.core.TransactionAbortedException;
import io.polycert.gcs.GroupStack;
import io.polycert.kvstore.Replica;
import io.polycert.oracle.CostModelOracle;
import io.polycert.oracle.ModelTree;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import io.polycert.oracle.TrainModel;
import io.polycert.oracle.TransactionProfile;
import io.polycert.oracle.UcbOracle;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The oracle benchmark (PolyCert's Fig. 5): the Bank on in-JVM replicas while the read-set size switches phase by
 * phase; the static protocols and the adaptive oracles run each phase in turn, so every ratio compares figures
 * measured minutes apart at most. Each adaptive oracle keeps its state from phase to phase (it sees the switches);
 * its throughput counts its learning. Before measuring, the static protocols run each read-set briefly while every
 * replica records training samples, and the decision-tree oracle's model is trained on them. If the oracle declines
 * that model (it cross-validated too poorly), {@code decision-tree-any-model} runs the same oracle with the model.
 */
public final class SwitchingBenchmark {

    /**
     * Settings of a run. With {@code twins}, every static protocol runs a second time as {@code twin-<protocol>}, in
     * slices of its own and left out of the best static protocol: the twin of each phase's best static protocol is
     * an oracle that always picks the best, measured as the adaptive ones are, so its figure is what the
     * benchmark's own noise allows a perfect oracle. Every adaptive oracle reads time from a clock that runs during
     * its own turns only ({@link TurnClock}); with {@code wallClock}, DistUCB also runs on the wall clock, as every
     * oracle did before 2026-12-06, as {@code dist-ucb-wall}. With {@code epochCommits} above 0, DistUCB also runs
     * with epochs of at least that many commits, as {@code dist-ucb-<epochCommits>}. With {@code shadows}, DistUCB
     * and the decision tree also run as {@code shadow-dist-ucb} and {@code shadow-decision-tree}: each oracle doing
     * all its work (choosing, tagging, learning from every outcome) while every transaction commits by NVC, so that
     * against {@code static-nvc} they show what the oracle's own work costs.
     */
    public record Options(int replicas, int threadsPerReplica, int accounts, int[] readSets, double phaseSeconds,
            int slices, double trainingSeconds, Duration gossipInterval, Path output, EmulatedNetwork network,
            boolean twins, boolean wallClock, int epochCommits, boolean shadows) {
        public Options {
            if (slices < 1) {
                throw new IllegalArgumentException("slices: at least 1 turn per contender and phase, was " + slices);
            }
            if (epochCommits < 0 || epochCommits == 1) {
                throw new IllegalArgumentException("epoch commits: 0 (no extra contender) or at least 2, was "
                        + epochCommits);
            }
        }

        public static Options defaults() {
            return new Options(3, 1, 100_000, new int[] {1, 10, 1_000, 100_000}, 12, 3, 3, Duration.ofSeconds(1),
                    Path.of("target", "oracle-switching"), EmulatedNetwork.NONE, false, false, 0, false);
        }
    }

    /**
     * One contender in one phase: {@code perTurn} holds its turns' commits per second in round order, and
     * {@code interval} is half the width of the 95% confidence interval of {@code normalized} (see {@link #interval}).
     */
    public record PhaseResult(String contender, int readSet, double committedPerSecond, double normalized,
            double interval, double[] perTurn, double[] perSecond, double[][] mixPerSecond,
            double convergedAfterSeconds) {
    }

    private record Contender(String name, boolean adaptive, List<ProtocolOracle> perReplica) {
    }

    private final Options options;
    private final PrintStream out;
    /** Each contender's clock, running during its turns only; the adaptive oracles read theirs. */
    private final TurnClocks clocks = new TurnClocks();

    public SwitchingBenchmark(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public List<PhaseResult> run() throws Exception {
        int maxRead = java.util.Arrays.stream(options.readSets()).max().orElse(0);
        int accounts = Math.max(options.accounts(), maxRead);
        Files.createDirectories(options.output());
        out.printf(Locale.ROOT, "Oracle benchmark: Bank on %d in-JVM replicas, %d thread(s) each, %,d accounts;"
                + " read-set switching %s every %.0f s, in %d turns per contender; network %s%n", options.replicas(),
                options.threadsPerReplica(), accounts, java.util.Arrays.toString(options.readSets()),
                options.phaseSeconds(), options.slices(), options.network());
        List<PhaseResult> results = new ArrayList<>();
        try (BankCluster bank = new BankCluster(options.replicas(), accounts, GroupStack.embedded(),
                options.network())) {
            for (Protocol p : Protocol.values()) { // JIT warm-up of every protocol's path
                bank.use(() -> ProtocolOracle.always(p));
                runPhase(bank, options.readSets()[0], 1);
            }
            ModelTree model = train(bank);
            List<Contender> contenders = contenders(model);
            for (int readSet : options.readSets()) {
                out.printf(Locale.ROOT, "%n-- phase: read-set %,d --%n", readSet);
                // Contenders take turns in slices, in a new order each round (shuffled with a fixed seed), so slow
                // drifts of a shared machine spread over all of them, and so does whatever a slice leaves to the
                // next: rotating a fixed order kept every contender behind the same one. An adaptive oracle's
                // timeline is its slices end to end.
                List<List<Run>> slices = new ArrayList<>();
                contenders.forEach(c -> slices.add(new ArrayList<>()));
                double slice = options.phaseSeconds() / options.slices();
                java.util.Random order = new java.util.Random(readSet);
                List<Integer> turns = new ArrayList<>();
                for (int i = 0; i < contenders.size(); i++) {
                    turns.add(i);
                }
                for (int round = 0; round < options.slices(); round++) {
                    java.util.Collections.shuffle(turns, order);
                    for (int i : turns) {
                        Contender c = contenders.get(i);
                        bank.use(c.perReplica());
                        clocks.use(c.name());
                        try {
                            slices.get(i).add(runPhase(bank, readSet, slice));
                        } finally {
                            clocks.stop();
                        }
                    }
                }
                List<PhaseResult> phase = new ArrayList<>();
                for (int i = 0; i < contenders.size(); i++) {
                    Contender c = contenders.get(i);
                    Run run = Run.concat(slices.get(i));
                    phase.add(new PhaseResult(c.name(), readSet, run.committedPerSecond(), Double.NaN, Double.NaN,
                            run.perTurn(), run.perSecond(), run.mix(), Double.NaN));
                    out.printf(Locale.ROOT, "  %-14s %10.0f commits/s   mix NVC/BFC/VC %s%n", c.name(),
                            run.committedPerSecond(), mixText(run.mix()));
                    if (c.perReplica().get(0) instanceof UcbOracle ucb) {
                        out.println("      r0 " + ucb.describe(readSet));
                    }
                    // The decision tree: every replica's forecasts, as each decides on its own.
                    for (int r = 0; r < c.perReplica().size(); r++) {
                        if (c.perReplica().get(r) instanceof CostModelOracle cost) {
                            out.println("      r" + r + " " + cost.describe(new TransactionProfile(readSet, 2, 16)));
                        }
                    }
                }
                results.addAll(normalize(phase, contenders));
            }
            for (int i = 0; i < bank.replicas.size(); i++) {
                if (bank.total(i) != BankCluster.INITIAL * accounts) {
                    throw new IllegalStateException("replica " + i + " broke the bank invariant");
                }
            }
            out.println("(bank invariant checked at every replica)");
            if (!bank.links.isEmpty()) {
                out.println(io.polycert.bench.gcs.EmulatedLink.summary(bank.links));
            }
        }
        report(results);
        return results;
    }

    // ---------------------------------------------------------------------------------------------------------

    private ModelTree train(BankCluster bank) throws IOException, InterruptedException {
        if (options.trainingSeconds() <= 0) {
            return null;
        }
        Path dir = options.output();
        List<TrainingRunOracle> collectors = new ArrayList<>();
        for (int i = 0; i < bank.replicas.size(); i++) {
            Path file = dir.resolve("samples-r" + i + ".csv");
            Files.deleteIfExists(file);
            collectors.add(new TrainingRunOracle(file));
        }
        bank.use(collectors);
        out.printf(Locale.ROOT, "collecting training samples: every protocol, every read-set, %.0f s each%n",
                options.trainingSeconds());
        for (int readSet : options.readSets()) {
            for (Protocol p : Protocol.values()) {
                collectors.forEach(c -> c.protocol(p));
                runPhase(bank, readSet, options.trainingSeconds());
            }
        }
        long samples = 0;
        long pauses = 0;
        for (TrainingRunOracle c : collectors) {
            long[] counts = c.counts();
            samples += counts[0];
            pauses += counts[1];
            c.close();
        }
        Path merged = dir.resolve("samples.csv");
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < collectors.size(); i++) {
            List<String> part = Files.readAllLines(dir.resolve("samples-r" + i + ".csv"), StandardCharsets.UTF_8);
            lines.addAll(lines.isEmpty() ? part : part.subList(Math.min(1, part.size()), part.size()));
        }
        Files.write(merged, lines, StandardCharsets.UTF_8);
        out.printf(Locale.ROOT, "%,d samples (collection paused %d times by replay lag); training the model tree:%n",
                samples, pauses);
        Path modelFile = dir.resolve("model.json");
        // Leaves of at least 50 samples: broadcast latencies on a shared machine are mostly noise, and small leaves
        // would fit it. (Forcing the message size into the model, --keep msgSize, made it worse: in these samples
        // size stands for the protocol, hence for the load, and the tree learned that small messages are fast.)
        int status = TrainModel.run(new String[] {"--data", merged.toString(), "--out", modelFile.toString(),
                "--min-leaf", "50"}, out, out);
        if (status != 0) {
            out.println("training failed: the decision-tree oracle fits its broadcast latency on-line instead");
            return null;
        }
        return ModelTree.load(modelFile);
    }

    private List<Contender> contenders(ModelTree model) {
        List<Contender> list = new ArrayList<>();
        for (Protocol p : Protocol.values()) {
            list.add(new Contender("static-" + p.name().toLowerCase(Locale.ROOT), false,
                    replicate(() -> ProtocolOracle.always(p))));
        }
        list.add(new Contender("ucb1-tuned", true, replicate(() -> UcbOracle.builder().clock(clocks.of("ucb1-tuned"))
                .build())));
        // DistUCB as configured by default (epochs), and the paper's (statistics exchanged, each replica on its own)
        for (String name : List.of("dist-ucb", "dist-ucb-tuned", "dist-ucb-gossip")) {
            list.add(new Contender(name, true, replicate(() -> Contenders.oracle(name, options.gossipInterval(),
                    null, clocks.of(name)))));
        }
        if (options.epochCommits() > 0) { // DistUCB with shorter (or longer) epochs where commits are slow
            String name = "dist-ucb-" + options.epochCommits();
            list.add(new Contender(name, true, replicate(() -> UcbOracle.builder().clock(clocks.of(name))
                    .distributed(true).gossipInterval(options.gossipInterval()).epochCommits(options.epochCommits())
                    .build())));
        }
        if (options.wallClock()) {
            list.add(new Contender("dist-ucb-wall", true, replicate(() -> Contenders.oracle("dist-ucb",
                    options.gossipInterval(), null))));
        }
        // The cost model counts its observations, not time: no clock to stop.
        Supplier<ProtocolOracle> costModel = () -> {
            CostModelOracle.Builder b = CostModelOracle.builder();
            return (model == null ? b : b.model(model)).build();
        };
        List<ProtocolOracle> decisionTree = replicate(costModel);
        list.add(new Contender("decision-tree", true, decisionTree));
        if (model != null && !((CostModelOracle) decisionTree.get(0)).usesModel()) {
            // The model the decision tree declined, used anyway: what declining it gains or loses, side by side.
            list.add(new Contender("decision-tree-any-model", true, replicate(() -> CostModelOracle.builder()
                    .model(model).minModelCorrelation(-1).build())));
        }
        if (options.shadows()) {
            String name = "shadow-dist-ucb";
            list.add(new Contender(name, true, replicate(() -> new NvcShadow(Contenders.oracle("dist-ucb",
                    options.gossipInterval(), null, clocks.of(name))))));
            list.add(new Contender("shadow-decision-tree", true, replicate(() -> new NvcShadow(costModel.get()))));
        }
        if (options.twins()) {
            for (Protocol p : Protocol.values()) {
                list.add(new Contender(TWIN + p.name().toLowerCase(Locale.ROOT), false,
                        replicate(() -> ProtocolOracle.always(p))));
            }
        }
        return list;
    }

    /** An oracle that does all its work, and whose every choice is overruled by NVC (the benchmark's shadows). */
    private static final class NvcShadow extends ForwardingOracle {
        private final ProtocolOracle oracle;

        NvcShadow(ProtocolOracle oracle) {
            this.oracle = oracle;
        }

        @Override
        protected ProtocolOracle delegate() {
            return oracle;
        }

        @Override
        public Protocol choose(TransactionProfile profile) {
            oracle.choose(profile);
            return Protocol.NVC;
        }
    }

    private List<ProtocolOracle> replicate(Supplier<ProtocolOracle> factory) {
        List<ProtocolOracle> list = new ArrayList<>();
        for (int i = 0; i < options.replicas(); i++) {
            list.add(factory.get());
        }
        return list;
    }

    // ---------------------------------------------------------------------------------------------------------

    private record Run(double committedPerSecond, double[] perTurn, double[] perSecond, double[][] mix) {
        static Run concat(List<Run> runs) {
            double sum = 0;
            int bins = 0;
            double[] perTurn = new double[runs.size()];
            for (int i = 0; i < runs.size(); i++) {
                Run r = runs.get(i);
                sum += r.committedPerSecond();
                perTurn[i] = r.committedPerSecond();
                bins += r.perSecond().length;
            }
            double[] perSecond = new double[bins];
            double[][] mix = new double[bins][];
            int at = 0;
            for (Run r : runs) {
                System.arraycopy(r.perSecond(), 0, perSecond, at, r.perSecond().length);
                System.arraycopy(r.mix(), 0, mix, at, r.mix().length);
                at += r.perSecond().length;
            }
            return new Run(sum / runs.size(), perTurn, perSecond, mix);
        }
    }

    /** Runs the Bank at one read-set size; commits per second and per protocol, in 1-second bins. */
    private Run runPhase(BankCluster bank, int readSet, double seconds) throws InterruptedException {
        int threads = options.replicas() * options.threadsPerReplica();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int replica = t % options.replicas();
            long seed = t * 7_919L + System.nanoTime();
            Thread w = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                while (!stop.get()) {
                    try {
                        bank.transfer(replica, readSet, 0, bank.accounts, random);
                    } catch (TransactionAbortedException e) {
                        // the statistics count it
                    }
                }
            }, "switching-" + t);
            workers.add(w);
        }
        int bins = Math.max(1, (int) Math.round(seconds));
        double binSeconds = seconds / bins;
        double[] perSecond = new double[bins];
        double[][] mix = new double[bins][3];
        long[] before = committed(bank);
        long start = System.nanoTime();
        workers.forEach(Thread::start);
        long[] previous = before;
        for (int b = 0; b < bins; b++) {
            long due = start + (long) ((b + 1) * binSeconds * 1e9);
            Thread.sleep(Math.max(0, (due - System.nanoTime()) / 1_000_000));
            long[] now = committed(bank);
            for (int p = 0; p < 3; p++) {
                mix[b][p] = now[p] - previous[p];
                perSecond[b] += (now[p] - previous[p]) / binSeconds;
            }
            previous = now;
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        stop.set(true);
        for (Thread w : workers) {
            w.join(60_000);
        }
        long total = 0;
        for (int p = 0; p < 3; p++) {
            total += previous[p] - before[p];
        }
        double rate = total / elapsed;
        return new Run(rate, new double[] {rate}, perSecond, mix);
    }

    private static long[] committed(BankCluster bank) {
        long[] c = new long[3];
        for (Replica r : bank.replicas) {
            for (Protocol p : Protocol.values()) {
                c[p.ordinal()] += r.statistics().of(p).committed();
            }
        }
        return c;
    }

    // ---------------------------------------------------------------------------------------------------------

    private static final String STATIC = "static-";
    private static final String TWIN = "twin-";

    /** Normalizes to the best static protocol, and finds when each adaptive oracle settled. */
    private static List<PhaseResult> normalize(List<PhaseResult> phase, List<Contender> contenders) {
        double best = 0;
        double[] bestTurns = null;
        for (PhaseResult r : phase) {
            if (r.contender().startsWith(STATIC) && r.committedPerSecond() > best) {
                best = r.committedPerSecond();
                bestTurns = r.perTurn();
            }
        }
        List<PhaseResult> out = new ArrayList<>();
        for (int i = 0; i < phase.size(); i++) {
            PhaseResult r = phase.get(i);
            double converged = contenders.get(i).adaptive() ? convergence(r.mixPerSecond(), settledOn(
                    r.mixPerSecond())) : 0;
            out.add(new PhaseResult(r.contender(), r.readSet(), r.committedPerSecond(),
                    best == 0 ? Double.NaN : r.committedPerSecond() / best,
                    bestTurns == null ? Double.NaN : interval(r.perTurn(), bestTurns), r.perTurn(), r.perSecond(),
                    r.mixPerSecond(), converged));
        }
        return out;
    }

    /** Student's t for a two-sided 95% interval, by degrees of freedom 1 to 30; 1.96 (the normal's) beyond. */
    private static final double[] T95 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060,
        2.056, 2.052, 2.048, 2.045, 2.042};

    /**
     * Half the width of a 95% confidence interval of a contender's normalized figure: Student's t over the ratios
     * of its turns to the best static protocol's turns of the same rounds. The turns of a round run within seconds
     * of each other, so each ratio cancels the machine's slower drifts, and what still spreads the ratios is the
     * noise no pairing removes. Strictly it is the interval of the mean of those ratios, which differed from the
     * figure (a ratio of means) by a hundredth at most in the runs of ORACLE.md. 0 for the best static protocol
     * itself; NaN with fewer than two rounds.
     */
    static double interval(double[] contenderTurns, double[] bestTurns) {
        int n = Math.min(contenderTurns.length, bestTurns.length);
        if (n < 2) {
            return Double.NaN;
        }
        double sum = 0;
        double sumSq = 0;
        for (int i = 0; i < n; i++) {
            double ratio = contenderTurns[i] / bestTurns[i];
            sum += ratio;
            sumSq += ratio * ratio;
        }
        double mean = sum / n;
        double variance = Math.max(0, (sumSq - n * mean * mean) / (n - 1));
        double t = n - 1 <= T95.length ? T95[n - 2] : 1.96;
        return t * Math.sqrt(variance / n);
    }

    /**
     * The protocols an oracle settled on: the one with most commits over the last third of the phase, and any
     * other with at least half as many (the static runs cannot tell near-ties apart on a shared machine, so a
     * steady split between two protocols counts as settled too).
     */
    static boolean[] settledOn(double[][] mix) {
        double[] tail = new double[3];
        for (int b = mix.length - Math.max(1, mix.length / 3); b < mix.length; b++) {
            for (int p = 0; p < 3; p++) {
                tail[p] += mix[b][p];
            }
        }
        double top = Math.max(tail[0], Math.max(tail[1], tail[2]));
        boolean[] settled = new boolean[3];
        for (int p = 0; p < 3; p++) {
            settled[p] = top > 0 && tail[p] >= 0.5 * top;
        }
        return settled;
    }

    /**
     * Seconds from the switch until every later 1-second bin has at least 80% of its commits by the protocols the
     * oracle settled on; +infinity if the last bin still does not.
     */
    static double convergence(double[][] mix, boolean[] acceptable) {
        int from = mix.length;
        for (int b = mix.length - 1; b >= 0; b--) {
            double good = 0;
            double all = 0;
            for (int p = 0; p < 3; p++) {
                all += mix[b][p];
                good += acceptable[p] ? mix[b][p] : 0;
            }
            if (all > 0 && good / all < 0.8) {
                break;
            }
            from = b;
        }
        return from == mix.length ? Double.POSITIVE_INFINITY : from;
    }

    /** Commits by NVC / BFC / VC as percentages of all, summed over the bins; "-" when there are none. */
    static String mixText(double[][] mix) {
        double[] sum = new double[3];
        double all = 0;
        for (double[] bin : mix) {
            for (int p = 0; p < 3; p++) {
                sum[p] += bin[p];
                all += bin[p];
            }
        }
        return all == 0 ? "-" : String.format(Locale.ROOT, "%3.0f/%3.0f/%3.0f %%", 100 * sum[0] / all,
                100 * sum[1] / all, 100 * sum[2] / all);
    }

    // ---------------------------------------------------------------------------------------------------------

    private void report(List<PhaseResult> results) throws IOException {
        Map<String, Map<Integer, PhaseResult>> byContender = new LinkedHashMap<>();
        for (PhaseResult r : results) {
            byContender.computeIfAbsent(r.contender(), k -> new LinkedHashMap<>()).put(r.readSet(), r);
        }
        out.println();
        out.println("Throughput normalized to the best static protocol of each phase, +- the half-width of its 95%"
                + " interval from the turns paired round by round (in brackets: seconds until the oracle settled, i.e."
                + " every later second has 80% of its commits by the protocol(s) it ends on):");
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-14s", "contender"));
        for (int r : options.readSets()) {
            header.append(String.format(Locale.ROOT, " %24s", "R=" + r));
        }
        out.println(header.append(String.format(Locale.ROOT, " %8s %8s", "mean", "worst")));
        for (Map.Entry<String, Map<Integer, PhaseResult>> e : byContender.entrySet()) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-14s", e.getKey()));
            double sum = 0;
            double worst = Double.POSITIVE_INFINITY;
            for (int r : options.readSets()) {
                PhaseResult p = e.getValue().get(r);
                sum += p.normalized();
                worst = Math.min(worst, p.normalized());
                String conv = !adaptive(e.getKey()) ? "" : p.convergedAfterSeconds() == 0 ? " (<1 s)"
                        : Double.isInfinite(p.convergedAfterSeconds()) ? " (no)"
                        : String.format(Locale.ROOT, " (%.0f s)", p.convergedAfterSeconds());
                row.append(String.format(Locale.ROOT, " %24s", String.format(Locale.ROOT, "%.3f%s%s", p.normalized(),
                        plusMinus(p), conv)));
            }
            out.println(row.append(String.format(Locale.ROOT, " %8.3f %8.3f", sum / options.readSets().length,
                    worst)));
        }
        out.println();
        if (options.twins()) {
            perfectOracle(byContender);
        }
        goal(byContender.get("dist-ucb"), 0.97, "DistUCB");
        goal(byContender.get("decision-tree"), 0.95, "decision tree");
        Path csv = options.output().resolve("timeline.csv");
        writeTimeline(byContender, csv);
        List<io.polycert.bench.report.RunResult> charted = new ArrayList<>();
        byContender.forEach((name, phases) -> phases.forEach((readSet, p) -> charted.add(chartable(p))));
        Path fig5 = options.output().resolve("fig5-oracle-normalized.png");
        Path fig7 = options.output().resolve("fig7-oracle-over-time.png");
        io.polycert.bench.report.Charts.normalizedThroughput(charted, "readSet", fig5);
        io.polycert.bench.report.Charts.throughputOverTime(charted, fig7);
        out.println("timeline: " + csv + "; charts: " + fig5 + ", " + fig7);
    }

    /**
     * A phase as a run result for the charts, which use only its throughput and timeline: this benchmark counts
     * commits by protocol per second, not aborts or latencies, so those are left zero and never written out.
     */
    private static io.polycert.bench.report.RunResult chartable(PhaseResult p) {
        List<io.polycert.bench.report.RunResult.Second> timeline = new ArrayList<>();
        long committed = 0;
        for (int b = 0; b < p.mixPerSecond().length; b++) {
            double[] m = p.mixPerSecond()[b];
            timeline.add(new io.polycert.bench.report.RunResult.Second(b + 1, 0, (long) m[0], (long) m[1],
                    (long) m[2]));
            committed += (long) (m[0] + m[1] + m[2]);
        }
        double seconds = p.committedPerSecond() > 0 ? committed / p.committedPerSecond() : timeline.size();
        return new io.polycert.bench.report.RunResult("oracle", p.contender(), Map.of("readSet", Integer.toString(
                p.readSet())), seconds, committed, 0, 0, 0, 0, Double.NaN, Double.NaN, Double.NaN, 0, 0, 0, timeline);
    }

    private static String plusMinus(PhaseResult p) {
        return Double.isNaN(p.interval()) ? "" : String.format(Locale.ROOT, "+-%.3f", p.interval());
    }

    private static boolean adaptive(String contender) {
        return !contender.startsWith(STATIC) && !contender.startsWith(TWIN);
    }

    /** Prints, per phase, the figure of the twin of that phase's best static protocol. */
    private void perfectOracle(Map<String, Map<Integer, PhaseResult>> byContender) {
        StringBuilder line = new StringBuilder("a perfect oracle (the twin of each phase's best static protocol):");
        double worst = Double.POSITIVE_INFINITY;
        for (int r : options.readSets()) {
            String best = null;
            for (Map.Entry<String, Map<Integer, PhaseResult>> e : byContender.entrySet()) {
                if (e.getKey().startsWith(STATIC) && e.getValue().get(r).normalized() == 1.0) {
                    best = e.getKey();
                }
            }
            PhaseResult twin = best == null ? null : byContender.get(TWIN + best.substring(STATIC.length())).get(r);
            double v = twin == null ? Double.NaN : twin.normalized();
            worst = Math.min(worst, v);
            line.append(String.format(Locale.ROOT, " R=%d %.3f%s (%s);", r, v, twin == null ? "" : plusMinus(twin),
                    best == null ? "-" : best.substring(STATIC.length())));
        }
        out.println(line.append(String.format(Locale.ROOT, " worst %.3f", worst)));
    }

    private void goal(Map<Integer, PhaseResult> phases, double target, String name) {
        if (phases == null) {
            return;
        }
        PhaseResult worst = null;
        double slowest = 0;
        for (PhaseResult p : phases.values()) {
            worst = worst == null || p.normalized() < worst.normalized() ? p : worst;
            slowest = Math.max(slowest, p.convergedAfterSeconds());
        }
        // The verdict is the figure's; the interval says whether this run could have told otherwise.
        boolean undecided = Math.abs(worst.normalized() - target) <= worst.interval();
        out.printf(Locale.ROOT, "%s: worst phase %.3f%s of the best static (goal >= %.2f: %s%s); slowest convergence %s"
                + " (goal <= 10 s: %s)%n", name, worst.normalized(), plusMinus(worst), target,
                worst.normalized() >= target ? "met" : "NOT met",
                undecided ? ", though the goal lies inside the interval: this run cannot tell" : "",
                Double.isInfinite(slowest) ? "never" : String.format(Locale.ROOT, "%.0f s", slowest),
                slowest <= 10 ? "met" : "NOT met");
    }

    private void writeTimeline(Map<String, Map<Integer, PhaseResult>> byContender, Path csv) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("contender,read_set,second,commits_per_s,nvc,bfc,vc");
        byContender.forEach((name, phases) -> phases.forEach((readSet, p) -> {
            for (int b = 0; b < p.perSecond().length; b++) {
                double[] m = p.mixPerSecond()[b];
                lines.add(String.format(Locale.ROOT, "%s,%d,%d,%.1f,%.0f,%.0f,%.0f", name, readSet, b,
                        p.perSecond()[b], m[0], m[1], m[2]));
            }
        }));
        Files.write(csv, lines, StandardCharsets.UTF_8);
    }
}
