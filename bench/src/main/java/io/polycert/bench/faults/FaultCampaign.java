package io.polycert.bench.faults;

import io.polycert.bench.faults.FaultSchedule.Event;
import io.polycert.bench.faults.FaultSchedule.Type;
import io.polycert.bench.process.ProcessCluster;
import io.polycert.bench.workload.BankWorkload;
import io.polycert.certification.partial.CommitProtocol;
import io.polycert.core.AbortCause;
import io.polycert.oracle.Protocol;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * The fault-injection suite (issue 8): randomized, seeded fault schedules against member processes
 * ({@link ProcessCluster}) running the {@link ListAppendWorkload list-append} workload (checked with
 * {@link ListAppendChecker}) or the {@link AuditedBankWorkload audited bank}, over full replication under an
 * adaptive oracle so that NVC, BFC and VC certify side by side, or over partial replication
 * ({@link Options#replications()}: each schedule's seed picks one of them).
 *
 * <p>Each schedule: start the members with fault injection; populate; start clients at every member; inject the
 * schedule's faults one after the other ({@link FaultSchedule}), each healed before the next, measuring how long
 * the group takes to recover; then heal everything, wait for the group to reform with every member, quiesce the
 * clients, wait until every member applied everything (partial replication: until every member holds what it owns
 * under one placement, and every key's owners agree on its version and value), read every key at every member,
 * compare digests, and check the history. A schedule is reproduced by its seed ({@code --seed SEED --schedules 1}
 * with the same members, fault types, workloads, replication and seconds).
 *
 * <pre>{@code
 * int status = FaultCampaign.run(FaultCampaign.Options.defaults().withSchedules(6), System.out);
 * }</pre>
 */
public final class FaultCampaign {
    private static final long POLL_MS = 50;

    /**
     * A campaign's settings.
     *
     * @param seed the first schedule's seed; schedule i uses {@code seed + i}
     * @param schedules how many schedules to run
     * @param members member processes per schedule, 3 to 5 (0: picked by each schedule's seed)
     * @param seconds how long each schedule's load runs before the final heal
     * @param faults fault types to pick from
     * @param workloads {@code list-append} and/or {@code bank-audit}
     * @param oracle the contender every member uses ({@code ucb}, {@code threshold}, {@code dist-ucb} or
     *     {@code mixed})
     * @param threads client threads per member
     * @param failureDetection the members' failure-detection timeout
     * @param heap each member's heap
     * @param workDir where histories go (a fresh temporary directory if null)
     * @param keepHistories keep every schedule's history (else only those with anomalies or errors)
     * @param echo copy the members' output to stderr
     * @param replications full and/or partial replication, picked per schedule by its seed
     * @param protocol partial replication's commit protocol (total order by default; two-phase commit is the
     *     baseline, with a known bug across joins and crashes: see docs/PARTIAL.md)
     * @param degree partial replication's owners per key
     */
    public record Options(long seed, int schedules, int members, int seconds, List<Type> faults,
            List<String> workloads, String oracle, int threads, Duration failureDetection, String heap, Path workDir,
            boolean keepHistories, boolean echo, List<Replication> replications, CommitProtocol protocol,
            int degree) {
        public Options {
            faults = List.copyOf(faults);
            workloads = List.copyOf(workloads);
            replications = List.copyOf(replications);
            Objects.requireNonNull(oracle, "oracle");
            Objects.requireNonNull(protocol, "protocol");
            if (replications.isEmpty()) {
                throw new IllegalArgumentException("a campaign needs full or partial replication (or both)");
            }
            if (degree < 1 || (members != 0 && degree > members) || degree > 3) {
                throw new IllegalArgumentException("the replication degree must be 1 to 3 and at most the members,"
                        + " was " + degree);
            }
            Objects.requireNonNull(failureDetection, "failureDetection");
            Objects.requireNonNull(heap, "heap");
            if (schedules < 1 || seconds < 5 || threads < 1 || faults.isEmpty() || workloads.isEmpty()) {
                throw new IllegalArgumentException("a campaign needs at least one schedule of at least 5 s, a thread,"
                        + " a fault type and a workload");
            }
            if (members != 0 && (members < 3 || members > 5)) {
                throw new IllegalArgumentException("members must be 3 to 5 (or 0 for a random count), was "
                        + members);
            }
            for (String w : workloads) {
                if (!w.equals("list-append") && !w.equals("bank-audit")) {
                    throw new IllegalArgumentException("workloads are list-append and bank-audit, not '" + w + "'");
                }
            }
        }

        /**
         * Seed 1, 3 schedules of 30 s, 3 members, every fault type, both workloads (list-append twice as often),
         * full replication with NVC, BFC and VC picked at random per transaction ({@link MixedOracle}: an adaptive
         * oracle settles on one or two and leaves the third, often VC, barely tested), 2 threads per member, 2 s
         * failure detection, 256 MiB heaps; for partial replication, total order and degree 2.
         */
        public static Options defaults() {
            return new Options(1, 3, 3, 30, List.of(Type.values()), List.of("list-append", "list-append",
                    "bank-audit"), "mixed", 2, Duration.ofSeconds(2), "256m", null, false, false,
                    List.of(Replication.FULL), CommitProtocol.TOTAL_ORDER, 2);
        }

        public Options withReplications(List<Replication> replications) {
            return new Options(seed, schedules, members, seconds, faults, workloads, oracle, threads,
                    failureDetection, heap, workDir, keepHistories, echo, replications, protocol, degree);
        }

        public Options withProtocol(CommitProtocol protocol) {
            return new Options(seed, schedules, members, seconds, faults, workloads, oracle, threads,
                    failureDetection, heap, workDir, keepHistories, echo, replications, protocol, degree);
        }

        public Options withDegree(int degree) {
            return new Options(seed, schedules, members, seconds, faults, workloads, oracle, threads,
                    failureDetection, heap, workDir, keepHistories, echo, replications, protocol, degree);
        }

        /** How a schedule's members replicate, for tables: {@code full}, or e.g. {@code partial/TOM/2}. */
        public String replicationLabel(Replication replication) {
            return replication == Replication.FULL ? "full"
                    : "partial/" + Replication.shortName(protocol) + "/" + degree;
        }

        public Options withSeed(long seed) {
            return new Options(seed, schedules, members, seconds, faults, workloads, oracle, threads,
                    failureDetection, heap, workDir, keepHistories, echo, replications, protocol, degree);
        }

        public Options withSchedules(int schedules) {
            return new Options(seed, schedules, members, seconds, faults, workloads, oracle, threads,
                    failureDetection, heap, workDir, keepHistories, echo, replications, protocol, degree);
        }

        public Options withMembers(int members) {
            return new Options(seed, schedules, members, seconds, faults, workloads, oracle, threads,
                    failureDetection, heap, workDir, keepHistories, echo, replications, protocol, degree);
        }

        public Options withSeconds(int seconds) {
            return new Options(seed, schedules, members, seconds, faults, workloads, oracle, threads,
                    failureDetection, heap, workDir, keepHistories, echo, replications, protocol, degree);
        }

        public Options withFaults(List<Type> faults) {
            return new Options(seed, schedules, members, seconds, faults, workloads, oracle, threads,
                    failureDetection, heap, workDir, keepHistories, echo, replications, protocol, degree);
        }

        public Options withWorkloads(List<String> workloads) {
            return new Options(seed, schedules, members, seconds, faults, workloads, oracle, threads,
                    failureDetection, heap, workDir, keepHistories, echo, replications, protocol, degree);
        }

        public Options withOracle(String oracle) {
            return new Options(seed, schedules, members, seconds, faults, workloads, oracle, threads,
                    failureDetection, heap, workDir, keepHistories, echo, replications, protocol, degree);
        }

        public Options withThreads(int threads) {
            return new Options(seed, schedules, members, seconds, faults, workloads, oracle, threads,
                    failureDetection, heap, workDir, keepHistories, echo, replications, protocol, degree);
        }

        public Options withFailureDetection(Duration failureDetection) {
            return new Options(seed, schedules, members, seconds, faults, workloads, oracle, threads,
                    failureDetection, heap, workDir, keepHistories, echo, replications, protocol, degree);
        }

        public Options withHeap(String heap) {
            return new Options(seed, schedules, members, seconds, faults, workloads, oracle, threads,
                    failureDetection, heap, workDir, keepHistories, echo, replications, protocol, degree);
        }

        public Options withWorkDir(Path workDir) {
            return new Options(seed, schedules, members, seconds, faults, workloads, oracle, threads,
                    failureDetection, heap, workDir, keepHistories, echo, replications, protocol, degree);
        }

        public Options withKeepHistories(boolean keepHistories) {
            return new Options(seed, schedules, members, seconds, faults, workloads, oracle, threads,
                    failureDetection, heap, workDir, keepHistories, echo, replications, protocol, degree);
        }

        public Options withEcho(boolean echo) {
            return new Options(seed, schedules, members, seconds, faults, workloads, oracle, threads,
                    failureDetection, heap, workDir, keepHistories, echo, replications, protocol, degree);
        }

        /** The schedule of run {@code i} (0-based). */
        public FaultSchedule schedule(int i) {
            return FaultSchedule.generate(seed + i, members, faults, workloads, replications, seconds,
                    failureDetection.toMillis());
        }
    }

    /**
     * What one injected fault did.
     *
     * @param injected whether the fault was seen to take effect (e.g. the killed process is gone, the partitioned
     *     member installed a minority view)
     * @param evidence what was seen
     * @param reformMs from the heal to every member in one primary view with all the members, or -1 if not
     * @param firstCommitMs from the heal to the first commit of a client at the member hit, or -1 if none
     */
    public record EventResult(Event event, boolean injected, String evidence, long reformMs, long firstCommitMs) {
        /** Recovery time: the later of reform and first commit, -1 if either did not happen. */
        public long recoveryMs() {
            return reformMs < 0 || firstCommitMs < 0 ? -1 : Math.max(reformMs, firstCommitMs);
        }
    }

    /**
     * What one schedule found.
     *
     * @param replication how its members replicated ({@link Options#replicationLabel})
     * @param committed transactions committed (list-append: acknowledged operations; bank: acknowledged
     *     transfers in every member process's ledger, killed ones too, or, when the checks ended before the final
     *     balances were read, the transfers of the member processes alive at the end)
     * @param byProtocol commits by NVC, BFC, VC at the members alive at the end
     * @param check the history check (list-append), or null
     * @param anomalies every anomaly, one line each (history anomalies, wrong audits, balances the transfer
     *     ledgers do not explain, digest mismatches, failed invariant checks)
     * @param lostAcknowledged acknowledged commits missing from the final state
     * @param stuck operations still waiting for their outcome when the clients were quiesced
     * @param failures liveness failures: members that crashed by themselves, got stuck (not back in the group,
     *     or not applying what the others apply) or faults the group did not recover from; the harness replaced
     *     such members with fresh processes to finish the schedule
     * @param error what went wrong in the harness, or null
     * @param historyDir where its history is (if kept)
     */
    public record ScheduleResult(FaultSchedule schedule, String replication, long committed, long aborted,
            long unknown,
            long[] byProtocol, ListAppendChecker.Result check, List<String> anomalies, int anomalyCount,
            int lostAcknowledged,
            int stuck, List<String> failures, List<EventResult> events, double seconds, String error,
            Path historyDir) {

        /** No anomaly, no lost commit, no liveness failure, no harness error. */
        public boolean clean() {
            return safe() && failures.isEmpty() && error == null;
        }

        /** No anomaly and no lost commit (liveness failures and harness errors aside). */
        public boolean safe() {
            return anomalies.isEmpty() && lostAcknowledged == 0;
        }
    }

    /** Every schedule's result, and the per-fault-type table. */
    public record Report(List<ScheduleResult> runs) {
        public int anomalies() {
            return runs.stream().mapToInt(ScheduleResult::anomalyCount).sum();
        }

        public int lostAcknowledged() {
            return runs.stream().mapToInt(ScheduleResult::lostAcknowledged).sum();
        }

        public long errors() {
            return runs.stream().filter(r -> r.error() != null).count();
        }

        public int failures() {
            return runs.stream().mapToInt(r -> r.failures().size()).sum();
        }

        /**
         * The table: one row per fault type and replication (NVC/BFC/VC is "-" for partial replication, which
         * does not certify with them).
         */
        public String table() {
            Map<Type, Map<String, List<ScheduleResult>>> byType = new EnumMap<>(Type.class);
            for (ScheduleResult r : runs) {
                byType.computeIfAbsent(r.schedule().type(), t -> new java.util.TreeMap<>())
                        .computeIfAbsent(r.replication(), m -> new ArrayList<>()).add(r);
            }
            StringBuilder sb = new StringBuilder();
            sb.append(String.format(Locale.ROOT,
                    "%-10s %-13s %4s %6s %8s %9s %8s %7s %-20s %9s %10s %8s %11s %11s%n", "fault", "replication",
                    "runs", "faults", "injected", "committed", "aborted", "unknown", "NVC/BFC/VC", "anomalies",
                    "lost-acked", "failures", "recover-p50", "recover-max"));
            for (Map.Entry<Type, Map<String, List<ScheduleResult>>> byMode : byType.entrySet()) {
                for (Map.Entry<String, List<ScheduleResult>> e : byMode.getValue().entrySet()) {
                    sb.append(row(byMode.getKey(), e.getKey(), e.getValue()));
                }
            }
            return sb.toString();
        }

        private static String row(Type type, String replication, List<ScheduleResult> rs) {
            long events = 0;
            long injected = 0;
            long committed = 0;
            long aborted = 0;
            long unknown = 0;
            long[] protocols = new long[3];
            long anomalies = 0;
            long lost = 0;
            long failures = 0;
            List<Long> recoveries = new ArrayList<>();
            int unrecovered = 0;
            for (ScheduleResult r : rs) {
                events += r.events().size();
                injected += r.events().stream().filter(EventResult::injected).count();
                committed += r.committed();
                aborted += r.aborted();
                unknown += r.unknown();
                for (int i = 0; i < 3; i++) {
                    protocols[i] += r.byProtocol()[i];
                }
                anomalies += r.anomalyCount();
                lost += r.lostAcknowledged();
                failures += r.failures().size() + (r.error() != null ? 1 : 0);
                for (EventResult ev : r.events()) {
                    if (ev.recoveryMs() >= 0) {
                        recoveries.add(ev.recoveryMs());
                    } else {
                        unrecovered++;
                    }
                }
            }
            recoveries.sort(Comparator.naturalOrder());
            String p50 = recoveries.isEmpty() ? "-" : recoveries.get(recoveries.size() / 2) + " ms";
            String max = recoveries.isEmpty() ? "-" : recoveries.get(recoveries.size() - 1) + " ms";
            if (unrecovered > 0) {
                max += " (" + unrecovered + " never)";
            }
            String certified = replication.equals("full")
                    ? protocols[0] + "/" + protocols[1] + "/" + protocols[2] : "-";
            return String.format(Locale.ROOT,
                    "%-10s %-13s %4d %6d %8d %9d %8d %7d %-20s %9d %10d %8d %11s %11s%n", type.label(),
                    replication, rs.size(), events, injected, committed, aborted, unknown, certified, anomalies,
                    lost, failures, p50, max);
        }
    }

    private FaultCampaign() {
    }

    /**
     * Runs the campaign, printing progress and the per-fault-type table to {@code out}.
     *
     * @return 0 if every schedule ran clean, 1 if any found an anomaly or lost an acknowledged commit, 2 if there
     *     were liveness failures (members crashed or stuck) but no anomaly, 3 if only harness errors occurred
     */
    public static int run(Options options, PrintStream out) {
        Report report = campaign(options, out);
        out.println();
        out.print(report.table());
        for (ScheduleResult r : report.runs()) {
            if (!r.clean()) {
                out.println("schedule " + r.schedule().seed() + " (" + r.schedule().type().label() + ", "
                        + r.schedule().workload() + ", " + r.replication() + "): "
                        + (r.error() != null ? "error: " + r.error() : "")
                        + (r.anomalies().isEmpty() ? "" : r.anomalyCount() + " anomalies")
                        + (r.failures().isEmpty() ? "" : " " + r.failures().size() + " liveness failures")
                        + (r.historyDir() != null ? "; history in " + r.historyDir() : ""));
                for (String a : r.anomalies().subList(0, Math.min(10, r.anomalies().size()))) {
                    out.println("  anomaly: " + a);
                }
                for (String f : r.failures()) {
                    out.println("  failure: " + f);
                }
            }
        }
        if (report.anomalies() > 0 || report.lostAcknowledged() > 0) {
            out.println("FOUND " + report.anomalies() + " anomalies and " + report.lostAcknowledged()
                    + " lost acknowledged commits; reproduce a schedule with --seed SEED --schedules 1");
            return 1;
        }
        if (report.failures() > 0) {
            out.println("no anomalies or lost commits, but " + report.failures() + " liveness failures");
            return 2;
        }
        if (report.errors() > 0) {
            out.println(report.errors() + " schedule(s) failed in the harness");
            return 3;
        }
        out.println("no anomalies, no lost commits in " + report.runs().size() + " schedules");
        return 0;
    }

    /** Runs every schedule of {@code options}. */
    public static Report campaign(Options options, PrintStream log) {
        Path root = workDir(options);
        List<ScheduleResult> results = new ArrayList<>();
        for (int i = 0; i < options.schedules(); i++) {
            FaultSchedule schedule = options.schedule(i);
            log.println("[" + (i + 1) + "/" + options.schedules() + "] " + schedule);
            ScheduleResult r = runSchedule(schedule, options, root, log);
            results.add(r);
            log.printf(Locale.ROOT, "  -> %s in %.0f s: %d committed, %d aborted, %d unknown, NVC/BFC/VC %d/%d/%d,"
                    + " %d anomalies, %d lost, %d liveness failures%s%s%n", r.clean() ? "clean" : "NOT CLEAN",
                    r.seconds(), r.committed(), r.aborted(), r.unknown(), r.byProtocol()[0], r.byProtocol()[1],
                    r.byProtocol()[2], r.anomalyCount(), r.lostAcknowledged(), r.failures().size(),
                    r.error() == null ? "" : "; error: " + r.error(),
                    options.keepHistories() && r.historyDir() != null ? "; history in " + r.historyDir() : "");
        }
        return new Report(results);
    }

    private static Path workDir(Options options) {
        try {
            if (options.workDir() != null) {
                Files.createDirectories(options.workDir());
                return options.workDir();
            }
            return Files.createTempDirectory("polycert-faults");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the work directory", e);
        }
    }

    /** Runs one schedule; histories go to a directory of its own under {@code root}. */
    public static ScheduleResult runSchedule(FaultSchedule schedule, Options options, Path root, PrintStream log) {
        Path dir = root.resolve("schedule-" + schedule.seed() + "-" + System.nanoTime() % 100_000).toAbsolutePath();
        String text = dir.toString();
        if (text.contains(",") || text.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("the history directory must not contain commas or spaces: " + dir);
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        Run run = new Run(schedule, options, dir, log);
        ScheduleResult result = run.execute();
        if (result.clean() && !options.keepHistories()) {
            deleteTree(dir);
            return new ScheduleResult(result.schedule(), result.replication(), result.committed(), result.aborted(),
                    result.unknown(),
                    result.byProtocol(), result.check(), result.anomalies(), result.anomalyCount(),
                    result.lostAcknowledged(),
                    result.stuck(), result.failures(), result.events(), result.seconds(), result.error(), null);
        }
        return result;
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // left behind in the temporary directory
        }
    }

    /** One schedule being run. */
    static final class Run {
        final FaultSchedule schedule;
        final Options options;
        final Path dir;
        final PrintStream log;
        final int n;
        final long fd;
        final long t0 = System.nanoTime();
        final boolean listAppend;
        /** Partial replication: no global version, no oracle; the final check compares each key's owners. */
        final boolean partial;
        ProcessCluster cluster;
        final List<EventResult> events = new ArrayList<>();
        /** One line per kind of anomaly found (with examples); {@link #anomalyCount} counts the anomalies. */
        final List<String> anomalies = new ArrayList<>();
        int anomalyCount;
        final List<String> failures = new ArrayList<>();
        final long[] byProtocol = new long[3];
        int restarts;
        /** The bank's final balances, read at one member once all agree (null until then, or for list-append). */
        long[] balances;
        /** The bank's ledgers as they were just before the balances were read. */
        Map<Path, List<String>> ledgers;
        /** List-append: how many members were asked for a final read (0 until then). */
        int finalReadsAsked;

        void anomaly(String line) {
            anomalies.add(line);
            anomalyCount++;
        }

        /** One line per kind the checker found, each counting as many anomalies as it found of that kind. */
        void anomalies(ListAppendChecker.Result check) {
            for (Map.Entry<ListAppendChecker.Anomaly, Integer> a : check.counts().entrySet()) {
                anomalies.add(a.getKey() + " x" + a.getValue() + ": " + check.examples().get(a.getKey()));
                anomalyCount += a.getValue();
            }
        }

        Run(FaultSchedule schedule, Options options, Path dir, PrintStream log) {
            this.schedule = schedule;
            this.options = options;
            this.dir = dir;
            this.log = log;
            this.n = schedule.members();
            this.fd = options.failureDetection().toMillis();
            this.listAppend = schedule.workload().startsWith("list-append");
            this.partial = schedule.replication() == Replication.PARTIAL;
        }

        /** What every member process is started with (restarted ones too). */
        List<String> memberArgs() {
            List<String> args = new ArrayList<>(List.of("--fault-injection", "true"));
            if (partial) {
                args.addAll(List.of("--replication", "partial", "--protocol", Replication.protocolName(
                        options.protocol()), "--degree", Integer.toString(options.degree())));
            }
            return args;
        }

        /** Makes member {@code i} certify with the campaign's oracle (full replication only). */
        void useOracle(int i) {
            if (!partial) {
                cluster.command(i, "use " + options.oracle());
            }
        }

        /** The workload's spec; a hand-built schedule may add parameters (a test's {@code bank-audit:lies=1}). */
        String spec() {
            String workload = schedule.workload();
            String extra = workload.contains(":") ? "," + workload.substring(workload.indexOf(':') + 1) : "";
            return (listAppend ? "list-append:keys=10,maxLength=64,reads=3,appends=3,dup=10,history=" + dir
                    : "bank-audit:accounts=100,readSet=1,audits=20,history=" + dir) + extra;
        }

        void note(String what) {
            log.printf(Locale.ROOT, "  %6.1f s  %s%n", (System.nanoTime() - t0) / 1e9, what);
        }

        ScheduleResult execute() {
            String error = null;
            ListAppendChecker.Result check = null;
            long committed = 0;
            long aborted = 0;
            long unknown = 0;
            int lost = 0;
            int stuck = 0;
            ProcessCluster.Options po = ProcessCluster.Options.defaults().withHeap(options.heap())
                    .withJvmOptions(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"))
                    .withFailureDetection(options.failureDetection()).withStartTimeout(Duration.ofSeconds(120))
                    .withCommandTimeout(Duration.ofSeconds(90)).withAwaitTimeout(Duration.ofSeconds(90))
                    .withEcho(options.echo());
            try {
                cluster = ProcessCluster.start(n, spec(), po, memberArgs());
                note("started " + n + " members");
                cluster.populate();
                if (!partial) {
                    cluster.use(options.oracle());
                }
                cluster.startLoad(options.threads(), schedule.seed());
                long loadStart = System.nanoTime();
                note("load running (" + options.threads() + " threads per member, " + (partial
                        ? options.replicationLabel(schedule.replication()) : "oracle " + options.oracle()) + ")");
                for (Event e : schedule.events()) {
                    sleepUntil(loadStart, e.atMs());
                    for (int i : cluster.live()) {
                        cluster.command(i, "fault views reset");
                    }
                    EventResult r;
                    try {
                        r = inject(e);
                    } catch (IllegalStateException ex) {
                        failure(e + " failed: " + Errors.oneLine(ex));
                        repair(true, 20_000 + 3 * fd);
                        continue;
                    }
                    events.add(r);
                    note(e.type().label() + " " + (r.injected() ? "injected" : "NOT SEEN TO TAKE EFFECT") + ": "
                            + r.evidence() + "; reformed after " + r.reformMs() + " ms, first commit after "
                            + r.firstCommitMs() + " ms");
                    if (r.recoveryMs() < 0) {
                        failure(e + ": the group did not recover (reformed after " + r.reformMs()
                                + " ms, first commit at the member hit after " + r.firstCommitMs() + " ms; views: "
                                + views() + ")");
                        repair(true, 2_000);
                    }
                }
                sleepUntil(loadStart, schedule.seconds() * 1000L);
                int[] endStuck = new int[1];
                long[] totals = finish(endStuck);
                stuck = endStuck[0];
                if (listAppend) {
                    History h = History.read(dir);
                    check = ListAppendChecker.check(h);
                    committed = check.committed();
                    aborted = check.aborted();
                    unknown = check.unknown();
                    lost = check.lostAcknowledged();
                    anomalies(check);
                    note("checked " + check.describe().replace("\n", "\n            "));
                    if (check.finals() != finalReadsAsked) { // an incomplete one is skipped: it would hide losses
                        throw new IllegalStateException(finalReadsAsked + " members were asked for a final read, "
                                + check.finals() + " wrote a complete one");
                    }
                    long refused = h.ops().stream().filter(o -> o.outcome() == History.Outcome.ABORTED
                            && AbortCause.OWNERS_UNAVAILABLE.name().equals(o.cause())).count();
                    if (refused > 0) {
                        note(refused + " operations refused a key whose owners were all cut off or gone"
                                + " (OWNERS_UNAVAILABLE)");
                    }
                } else {
                    List<String> badAudits = AuditedBankWorkload.badAudits(dir);
                    for (String bad : badAudits) {
                        anomaly("wrong audit total: " + bad);
                    }
                    note("bank: " + totals[0] + " transfers at the members alive at the end, " + totals[2]
                            + " audits, " + badAudits.size() + " wrong totals");
                    if (balances != null) { // every incarnation's ledger, killed ones too
                        TransferLedger.Check ledger = TransferLedger.check(ledgers, balances, BankWorkload.INITIAL);
                        committed = ledger.committed();
                        aborted = ledger.aborted();
                        unknown = ledger.unknown();
                        for (String problem : ledger.problems()) {
                            anomaly("ledger: " + problem);
                        }
                        note("ledger: " + ledger.describe());
                    } else { // the checks ended before the final balances were read
                        committed = totals[0];
                        aborted = totals[1];
                    }
                }
            } catch (RuntimeException | InterruptedException e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                error = Errors.oneLine(e);
                note("harness error: " + error);
                e.printStackTrace(log);
                if (listAppend && check == null) { // what was recorded must still be safe
                    if (cluster != null) {
                        // Stop the members first: read while their clients still write, one history can show a
                        // read of a value whose append another history has not written yet (a false G1/garbage
                        // read, seen once in 100 schedules).
                        cluster.close();
                    }
                    try {
                        // With the final reads written before the error: a lost commit they show still counts.
                        check = ListAppendChecker.check(History.read(dir));
                        lost = check.lostAcknowledged();
                        anomalies(check);
                        note("checked what was recorded: " + check.describe().replace("\n", "\n            "));
                    } catch (RuntimeException again) {
                        note("cannot check the history either: " + Errors.oneLine(again));
                    }
                }
            } finally {
                if (cluster != null) {
                    cluster.close();
                }
            }
            return new ScheduleResult(schedule, options.replicationLabel(schedule.replication()), committed, aborted,
                    unknown, byProtocol.clone(), check,
                    List.copyOf(anomalies), anomalyCount, lost, stuck, List.copyOf(failures), List.copyOf(events),
                    (System.nanoTime() - t0) / 1e9, error, dir);
        }

        // ---- liveness failures and repair ------------------------------------------------------------------

        void failure(String what) {
            failures.add(what);
            note("LIVENESS FAILURE: " + what);
        }

        /** The first error lines member {@code i} wrote (from its recent output). */
        String errorsOf(int i) {
            List<String> output = cluster.recentOutput(i);
            List<String> lines = new ArrayList<>();
            for (int k = 0; k < output.size() && lines.size() < 4; k++) { // PolyCert's own errors first
                String line = output.get(k);
                if (line.contains(" ERROR ") && line.contains("io.polycert")) {
                    lines.add(line.trim());
                    if (k + 1 < output.size() && !output.get(k + 1).trim().startsWith("at ")) {
                        lines.add(output.get(k + 1).trim()); // the exception
                    }
                }
            }
            for (String line : output) {
                if (line.contains("Terminating due to") && lines.size() < 6) {
                    lines.add(line.trim());
                }
            }
            return lines.isEmpty() ? "" : "; its errors: " + String.join(" | ", lines);
        }

        /** Replaces member {@code i} with a fresh process (it joins by state transfer). */
        void replace(int i, boolean startLoad) throws InterruptedException {
            if (cluster.live().contains(i)) {
                cluster.kill(i);
            }
            cluster.restart(i);
            restarts++;
            useOracle(i);
            if (startLoad) {
                cluster.command(i, "start " + options.threads() + " " + (schedule.seed() + 1_000L * restarts + i));
            } else {
                cluster.command(i, "workload quiesce 0");
            }
        }

        /**
         * Brings every member back into one group that applies everything: restarts members that died, heals
         * every fault, and replaces members that are not back in the group or do not apply what the others apply
         * (each a liveness failure).
         */
        void repair(boolean startLoad, long graceMs) throws InterruptedException {
            for (int i = 0; i < n; i++) {
                if (!cluster.live().contains(i)) {
                    note("restarting r" + i + ", left down by a failed fault");
                    replace(i, startLoad);
                } else if (!cluster.process(i).isAlive()) {
                    failure("r" + i + " (pid " + cluster.pid(i) + ") exited by itself" + errorsOf(i));
                    replace(i, startLoad);
                } else if (cluster.paused(i)) {
                    cluster.resume(i);
                }
            }
            for (int i : cluster.live()) {
                cluster.command(i, "fault heal");
            }
            if (awaitReformed(System.nanoTime(), graceMs) < 0) {
                Map<String, Integer> votes = new LinkedHashMap<>();
                Map<Integer, String> view = new LinkedHashMap<>();
                for (int i : cluster.live()) {
                    view.put(i, cluster.command(i, "view"));
                    votes.merge(view.get(i), 1, Integer::sum);
                }
                String majority = votes.entrySet().stream().filter(v -> v.getKey().startsWith(n + " true "))
                        .max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse("");
                for (Map.Entry<Integer, String> v : view.entrySet()) {
                    if (!v.getValue().equals(majority)) {
                        failure("r" + v.getKey() + " did not rejoin the group after the faults were healed (its view "
                                + v.getValue() + ", the others' " + majority + ")" + errorsOf(v.getKey()));
                        replace(v.getKey(), startLoad);
                    }
                }
                if (awaitReformed(System.nanoTime(), 30_000 + 3 * fd) < 0) {
                    throw new IllegalStateException("the group did not reform even after replacing members: "
                            + views());
                }
            }
            awaitApplying(startLoad);
        }

        /**
         * Waits until every member applied what the most advanced one had applied when this started; replaces
         * those that do not within 20 s (liveness failures).
         */
        void awaitApplying(boolean startLoad) throws InterruptedException {
            if (partial) {
                awaitPlacement(startLoad);
                return;
            }
            long target = 0;
            for (int i : cluster.live()) {
                target = Math.max(target, Long.parseLong(cluster.command(i, "version").trim()));
            }
            long start = System.nanoTime();
            List<Integer> behind = new ArrayList<>(cluster.live());
            while (!behind.isEmpty() && (System.nanoTime() - start) / 1_000_000 < 20_000) {
                List<Integer> still = new ArrayList<>();
                for (int i : behind) {
                    if (Long.parseLong(cluster.command(i, "version").trim()) < target) {
                        still.add(i);
                    }
                }
                behind = still;
                if (!behind.isEmpty()) {
                    Thread.sleep(POLL_MS);
                }
            }
            for (int i : behind) {
                failure("r" + i + " does not apply what the group commits (stuck at version " + cluster.command(i,
                        "version") + ", the others reached " + target + "; view " + cluster.command(i, "view") + ")"
                        + errorsOf(i));
                replace(i, startLoad);
            }
        }

        /**
         * Partial replication's {@link #awaitApplying}: waits until every member holds what it owns under the
         * newest placement (no rebalance under way). A rebalance completes only once every member took part, so
         * when one stays at an older placement the others wait for it: only that one is replaced (a liveness
         * failure), and the others are given another 20 s. Replacing the members that wait as well would lose
         * every key whose owners are all replaced before the rebalance moved it.
         */
        void awaitPlacement(boolean startLoad) throws InterruptedException {
            for (int round = 0; round < 3; round++) {
                long start = System.nanoTime();
                Map<Integer, String> placements = new LinkedHashMap<>();
                long newest = 0;
                List<Integer> older = new ArrayList<>();
                List<Integer> unready = new ArrayList<>();
                do {
                    if (!older.isEmpty() || !unready.isEmpty()) {
                        Thread.sleep(POLL_MS);
                    }
                    newest = 0;
                    for (int i : cluster.live()) { // EPOCH READY OWNEDKEYS
                        placements.put(i, cluster.command(i, "placement"));
                        newest = Math.max(newest, Long.parseLong(placements.get(i).split(" ")[0]));
                    }
                    older.clear();
                    unready.clear();
                    for (int i : cluster.live()) {
                        String[] p = placements.get(i).split(" ");
                        if (Long.parseLong(p[0]) < newest) {
                            older.add(i);
                        } else if (!p[1].equals("true")) {
                            unready.add(i);
                        }
                    }
                } while ((!older.isEmpty() || !unready.isEmpty()) && (System.nanoTime() - start) / 1_000_000 < 20_000);
                if (older.isEmpty() && unready.isEmpty()) {
                    return;
                }
                for (int i : older.isEmpty() ? unready : older) {
                    failure("r" + i + (older.isEmpty() ? " does not finish rebalancing" : " stays at an older placement"
                            + " while the others wait for it to rebalance") + " (its placement " + placements.get(i)
                            + ", the newest epoch " + newest + ", all: " + placements + "; view " + cluster.command(i,
                            "view") + "; waiting for: " + cluster.command(i, "state") + ")" + errorsOf(i));
                    replace(i, startLoad);
                }
            }
        }

        /**
         * Partial replication's final-state check, clients quiesced: every owner of each key holds the same
         * version and value ({@link OwnerCheck}). The last commits may still be on their way to some owners, so
         * it compares again for up to 30 s before reporting the keys that still differ as anomalies.
         */
        void checkOwners() throws InterruptedException {
            long maxKey = listAppend ? History.read(dir).maxKey() : -1;
            Map<Integer, String> ids = new LinkedHashMap<>();
            for (int i : cluster.live()) {
                ids.put(i, cluster.command(i, "fault id"));
            }
            long start = System.nanoTime();
            List<String> problems;
            int comparisons = 0;
            while (true) {
                Map<Integer, Path> files = new LinkedHashMap<>();
                for (int i : cluster.live()) {
                    Path file = dir.resolve("owned-m" + i + "-p" + cluster.pid(i) + ".txt");
                    cluster.command(i, "owned " + file + " " + maxKey);
                    files.put(i, file);
                }
                problems = OwnerCheck.compare(files, ids);
                comparisons++;
                if (problems.isEmpty() || (System.nanoTime() - start) / 1_000_000 > 30_000) {
                    break;
                }
                Thread.sleep(500);
            }
            if (problems.isEmpty()) {
                note("every key's owners agree (" + comparisons + " comparison(s))");
                return;
            }
            note("owners still disagree on " + problems.size() + " keys after " + comparisons + " comparisons");
            for (String p : problems) { // one anomaly per key (the report prints the first ten)
                anomaly("owners disagree after healing: " + p);
            }
        }

        // ---- faults -------------------------------------------------------------------------------------------

        EventResult inject(Event e) throws InterruptedException {
            switch (e.type()) {
                case KILL:
                    return kill(e, false);
                case JOIN:
                    return kill(e, true);
                case PAUSE:
                    return pause(e);
                case PARTITION:
                    return partition(e);
                case LOSS:
                case DELAY:
                    return degrade(e);
                default:
                    throw new AssertionError(e.type());
            }
        }

        /** KILL: SIGKILL, then a fresh process. JOIN: a graceful leave, then a fresh process joins under load. */
        EventResult kill(Event e, boolean graceful) throws InterruptedException {
            int t = e.targets().get(0);
            ProcessHandle process = cluster.process(t);
            long pid = process.pid();
            if (graceful) {
                cluster.exit(t);
            } else {
                cluster.kill(t);
            }
            boolean gone = !process.isAlive();
            long excluded = awaitViews(n - 1, 30_000 + 3 * fd);
            StringBuilder evidence = new StringBuilder("r" + t + " pid " + pid + (gone ? " is gone" : " IS ALIVE"))
                    .append(excluded >= 0 ? ", survivors excluded it after " + excluded + " ms"
                            : ", survivors did not install a view without it");
            Thread.sleep(e.holdMs());
            long heal = System.nanoTime();
            cluster.restart(t);
            restarts++;
            long restartMs = (System.nanoTime() - heal) / 1_000_000;
            useOracle(t);
            cluster.command(t, "start " + options.threads() + " " + (schedule.seed() + 1_000L * restarts + t));
            evidence.append("; new pid ").append(cluster.pid(t)).append(" joined after ").append(restartMs)
                    .append(" ms");
            long reform = awaitReformed(heal, 60_000);
            long commit = awaitCommit(t, 0, heal, 60_000);
            return new EventResult(e, gone && excluded >= 0, evidence.toString(), reform, commit);
        }

        EventResult pause(Event e) throws InterruptedException {
            int t = e.targets().get(0);
            long pid = cluster.pid(t);
            long before = committedAt(t);
            cluster.pause(t);
            char state = processState(pid);
            for (int i = 0; i < 100 && state != 'T'; i++) { // the signal is delivered asynchronously
                Thread.sleep(10);
                state = processState(pid);
            }
            long start = System.nanoTime();
            long excluded = -1;
            long[] othersBefore = progress(); // the paused member is left out
            long lastCommitMs = 0;
            long previous = committedIn(othersBefore);
            while ((System.nanoTime() - start) / 1_000_000 < e.holdMs()) {
                if (excluded < 0 && viewsAtLeastOne(n - 1)) {
                    excluded = (System.nanoTime() - start) / 1_000_000;
                }
                long now = committedIn(progress());
                if (now > previous) {
                    lastCommitMs = (System.nanoTime() - start) / 1_000_000;
                    previous = now;
                }
                Thread.sleep(POLL_MS);
            }
            long othersCommitted = previous - committedIn(othersBefore);
            long heal = System.nanoTime();
            cluster.resume(t);
            String evidence = "r" + t + " pid " + pid + " state '" + state + "' while paused for " + e.holdMs()
                    + " ms" + (excluded >= 0 ? ", excluded by the others after " + excluded + " ms"
                            : ", never excluded") + "; the others committed " + othersCommitted
                    + " meanwhile, the last " + lastCommitMs + " ms into the pause";
            if (e.holdMs() > 2 * fd + 1000 && excluded < 0 && e.holdMs() - lastCommitMs > 2 * fd) {
                failure(e + ": the others stopped committing " + lastCommitMs + " ms into the pause and never"
                        + " excluded the stopped member (failure detection " + fd + " ms)");
            }
            long reform = awaitReformed(heal, 12_000 + 3 * fd);
            long commit = reform < 0 ? -1 : awaitCommit(t, before, heal, 20_000);
            return new EventResult(e, state == 'T', evidence, reform, commit);
        }

        EventResult partition(Event e) throws InterruptedException {
            List<Integer> minority = e.targets();
            List<Integer> majority = new ArrayList<>();
            Map<Integer, String> ids = new LinkedHashMap<>();
            for (int i : cluster.live()) {
                ids.put(i, cluster.command(i, "fault id"));
                if (!minority.contains(i)) {
                    majority.add(i);
                }
            }
            long before = committedAt(minority.get(0));
            StringBuilder minorityIds = new StringBuilder();
            StringBuilder majorityIds = new StringBuilder();
            for (int i : minority) {
                minorityIds.append(' ').append(ids.get(i));
            }
            for (int i : majority) {
                majorityIds.append(' ').append(ids.get(i));
            }
            for (int i : minority) {
                cluster.command(i, "fault ignore" + majorityIds);
            }
            for (int i : majority) {
                cluster.command(i, "fault ignore" + minorityIds);
            }
            long start = System.nanoTime();
            long seen = -1;
            String minorityView = "";
            while ((System.nanoTime() - start) / 1_000_000 < 30_000 + 5 * fd) {
                minorityView = cluster.command(minority.get(0), "view");
                if (minorityView.contains(" false ")) {
                    seen = (System.nanoTime() - start) / 1_000_000;
                    break;
                }
                Thread.sleep(POLL_MS);
            }
            String majorityView = cluster.command(majority.get(0), "view");
            Thread.sleep(e.holdMs());
            String views = cluster.command(minority.get(0), "fault views");
            long heal = System.nanoTime();
            for (int i : cluster.live()) {
                cluster.command(i, "fault heal");
            }
            String evidence = "minority " + minority + (seen >= 0 ? " installed a minority view (" + minorityView
                    + ") after " + seen + " ms" : " never installed a minority view (" + minorityView + ")")
                    + ", majority view " + majorityView + ", minority view log " + views;
            if (partial && minority.size() >= options.degree()) {
                // Not hidden, only explained: such keys are lost by design, like degree members crashing at once.
                evidence += "; the minority is as large as the replication degree (" + options.degree() + "), so keys"
                        + " owned only by its members exceed the tolerance of degree - 1 failures";
            }
            long reform = awaitReformed(heal, 12_000 + 3 * fd);
            long commit = reform < 0 ? -1 : awaitCommit(minority.get(0), before, heal, 20_000);
            return new EventResult(e, seen >= 0, evidence, reform, commit);
        }

        /** LOSS and DELAY. */
        EventResult degrade(Event e) throws InterruptedException {
            String command = e.type() == Type.LOSS
                    ? String.format(Locale.ROOT, "fault loss %.3f %.3f", e.lossUp(), e.lossDown())
                    : "fault delay " + e.delayMs() + " " + e.jitterMs();
            long[] before = progress();
            long[] countersBefore = counters(e.targets());
            for (int i : e.targets()) {
                cluster.command(i, command);
            }
            Thread.sleep(e.holdMs());
            long[] during = progress();
            long[] counters = counters(e.targets());
            for (int k = 0; k < counters.length; k++) {
                counters[k] -= countersBefore[k];
            }
            long heal = System.nanoTime();
            long committedDuring = Math.max(0, committedIn(during) - committedIn(before));
            int t = e.targets().get(0);
            long atTarget = committedAt(t);
            for (int i : e.targets()) {
                cluster.command(i, "fault heal");
            }
            // Seen to take effect: messages dropped (loss) or held back (delay) at the members it hit.
            boolean took = e.type() == Type.LOSS ? counters[0] + counters[1] > 0 : counters[2] > 0;
            String evidence = "'" + command + "' at " + e.targets() + ": " + (e.type() == Type.LOSS
                    ? "dropped " + counters[0] + " messages sent and " + counters[1] + " received"
                    : "delayed " + counters[2] + " messages") + "; " + committedDuring + " commits in " + e.holdMs()
                    + " ms meanwhile";
            long reform = awaitReformed(heal, 60_000 + 3 * fd);
            long commit = awaitCommit(t, atTarget, heal, 60_000);
            return new EventResult(e, took, evidence, reform, commit);
        }

        /** The sum over {@code members} of their {@code fault counters}. */
        long[] counters(List<Integer> members) {
            long[] sum = new long[3];
            for (int i : members) {
                String[] c = cluster.command(i, "fault counters").trim().split(" ");
                for (int k = 0; k < sum.length; k++) {
                    sum[k] += Long.parseLong(c[k]);
                }
            }
            return sum;
        }

        // ---- the end ------------------------------------------------------------------------------------------

        /** Heals, reforms, quiesces, waits for equal versions, checks and reads at the end. */
        long[] finish(int[] stuck) throws InterruptedException {
            for (int i = 0; i < n; i++) {
                if (cluster.paused(i)) {
                    cluster.resume(i);
                }
            }
            for (int i : cluster.live()) {
                cluster.command(i, "fault heal");
            }
            repair(true, 20_000 + 3 * fd);
            note("group reformed (" + views() + ")");
            long[] totals = new long[3];
            for (int i : cluster.live()) {
                String inFlight = cluster.command(i, "workload quiesce 20000");
                stuck[0] += Integer.parseInt(inFlight.trim());
                String[] stats = cluster.command(i, "workload stats").trim().split(" ");
                if (!listAppend) { // AUDITS BAD TRANSFERS ABORTED ERRORS INFLIGHT LIES
                    totals[0] += Long.parseLong(stats[2]);
                    totals[1] += Long.parseLong(stats[3]);
                    totals[2] += Long.parseLong(stats[0]);
                    long unrecorded = AuditedBankWorkload.unrecordedBadAudits(dir, i, cluster.pid(i),
                            Long.parseLong(stats[1]));
                    if (unrecorded > 0) { // the member could not write them down: count them all the same
                        anomalies.add("wrong audit totals: r" + i + " counted " + unrecorded
                                + " that its audit file lacks (see its stderr)");
                        anomalyCount += unrecorded;
                    }
                }
            }
            long[] p = cluster.progress();
            for (Protocol protocol : Protocol.values()) {
                byProtocol[protocol.ordinal()] = p[1 + protocol.ordinal()];
            }
            note("clients quiesced (" + stuck[0] + " operations still waiting); NVC/BFC/VC " + byProtocol[0] + "/"
                    + byProtocol[1] + "/" + byProtocol[2]);
            awaitApplying(false);
            if (partial) {
                checkOwners();
            }
            List<Long> digests = null;
            try {
                digests = cluster.check(); // waits for equal versions, checks the invariants
            } catch (IllegalStateException e) {
                String message = String.valueOf(e.getMessage());
                if (!message.contains("' failed: ")) {
                    throw e; // not an invariant the member found broken
                }
                anomaly("invariant check failed: " + Errors.oneLine(e));
                if (partial || !message.contains("'check' failed: ")) {
                    // An await timed out: members' versions differ, and a stale member's final read would report
                    // commits it has not applied yet as lost.
                    return totals;
                }
                // Every member reached the same version and one found an invariant broken: the final reads still
                // show lost commits, which the history alone cannot.
            }
            if (digests != null && digests.stream().distinct().count() != 1) {
                anomaly("members' state digests differ after applying everything: " + digests);
            }
            if (!listAppend) {
                ledgers = TransferLedger.snapshot(dir); // first: a transfer still running stays unknown
                String[] b = cluster.command(cluster.live().get(0), "workload balances").trim().split(" ");
                balances = java.util.Arrays.stream(b).mapToLong(Long::parseLong).toArray();
            }
            if (listAppend) {
                long maxKey = History.read(dir).maxKey();
                List<String> finalDigests = new ArrayList<>();
                finalReadsAsked = cluster.live().size();
                for (int i : cluster.live()) {
                    Path file = dir.resolve("final-m" + i + "-p" + cluster.pid(i) + ".txt");
                    finalDigests.add(cluster.command(i, "workload final-read " + file + " " + maxKey).split(" ")[0]);
                }
                if (finalDigests.stream().distinct().count() != 1) {
                    anomaly("final reads differ between members: " + finalDigests);
                }
                note("final reads at " + cluster.live().size() + " members, digests " + (finalDigests.stream()
                        .distinct().count() == 1 ? "equal" : "DIFFER " + finalDigests));
            }
            return totals;
        }

        // ---- observing ----------------------------------------------------------------------------------------

        String views() {
            StringBuilder sb = new StringBuilder();
            for (int i : cluster.live()) {
                if (!cluster.paused(i)) {
                    sb.append(sb.length() == 0 ? "" : ", ").append("r").append(i).append(": ")
                            .append(cluster.command(i, "view"));
                }
            }
            return sb.toString();
        }

        /** Milliseconds until every live member is in a primary view of {@code size}, or -1. */
        long awaitViews(int size, long timeoutMs) throws InterruptedException {
            long start = System.nanoTime();
            while ((System.nanoTime() - start) / 1_000_000 < timeoutMs) {
                boolean all = true;
                for (int i : cluster.live()) {
                    if (cluster.paused(i)) {
                        continue;
                    }
                    String[] v = cluster.command(i, "view").split(" ");
                    if (Integer.parseInt(v[0]) != size || !v[1].equals("true")) {
                        all = false;
                        break;
                    }
                }
                if (all) {
                    return (System.nanoTime() - start) / 1_000_000;
                }
                Thread.sleep(POLL_MS);
            }
            return -1;
        }

        /** True if some live member (not paused) is in a primary view of {@code size}. */
        boolean viewsAtLeastOne(int size) {
            for (int i : cluster.live()) {
                if (!cluster.paused(i)) {
                    String[] v = cluster.command(i, "view").split(" ");
                    if (Integer.parseInt(v[0]) == size && v[1].equals("true")) {
                        return true;
                    }
                }
            }
            return false;
        }

        /** Milliseconds from {@code heal} until all members are in one primary view again, or -1. */
        long awaitReformed(long heal, long timeoutMs) throws InterruptedException {
            while ((System.nanoTime() - heal) / 1_000_000 < timeoutMs) {
                String epoch = null;
                boolean all = cluster.live().size() == n;
                for (int i : cluster.live()) {
                    if (!all) {
                        break;
                    }
                    String[] v = cluster.command(i, "view").split(" ");
                    all = Integer.parseInt(v[0]) == n && v[1].equals("true") && (epoch == null || epoch.equals(v[2]));
                    epoch = v[2];
                }
                if (all) {
                    return (System.nanoTime() - heal) / 1_000_000;
                }
                Thread.sleep(POLL_MS);
            }
            return -1;
        }

        /** Client commits so far at member {@code i} (list-append: operations; bank: transfers). */
        long committedAt(int i) {
            String[] s = cluster.command(i, "workload stats").trim().split(" ");
            return Long.parseLong(listAppend ? s[1] : s[2]);
        }

        /** Milliseconds from {@code heal} until member {@code i} commits beyond {@code before}, or -1. */
        long awaitCommit(int i, long before, long heal, long timeoutMs) throws InterruptedException {
            while ((System.nanoTime() - heal) / 1_000_000 < timeoutMs) {
                if (committedAt(i) > before) {
                    return (System.nanoTime() - heal) / 1_000_000;
                }
                Thread.sleep(POLL_MS / 5);
            }
            return -1;
        }

        long[] progress() {
            return cluster.progress();
        }

        /**
         * Commits in a {@link ProcessCluster#progress()} sum: NVC + BFC + VC under full replication (its first
         * count includes idle client turns), the clients' commits under partial replication (no NVC/BFC/VC).
         */
        long committedIn(long[] p) {
            return partial ? p[0] : p[1] + p[2] + p[3];
        }

        static void sleepUntil(long start, long offsetMs) throws InterruptedException {
            long wait = offsetMs - (System.nanoTime() - start) / 1_000_000;
            if (wait > 0) {
                Thread.sleep(wait);
            }
        }

        /** The state letter of a Linux process ('T' when stopped), or '?' if it cannot be read. */
        static char processState(long pid) {
            try {
                String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
                int close = stat.lastIndexOf(')');
                return close > 0 && close + 2 < stat.length() ? stat.charAt(close + 2) : '?';
            } catch (IOException | RuntimeException e) {
                return '?';
            }
        }
    }

    /** Exceptions as one line. */
    private static final class Errors {
        static String oneLine(Throwable e) {
            String m = e.getMessage();
            String text = m == null ? e.toString() : e.getClass().getSimpleName() + ": " + m;
            return text.replace('\r', ' ').replace('\n', ' ');
        }
    }
}
