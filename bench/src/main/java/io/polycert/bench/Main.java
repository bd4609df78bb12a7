package io.polycert.bench;

import io.polycert.bench.local.LocalBankDemo;
import io.polycert.bench.local.LocalStmComparison;
import io.polycert.bench.replicated.SwitchingBenchmark;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Command-line entry point of the benchmarks.
 *
 * <pre>
 * polycert-bench [command] [--option value ...]
 * </pre>
 */
public final class Main {
    private static final Map<String, String> COMMANDS = Args.describe(
            "demo", "(default) bank transfers on 3 in-JVM replicas, NVC/BFC/VC by read-set size, progress line",
            "local-demo", "bank transfers on one embedded (not replicated) STM",
            "bank", "replicated Bank benchmark: NVC vs BFC vs VC for read-sets of 1 to 100,000 (paper's Fig. 2)",
            "bank-vs-infinispan", "R = 1 bank transfers: PolyCert vs Infinispan embedded (its own JVM), turns"
                    + " alternating, plus the raw atomic broadcast rate",
            "stm-compare", "local STM bank benchmark: PolyCert vs ScalaSTM vs Multiverse, three mixes",
            "broadcast", "atomic broadcast: PolyCert uniform AB vs JGroups SEQUENCER vs raw multicast, 100 B to 1 MB",
            "multicast", "total-order multicast: TOM-3 vs TOM-2 latency and messages, 2/3/5 destinations",
            "oracle", "adaptive oracles (UCB, DistUCB, decision tree) vs static protocols as the read-set switches",
            "oracle-query", "JMH: the cost of one oracle query (UCB, DistUCB, decision tree, model-tree prediction)",
            "radargun", "partial replication, Radargun-style: TOM-3 vs TOM-2 vs 2PC, 1,000 / 100,000 keys, degree 2 / 4",
            "kv-spread", "partial replication, seed 002's increments on Gaussian keys: throughput against spread",
            "stmbench7", "STMBench7 on replicated PolyCert: static protocols vs adaptive oracles per mix (Fig. 8)",
            "run", "any workload (--workload) with any contenders, in-JVM or as member processes",
            "charts", "regenerates every chart of docs/RESULTS.md (bank, oracle, STMBench7) into --out",
            "faults", "fault-injection campaign over member processes: seeded kill/pause/partition/loss/delay/join"
                    + " schedules, histories checked for anomalies and lost commits");
    private static final Map<String, String> OPTIONS = Args.describe(
            "threads", "worker threads (per replica in replicated commands; default 1, radargun 8, local ones 2)",
            "replicas", "demo, bank: replicas in this JVM (default 3); bank-vs-infinispan: members of each store"
                    + " (default 3); radargun: members (default 4); faults: member"
                    + " processes, 3 to 5, or 0 for 3 to 5 picked by each schedule's seed (default 3)",
            "keys", "radargun: key counts, comma-separated (default 1000,100000)",
            "degrees", "radargun: replication degrees, comma-separated (default 2,4)",
            "level", "radargun, kv-spread: read-committed, repeatable-read, write-skew-check (radargun default) or"
                    + " serializable (kv-spread default)",
            "read-sets", "bank, oracle: read-set sizes, comma-separated (default 1,10,100,1000,10000,100000 /"
                    + " 1,10,1000,100000)",
            "phase", "oracle: seconds per phase and contender (default 12)",
            "slices", "oracle: turns each contender takes per phase, in a new shuffled order each round (default 3)",
            "twins", "oracle: run every static protocol twice, the second time as twin-<protocol>, left out of the best"
                    + " static protocol, to show what the benchmark's noise allows a perfect oracle (true or false,"
                    + " default false)",
            "wall-clock", "oracle: also run DistUCB on the wall clock as dist-ucb-wall (every adaptive oracle reads a"
                    + " clock that runs during its own turns only; true or false, default false)",
            "shadows", "oracle: also run DistUCB and the decision tree as shadow-<name>, doing all their work while every"
                    + " transaction commits by NVC: against static-nvc, what the oracle's own work costs (true or false,"
                    + " default false)",
            "epoch-commits", "oracle: also run DistUCB with epochs of at least this many commits, as"
                    + " dist-ucb-<N> (default 0: not run; DistUCB's own default is 32)",
            "peer", "bank-vs-infinispan: the Infinispan peer's build directory (default bench/infinispan-peer/target)",
            "training", "oracle: seconds of training-sample collection per protocol and read-set (default 3)",
            "out", "directory for results: CSV, JSON, charts (default target/<command>; oracle: target/oracle-switching)",
            "conflicts", "bank: random (default) or disjoint (each client thread its own accounts: no conflicts)",
            "ids", "bank: dense (default: consecutive box ids, about 1 byte per read in NVC's message) or scattered"
                    + " (named roots with hashed ids, as a TxMap's keys: several bytes per read)",
            "writes", "bank: percentage of transactions that transfer; kv-spread: percentage of commands that"
                    + " increment (default 100); the others are read-only",
            "apply-threads", "kv-spread: apply threads per member to compare, comma-separated, 0 for off"
                    + " (default 0,2)",
            "accounts", "bank accounts (default 1000; oracle: 100000, and at least the largest read-set)",
            "seconds", "demo: run time (default 10); others: measured seconds per turn (bank 2; stmbench7, run and"
                    + " bank-vs-infinispan 5)",
            "rounds", "turns per contender, interleaved (bank, stmbench7: 2; stm-compare 5; broadcast,"
                    + " bank-vs-infinispan and radargun 3; run 1)",
            "sizes", "broadcast: payload sizes in bytes, comma-separated (default 100,1000,10000,100000,1000000)",
            "warmup", "warm-up seconds before each measured turn (default 1)",
            "seed", "stmbench7, run: clients' random seed (default 42)",
            "settle", "bank, stmbench7, run: unmeasured seconds of load before the first turn (default 0); radargun:"
                    + " per contender, before the first configuration (default 5); bank-vs-infinispan: on each store"
                    + " before the first round (default 10)",
            "schedules", "faults: randomized fault schedules to run (default 3)",
            "faults", "faults: fault types, comma-separated (default kill,pause,partition,loss,delay,join)",
            "replication", "faults: full (default), partial, or mixed (each schedule's seed picks full or partial)",
            "protocol", "faults: partial replication's commit protocol, total-order (default) or two-phase-commit",
            "degree", "faults: partial replication's owners per key, 1 to 3 (default 2)",
            "oracle", "faults: what full-replication members certify with: mixed (default: NVC, BFC or VC at random"
                    + " for each transaction), ucb, dist-ucb, dist-ucb-gossip, threshold, decision-tree, nvc, bfc"
                    + " or vc",
            "echo", "faults: copy every member process's output (its log) to stderr, each line prefixed [rN]"
                    + " (true or false, default false)",
            "keep", "faults: keep every schedule's history (the clients' operations, final reads and owned keys)"
                    + " under this directory, clean ones too (default: only those not clean, under a temporary"
                    + " directory)",
            "network", "bank, oracle, stmbench7, run, broadcast, radargun: the network in-JVM members emulate: none"
                    + " (default), gigabit (1,000 Mbit/s, 50 us one way: Gigabit Ethernet, the paper's platform) or"
                    + " like 100mbit/200us (10 to 1,000,000 Mbit/s, at most 100,000 us)",
            "runner", "stmbench7, run: jvm (replicas in this JVM, default) or processes (one JVM each, TCP)",
            "contenders", "stmbench7, run: protocols and oracles, comma-separated (default nvc,bfc,vc,ucb,dist-ucb,"
                    + "decision-tree; also threshold, ucb1); bank-vs-infinispan: PolyCert's (default dist-ucb,nvc);"
                    + " radargun: tom-3, tom-2, 2pc (default all three)",
            "preset", "stmbench7: small (CI smoke) or full (STMBench7's sizes; default small)",
            "mixes", "stmbench7: read-dominated, read-write, write-dominated, comma-separated (default all three)",
            "long", "stmbench7: long traversals on (true, default) or off",
            "sm", "stmbench7: structure modifications on (true, default) or off",
            "disjoint", "stm-compare: each thread transfers among its own share of the accounts (true or false,"
                    + " default false)",
            "clocked-peer", "stm-compare: adds Multiverse with a shared counter read at each begin and incremented at"
                    + " each commit, and Multiverse reading the system clock at both, to measure what a global version"
                    + " clock or a hardware time base costs (true or false, default false)",
            "workload", "run: a workload spec, e.g. bank:accounts=1000,readSet=100 or"
                    + " stmbench7:preset=small,mix=write-dominated,long=true,sm=true");

    private Main() {
    }

    public static void main(String[] argv) {
        int status = 1;
        try {
            status = run(argv, System.out, System.err);
        } catch (Throwable t) {
            t.printStackTrace();
        } finally {
            System.exit(status); // always: JGroups threads must not keep a failed run alive
        }
    }

    static int run(String[] argv, PrintStream out, PrintStream err) {
        List<String> args = Arrays.asList(argv);
        String command = "demo";
        if (!args.isEmpty() && !args.get(0).startsWith("--")) {
            command = args.get(0);
            args = args.subList(1, args.size());
        }
        if (command.equals("help") || args.contains("--help") || args.contains("-h")) {
            usage(out);
            return 0;
        }
        try {
            Args parsed = new Args(args, OPTIONS.keySet());
            int threads = parsed.intValue("threads", 2, 1, 1024); // local commands
            int accounts = parsed.intValue("accounts", 1000, 2, 100_000_000);
            if (parsed.string("network", null) != null && !java.util.Set.of("bank", "oracle", "stmbench7", "run",
                    "broadcast", "radargun").contains(command)) {
                throw new Args.UsageException("--network applies to bank, oracle, stmbench7, run, broadcast and"
                        + " radargun, not " + command);
            }
            switch (command) {
                case "demo" -> new io.polycert.bench.replicated.ReplicatedBankDemo(parsed.intValue("replicas", 3, 1, 16),
                        parsed.intValue("threads", 1, 1, 64), accounts, parsed.doubleValue("seconds", 10, 0.1, 86_400),
                        out).run();
                case "local-demo" -> new LocalBankDemo(threads, accounts, parsed.doubleValue("seconds", 5, 0.1, 86_400),
                        out).run();
                case "bank" -> {
                    io.polycert.bench.workload.BankWorkload.Conflicts conflicts;
                    io.polycert.bench.workload.BankWorkload.Ids ids;
                    try {
                        conflicts = io.polycert.bench.workload.BankWorkload.Conflicts.fromName(
                                parsed.string("conflicts", "random"));
                    } catch (IllegalArgumentException e) {
                        throw new Args.UsageException("--conflicts: " + e.getMessage());
                    }
                    try {
                        ids = io.polycert.bench.workload.BankWorkload.Ids.fromName(parsed.string("ids", "dense"));
                    } catch (IllegalArgumentException e) {
                        throw new Args.UsageException("--ids: " + e.getMessage());
                    }
                    new io.polycert.bench.replicated.BankBenchmark(new io.polycert.bench.replicated.BankBenchmark
                            .Options(runner(parsed), parsed.intValue("replicas", 3, 1, 16), parsed.intList(
                                    "read-sets", new int[] {1, 10, 100, 1_000, 10_000, 100_000}, 1, 1_000_000),
                            accounts, parsed.intValue("writes", 100, 0, 100), conflicts, ids, runOptions(parsed,
                                    java.util.List.of("nvc", "bfc", "vc"), 1, 1, 2, 2), java.nio.file.Path.of(
                                    parsed.string("out", "target/bank")), network(parsed)), out).run();
                }
                case "bank-vs-infinispan" -> new io.polycert.bench.replicated.BankVsInfinispan(
                        new io.polycert.bench.replicated.BankVsInfinispan.Options(parsed.intValue("replicas", 3, 1,
                                16), accounts, parsed.stringList("contenders", java.util.List.of("dist-ucb", "nvc"),
                                io.polycert.bench.workload.Contenders.NAMES), parsed.doubleValue("warmup", 1, 0, 3600),
                                parsed.doubleValue("seconds", 5, 0.1, 86_400), parsed.intValue("rounds", 3, 1, 1000),
                                parsed.doubleValue("settle", 10, 0, 3600), java.nio.file.Path.of(parsed.string("peer", io.polycert.bench.replicated
                                        .BankVsInfinispan.defaultPeerBuild().toString())),
                                java.nio.file.Path.of(parsed.string("out", "target/bank-vs-infinispan"))), out).run();
                case "oracle" -> {
                    SwitchingBenchmark.Options d = SwitchingBenchmark.Options.defaults();
                    new SwitchingBenchmark(new SwitchingBenchmark.Options(parsed.intValue("replicas", 3, 1, 16),
                            parsed.intValue("threads", 1, 1, 64), parsed.intValue("accounts", d.accounts(), 2,
                                    10_000_000), parsed.intList("read-sets", d.readSets(), 1,
                                    1_000_000), parsed.doubleValue("phase", d.phaseSeconds(), 1, 3600),
                            parsed.intValue("slices", d.slices(), 1, 3600),
                            parsed.doubleValue("training", d.trainingSeconds(), 0, 3600), d.gossipInterval(),
                            java.nio.file.Path.of(parsed.string("out", d.output().toString())), network(parsed),
                            parsed.flag("twins"), parsed.flag("wall-clock"), parsed.intValue("epoch-commits", 0, 0,
                                    1_000_000), parsed.flag("shadows")), out).run();
                }
                case "oracle-query" -> new org.openjdk.jmh.runner.Runner(new org.openjdk.jmh.runner.options
                        .OptionsBuilder().include(io.polycert.bench.oracle.OracleQueryBenchmark.class.getSimpleName())
                        .jvmArgs("-Xmx1g").build()).run();
                case "stm-compare" -> new LocalStmComparison(new LocalStmComparison.Options(threads, accounts,
                        parsed.doubleValue("warmup", 1, 0, 3600), parsed.doubleValue("seconds", 2, 0.1, 3600),
                        parsed.intValue("rounds", 5, 1, 1000), parsed.flag("disjoint"), parsed.flag("clocked-peer")),
                        out).run();
                case "broadcast" -> new io.polycert.bench.gcs.BroadcastBenchmark(
                        new io.polycert.bench.gcs.BroadcastBenchmark.Options(3, parsed.intList("sizes",
                                new int[] {100, 1_000, 10_000, 100_000, 1_000_000}, 1, 16_000_000),
                                parsed.doubleValue("warmup", 1, 0, 3600), parsed.doubleValue("seconds", 3, 0.1, 3600),
                                parsed.intValue("rounds", 3, 1, 100), network(parsed)), out).run();
                case "multicast" -> new io.polycert.bench.gcs.MulticastBenchmark(
                        new io.polycert.bench.gcs.MulticastBenchmark.Options(5, new int[] {2, 3, 5},
                                parsed.doubleValue("seconds", 3, 0.1, 3600)), out).run();
                case "radargun" -> {
                    io.polycert.bench.partial.RadargunBenchmark.Options d =
                            io.polycert.bench.partial.RadargunBenchmark.Options.defaults();
                    java.util.List<io.polycert.bench.partial.RadargunBenchmark.Row> rows =
                            new io.polycert.bench.partial.RadargunBenchmark(new io.polycert.bench.partial.RadargunBenchmark
                            .Options(parsed.intValue("replicas", d.members(), 1, 16), parsed.intValue("threads",
                                    d.threadsPerMember(), 1, 64), parsed.intList("keys", d.keyCounts(), 2,
                                    10_000_000), parsed.intList("degrees", d.degrees(), 1, 16), level(parsed.string(
                                    "level", "write-skew-check")), radargunContenders(parsed), d.operations(),
                            d.writeRatio(),
                            parsed.doubleValue("warmup", d.warmupSeconds(), 0, 3600), parsed.doubleValue("seconds",
                                    d.seconds(), 0.1, 3600), parsed.intValue("rounds", d.rounds(), 1, 100),
                            parsed.doubleValue("settle", d.settleSeconds(), 0, 3600), network(parsed)), out).run();
                    java.nio.file.Path dir = java.nio.file.Path.of(parsed.string("out", "target/radargun"));
                    io.polycert.bench.partial.RadargunBenchmark.writeReport(rows, dir);
                    out.println("results: " + dir.resolve("radargun.csv") + ", .json");
                }
                case "kv-spread" -> {
                    io.polycert.bench.partial.KeyValueSpreadBenchmark.Options d =
                            io.polycert.bench.partial.KeyValueSpreadBenchmark.Options.defaults();
                    java.util.List<io.polycert.bench.partial.KeyValueSpreadBenchmark.Row> rows =
                            new io.polycert.bench.partial.KeyValueSpreadBenchmark(new io.polycert.bench.partial
                            .KeyValueSpreadBenchmark.Options(parsed.intValue("replicas", d.members(), 1, 16),
                            parsed.intValue("threads", d.threadsPerMember(), 1, 64), d.keys(), d.spreads(),
                            parsed.intValue("writes", (int) Math.round(d.writeRatio() * 100), 0, 100) / 100.0,
                            level(parsed.string("level", "serializable")), d.contenders(),
                            parsed.intList("apply-threads", d.applyThreads(), 0, 64),
                            parsed.doubleValue("warmup", d.warmupSeconds(), 0, 3600), parsed.doubleValue("seconds",
                                    d.seconds(), 0.1, 3600)), out).run();
                    java.nio.file.Path dir = java.nio.file.Path.of(parsed.string("out", "target/kv-spread"));
                    io.polycert.bench.partial.KeyValueSpreadBenchmark.writeReport(rows, dir);
                    out.println("results: " + dir.resolve("kv-spread.csv") + ", .json");
                }
                case "stmbench7" -> new io.polycert.bench.replicated.Stmbench7Benchmark(
                        new io.polycert.bench.replicated.Stmbench7Benchmark.Options(runner(parsed),
                                parsed.intValue("replicas", 3, 1, 16), parsed.intValue("threads", 1, 1, 64),
                                parsed.string("preset", "small"), parsed.stringList("mixes", MIXES, MIXES),
                                booleanValue(parsed, "long", true), booleanValue(parsed, "sm", true),
                                runOptions(parsed, 1, 1, 5, 2), java.nio.file.Path.of(parsed.string("out",
                                        "target/stmbench7")), network(parsed)), out).run();
                case "run" -> {
                    io.polycert.bench.workload.Workload workload;
                    try {
                        workload = io.polycert.bench.workload.Workloads.fromSpec(parsed.string("workload",
                                "bank:accounts=1000,readSet=10"));
                    } catch (IllegalArgumentException e) {
                        throw new Args.UsageException("--workload: " + e.getMessage());
                    }
                    int replicas = parsed.intValue("replicas", 3, 1, 16);
                    io.polycert.bench.replicated.ClusterKind kind = runner(parsed);
                    try (io.polycert.bench.workload.BenchCluster cluster = kind.start(replicas, workload,
                            network(parsed))) {
                        cluster.populate();
                        java.util.List<io.polycert.bench.report.RunResult> results =
                                new io.polycert.bench.workload.Runner(cluster, workload, runOptions(parsed, 1, 1, 5,
                                        1), java.util.Map.of("replicas", Integer.toString(replicas)), out).run();
                        java.nio.file.Path dir = java.nio.file.Path.of(parsed.string("out", "target/run"));
                        io.polycert.bench.report.ReportWriter.write(results, dir, workload.name());
                        for (io.polycert.bench.report.RunResult r : results) {
                            out.printf(java.util.Locale.ROOT, "%-14s %10.0f tx/s  aborts %5.1f%%  p50 %8.0f us"
                                    + "  p99 %8.0f us  %8.0f bytes/tx%n", r.contender(), r.committedPerSecond(),
                                    100 * r.abortRate(), r.p50Micros(), r.p99Micros(), r.bytesPerTransaction());
                        }
                        out.println("(invariants and equal state checked at every member; results in " + dir + ")");
                    }
                }
                case "charts" -> {
                    // Every chart of docs/RESULTS.md, each from its own benchmark with the settings RESULTS.md
                    // gives (the oracle benchmark in 12 slices: 3, its default, cannot resolve a few percent).
                    String dir = parsed.string("out", "target/charts");
                    for (String[] sub : new String[][] {{"bank"}, {"oracle", "--slices", "12"}, {"stmbench7"}}) {
                        String[] a = java.util.stream.Stream.concat(java.util.Arrays.stream(sub), java.util.stream
                                .Stream.of("--out", java.nio.file.Path.of(dir, sub[0]).toString()))
                                .toArray(String[]::new);
                        out.println("== " + String.join(" ", a));
                        int status = run(a, out, err);
                        if (status != 0) {
                            return status;
                        }
                    }
                }
                case "faults" -> {
                    io.polycert.bench.faults.FaultCampaign.Options d =
                            io.polycert.bench.faults.FaultCampaign.Options.defaults();
                    java.util.List<String> typeNames = new java.util.ArrayList<>();
                    for (io.polycert.bench.faults.FaultSchedule.Type t
                            : io.polycert.bench.faults.FaultSchedule.Type.values()) {
                        typeNames.add(t.name().toLowerCase(java.util.Locale.ROOT));
                    }
                    java.util.List<io.polycert.bench.faults.FaultSchedule.Type> types = new java.util.ArrayList<>();
                    for (String t : parsed.stringList("faults", typeNames, typeNames)) {
                        types.add(io.polycert.bench.faults.FaultSchedule.Type.valueOf(t.toUpperCase(
                                java.util.Locale.ROOT)));
                    }
                    String replication = oneOf(parsed, "replication", "full", "partial", "mixed");
                    java.util.List<io.polycert.bench.faults.Replication> replications = replication.equals("mixed")
                            ? java.util.List.of(io.polycert.bench.faults.Replication.values())
                            : java.util.List.of(io.polycert.bench.faults.Replication.fromName(replication));
                    String protocol = oneOf(parsed, "protocol", "total-order", "two-phase-commit");
                    String oracle = oneOf(parsed, "oracle", "mixed", "ucb", "dist-ucb", "dist-ucb-gossip",
                            "threshold", "decision-tree", "nvc", "bfc", "vc");
                    int members = parsed.intValue("replicas", d.members(), 0, 5);
                    int degree = parsed.intValue("degree", d.degree(), 1, members == 0 ? 3 : Math.min(3, members));
                    String keep = parsed.string("keep", null);
                    if (keep != null) {
                        if (keep.isBlank() || keep.contains(",") || keep.chars().anyMatch(Character::isWhitespace)) {
                            // Member processes get history paths in comma-separated arguments.
                            throw new Args.UsageException("--keep must be a directory without commas or spaces, was '"
                                    + keep + "'");
                        }
                        d = d.withWorkDir(java.nio.file.Path.of(keep).toAbsolutePath()).withKeepHistories(true);
                    }
                    return io.polycert.bench.faults.FaultCampaign.run(d.withSeed(parsed.intValue("seed", 1, 0,
                            Integer.MAX_VALUE)).withSchedules(parsed.intValue("schedules", d.schedules(), 1, 100_000))
                            .withMembers(members).withSeconds(parsed.intValue("seconds", d.seconds(), 5, 86_400))
                            .withFaults(types).withReplications(replications).withProtocol(
                                    io.polycert.bench.faults.Replication.protocol(protocol)).withDegree(degree)
                            .withOracle(oracle).withEcho(parsed.flag("echo")), out);
                }
                default -> throw new Args.UsageException("unknown command '" + command + "'");
            }
            return 0;
        } catch (Args.UsageException e) {
            err.println("polycert-bench: " + e.getMessage());
            err.println("Run with --help for usage.");
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("polycert-bench: interrupted");
            return 1;
        } catch (Exception e) {
            err.println("polycert-bench: " + command + " failed: " + e);
            return 1;
        }
    }

    private static final java.util.List<String> MIXES = java.util.List.of("read-dominated", "read-write",
            "write-dominated");

    private static io.polycert.bench.gcs.EmulatedNetwork network(Args parsed) throws Args.UsageException {
        io.polycert.bench.gcs.EmulatedNetwork network;
        try {
            network = io.polycert.bench.gcs.EmulatedNetwork.parse(parsed.string("network", "none"));
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException("--network: " + e.getMessage());
        }
        if (!network.isNone() && runner(parsed) != io.polycert.bench.replicated.ClusterKind.IN_JVM) {
            throw new Args.UsageException("--network emulates links between members in one JVM; member processes"
                    + " (--runner processes) use the loopback interface as it is");
        }
        return network;
    }

    private static io.polycert.bench.replicated.ClusterKind runner(Args parsed) throws Args.UsageException {
        try {
            return io.polycert.bench.replicated.ClusterKind.fromName(parsed.string("runner", "jvm"));
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException(e.getMessage());
        }
    }

    /** The value of option {@code name}: one of {@code allowed}, the first by default. */
    private static String oneOf(Args parsed, String name, String... allowed) throws Args.UsageException {
        String v = parsed.string(name, allowed[0]);
        if (!java.util.List.of(allowed).contains(v)) {
            throw new Args.UsageException("--" + name + " must be one of " + String.join(", ", allowed) + ", was '"
                    + v + "'");
        }
        return v;
    }

    private static boolean booleanValue(Args parsed, String name, boolean defaultValue) throws Args.UsageException {
        return parsed.string(name, null) == null ? defaultValue : parsed.flag(name);
    }

    private static java.util.List<io.polycert.bench.partial.RadargunBenchmark.Contender> radargunContenders(
            Args parsed) throws Args.UsageException {
        java.util.List<io.polycert.bench.partial.RadargunBenchmark.Contender> chosen = new java.util.ArrayList<>();
        for (String name : parsed.stringList("contenders", java.util.List.of("tom-3", "tom-2", "2pc"),
                java.util.List.of("tom-3", "tom-2", "2pc"))) {
            chosen.add(switch (name) {
                case "tom-3" -> io.polycert.bench.partial.RadargunBenchmark.Contender.TOM_3;
                case "tom-2" -> io.polycert.bench.partial.RadargunBenchmark.Contender.TOM_2;
                default -> io.polycert.bench.partial.RadargunBenchmark.Contender.TWO_PC;
            });
        }
        return chosen;
    }

    private static io.polycert.bench.workload.Runner.Options runOptions(Args parsed, int threads, double warmup,
            double seconds, int rounds) throws Args.UsageException {
        return runOptions(parsed, io.polycert.bench.workload.Contenders.DEFAULT, threads, warmup, seconds, rounds);
    }

    private static io.polycert.bench.workload.Runner.Options runOptions(Args parsed, java.util.List<String>
            contenders, int threads, double warmup, double seconds, int rounds) throws Args.UsageException {
        return new io.polycert.bench.workload.Runner.Options(parsed.stringList("contenders", contenders,
                io.polycert.bench.workload.Contenders.NAMES),
                parsed.intValue("threads", threads, 1, 64), parsed.doubleValue("warmup", warmup, 0, 3600),
                parsed.doubleValue("seconds", seconds, 0.1, 86_400), parsed.intValue("rounds", rounds, 1, 1000),
                parsed.intValue("seed", 42, 0, Integer.MAX_VALUE), 10, parsed.doubleValue("settle", 0, 0, 86_400));
    }

    private static io.polycert.certification.partial.ConsistencyLevel level(String name)
            throws Args.UsageException {
        try {
            return io.polycert.certification.partial.ConsistencyLevel.fromName(name);
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException(e.getMessage());
        }
    }

    private static void usage(PrintStream out) {
        out.println("usage: polycert-bench [command] [--option value ...]");
        out.println();
        out.println("commands:");
        COMMANDS.forEach((name, text) -> out.printf("  %-14s %s%n", name, text));
        out.println();
        out.println("options:");
        OPTIONS.forEach((name, text) -> out.printf("  --%-12s %s%n", name, text));
    }
}
