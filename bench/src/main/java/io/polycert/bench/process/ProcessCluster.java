package io.polycert.bench.process;

import io.polycert.bench.workload.BenchCluster;
import io.polycert.bench.workload.ReplicaLoad;
import io.polycert.bench.workload.Workload;
import io.polycert.bench.workload.Workloads;
import io.polycert.oracle.Protocol;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Benchmark members as separate JVM processes ({@link MemberProcess}) on 127.0.0.1, in one group over JGroups
 * TCP, driven through their line protocol. Each member runs the same java and class path as this JVM.
 *
 * <pre>{@code
 * try (ProcessCluster cluster = ProcessCluster.start(3, new BankWorkload(1000, 10))) {
 *     cluster.populate();
 *     new Runner(cluster, workload, options, Map.of("replicas", "3"), System.out).run();
 * }
 * }</pre>
 *
 * <p>Start: free ports are picked on 127.0.0.1 (each with the port 100 above free too, where FD_SOCK2 listens) and
 * every member lists every member as a TCPPING initial host. All JVMs launch at once, but member 0 founds the
 * group alone ({@code --minimum-members 1}) while the others wait for {@code go}, sent once member 0 reported
 * {@code joined}; they then find it as coordinator and join (the others keep a majority as minimum). Members
 * that all connect at the same moment miss each other's single discovery round and could found separate
 * singleton groups that only MERGE3 joins, 5 to 10 s later. With the TCP stack's default failure detection
 * (10 s, so a 5 s GMS join timeout) a 3-member start takes about 7 s.
 *
 * <p>Commands that measure ({@link #beginMeasuring()}, {@link #sample()}, {@link #endMeasuring()}) and the others
 * that concern every member are written to all members before any reply is read, so the members' windows align
 * to within a pipe write. A member that fails a command makes the method throw an {@link IllegalStateException}
 * naming the member and its message; one that dies makes it throw with the end of its output.
 *
 * <p>Fault injection: {@link #kill(int)} ends a member with SIGKILL ({@link #exit(int)} asks it to leave). From
 * then on every cluster-wide method leaves that member out: lists "in member order" hold the live members only
 * ({@link #live()}), until {@link #restart(int)} starts a fresh process in its place, which joins the running
 * group and receives its state. {@link #pause(int)} stops a member with SIGSTOP and {@link #resume(int)}
 * continues it with SIGCONT; while paused, cluster-wide methods leave it out too (it cannot answer). Members
 * started with {@code --fault-injection true} ({@link #start(int, String, Options, List)}) take {@code fault}
 * commands (see {@link MemberProcess}).
 *
 * <p>Members never outlive this JVM: they exit when their stdin closes, and a shutdown hook destroys them if this
 * JVM exits without {@link #close()}.
 */
public final class ProcessCluster implements BenchCluster {
    /** Lines of each member's recent output kept for error messages. */
    private static final int RING_LINES = 200;
    /** Lines of it an error message shows. */
    private static final int SHOWN_LINES = 30;
    private static final String EOF = new String("<eof>"); // compared by identity
    /** How many times {@link #start} tries when a member loses its port to another process before binding it. */
    private static final int START_ATTEMPTS = 3;

    /**
     * How members are launched.
     *
     * @param heap each member's maximum heap, as for {@code -Xmx} (e.g. {@code 1g})
     * @param jvmOptions further options for each member's JVM
     * @param gossipInterval DistUCB's gossip period
     * @param model a trained decision-tree model, or null
     * @param startTimeout how long members may take to start and see each other
     * @param commandTimeout how long a command may take (populate, await and check get this on top of their own)
     * @param awaitTimeout how long a member may take to apply what others committed (populate, check)
     * @param failureDetection how soon a silent member is excluded, or null for the TCP stack's default
     * @param echo true to copy every member's stderr and stray stdout to this JVM's stderr, prefixed by member
     */
    public record Options(String heap, List<String> jvmOptions, Duration gossipInterval, Path model,
            Duration startTimeout, Duration commandTimeout, Duration awaitTimeout, Duration failureDetection,
            boolean echo) {
        public Options {
            Objects.requireNonNull(heap, "heap");
            jvmOptions = List.copyOf(jvmOptions);
            Objects.requireNonNull(gossipInterval, "gossipInterval");
            Objects.requireNonNull(startTimeout, "startTimeout");
            Objects.requireNonNull(commandTimeout, "commandTimeout");
            Objects.requireNonNull(awaitTimeout, "awaitTimeout");
        }

        /**
         * 1 GiB heap and the parallel collector per member ({@link #withJvmOptions} replaces the latter), 1 s gossip, no model, 90 s to start, 2 min per
         * command and to catch up, the stack's failure detection, no echo.
         */
        public static Options defaults() {
            return new Options("1g", List.of("-XX:+UseParallelGC"), Duration.ofSeconds(1), null,
                    Duration.ofSeconds(90), Duration.ofMinutes(2), Duration.ofMinutes(2), null, false);
        }

        public Options withHeap(String heap) {
            return new Options(heap, jvmOptions, gossipInterval, model, startTimeout, commandTimeout, awaitTimeout,
                    failureDetection, echo);
        }

        public Options withJvmOptions(List<String> jvmOptions) {
            return new Options(heap, jvmOptions, gossipInterval, model, startTimeout, commandTimeout, awaitTimeout,
                    failureDetection, echo);
        }

        public Options withGossipInterval(Duration gossipInterval) {
            return new Options(heap, jvmOptions, gossipInterval, model, startTimeout, commandTimeout, awaitTimeout,
                    failureDetection, echo);
        }

        public Options withModel(Path model) {
            return new Options(heap, jvmOptions, gossipInterval, model, startTimeout, commandTimeout, awaitTimeout,
                    failureDetection, echo);
        }

        public Options withStartTimeout(Duration startTimeout) {
            return new Options(heap, jvmOptions, gossipInterval, model, startTimeout, commandTimeout, awaitTimeout,
                    failureDetection, echo);
        }

        public Options withCommandTimeout(Duration commandTimeout) {
            return new Options(heap, jvmOptions, gossipInterval, model, startTimeout, commandTimeout, awaitTimeout,
                    failureDetection, echo);
        }

        public Options withAwaitTimeout(Duration awaitTimeout) {
            return new Options(heap, jvmOptions, gossipInterval, model, startTimeout, commandTimeout, awaitTimeout,
                    failureDetection, echo);
        }

        public Options withFailureDetection(Duration failureDetection) {
            return new Options(heap, jvmOptions, gossipInterval, model, startTimeout, commandTimeout, awaitTimeout,
                    failureDetection, echo);
        }

        public Options withEcho(boolean echo) {
            return new Options(heap, jvmOptions, gossipInterval, model, startTimeout, commandTimeout, awaitTimeout,
                    failureDetection, echo);
        }
    }

    private final List<Member> members;
    private final Options options;
    /** Every member process ever started, restarted ones included (the shutdown hook destroys them). */
    private final List<Member> started;
    private final Launch launch;
    private final ReentrantLock commands = new ReentrantLock();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook;
    private final Path argFile;

    private ProcessCluster(List<Member> members, Options options, Thread shutdownHook, Path argFile,
            List<Member> started, Launch launch) {
        this.started = started;
        this.launch = launch;
        this.members = new java.util.concurrent.CopyOnWriteArrayList<>(members);
        this.options = options;
        this.shutdownHook = shutdownHook;
        this.argFile = argFile;
    }

    /** {@link #start(int, Workload, Options)} with {@link Options#defaults()}. */
    public static ProcessCluster start(int members, Workload workload) {
        return start(members, workload, Options.defaults());
    }

    /** Starts {@code members} member processes of a fresh cluster running {@code workload}. */
    public static ProcessCluster start(int members, Workload workload, Options options) {
        return start(members, Workloads.specOf(workload), options);
    }

    /**
     * Starts {@code members} member processes of a fresh cluster, each building its workload from
     * {@code workloadSpec} ({@link Workloads#fromSpec}), and returns once every one is in the group with all
     * the others.
     *
     * @throws IllegalStateException if a member fails to start, exits, or is not ready within
     *         {@link Options#startTimeout()}: with its message and the end of its output (every member started is
     *         destroyed by then)
     */
    public static ProcessCluster start(int members, String workloadSpec, Options options) {
        return start(members, workloadSpec, options, List.of());
    }

    /**
     * {@link #start(int, String, Options)}, passing {@code memberArgs} to every member process (and to those
     * {@link #restart(int) restarted}), e.g. {@code List.of("--fault-injection", "true")}.
     */
    public static ProcessCluster start(int members, String workloadSpec, Options options, List<String> memberArgs) {
        return onFreshPorts("a member could not bind its port (taken meanwhile); starting again on others",
                attempt -> startOnce(members, workloadSpec, options, memberArgs));
    }

    /** One try at launching member processes; {@code attempt} counts from 1. */
    private interface PortAttempt<T, X extends Exception> {
        T run(int attempt) throws X;
    }

    /**
     * Runs {@code attempt} again, at most {@link #START_ATTEMPTS} times in all, while it fails with a
     * BindException: free ports are let go of before the members bind them, and another process on the machine may
     * take one meanwhile (seen once in 30 schedules of a fault campaign at start, once in 100 at a restart: an
     * outgoing connection's ephemeral port). Nothing of the new processes ran, so other ports are as good.
     */
    private static <T, X extends Exception> T onFreshPorts(String retrying, PortAttempt<T, X> attempt) throws X {
        for (int n = 1; ; n++) {
            try {
                return attempt.run(n);
            } catch (IllegalStateException e) {
                if (n >= START_ATTEMPTS || !String.valueOf(e.getMessage()).contains("BindException")) {
                    throw e;
                }
                System.err.println(retrying);
            }
        }
    }

    private static ProcessCluster startOnce(int members, String workloadSpec, Options options,
            List<String> memberArgs) {
        List<String> extraArgs = List.copyOf(memberArgs);
        if (members < 1) {
            throw new IllegalArgumentException("members must be at least 1, was " + members);
        }
        Objects.requireNonNull(workloadSpec, "workloadSpec");
        Objects.requireNonNull(options, "options");
        String cluster = "pc-" + UUID.randomUUID().toString().substring(0, 8);
        int[] ports = freePorts(members);
        StringBuilder hosts = new StringBuilder();
        for (int p : ports) {
            hosts.append(hosts.length() == 0 ? "" : ",").append("127.0.0.1:").append(p);
        }
        List<Member> started = new ArrayList<>();
        Launch launch = null;
        Thread hook = new Thread(() -> {
            synchronized (started) {
                started.forEach(Member::destroy);
            }
        }, "process-cluster-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        Path argFile = null;
        try {
            List<String> classPath = new ArrayList<>();
            String cp = System.getProperty("java.class.path");
            if (cp.length() > 30_000) { // one argument may hold at most 128 KiB on Linux: use a java @argfile
                argFile = Files.createTempFile("polycert-member-cp", ".args");
                Files.writeString(argFile, "-cp \"" + cp.replace("\\", "\\\\") + "\"\n");
                argFile.toFile().deleteOnExit();
                classPath.add("@" + argFile);
            } else {
                classPath.add("-cp");
                classPath.add(cp);
            }
            launch = new Launch(cluster, members, workloadSpec, options, classPath, extraArgs);
            for (int i = 0; i < members; i++) {
                List<String> command = launch.command(i, ports[i], hosts.toString());
                // Member 0 founds the group alone; the others join it once it has (see MemberProcess).
                command.addAll(i == 0 ? List.of("--minimum-members", "1") : List.of("--await-go", "true"));
                Process process = new ProcessBuilder(command).start();
                synchronized (started) {
                    started.add(new Member(i, ports[i], process, options.echo()));
                }
            }
            awaitReady(started, options.startTimeout());
        } catch (IOException | RuntimeException | InterruptedException e) {
            synchronized (started) {
                started.forEach(Member::destroy);
            }
            removeHook(hook);
            deleteQuietly(argFile);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting the members", e);
            }
            if (e instanceof IOException) {
                throw new UncheckedIOException("cannot launch a member process: " + e.getMessage(), (IOException) e);
            }
            throw (RuntimeException) e;
        }
        return new ProcessCluster(List.copyOf(started), options, hook, argFile, started, launch);
    }

    /** What every member process is launched with. */
    private record Launch(String cluster, int members, String workloadSpec, Options options, List<String> classPath,
            List<String> extraArgs) {

        /** The command line of member {@code index}, without how it finds the group. */
        List<String> command(int index, int port, String hosts) {
            List<String> command = new ArrayList<>();
            command.add(javaCommand());
            command.add("-Xmx" + options.heap());
            command.add("-Djava.net.preferIPv4Stack=true");
            command.add("-XX:+ExitOnOutOfMemoryError");
            command.addAll(options.jvmOptions());
            command.addAll(classPath);
            command.add(MemberProcess.class.getName());
            command.addAll(List.of("--cluster", cluster, "--index", Integer.toString(index), "--port",
                    Integer.toString(port), "--hosts", hosts, "--workload", workloadSpec,
                    "--members", Integer.toString(members), "--gossip-ms",
                    Long.toString(Math.max(1, options.gossipInterval().toMillis())), "--join-timeout-ms",
                    Long.toString(Math.max(1, options.startTimeout().toMillis()))));
            if (options.model() != null) {
                command.addAll(List.of("--model", options.model().toAbsolutePath().toString()));
            }
            if (options.failureDetection() != null) {
                command.addAll(List.of("--failure-detection-ms",
                        Long.toString(options.failureDetection().toMillis())));
            }
            command.addAll(extraArgs);
            return command;
        }
    }

    private static void awaitReady(List<Member> started, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean[] ready = new boolean[started.size()];
        int remaining = started.size();
        while (remaining > 0) {
            for (int position = 0; position < started.size(); position++) {
                Member m = started.get(position);
                if (ready[position]) {
                    continue;
                }
                String line = m.replies.poll(10, TimeUnit.MILLISECONDS);
                if (line == null) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(m + " was not ready within " + timeout + m.lastOutput());
                    }
                    continue;
                }
                if (line == EOF) {
                    throw new IllegalStateException(m + " exited while starting" + m.exitStatus() + m.lastOutput());
                }
                if (line.startsWith("fatal ")) {
                    throw new IllegalStateException(m + " failed to start: " + line.substring(6) + m.lastOutput());
                }
                if (line.startsWith("joined ") && m.index == 0) {
                    for (Member other : started) {
                        if (other.index != 0) {
                            other.send("go");
                        }
                    }
                }
                if (line.startsWith("ready ")) {
                    ready[position] = true;
                    remaining--;
                }
            }
        }
    }

    /** The java executable of this JVM (member processes and benchmark peers run on the same JDK). */
    public static String javaCommand() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /**
     * Distinct TCP ports free on 127.0.0.1, each with the port 100 above it free too (where JGroups' FD_SOCK2
     * listens by default).
     */
    static int[] freePorts(int n) {
        List<ServerSocket> held = new ArrayList<>();
        int[] ports = new int[n];
        try {
            int found = 0;
            for (int attempt = 0; found < n && attempt < 1000; attempt++) {
                ServerSocket s = bind(0);
                if (s == null) {
                    continue;
                }
                int p = s.getLocalPort();
                ServerSocket fd = p + 103 <= 65535 ? bind(p + 100) : null;
                if (fd == null) {
                    close(s);
                    continue;
                }
                held.add(s);
                held.add(fd);
                ports[found++] = p;
            }
            if (found < n) {
                throw new IllegalStateException("found only " + found + " of " + n + " free ports on 127.0.0.1");
            }
            return ports;
        } finally {
            held.forEach(ProcessCluster::close);
        }
    }

    private static ServerSocket bind(int port) {
        try {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(MemberProcess.loopback(), port));
            return s;
        } catch (IOException e) {
            return null;
        }
    }

    private static void close(ServerSocket s) {
        try {
            s.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    @Override
    public int size() {
        return members.size();
    }

    @Override
    public boolean sameJvm() {
        return false;
    }

    /**
     * Starts a fresh process for member {@code member}, which must have been {@link #kill killed} or have
     * {@link #exit exited}: a new incarnation (new member id, same index) that joins the running group, receives
     * its state, and is then included in cluster-wide methods again. It listens on its old port if that is free,
     * else on a new one. Returns once it is in a primary view with all the members.
     *
     * @throws IllegalStateException if it fails to start or is not ready within {@link Options#startTimeout()}
     */
    public void restart(int member) throws InterruptedException {
        Member old = member(member);
        if (!old.killed || old.process.isAlive()) {
            throw new IllegalStateException(old + " is still running: kill it first");
        }
        onFreshPorts("r" + member + " could not bind its port (taken meanwhile); restarting on another",
                attempt -> {
                    restartOnce(member, attempt == 1 && portsFree(old.port) ? old.port : freePorts(1)[0]);
                    return null;
                });
    }

    private void restartOnce(int member, int port) throws InterruptedException {
        StringBuilder hosts = new StringBuilder();
        java.util.Set<Integer> ports = new java.util.LinkedHashSet<>();
        for (Member m : members) {
            ports.add(m.index == member ? port : m.port);
        }
        for (int p : ports) {
            hosts.append(hosts.length() == 0 ? "" : ",").append("127.0.0.1:").append(p);
        }
        List<String> command = launch.command(member, port, hosts.toString());
        command.addAll(List.of("--minimum-members", Integer.toString(launch.members() / 2 + 1)));
        Member fresh;
        try {
            fresh = new Member(member, port, new ProcessBuilder(command).start(), options.echo());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot launch a member process: " + e.getMessage(), e);
        }
        synchronized (started) {
            started.add(fresh);
        }
        try {
            awaitReady(List.of(fresh), options.startTimeout());
        } catch (RuntimeException | InterruptedException e) {
            fresh.killed = true;
            fresh.destroy();
            // gone before anyone restarts it again (restart refuses a member whose process is still alive)
            try {
                fresh.process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException again) {
                Thread.currentThread().interrupt(); // and report why it failed to start, not this
            }
            members.set(member, fresh);
            throw e;
        }
        members.set(member, fresh);
    }

    /** True if {@code port} and the port 100 above it (FD_SOCK2's) can be bound on 127.0.0.1. */
    private static boolean portsFree(int port) {
        if (port + 100 > 65535) {
            return false;
        }
        ServerSocket a = bind(port);
        ServerSocket b = a == null ? null : bind(port + 100);
        if (a != null) {
            close(a);
        }
        if (b != null) {
            close(b);
        }
        return a != null && b != null;
    }

    /**
     * Asks member {@code member} to leave the group and exit ({@code exit}), waits until its process ended, and
     * leaves it out of every later cluster-wide command, like {@link #kill(int)}.
     */
    public void exit(int member) throws InterruptedException {
        Member m = member(member);
        try {
            command(member, "exit");
        } catch (IllegalStateException e) {
            // it may exit before its reply is read
        }
        m.killed = true;
        m.closeStdin();
        if (!m.process.waitFor(30, TimeUnit.SECONDS)) {
            m.destroy();
            m.process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Stops member {@code member} with SIGSTOP: it freezes (its threads, timers and sockets' reading) until
     * {@link #resume(int)}. Cluster-wide methods leave it out meanwhile.
     */
    public void pause(int member) throws InterruptedException {
        Member m = member(member);
        signal(m, "STOP");
        m.paused = true;
    }

    /** Continues member {@code member} with SIGCONT after {@link #pause(int)}. */
    public void resume(int member) throws InterruptedException {
        Member m = member(member);
        signal(m, "CONT");
        m.paused = false;
    }

    /** True while member {@code member} is paused. */
    public boolean paused(int member) {
        return member(member).paused;
    }

    private static void signal(Member m, String signal) throws InterruptedException {
        if (!m.process.isAlive()) {
            throw new IllegalStateException(m + " is not running");
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(m.process.pid()))
                    .redirectErrorStream(true).start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + m.process.pid() + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + signal, e);
        }
    }

    /** Indices of the members not {@link #kill killed}, in order. */
    public List<Integer> live() {
        List<Integer> live = new ArrayList<>();
        for (Member m : members) {
            if (!m.killed) {
                live.add(m.index);
            }
        }
        return live;
    }

    /** The process id of member {@code member}. */
    public long pid(int member) {
        return member(member).process.pid();
    }

    /** The process of member {@code member}. */
    public ProcessHandle process(int member) {
        return member(member).process.toHandle();
    }

    /** The TCP port member {@code member} listens on. */
    public int port(int member) {
        return member(member).port;
    }

    /** The last lines member {@code member} wrote to stderr (and to stdout outside the protocol). */
    public List<String> recentOutput(int member) {
        return member(member).ring.lines();
    }

    /**
     * Kills member {@code member} with SIGKILL (and any process it started), waits until it is gone, and leaves
     * it out of every later cluster-wide command.
     */
    public void kill(int member) throws InterruptedException {
        Member m = member(member);
        m.killed = true;
        m.destroy();
        m.paused = false;
        if (!m.process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(m + " is still alive 30 s after SIGKILL");
        }
    }

    /**
     * Sends one protocol command to member {@code member} and returns the result of its {@code ok} reply (empty
     * if there is none), e.g. {@code command(0, "view")}.
     *
     * @throws IllegalStateException if the member answers with an error, dies, or does not answer in time
     */
    public String command(int member, String command) {
        commands.lock();
        try {
            Member m = member(member);
            long tag = m.send(command);
            return m.reply(tag, command, options.commandTimeout());
        } finally {
            commands.unlock();
        }
    }

    private Member member(int index) {
        if (index < 0 || index >= members.size()) {
            throw new IndexOutOfBoundsException("no member " + index + " in a cluster of " + members.size());
        }
        return members.get(index);
    }

    /** Sends {@code command} to every live member, then collects their results, in member order. */
    private List<String> all(String command, Duration timeout) {
        commands.lock();
        try {
            if (closed.get()) {
                throw new IllegalStateException("the cluster is closed");
            }
            List<Member> live = new ArrayList<>();
            List<Long> sent = new ArrayList<>();
            RuntimeException failure = null;
            for (Member m : members) {
                if (m.killed || m.paused) {
                    continue;
                }
                try {
                    sent.add(m.send(command));
                    live.add(m);
                } catch (RuntimeException e) {
                    failure = add(failure, e);
                }
            }
            List<String> results = new ArrayList<>();
            long deadline = System.nanoTime() + timeout.toNanos();
            for (int i = 0; i < live.size(); i++) {
                try {
                    Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
                    results.add(live.get(i).reply(sent.get(i), command, left));
                } catch (RuntimeException e) {
                    failure = add(failure, e);
                }
            }
            if (failure != null) {
                throw failure;
            }
            return results;
        } finally {
            commands.unlock();
        }
    }

    private List<String> all(String command) {
        return all(command, options.commandTimeout());
    }

    private static RuntimeException add(RuntimeException first, RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    @Override
    public void populate() {
        List<Integer> live = live();
        if (live.isEmpty()) {
            throw new IllegalStateException("no live member to populate");
        }
        long version = Long.parseLong(command(live.get(0), "populate"));
        awaitAll(version);
    }

    private void awaitAll(long version) {
        long ms = options.awaitTimeout().toMillis();
        all("await " + version + " " + ms, options.awaitTimeout().plus(options.commandTimeout()));
    }

    @Override
    public void use(String contender) {
        if (contender.isBlank() || contender.trim().contains(" ")) {
            throw new IllegalArgumentException("not a contender name: '" + contender + "'");
        }
        all("use " + contender.trim());
    }

    @Override
    public void startLoad(int threadsPerMember, long seed) {
        if (threadsPerMember < 1) {
            throw new IllegalArgumentException("threads must be at least 1, was " + threadsPerMember);
        }
        commands.lock();
        try {
            RuntimeException failure = null;
            List<Member> live = new ArrayList<>();
            List<Long> sent = new ArrayList<>();
            for (Member m : members) {
                if (m.killed || m.paused) {
                    continue;
                }
                try {
                    String command = "start " + threadsPerMember + " " + (seed + 7_919L * m.index);
                    sent.add(m.send(command));
                    live.add(m);
                } catch (RuntimeException e) {
                    failure = add(failure, e);
                }
            }
            for (int i = 0; i < live.size(); i++) {
                try {
                    live.get(i).reply(sent.get(i), "start", options.commandTimeout());
                } catch (RuntimeException e) {
                    failure = add(failure, e);
                }
            }
            if (failure != null) {
                throw failure;
            }
        } finally {
            commands.unlock();
        }
    }

    @Override
    public void beginMeasuring() {
        all("begin");
    }

    @Override
    public void sample() {
        all("sample");
    }

    @Override
    public List<ReplicaLoad.Partial> endMeasuring() {
        List<ReplicaLoad.Partial> partials = new ArrayList<>();
        for (String line : all("end")) {
            partials.add(ReplicaLoad.Partial.decode(line));
        }
        return partials;
    }

    @Override
    public void stopLoad() {
        all("stop");
    }

    @Override
    public long[] progress() {
        long[] sum = new long[1 + Protocol.values().length];
        for (String line : all("progress")) {
            String[] f = line.trim().split("\\s+");
            if (f.length != sum.length) {
                throw new IllegalStateException("a progress reply has " + sum.length + " counts: '" + line + "'");
            }
            for (int i = 0; i < sum.length; i++) {
                sum[i] += Long.parseLong(f[i]);
            }
        }
        return sum;
    }

    @Override
    public List<Long> check() {
        long newest = 0;
        for (String v : all("version")) {
            newest = Math.max(newest, Long.parseLong(v.trim()));
        }
        awaitAll(newest);
        List<Long> digests = new ArrayList<>();
        for (String d : all("check", options.awaitTimeout().plus(options.commandTimeout()))) {
            digests.add(Long.parseLong(d.trim()));
        }
        return digests;
    }

    /**
     * Asks every member to exit, waits up to 15 s for them, then destroys what is left (and anything they
     * started) forcibly.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (Member m : members) {
            if (m.paused && m.process.isAlive()) {
                try {
                    signal(m, "CONT");
                    m.paused = false;
                } catch (RuntimeException | InterruptedException e) {
                    // destroyed below
                }
            }
            if (!m.killed && m.process.isAlive()) {
                try {
                    m.send("exit");
                } catch (RuntimeException e) {
                    // gone already
                }
            }
            m.closeStdin();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        for (Member m : members) {
            try {
                m.process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (Member m : members) {
            m.destroy();
        }
        synchronized (started) {
            started.forEach(Member::destroy); // replaced incarnations too
        }
        for (Member m : members) {
            try {
                m.process.waitFor(10, TimeUnit.SECONDS);
                m.stdout.join(1000);
                m.stderr.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        removeHook(shutdownHook);
        deleteQuietly(argFile);
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down: the hook runs anyway
        }
    }

    private static void deleteQuietly(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // deleteOnExit is registered too
            }
        }
    }

    @Override
    public String toString() {
        return "ProcessCluster" + members;
    }

    /** One member process, its pipes, and the threads that drain them. */
    private static final class Member {
        final int index;
        final int port;
        final Process process;
        final Writer stdin;
        final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
        final Ring ring = new Ring(RING_LINES);
        final Thread stdout;
        final Thread stderr;
        final AtomicLong tags = new AtomicLong();
        volatile boolean killed;
        volatile boolean paused;

        Member(int index, int port, Process process, boolean echo) {
            this.index = index;
            this.port = port;
            this.process = process;
            this.stdin = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
            String prefix = "[r" + index + "] ";
            this.stdout = drain(process.getInputStream(), "r" + index + "-stdout", line -> {
                if (line.startsWith(MemberProcess.MARKER)) {
                    replies.add(line.substring(MemberProcess.MARKER.length()));
                } else {
                    ring.add("[stdout] " + line);
                    if (echo) {
                        System.err.println(prefix + line);
                    }
                }
            }, () -> replies.add(EOF));
            this.stderr = drain(process.getErrorStream(), "r" + index + "-stderr", line -> {
                ring.add(line);
                if (echo) {
                    System.err.println(prefix + line);
                }
            }, () -> { });
        }

        private static Thread drain(InputStream in, String name, java.util.function.Consumer<String> sink,
                Runnable atEnd) {
            Thread t = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        sink.accept(line);
                    }
                } catch (IOException e) {
                    // the process is gone
                } finally {
                    atEnd.run();
                }
            }, name);
            t.setDaemon(true);
            t.start();
            return t;
        }

        /** Writes {@code #TAG command}; returns the tag. */
        long send(String command) {
            long tag = tags.incrementAndGet();
            synchronized (stdin) {
                try {
                    stdin.write("#" + tag + " " + command + "\n");
                    stdin.flush();
                } catch (IOException e) {
                    throw new IllegalStateException(this + " cannot take '" + command + "' (" + e.getMessage() + ")"
                            + exitStatus() + lastOutput(), e);
                }
            }
            return tag;
        }

        /** Waits for the reply tagged {@code tag}: its result if {@code ok}, else an exception. */
        String reply(long tag, String command, Duration timeout) {
            String prefix = "#" + tag + " ";
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                String line;
                try {
                    line = replies.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for " + this + " to answer '" + command
                            + "'", e);
                }
                if (line == null) {
                    throw new IllegalStateException(this + " did not answer '" + command + "' within " + timeout
                            + lastOutput());
                }
                if (line == EOF) {
                    replies.add(EOF); // every later command fails the same way
                    String how = killed ? " was killed" : " exited";
                    throw new IllegalStateException(this + how + " before answering '" + command + "'"
                            + exitStatus() + lastOutput());
                }
                if (!line.startsWith(prefix)) {
                    continue; // the late answer to a command that timed out
                }
                String rest = line.substring(prefix.length());
                if (rest.equals("ok")) {
                    return "";
                }
                if (rest.startsWith("ok ")) {
                    return rest.substring(3);
                }
                if (rest.startsWith("error ")) {
                    throw new IllegalStateException(this + ": '" + command + "' failed: " + rest.substring(6));
                }
                throw new IllegalStateException(this + " answered '" + command + "' with '" + rest + "'");
            }
        }

        void closeStdin() {
            synchronized (stdin) {
                try {
                    stdin.close();
                } catch (IOException e) {
                    // gone already
                }
            }
        }

        /** SIGKILL to the process and whatever it started. */
        void destroy() {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }

        String exitStatus() {
            try {
                if (process.waitFor(2, TimeUnit.SECONDS)) {
                    return " (exit status " + process.exitValue() + ")";
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "";
        }

        /** The member's recent output, for error messages. */
        String lastOutput() {
            if (!process.isAlive()) {
                try {
                    stderr.join(1000); // let a dead member's last words arrive
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            List<String> lines = ring.lines();
            if (lines.isEmpty()) {
                return "; it wrote nothing to stderr";
            }
            List<String> shown = lines.subList(Math.max(0, lines.size() - SHOWN_LINES), lines.size());
            return "; its last stderr lines:\n    " + String.join("\n    ", shown);
        }

        @Override
        public String toString() {
            return "member " + index + " (pid " + process.pid() + ", port " + port + ")";
        }
    }

    /** The last lines of a stream. */
    private static final class Ring {
        private final int capacity;
        private final Deque<String> lines = new ArrayDeque<>();

        Ring(int capacity) {
            this.capacity = capacity;
        }

        synchronized void add(String line) {
            if (lines.size() == capacity) {
                lines.removeFirst();
            }
            lines.addLast(line);
        }

        synchronized List<String> lines() {
            return new ArrayList<>(lines);
        }
    }
}
