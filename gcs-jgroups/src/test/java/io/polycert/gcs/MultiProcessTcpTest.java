package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Three members in three JVMs over TCP on 127.0.0.1. One is killed with SIGKILL mid-stream: the other two must
 * exclude it, keep going, and end with identical histories. One is stopped with SIGSTOP under load: the other two
 * must exclude it while it is stopped, and after SIGCONT it must come back and agree with them.
 */
class MultiProcessTcpTest {
    private final List<Proc> procs = new ArrayList<>();
    /** Where the members write their logs and delivery traces (kept after the test, for a post-mortem). */
    private Path traces;

    private static final class Proc {
        final Process process;
        final List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        final Writer stdin;

        Proc(Process process) {
            this.process = process;
            this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        lines.add(line);
                    }
                } catch (IOException e) {
                    // process gone
                }
            });
            reader.setDaemon(true);
            reader.start();
        }

        /** The first line printed so far (or within the timeout) that starts with {@code prefix}. */
        String await(String prefix, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                for (String line : lines) {
                    if (line.startsWith(prefix)) {
                        return line;
                    }
                }
                Thread.sleep(50);
            }
            throw new AssertionError("no line starting with '" + prefix + "' within " + timeout + "; got " + lines);
        }

        /** Waits for a line starting with {@code prefix} printed after the first {@code skip} lines; its index. */
        int awaitAfter(int skip, String prefix, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                for (int i = skip; i < lines.size(); i++) {
                    if (lines.get(i).startsWith(prefix)) {
                        return i;
                    }
                }
                Thread.sleep(50);
            }
            throw new AssertionError("no line starting with '" + prefix + "' after line " + skip + " within "
                    + timeout + "; got " + lines.subList(Math.min(skip, lines.size()), lines.size()));
        }

        void signal(String name) throws IOException, InterruptedException {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start();
            assertEquals(0, kill.waitFor(), "kill -" + name);
        }

        void tell(String command) throws IOException {
            stdin.write(command + "\n");
            stdin.flush();
        }

        /** The last "COUNT count hash" line the member printed, or null. */
        String lastCount() {
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (lines.get(i).startsWith("COUNT")) {
                    return lines.get(i);
                }
            }
            return null;
        }
    }

    @BeforeEach
    void tracesOf(TestInfo test) {
        traces = Path.of("target", "multi-process", test.getTestMethod().orElseThrow().getName());
    }

    @AfterEach
    void kill() throws IOException {
        procs.forEach(p -> p.process.destroyForcibly());
        for (int i = 0; i < procs.size(); i++) {
            Files.write(traces.resolve((char) ('A' + i) + ".out"), procs.get(i).lines);
        }
    }

    /** Starts the three members; false if one could not bind its port, else once each has joined. */
    private boolean launchThree(int size) throws Exception {
        int[] ports = {freePort(), freePort(), freePort()};
        String all = ports[0] + "," + ports[1] + "," + ports[2];
        String java = ProcessHandle.current().info().command().orElse("java");
        String cp = System.getProperty("java.class.path");
        Files.createDirectories(traces);
        for (int i = 0; i < 3; i++) {
            String name = String.valueOf((char) ('A' + i));
            Files.deleteIfExists(traces.resolve(name + ".trace"));
            ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-cp", cp, ProcessMember.class.getName(), name,
                    String.valueOf(ports[i]), all, String.valueOf(size), traces.resolve(name + ".trace").toString());
            pb.redirectError(traces.resolve(name + ".log").toFile());
            procs.add(new Proc(pb.start()));
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        for (int i = 0; i < 3; i++) { // members join once two of them found the group
            Proc p = procs.get(i);
            while (p.lines.stream().noneMatch(line -> line.startsWith("JOINED"))) {
                if (!p.process.isAlive() && Files.readString(traces.resolve((char) ('A' + i) + ".log"))
                        .contains("BindException")) {
                    return false;
                }
                if (System.nanoTime() > deadline) {
                    p.await("JOINED", Duration.ZERO); // fails, naming what the member printed
                }
                Thread.sleep(50);
            }
        }
        return true;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * Starts three members that broadcast messages of {@code size} bytes, and waits until all see each other. Each
     * writes its log and its delivery trace (see {@link ProcessMember}) to {@link #traces}. A port found free can be
     * taken by another process before the member binds it (a fresh clone's verify once failed so: "No available port
     * to bind to"); then all three start again on new ports, at most three times.
     */
    private void startThree(int size) throws Exception {
        for (int attempt = 1; !launchThree(size); attempt++) {
            procs.forEach(p -> p.process.destroyForcibly());
            assertTrue(attempt < 3, "three attempts to start the members each found a port taken");
            for (Proc p : procs) {
                p.process.waitFor();
            }
            procs.clear();
        }
        for (Proc p : procs) {
            p.await("VIEW 3", Duration.ofSeconds(60));
        }
    }

    /**
     * Stops the given members' senders, waits (at most a minute) until they all report the same count and hash
     * twice in a row, and returns their FINAL lines. A member back from a merge may deliver nothing for seconds
     * while JGroups retransmits to it what the others multicast during the merge; only the outcome is asserted.
     */
    private static List<String> finals(List<Proc> members) throws Exception {
        for (Proc p : members) {
            p.tell("stop");
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String agreed = null;
        while (System.nanoTime() < deadline) {
            Thread.sleep(500);
            String first = members.get(0).lastCount();
            boolean same = first != null && members.stream().allMatch(p -> first.equals(p.lastCount()));
            if (same && first.equals(agreed)) {
                break;
            }
            agreed = same ? first : null;
        }
        for (Proc p : members) {
            p.tell("exit");
        }
        List<String> finals = new ArrayList<>();
        for (Proc p : members) {
            finals.add(p.await("FINAL", Duration.ofSeconds(60)));
        }
        return finals;
    }

    @Test
    void killingOneProcessLeavesTheOtherTwoInAgreement() throws Exception {
        startThree(0);
        Thread.sleep(2000); // traffic flows
        procs.get(2).process.destroyForcibly(); // SIGKILL
        assertTrue(procs.get(2).process.waitFor(10, TimeUnit.SECONDS));
        for (int i = 0; i < 2; i++) {
            procs.get(i).await("VIEW 2", Duration.ofSeconds(60));
        }
        Thread.sleep(1500); // the survivors keep going
        List<String> finals = finals(procs.subList(0, 2));
        assertEquals(finals.get(0), finals.get(1), "survivors disagree");
        long count = Long.parseLong(finals.get(0).split(" ")[1]);
        assertTrue(count > 100, "too little traffic: " + finals);
    }

    /**
     * A member stopped with SIGSTOP while the others send it about 16 MB/s: its socket buffers fill within
     * seconds. JGroups' TCP sender used to block writing to it, and that one thread sends all of a member's
     * messages, heartbeats and view changes included, so the others neither excluded it nor went on while it was
     * stopped. Now they must exclude it within a few failure-detection timeouts (2 s here); once it resumes it
     * must merge back and end with their history.
     */
    @Test
    void aStoppedMemberIsExcludedWhileStoppedAndComesBackWithTheOthersHistory() throws Exception {
        stopAndResume(false);
        assertAllAgree();
    }

    /**
     * The same for the coordinator (RELIABILITY.md bug 8). Back from SIGSTOP it still has its old view, and NAKACK2
     * retransmits to it what the others multicast while it was stopped, 1,024 messages a second. It used to be
     * reported thousands of messages short: its delivery paused for more than the second the members
     * waited before printing their final count. The traces showed no divergence; it caught up within seconds.
     */
    @Test
    void aStoppedCoordinatorEndsWithTheOthersHistory() throws Exception {
        stopAndResume(true);
        assertAllAgree();
    }

    /** The index of the coordinator of the view of three (members start together: any of them may be it). */
    private int coordinator() {
        String view = null;
        for (String line : procs.get(0).lines) {
            if (line.startsWith("VIEW 3")) {
                view = line;
            }
        }
        return view.charAt(view.indexOf('[') + 1) - 'A';
    }

    /**
     * Starts three members, then stops the coordinator (or another member) under load until the others exclude it,
     * then resumes it until all see 3.
     */
    private void stopAndResume(boolean coordinator) throws Exception {
        startThree(8 * 1024);
        Thread.sleep(2000); // traffic flows
        int stopped = coordinator ? coordinator() : (coordinator() + 2) % 3;
        Proc target = procs.get(stopped);
        List<Proc> others = new ArrayList<>(procs);
        others.remove(target);
        target.signal("STOP");
        int[] before = new int[3];
        for (int i = 0; i < 3; i++) {
            before[i] = procs.get(i).lines.size();
        }
        for (Proc p : others) {
            p.awaitAfter(before[procs.indexOf(p)], "VIEW 2", Duration.ofSeconds(20));
        }
        target.signal("CONT");
        for (int i = 0; i < 3; i++) {
            procs.get(i).awaitAfter(before[i], "VIEW 3", Duration.ofSeconds(60));
        }
    }

    /**
     * Safety first: wherever two members delivered the same position, they delivered the same message, after the
     * same number of messages and with the same running hash. Then liveness: all end with the same history.
     */
    private void assertAllAgree() throws Exception {
        Thread.sleep(1000);
        List<String> finals = finals(procs);
        List<Map<Long, String>> delivered = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            delivered.add(readTrace(traces.resolve((char) ('A' + i) + ".trace")));
        }
        for (int i = 0; i < 3; i++) {
            for (int j = i + 1; j < 3; j++) {
                for (Map.Entry<Long, String> e : delivered.get(i).entrySet()) {
                    String other = delivered.get(j).get(e.getKey());
                    if (other != null && !other.equals(e.getValue())) {
                        throw new AssertionError("members " + (char) ('A' + i) + " and " + (char) ('A' + j)
                                + " diverge at position " + e.getKey() + ": " + e.getValue() + " against " + other
                                + " (count, hash, message hash); traces in " + traces);
                    }
                }
            }
        }
        assertEquals(finals.get(0), finals.get(1), () -> "members disagree; " + statusOf(0) + "; " + statusOf(1));
        assertEquals(finals.get(0), finals.get(2), () -> "members disagree; " + statusOf(0) + "; " + statusOf(2));
    }

    /** Position to "count hash messageHash" of each delivery in a member's trace. */
    private static Map<Long, String> readTrace(Path file) throws IOException {
        Map<Long, String> byPosition = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            if (!line.startsWith("STATE")) {
                int space = line.indexOf(' ');
                byPosition.put(Long.parseLong(line.substring(0, space)), line.substring(space + 1));
            }
        }
        return byPosition;
    }

    /** A member's last status line: where its engine stood. */
    private String statusOf(int member) {
        String last = null;
        for (String line : procs.get(member).lines) {
            if (line.startsWith("STATUS")) {
                last = line;
            }
        }
        return (char) ('A' + member) + ": " + last;
    }
}
