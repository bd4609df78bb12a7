package io.polycert.gcs;

import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.jgroups.protocols.pbcast.NAKACK2;

/**
 * A group member in its own JVM over TCP, for the multi-process test. Arguments: name, own port, the ports of all
 * members, optionally the size in bytes of each message (default: a few bytes) and a file to write its delivery
 * trace to. It broadcasts about once a millisecond, prints "VIEW n [members]" (coordinator first) for each view delivered and a "STATUS" line
 * with where its engine stands every second. On "stop" (stdin) it stops sending and prints "COUNT count hash" twice
 * a second; on "exit" it waits until nothing arrives for a second, writes the trace, prints "FINAL count hash" and
 * exits. The trace has a line "position count hash messageHash" per delivered message (count and running hash
 * after it) and "STATE count hash position" for each state installed, so the test can tell a member that diverged
 * from one that is behind.
 */
public final class ProcessMember {

    private ProcessMember() {
    }

    public static void main(String[] args) throws Exception {
        String name = args[0];
        int port = Integer.parseInt(args[1]);
        List<InetSocketAddress> hosts = new ArrayList<>();
        for (String p : args[2].split(",")) {
            hosts.add(GroupStack.loopback(Integer.parseInt(p)));
        }
        int size = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        Path traceFile = args.length > 4 ? Path.of(args[4]) : null;
        List<String> trace = Collections.synchronizedList(new ArrayList<>()); // written by the delivery thread
        GroupStack stack = GroupStack.tcp(GroupStack.loopback(port), hosts).failureDetection(Duration.ofSeconds(2));
        RecordingMember m = new RecordingMember(name) {
            @Override
            public void deliverOrdered(MemberId origin, long position, byte[] payload) {
                hash = RecordingMember.fnv(hash, payload);
                count++;
                if (traceFile != null) {
                    trace.add(position + " " + count + " " + Long.toHexString(hash) + " "
                            + Long.toHexString(RecordingMember.fnv(0xcbf29ce484222325L, payload)));
                }
            }

            @Override
            public void viewInstalled(View view, long position) {
                super.viewInstalled(view, position);
                System.out.println("VIEW " + view.size() + " " + view.members()); // coordinator first
                System.out.flush();
            }

            @Override
            public void readState(InputStream in) throws IOException {
                super.readState(in);
                trace.add("STATE " + count + " " + Long.toHexString(hash) + " " + lastPosition);
            }
        };
        m.group = JGroupsGroup.builder("multi-process").memberName(name).stack(stack).listener(m).stateHandler(m)
                .maxOutstandingBytes(8 << 20) // a window that fits -Xmx256m
                // A majority of the three founds the group: alone, a member that missed the others at start (a
                // loaded machine) would found a group of its own, deliver, and later replace that history.
                .minimumMembers(2).joinTimeout(Duration.ofSeconds(60)).join();
        System.out.println("JOINED");
        System.out.flush();
        Thread sender = new Thread(() -> {
            for (int i = 0; !Thread.currentThread().isInterrupted(); i++) {
                try {
                    String text = name + "-" + i;
                    m.broadcast(text.length() >= size ? text : text + "x".repeat(size - text.length()));
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    // minority or leaving: keep trying
                }
            }
        });
        sender.start();
        Thread status = new Thread(() -> {
            GroupEngine engine = m.group.engine();
            NAKACK2 nakack = m.group.channel().getProtocolStack().findProtocol(NAKACK2.class);
            while (true) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
                // Multicasts JGroups still has to retransmit to this member before it passes on later ones.
                int missing = nakack.getXmitTableMissingMessages();
                engine.post(() -> System.out.println("STATUS count=" + m.count + " " + engine.ab.describe()
                        + " multicastsMissing=" + missing));
            }
        });
        status.setDaemon(true);
        status.start();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        awaitLine(in, "stop");
        sender.interrupt();
        sender.join();
        Thread counts = new Thread(() -> {
            while (true) {
                System.out.println("COUNT " + m.count + " " + Long.toHexString(m.hash));
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        counts.setDaemon(true);
        counts.start();
        awaitLine(in, "exit");
        long last = -1;
        while (m.count != last) {
            last = m.count;
            Thread.sleep(1000);
        }
        if (traceFile != null) {
            try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(traceFile))) {
                synchronized (trace) {
                    trace.forEach(w::println);
                }
            }
        }
        System.out.println("FINAL " + m.count + " " + Long.toHexString(m.hash));
        System.out.flush();
        m.close();
        System.exit(0);
    }

    private static void awaitLine(BufferedReader in, String expected) throws IOException {
        String line;
        while ((line = in.readLine()) != null && !line.equals(expected)) {
            // wait
        }
    }
}
