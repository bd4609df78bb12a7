package io.polycert.bench.process;

import io.polycert.bench.faults.FaultWorkload;
import io.polycert.bench.faults.FaultWorkloads;
import io.polycert.bench.faults.MemberFaults;
import io.polycert.bench.faults.MixedOracle;
import io.polycert.bench.faults.PartitionedFaultStore;
import io.polycert.bench.faults.Replication;
import io.polycert.bench.workload.Contenders;
import io.polycert.bench.workload.ReplicaLoad;
import io.polycert.bench.workload.SwitchableOracle;
import io.polycert.bench.workload.Workload;
import io.polycert.bench.workload.Workloads;
import io.polycert.certification.partial.CommitProtocol;
import io.polycert.gcs.GroupStack;
import io.polycert.kvstore.PartitionedStore;
import io.polycert.kvstore.Replica;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * One benchmark member in a JVM of its own: a {@link Replica} (or, with {@code --replication partial}, a
 * {@link PartitionedStore}) over JGroups TCP on 127.0.0.1, driven by its controller ({@link ProcessCluster})
 * through a line protocol on stdin and stdout.
 *
 * <p>Arguments: {@code --cluster NAME --index I --port P --hosts 127.0.0.1:P1,127.0.0.1:P2,... --workload SPEC
 * --members N}, and optionally {@code --gossip-ms MS} (DistUCB's gossip period, default 1000), {@code --model
 * PATH} (a decision-tree model), {@code --minimum-members M} (members needed to found the group, default a
 * majority of N), {@code --join-timeout-ms MS} (default 60000: to join, and to see all N members), {@code
 * --failure-detection-ms MS} (default: the TCP stack's), {@code --await-go true} (wait for a {@code go} line on
 * stdin before joining the group: see below), {@code --fault-injection true} (a JGroups DISCARD layer and a
 * {@link io.polycert.bench.faults.SlowLink} in the stack, driven by {@code fault} commands), {@code --replication
 * full|partial} (default full), and for partial replication {@code --protocol total-order|two-phase-commit}
 * (default total-order) and {@code --degree D} (owners per key, default 2). Workload specs are read by
 * {@link FaultWorkloads#fromSpec}: the {@link Workloads} ones plus {@code list-append} and {@code bank-audit};
 * partial replication runs only the latter two ({@link FaultWorkload}s).
 *
 * <p>Protocol. Everything the member writes to stdout is a protocol line starting with {@link #MARKER}
 * ({@code "@pc "}); logging goes to stderr ({@code System.out} is pointed at stderr before anything logs, so even
 * a console appender configured for stdout writes to stderr). Once the replica is in a primary view it prints
 * {@code @pc joined PID VIEWSIZE}, and once that view has all N members {@code @pc ready PID VIEWSIZE}; if it
 * cannot start it prints {@code @pc fatal MESSAGE} and exits with status 2 (a bad workload spec, model or
 * option fails before any waiting). With {@code --await-go true} it joins only after reading a {@code go} line
 * ({@code #TAG go} too; nothing is answered): the controller lets one member found the group alone
 * ({@code --minimum-members 1}) and starts the others' joins once it reported {@code joined}, because members
 * that connect at the same moment miss each other's TCPPING discovery and may found separate singleton groups
 * that only MERGE3 joins, 5 to 10 s later. Then it reads one command per line, optionally tagged {@code #TAG COMMAND}
 * (the reply then carries the same tag: {@code @pc #TAG ok ...}), and answers each with exactly one line,
 * {@code @pc [#TAG ]ok [RESULT]} or {@code @pc [#TAG ]error MESSAGE} (it keeps serving after an error):
 *
 * <ul>
 *   <li>{@code populate}: creates the workload's initial state here; result: {@code stm().latestVersion()}</li>
 *   <li>{@code await VERSION [TIMEOUT_MS]}: waits until this replica applied VERSION (default 120000 ms);
 *       result: its latest version</li>
 *   <li>{@code version}: the latest version applied here</li>
 *   <li>{@code use CONTENDER}: switches to this member's oracle of that {@link Contenders} name (one per name,
 *       kept, so an adaptive oracle resumes what it learned)</li>
 *   <li>{@code start THREADS SEED}: starts the client threads; {@code begin}, {@code sample}: the measurement
 *       window; {@code end}: closes it, result: {@link ReplicaLoad.Partial#encode()}; {@code stop}: stops the
 *       client threads</li>
 *   <li>{@code progress}: result {@code COMMITS NVC BFC VC} (counters of the running load; zeros without one)</li>
 *   <li>{@code check}: checks the workload's invariants; result: the state digest</li>
 *   <li>{@code view}: result {@code SIZE PRIMARY EPOCH}; {@code pid}: result the process id</li>
 *   <li>{@code workload ARGS...}: a command of a {@link FaultWorkload} (e.g. {@code workload stats})</li>
 *   <li>{@code fault ARGS...}: a fault-injection command ({@link MemberFaults}), with {@code --fault-injection
 *       true}</li>
 *   <li>{@code use mixed}: besides the {@link Contenders}, an oracle that picks NVC, BFC or VC at random
 *       ({@link MixedOracle})</li>
 *   <li>{@code exit}: stops the load, closes the replica, replies {@code ok} and exits with status 0</li>
 * </ul>
 *
 * Under partial replication some commands differ (no global version, no oracle): see {@link PartitionedMember}.
 *
 * When stdin closes (the controller is gone) the member closes its replica and exits; if that takes more than
 * 10 s it halts.
 */
public final class MemberProcess {
    /** What every protocol line on stdout starts with. */
    public static final String MARKER = "@pc ";

    private static final String EOF = new String("<stdin closed>"); // compared by identity

    private final PrintStream protocol;
    private final MemberNode<?> node;
    private final MemberFaults faults;

    private MemberProcess(PrintStream protocol, MemberNode<?> node, MemberFaults faults) {
        this.protocol = protocol;
        this.node = node;
        this.faults = faults;
    }

    public static void main(String[] args) {
        // Protocol lines go to the real stdout; everything else printed to System.out (console log appenders
        // included) goes to stderr. Done before anything can initialise logging.
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), true,
                StandardCharsets.UTF_8);
        System.setOut(System.err);
        BlockingQueue<String> commands = new LinkedBlockingQueue<>();
        Thread stdin = new Thread(() -> readStdin(commands), "member-stdin");
        stdin.setDaemon(true);
        stdin.start();
        MemberProcess member;
        try {
            member = start(args, protocol, commands);
        } catch (Throwable e) {
            e.printStackTrace();
            synchronized (protocol) {
                protocol.println(MARKER + "fatal " + oneLine(e));
            }
            protocol.flush();
            System.exit(2);
            return;
        }
        member.serve(commands);
    }

    private static void readStdin(BlockingQueue<String> commands) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                commands.add(line);
            }
        } catch (IOException e) {
            System.err.println("member: reading stdin failed: " + e);
        }
        commands.add(EOF);
        // The controller is gone (or asked us to exit): never outlive it, even if closing hangs.
        Thread halt = new Thread(() -> {
            try {
                Thread.sleep(10_000);
            } catch (InterruptedException e) {
                return;
            }
            System.err.println("member: still running 10 s after stdin closed; halting");
            Runtime.getRuntime().halt(3);
        }, "member-halt");
        halt.setDaemon(true);
        halt.start();
    }

    private static MemberProcess start(String[] args, PrintStream protocol, BlockingQueue<String> commands)
            throws InterruptedException {
        Map<String, String> o = parse(args);
        String cluster = required(o, "cluster");
        int index = intOption(o, "index", -1);
        int port = intOption(o, "port", -1);
        int members = intOption(o, "members", -1);
        String spec = required(o, "workload");
        String hostList = required(o, "hosts");
        long gossipMs = longOption(o, "gossip-ms", 1000);
        String modelPath = o.remove("model");
        int minimum = intOption(o, "minimum-members", members / 2 + 1);
        long joinMs = longOption(o, "join-timeout-ms", 60_000);
        long failureMs = longOption(o, "failure-detection-ms", 0);
        boolean awaitGo = booleanOption(o, "await-go", false);
        boolean faultInjection = booleanOption(o, "fault-injection", false);
        Replication replication = Replication.fromName(o.getOrDefault("replication", "full"));
        o.remove("replication");
        String protocolName = o.remove("protocol");
        int degree = intOption(o, "degree", 2);
        if (replication == Replication.FULL && (protocolName != null || degree != 2)) {
            throw new IllegalArgumentException("--protocol and --degree are for --replication partial");
        }
        CommitProtocol commitProtocol = Replication.protocol(protocolName == null ? "total-order" : protocolName);
        if (degree < 1) {
            throw new IllegalArgumentException("--degree must be at least 1, was " + degree);
        }
        if (!o.isEmpty()) {
            throw new IllegalArgumentException("unknown option(s) " + o.keySet());
        }
        if (index < 0 || port <= 0 || port > 65535 || members < 1 || minimum < 1 || minimum > members
                || gossipMs < 1 || joinMs < 1) {
            throw new IllegalArgumentException("bad arguments: --index " + index + " --port " + port + " --members "
                    + members + " --minimum-members " + minimum + " --gossip-ms " + gossipMs + " --join-timeout-ms "
                    + joinMs);
        }
        Workload workload = FaultWorkloads.fromSpec(spec); // fails fast on a bad spec
        if (workload instanceof FaultWorkload) {
            ((FaultWorkload) workload).attach(index);
        } else if (replication == Replication.PARTIAL) {
            throw new IllegalArgumentException("partial replication runs list-append or bank-audit, not '" + spec
                    + "'");
        }
        Path model = modelPath == null ? null : Path.of(modelPath);
        Duration gossip = Duration.ofMillis(gossipMs);
        if (model != null) {
            Contenders.oracle("decision-tree", gossip, model).close(); // fails fast on an unreadable model
        }
        List<InetSocketAddress> hosts = new ArrayList<>();
        for (String h : hostList.split(",")) {
            hosts.add(address(h.trim()));
        }
        GroupStack stack = GroupStack.tcp(new InetSocketAddress(loopback(), port), hosts);
        if (failureMs > 0) {
            stack = stack.failureDetection(Duration.ofMillis(failureMs));
        }
        if (faultInjection) {
            stack = stack.faultInjection();
        }
        if (awaitGo) {
            awaitGo(commands);
        }
        MemberNode<?> node;
        if (replication == Replication.FULL) {
            SwitchableOracle oracle = new SwitchableOracle();
            Replica replica = Replica.builder(cluster).memberName("r" + index).stack(stack).codec(workload.codec())
                    .oracle(oracle).minimumMembers(minimum).joinTimeout(Duration.ofMillis(joinMs)).start();
            node = new ReplicaMember(replica, workload, oracle, gossip, model, index);
        } else {
            PartitionedFaultStore store = PartitionedFaultStore.start(PartitionedStore.builder(cluster)
                    .memberName("r" + index).stack(stack).codec(workload.codec()).protocol(commitProtocol)
                    .replicationDegree(degree).minimumMembers(minimum).joinTimeout(Duration.ofMillis(joinMs)));
            node = new PartitionedMember(store, (FaultWorkload) workload, index);
        }
        synchronized (protocol) {
            protocol.println(MARKER + "joined " + ProcessHandle.current().pid() + " " + node.view().size());
        }
        MemberFaults faults = null;
        try {
            faults = faultInjection ? node.attachFaults() : null;
            long deadline = System.nanoTime() + Duration.ofMillis(joinMs).toNanos();
            while (node.view().size() < members || !node.view().primary()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("r" + index + " sees " + node.view().size() + " of the "
                            + members + " members after " + joinMs + " ms (view " + node.view() + ")");
                }
                Thread.sleep(10);
            }
        } catch (InterruptedException | RuntimeException e) {
            node.close();
            throw e;
        }
        MemberProcess member = new MemberProcess(protocol, node, faults);
        member.reply(null, "ready " + ProcessHandle.current().pid() + " " + node.view().size());
        return member;
    }

    /** Waits for a {@code go} line on stdin (lines before it are ignored); exits if stdin closes first. */
    private static void awaitGo(BlockingQueue<String> commands) throws InterruptedException {
        while (true) {
            String line = commands.take();
            if (line == EOF) {
                System.err.println("member: stdin closed before 'go'; exiting");
                System.exit(0);
            }
            String[] words = line.trim().split("\\s+");
            String command = words.length > 1 && words[0].startsWith("#") ? words[1] : words[0];
            if (command.equals("go")) {
                return;
            }
        }
    }

    private void serve(BlockingQueue<String> commands) {
        while (true) {
            String line;
            try {
                line = commands.take();
            } catch (InterruptedException e) {
                line = EOF;
            }
            if (line == EOF) {
                System.err.println("member " + node.self() + ": stdin closed; leaving");
                shutdown();
                System.exit(0);
                return;
            }
            String trimmed = line.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            String tag = null;
            if (trimmed.startsWith("#")) {
                int space = trimmed.indexOf(' ');
                tag = space < 0 ? trimmed : trimmed.substring(0, space);
                trimmed = space < 0 ? "" : trimmed.substring(space + 1).trim();
            }
            String[] words = trimmed.split("\\s+");
            if (words[0].equals("exit")) {
                shutdown();
                reply(tag, "ok");
                System.exit(0);
                return;
            }
            try {
                String result = execute(words);
                reply(tag, result.isEmpty() ? "ok" : "ok " + result);
            } catch (Throwable e) {
                System.err.println("member " + node.self() + ": '" + trimmed + "' failed:");
                e.printStackTrace();
                reply(tag, "error " + oneLine(e));
            }
        }
    }

    private String execute(String[] w) throws InterruptedException {
        w[0] = w[0].toLowerCase(Locale.ROOT);
        switch (w[0]) {
            case "view":
                MemberNode.arguments(w, 0);
                return node.view().size() + " " + node.view().primary() + " " + node.view().epoch();
            case "pid":
                MemberNode.arguments(w, 0);
                return Long.toString(ProcessHandle.current().pid());
            case "fault":
                if (faults == null) {
                    throw new IllegalStateException("fault injection is off (start with --fault-injection true)");
                }
                return faults.command(Arrays.copyOfRange(w, 1, w.length));
            default:
                String result = node.execute(w);
                if (result == null) {
                    throw new IllegalArgumentException("unknown command '" + w[0] + "' (known: " + node.commands()
                            + ", view, pid, fault, exit)");
                }
                return result;
        }
    }

    private void shutdown() {
        if (faults != null) {
            faults.close();
        }
        node.close();
    }

    private void reply(String tag, String text) {
        synchronized (protocol) {
            protocol.println(MARKER + (tag == null ? "" : tag + " ") + text);
        }
    }

    /** An exception as one line of text: its class and message, newlines turned into spaces. */
    static String oneLine(Throwable e) {
        String m = e.getMessage();
        String text = e instanceof IllegalArgumentException || e instanceof IllegalStateException
                ? (m == null ? e.getClass().getName() : m) : e.toString();
        Throwable cause = e.getCause();
        if (cause != null && cause != e && (m == null || !m.contains(String.valueOf(cause.getMessage())))) {
            text += " (caused by " + cause + ")";
        }
        return text.replace('\r', ' ').replace('\n', ' ');
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --option value pairs, got '" + args[i] + "'");
            }
            o.put(args[i].substring(2), args[++i]);
        }
        return o;
    }

    private static String required(Map<String, String> o, String name) {
        String v = o.remove(name);
        if (v == null) {
            throw new IllegalArgumentException("missing option --" + name);
        }
        return v;
    }

    private static int intOption(Map<String, String> o, String name, int defaultValue) {
        long v = longOption(o, name, defaultValue);
        if (v != (int) v) {
            throw new IllegalArgumentException("--" + name + " out of range: " + v);
        }
        return (int) v;
    }

    private static long longOption(Map<String, String> o, String name, long defaultValue) {
        String v = o.remove(name);
        if (v == null) {
            return defaultValue;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a whole number, was '" + v + "'");
        }
    }

    private static boolean booleanOption(Map<String, String> o, String name, boolean defaultValue) {
        String v = o.remove(name);
        if (v == null) {
            return defaultValue;
        }
        if (!v.equals("true") && !v.equals("false")) {
            throw new IllegalArgumentException("--" + name + " must be true or false, was '" + v + "'");
        }
        return Boolean.parseBoolean(v);
    }

    private static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("a host is HOST:PORT, was '" + hostPort + "'");
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(hostPort.substring(0, colon)),
                    Integer.parseInt(hostPort.substring(colon + 1)));
        } catch (UnknownHostException | NumberFormatException e) {
            throw new IllegalArgumentException("a host is HOST:PORT, was '" + hostPort + "': " + e, e);
        }
    }

    static InetAddress loopback() {
        try {
            return InetAddress.getByName("127.0.0.1");
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
