package io.polycert.bench.process;

import io.polycert.bench.faults.FaultWorkload;
import io.polycert.bench.faults.FaultWorkloads;
import io.polycert.bench.faults.MemberFaults;
import io.polycert.bench.faults.MixedOracle;
import io.polycert.bench.workload.Contenders;
import io.polycert.bench.workload.ReplicaLoad;
import io.polycert.bench.workload.SwitchableOracle;
import io.polycert.bench.workload.Workload;
import io.polycert.bench.workload.Workloads;
import io.polycert.gcs.GroupStack;
import io.polycert.kvstore.Replica;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
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
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * One benchmark member in a JVM of its own: a {@link Replica} over JGroups TCP on 127.0.0.1, driven by its
 * controller ({@link ProcessCluster}) through a line protocol on stdin and stdout.
 *
 * <p>Arguments: {@code --cluster NAME --index I --port P --hosts 127.0.0.1:P1,127.0.0.1:P2,... --workload SPEC
 * --members N}, and optionally {@code --gossip-ms MS} (DistUCB's gossip period, default 1000), {@code --model
 * PATH} (a decision-tree model), {@code --minimum-members M} (members needed to found the group, default a
 * majority of N), {@code --join-timeout-ms MS} (default 60000: to join, and to see all N members), {@code
 * --failure-detection-ms MS} (default: the TCP stack's), {@code --await-go true} (wait for a {@code go} line on
 * stdin before joining the group: see below), {@code --fault-injection true} (a JGroups DISCARD layer and a
 * {@link io.polycert.bench.faults.SlowLink} in the stack, driven by {@code fault} commands). Workload specs are
 * read by {@link FaultWorkloads#fromSpec}: the {@link Workloads} ones plus {@code list-append} and
 * {@code bank-audit}.
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
 * When stdin closes (the controller is gone) the member closes its replica and exits; if that takes more than
 * 10 s it halts.
 */
public final class MemberProcess {
    /** What every protocol line on stdout starts with. */
    public static final String MARKER = "@pc ";

    private static final String EOF = new String("<stdin closed>"); // compared by identity

    private final PrintStream protocol;
    private final Workload workload;
    private final Replica replica;
    private final SwitchableOracle oracle;
    private final Duration gossipInterval;
    private final Path model;
    private final Map<String, ProtocolOracle> byContender = new HashMap<>();
    private ReplicaLoad load;
    private final int index;
    private final MemberFaults faults;

    private MemberProcess(PrintStream protocol, Workload workload, Replica replica, SwitchableOracle oracle,
            Duration gossipInterval, Path model, int index, MemberFaults faults) {
        this.index = index;
        this.faults = faults;
        this.protocol = protocol;
        this.workload = workload;
        this.replica = replica;
        this.oracle = oracle;
        this.gossipInterval = gossipInterval;
        this.model = model;
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
        SwitchableOracle oracle = new SwitchableOracle();
        Replica replica = Replica.builder(cluster).memberName("r" + index).stack(stack).codec(workload.codec())
                .oracle(oracle).minimumMembers(minimum).joinTimeout(Duration.ofMillis(joinMs)).start();
        synchronized (protocol) {
            protocol.println(MARKER + "joined " + ProcessHandle.current().pid() + " " + replica.view().size());
        }
        MemberFaults faults = faultInjection ? MemberFaults.attach(replica) : null;
        try {
            long deadline = System.nanoTime() + Duration.ofMillis(joinMs).toNanos();
            while (replica.view().size() < members || !replica.view().primary()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("r" + index + " sees " + replica.view().size() + " of the "
                            + members + " members after " + joinMs + " ms (view " + replica.view() + ")");
                }
                Thread.sleep(10);
            }
        } catch (InterruptedException | RuntimeException e) {
            replica.close();
            throw e;
        }
        MemberProcess member = new MemberProcess(protocol, workload, replica, oracle, gossip, model, index, faults);
        member.reply(null, "ready " + ProcessHandle.current().pid() + " " + replica.view().size());
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
                System.err.println("member " + replica.self() + ": stdin closed; leaving");
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
                System.err.println("member " + replica.self() + ": '" + trimmed + "' failed:");
                e.printStackTrace();
                reply(tag, "error " + oneLine(e));
            }
        }
    }

    private String execute(String[] w) throws InterruptedException {
        switch (w[0].toLowerCase(Locale.ROOT)) {
            case "populate":
                arguments(w, 0);
                workload.populate(replica);
                return Long.toString(replica.stm().latestVersion());
            case "await": {
                if (w.length != 2 && w.length != 3) {
                    throw new IllegalArgumentException("usage: await VERSION [TIMEOUT_MS]");
                }
                long version = Long.parseLong(w[1]);
                long timeoutMs = w.length == 3 ? Long.parseLong(w[2]) : 120_000;
                long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
                while (replica.stm().latestVersion() < version) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(replica + " has not applied version " + version + " after "
                                + timeoutMs + " ms (it is at " + replica.stm().latestVersion() + ")");
                    }
                    Thread.sleep(1);
                }
                return Long.toString(replica.stm().latestVersion());
            }
            case "version":
                arguments(w, 0);
                return Long.toString(replica.stm().latestVersion());
            case "use": {
                arguments(w, 1);
                String name = w[1].toLowerCase(Locale.ROOT);
                ProtocolOracle chosen = byContender.get(name);
                if (chosen == null) {
                    chosen = name.equals("mixed") ? new MixedOracle(ProcessHandle.current().pid() * 31 + index)
                            : Contenders.oracle(name, gossipInterval, model);
                    byContender.put(name, chosen);
                }
                oracle.use(chosen);
                return "";
            }
            case "start": {
                arguments(w, 2);
                if (load != null) {
                    throw new IllegalStateException("the load is already running");
                }
                ReplicaLoad l = new ReplicaLoad(replica, workload, Integer.parseInt(w[1]), Long.parseLong(w[2]));
                l.start();
                load = l;
                return "";
            }
            case "begin":
                arguments(w, 0);
                running().beginMeasuring();
                return "";
            case "sample":
                arguments(w, 0);
                running().sample();
                return "";
            case "end":
                arguments(w, 0);
                return running().endMeasuring().encode();
            case "stop":
                arguments(w, 0);
                if (load != null) {
                    load.close();
                    load = null;
                }
                return "";
            case "progress": {
                arguments(w, 0);
                StringBuilder sb = new StringBuilder();
                if (load == null) {
                    sb.append(0);
                    for (int i = 0; i < Protocol.values().length; i++) {
                        sb.append(" 0");
                    }
                } else {
                    ReplicaLoad.Counters c = load.current();
                    sb.append(c.commits());
                    for (Protocol p : Protocol.values()) {
                        sb.append(' ').append(c.committedBy(p));
                    }
                }
                return sb.toString();
            }
            case "check":
                arguments(w, 0);
                return Long.toString(workload.check(replica));
            case "view":
                arguments(w, 0);
                return replica.view().size() + " " + replica.view().primary() + " " + replica.view().epoch();
            case "pid":
                arguments(w, 0);
                return Long.toString(ProcessHandle.current().pid());
            case "workload":
                if (!(workload instanceof FaultWorkload)) {
                    throw new IllegalArgumentException("the " + workload.name() + " workload takes no commands");
                }
                return ((FaultWorkload) workload).command(replica, java.util.Arrays.copyOfRange(w, 1, w.length));
            case "fault":
                if (faults == null) {
                    throw new IllegalStateException("fault injection is off (start with --fault-injection true)");
                }
                return faults.command(java.util.Arrays.copyOfRange(w, 1, w.length));
            default:
                throw new IllegalArgumentException("unknown command '" + w[0] + "' (known: populate, await, version,"
                        + " use, start, begin, sample, end, stop, progress, check, view, pid, workload, fault, exit)");
        }
    }

    private ReplicaLoad running() {
        if (load == null) {
            throw new IllegalStateException("no load is running (start THREADS SEED first)");
        }
        return load;
    }

    private static void arguments(String[] w, int n) {
        if (w.length != n + 1) {
            throw new IllegalArgumentException("'" + w[0] + "' takes " + n + " argument(s), got " + (w.length - 1));
        }
    }

    private void shutdown() {
        try {
            if (load != null) {
                load.close();
                load = null;
            }
        } catch (RuntimeException e) {
            e.printStackTrace();
        }
        if (faults != null) {
            faults.close();
        }
        try {
            replica.close(); // closes the oracles too
        } catch (RuntimeException e) {
            e.printStackTrace();
        }
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
