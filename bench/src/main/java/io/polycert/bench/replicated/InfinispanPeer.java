package io.polycert.bench.replicated;

import io.polycert.bench.process.ProcessCluster;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Infinispan's bank (module {@code bench/infinispan-peer}) running in a JVM of its own, because Infinispan brings
 * its own JGroups: started once, then asked for one measured turn at a time, so that its turns interleave with
 * PolyCert's in the same run.
 */
final class InfinispanPeer implements AutoCloseable {

    /** One measured turn. */
    record Turn(long commits, long aborts, double seconds, long p50Micros, long p90Micros, long p99Micros) {
        double committedPerSecond() {
            return commits / seconds;
        }

        double abortedPerSecond() {
            return aborts / seconds;
        }
    }

    private final Process process;
    private final BufferedReader replies;
    private final PrintStream commands;
    private String version = "?";

    private InfinispanPeer(Process process) {
        this.process = process;
        this.replies = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
    }

    /**
     * The peer's build output: {@code bench/infinispan-peer/target}, found from the repository root or from
     * {@code bench/} (where the benchmark runs under Maven).
     */
    static Path defaultBuildDirectory() {
        for (Path candidate : List.of(Path.of("infinispan-peer", "target"), Path.of("bench", "infinispan-peer",
                "target"))) {
            if (Files.isRegularFile(candidate.resolve("peer-classpath.txt"))) {
                return candidate;
            }
        }
        return Path.of("bench", "infinispan-peer", "target");
    }

    /** Starts the peer with {@code members} Infinispan members and {@code accounts} accounts; its log goes to a file. */
    static InfinispanPeer start(Path buildDirectory, int members, int accounts, Path log) throws IOException {
        Path classpathFile = buildDirectory.resolve("peer-classpath.txt");
        Path jar = peerJar(buildDirectory);
        if (!Files.isRegularFile(classpathFile) || jar == null) {
            throw new IllegalStateException("the Infinispan peer is not built (" + classpathFile + " or "
                    + buildDirectory.resolve("polycert-infinispan-peer-*.jar") + " missing): run ./mvnw -q"
                    + " -DskipTests package (it is a module of the build)");
        }
        String classpath = jar.toAbsolutePath() + java.io.File.pathSeparator
                + Files.readString(classpathFile).trim();
        Files.createDirectories(log.toAbsolutePath().getParent());
        Process process = new ProcessBuilder(ProcessCluster.javaCommand(), "-Xms1g", "-Xmx1g", "-XX:+UseParallelGC",
                "-cp", classpath, "io.polycert.peer.infinispan.BankPeer", "--members", Integer.toString(members),
                "--accounts", Integer.toString(accounts))
                .redirectError(log.toFile()).start();
        InfinispanPeer peer = new InfinispanPeer(process);
        String ready = peer.reply();
        if (!ready.startsWith("ready ")) {
            peer.close();
            throw new IllegalStateException("the Infinispan peer did not start: '" + ready + "' (see " + log + ")");
        }
        peer.version = fields(ready, "ready").getOrDefault("version", "?");
        return peer;
    }

    /** The peer's jar in its build directory, whatever version the build gave it, or null. */
    private static Path peerJar(Path buildDirectory) throws IOException {
        if (!Files.isDirectory(buildDirectory)) {
            return null;
        }
        try (var jars = Files.newDirectoryStream(buildDirectory, "polycert-infinispan-peer-*.jar")) {
            for (Path jar : jars) {
                if (!jar.getFileName().toString().endsWith("-sources.jar")) {
                    return jar;
                }
            }
        }
        return null;
    }

    /** The Infinispan version the peer runs, as it reported it when it started. */
    String version() {
        return version;
    }

    Turn run(double warmupSeconds, double seconds) throws IOException {
        commands.printf(java.util.Locale.ROOT, "run %.3f %.3f%n", warmupSeconds, seconds);
        Map<String, String> fields = fields(reply(), "result");
        return new Turn(Long.parseLong(fields.get("commits")), Long.parseLong(fields.get("aborts")),
                Double.parseDouble(fields.get("seconds")), Long.parseLong(fields.get("p50us")),
                Long.parseLong(fields.get("p90us")), Long.parseLong(fields.get("p99us")));
    }

    /** The bank's total at one member and what it must be. */
    long[] check() throws IOException {
        commands.println("check");
        String[] words = reply().split(" ");
        if (words.length != 4 || !words[0].equals("total")) {
            throw new IllegalStateException("unexpected reply to check: " + String.join(" ", words));
        }
        return new long[] {Long.parseLong(words[1]), Long.parseLong(words[3])};
    }

    private String reply() throws IOException {
        String line = replies.readLine();
        if (line == null) {
            throw new IllegalStateException("the Infinispan peer exited (exit code "
                    + (process.isAlive() ? "none yet" : process.exitValue()) + ")");
        }
        if (line.startsWith("error ")) {
            throw new IllegalStateException("the Infinispan peer refused a command: " + line);
        }
        return line;
    }

    /** {@code key=value} words of a reply that starts with {@code kind}. */
    static Map<String, String> fields(String line, String kind) {
        String[] words = line.trim().split("\\s+");
        if (words.length == 0 || !words[0].equals(kind)) {
            throw new IllegalStateException("expected a '" + kind + "' reply, got: " + line);
        }
        Map<String, String> fields = new HashMap<>();
        for (int i = 1; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalStateException("malformed field '" + words[i] + "' in: " + line);
            }
            fields.put(words[i].substring(0, eq), words[i].substring(eq + 1));
        }
        return fields;
    }

    @Override
    public void close() {
        commands.println("quit");
        try {
            if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
