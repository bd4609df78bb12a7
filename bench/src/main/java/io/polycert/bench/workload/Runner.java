package io.polycert.bench.workload;

import io.polycert.bench.report.RunResult;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs contenders side by side on one {@link BenchCluster}: in each round every contender takes a turn (the order
 * rotating round by round, so slow drifts of a shared machine spread over all of them), and a contender's result
 * is its turns end to end. An adaptive oracle keeps what it learned from turn to turn.
 */
public final class Runner {

    /**
     * @param contenders {@link Contenders} names
     * @param threadsPerMember client threads at each member
     * @param warmupSeconds unmeasured load before each turn's window
     * @param seconds measured seconds per turn
     * @param rounds turns per contender
     * @param seed clients' random seed
     * @param progressSeconds a progress line at least this often during a turn (0: one line per turn only)
     * @param settleSeconds unmeasured load, once, before the first turn: for workloads whose state drifts after
     *     populate (STMBench7's structure modifications) and for the JIT; 0 for none
     */
    public record Options(List<String> contenders, int threadsPerMember, double warmupSeconds, double seconds,
            int rounds, long seed, double progressSeconds, double settleSeconds) {

        /** Without a settling run. */
        public Options(List<String> contenders, int threadsPerMember, double warmupSeconds, double seconds,
                int rounds, long seed, double progressSeconds) {
            this(contenders, threadsPerMember, warmupSeconds, seconds, rounds, seed, progressSeconds, 0);
        }

        public Options {
            contenders = List.copyOf(contenders);
            if (contenders.isEmpty()) {
                throw new IllegalArgumentException("no contenders to run");
            }
            contenders.forEach(Contenders::checkKnown);
            if (threadsPerMember < 1 || rounds < 1 || !(seconds > 0) || warmupSeconds < 0 || settleSeconds < 0) {
                throw new IllegalArgumentException("threads and rounds must be at least 1, seconds positive and"
                        + " warm-up not negative");
            }
        }
    }

    private final BenchCluster cluster;
    private final Workload workload;
    private final Options options;
    private final Map<String, String> extraParameters;
    private final PrintStream out;

    /**
     * @param extraParameters reported with every result besides the workload's own (e.g. replicas, runner)
     */
    public Runner(BenchCluster cluster, Workload workload, Options options, Map<String, String> extraParameters,
            PrintStream out) {
        this.cluster = cluster;
        this.workload = workload;
        this.options = options;
        this.extraParameters = Map.copyOf(extraParameters);
        this.out = out;
    }

    /** Runs every contender's turns; then checks the workload at every member and that all states are equal. */
    public List<RunResult> run() throws Exception {
        int n = options.contenders().size();
        List<List<ReplicaLoad.Partial>> perContender = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            perContender.add(null);
        }
        if (options.settleSeconds() > 0) {
            settle();
        }
        for (int round = 0; round < options.rounds(); round++) {
            for (int k = 0; k < n; k++) {
                int i = (k + round) % n;
                String contender = options.contenders().get(i);
                List<ReplicaLoad.Partial> turn = turn(contender, round);
                List<ReplicaLoad.Partial> sofar = perContender.get(i);
                if (sofar == null) {
                    perContender.set(i, turn);
                } else {
                    List<ReplicaLoad.Partial> joined = new ArrayList<>();
                    for (int m = 0; m < turn.size(); m++) {
                        joined.add(sofar.get(m).then(turn.get(m)));
                    }
                    perContender.set(i, joined);
                }
            }
        }
        Map<String, String> parameters = new LinkedHashMap<>(workload.parameters());
        parameters.putAll(extraParameters);
        List<RunResult> results = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            results.add(ReplicaLoad.combine(workload.name(), options.contenders().get(i), parameters,
                    perContender.get(i), cluster.sameJvm()));
        }
        List<Long> digests = cluster.check();
        for (int m = 1; m < digests.size(); m++) {
            if (!digests.get(m).equals(digests.get(0))) {
                throw new IllegalStateException("member " + m + "'s state differs from member 0's (digests "
                        + digests + ")");
            }
        }
        return results;
    }

    /** Runs the first contender unmeasured for the settling time, with a progress line every 10 s or so. */
    private void settle() throws Exception {
        String contender = options.contenders().get(0);
        cluster.use(contender);
        cluster.startLoad(options.threadsPerMember(), options.seed() - 1);
        try {
            long start = System.nanoTime();
            long[] before = cluster.progress();
            double left = options.settleSeconds();
            while (left > 0) {
                double step = Math.min(10, left);
                Thread.sleep((long) (step * 1000));
                left -= step;
                long[] now = cluster.progress();
                long certified = now[1] + now[2] + now[3] - before[1] - before[2] - before[3];
                out.printf(Locale.ROOT, "  [settling, %.0f of %.0f s] %,10.0f certified tx/s with %s%n",
                        (System.nanoTime() - start) / 1e9, options.settleSeconds(), certified
                                / ((System.nanoTime() - start) / 1e9), contender);
            }
        } finally {
            cluster.stopLoad();
        }
    }

    private List<ReplicaLoad.Partial> turn(String contender, int round) throws Exception {
        cluster.use(contender);
        cluster.startLoad(options.threadsPerMember(), options.seed() + 1_000_003L * round);
        try {
            Thread.sleep((long) (options.warmupSeconds() * 1000));
            cluster.beginMeasuring();
            long start = System.nanoTime();
            int seconds = Math.max(1, (int) Math.round(options.seconds()));
            double binSeconds = options.seconds() / seconds;
            long lastProgress = start;
            long[] before = cluster.progress();
            for (int b = 0; b < seconds; b++) {
                long due = start + (long) ((b + 1) * binSeconds * 1e9);
                Thread.sleep(Math.max(0, (due - System.nanoTime()) / 1_000_000));
                cluster.sample();
                if (options.progressSeconds() > 0 && b + 1 < seconds
                        && System.nanoTime() - lastProgress >= options.progressSeconds() * 1e9) {
                    lastProgress = System.nanoTime();
                    progress(contender, round, (lastProgress - start) / 1e9, before, cluster.progress());
                }
            }
            // Read before the window closes: the clients stop counting then, the protocols do not.
            long[] end = cluster.progress();
            List<ReplicaLoad.Partial> partials = cluster.endMeasuring();
            progress(contender, round, (System.nanoTime() - start) / 1e9, before, end);
            return partials;
        } finally {
            cluster.stopLoad();
        }
    }

    private void progress(String contender, int round, double elapsed, long[] before, long[] now) {
        long commits = now[0] - before[0];
        long nvc = now[1] - before[1];
        long bfc = now[2] - before[2];
        long vc = now[3] - before[3];
        long readOnly = Math.max(0, commits - nvc - bfc - vc);
        // The mix is of the commits the protocols counted: a protocol counts a commit just before its client does,
        // so the clients' count can trail theirs by the commits in flight (the mix would show "NVC 101%").
        long mixed = readOnly + nvc + bfc + vc;
        out.printf(Locale.ROOT, "  [round %d, %-14s %5.0f s] %,10.0f tx/s   local %s  NVC %s  BFC %s  VC %s%n",
                round + 1, contender + ",", elapsed, commits / Math.max(1e-9, elapsed), share(readOnly, mixed),
                share(nvc, mixed), share(bfc, mixed), share(vc, mixed));
    }

    private static String share(long part, long whole) {
        return whole == 0 ? "  -" : String.format(Locale.ROOT, "%3.0f%%", 100.0 * part / whole);
    }
}
