package io.polycert.gcs;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A group member in its own JVM over TCP, for the multi-process test. Arguments: name, own port, the ports of all
 * members, and optionally the size in bytes of each message (default: a few bytes). It broadcasts about once a
 * millisecond and prints "VIEW n" for each view delivered; on "stop" (stdin) it stops sending, waits until nothing
 * arrives for a second, prints "FINAL count hash" and exits. It keeps only the count and hash of what it delivered.
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
        GroupStack stack = GroupStack.tcp(GroupStack.loopback(port), hosts).failureDetection(Duration.ofSeconds(2));
        RecordingMember m = new RecordingMember(name) {
            @Override
            public void deliverOrdered(io.polycert.core.group.MemberId origin, long position, byte[] payload) {
                long h = hash;
                for (byte b : payload) {
                    h = (h ^ (b & 0xff)) * 0x100000001b3L;
                }
                hash = (h ^ 0xff) * 0x100000001b3L;
                count++;
            }

            @Override
            public void viewInstalled(io.polycert.core.group.View view, long position) {
                super.viewInstalled(view, position);
                System.out.println("VIEW " + view.size());
                System.out.flush();
            }
        };
        m.group = JGroupsGroup.builder("multi-process").memberName(name).stack(stack).listener(m).stateHandler(m)
                .maxOutstandingBytes(8 << 20).joinTimeout(Duration.ofSeconds(60)).join(); // a window that fits -Xmx256m
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
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.equals("stop")) {
            // wait
        }
        sender.interrupt();
        sender.join();
        long last = -1;
        while (m.count != last) {
            last = m.count;
            Thread.sleep(1000);
        }
        System.out.println("FINAL " + m.count + " " + Long.toHexString(m.hash));
        System.out.flush();
        m.close();
        System.exit(0);
    }
}
