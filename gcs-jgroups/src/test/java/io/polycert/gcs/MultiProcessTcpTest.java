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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three members in three JVMs over TCP on 127.0.0.1. One is killed with SIGKILL mid-stream: the other two must
 * exclude it, keep going, and end with identical histories. One is stopped with SIGSTOP under load: the other two
 * must exclude it while it is stopped, and after SIGCONT it must come back and agree with them.
 */
class MultiProcessTcpTest {
    private final List<Proc> procs = new ArrayList<>();

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

        void stop() throws IOException {
            stdin.write("stop\n");
            stdin.flush();
        }
    }

    @AfterEach
    void kill() {
        procs.forEach(p -> p.process.destroyForcibly());
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Starts three members that broadcast messages of {@code size} bytes, and waits until all see each other. */
    private void startThree(int size) throws Exception {
        int[] ports = {freePort(), freePort(), freePort()};
        String all = ports[0] + "," + ports[1] + "," + ports[2];
        String java = ProcessHandle.current().info().command().orElse("java");
        String cp = System.getProperty("java.class.path");
        for (int i = 0; i < 3; i++) {
            ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-cp", cp, ProcessMember.class.getName(),
                    String.valueOf((char) ('A' + i)), String.valueOf(ports[i]), all, String.valueOf(size));
            pb.redirectError(ProcessBuilder.Redirect.DISCARD);
            procs.add(new Proc(pb.start()));
            procs.get(i).await("JOINED", Duration.ofSeconds(60));
        }
        for (Proc p : procs) {
            p.await("VIEW 3", Duration.ofSeconds(60));
        }
    }

    /** Stops the given members and returns their FINAL lines. */
    private static List<String> finals(List<Proc> members) throws Exception {
        for (Proc p : members) {
            p.stop();
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
     * stopped. Now they must exclude it within a few failure-detection timeouts (2 s here), and once it resumes
     * it must merge back. Member 0 coordinates the group; for member 2 the histories must also agree at the end.
     */
    @ParameterizedTest(name = "member {0} stopped")
    @ValueSource(ints = {2, 0})
    void aStoppedMemberIsExcludedWhileStoppedAndComesBack(int stopped) throws Exception {
        stopAndResume(stopped);
        if (stopped != 0) {
            assertAllAgree();
        }
    }

    /**
     * Open: after the coordinator was stopped and merged back, its final count sometimes falls short of the others'
     * by thousands of messages (4 of the last 5 runs on the loaded 2-core machine, e.g. 18,213 against 22,952). Not
     * yet known whether it stopped delivering (liveness) or diverged; see docs/RELIABILITY.md, bug 8.
     */
    @Test
    @Disabled("open: a coordinator stopped and merged back ends short of the others' history (RELIABILITY.md bug 8)")
    void aStoppedCoordinatorEndsWithTheOthersHistory() throws Exception {
        stopAndResume(0);
        assertAllAgree();
    }

    /** Stops member {@code stopped} under load until the others exclude it, then resumes it until all see 3. */
    private void stopAndResume(int stopped) throws Exception {
        startThree(8 * 1024);
        Thread.sleep(2000); // traffic flows
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

    private void assertAllAgree() throws Exception {
        Thread.sleep(1000);
        List<String> finals = finals(procs);
        assertEquals(finals.get(0), finals.get(1), "members disagree");
        assertEquals(finals.get(0), finals.get(2), "members disagree");
    }
}
