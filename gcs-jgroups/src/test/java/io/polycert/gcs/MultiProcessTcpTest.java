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
import org.junit.jupiter.api.Test;

/**
 * Three members in three JVMs over TCP on 127.0.0.1; one is killed with SIGKILL mid-stream. The other two must
 * exclude it, keep going, and end with identical histories.
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

    @Test
    void killingOneProcessLeavesTheOtherTwoInAgreement() throws Exception {
        int[] ports = {freePort(), freePort(), freePort()};
        String all = ports[0] + "," + ports[1] + "," + ports[2];
        String java = ProcessHandle.current().info().command().orElse("java");
        String cp = System.getProperty("java.class.path");
        for (int i = 0; i < 3; i++) {
            ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-cp", cp, ProcessMember.class.getName(),
                    String.valueOf((char) ('A' + i)), String.valueOf(ports[i]), all);
            pb.redirectError(ProcessBuilder.Redirect.DISCARD);
            procs.add(new Proc(pb.start()));
            procs.get(i).await("JOINED", Duration.ofSeconds(60));
        }
        for (Proc p : procs) {
            p.await("VIEW 3", Duration.ofSeconds(60));
        }
        Thread.sleep(2000); // traffic flows
        procs.get(2).process.destroyForcibly(); // SIGKILL
        assertTrue(procs.get(2).process.waitFor(10, TimeUnit.SECONDS));
        for (int i = 0; i < 2; i++) {
            procs.get(i).await("VIEW 2", Duration.ofSeconds(60));
        }
        Thread.sleep(1500); // the survivors keep going
        List<String> finals = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            procs.get(i).stdin.write("stop\n");
            procs.get(i).stdin.flush();
        }
        for (int i = 0; i < 2; i++) {
            finals.add(procs.get(i).await("FINAL", Duration.ofSeconds(60)));
        }
        assertEquals(finals.get(0), finals.get(1), "survivors disagree");
        long count = Long.parseLong(finals.get(0).split(" ")[1]);
        assertTrue(count > 100, "too little traffic: " + finals);
    }
}
