package io.polycert.gcs;

import io.polycert.core.testing.Await;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.group.GroupListener;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Full sender windows of kilobyte messages for a while. The group engine runs on JGroups' receiver threads; when a
 * send from there could wait for flow-control credits (JGroups MFC), members waited on each other for seconds at a
 * time. PolyCert's own sender window replaces it, and stacks with such layers are refused.
 */
class SustainedLoadTest {
    private static final int MESSAGES = 20_000;
    private static final int SIZE = 1_000;

    private final List<JGroupsGroup> groups = new ArrayList<>();

    @AfterEach
    void leave() {
        groups.forEach(JGroupsGroup::close);
    }

    private static final class Counter implements GroupListener {
        final LongAdder ordered = new LongAdder();
        final LongAdder reliable = new LongAdder();

        @Override
        public void deliverOrdered(MemberId origin, long position, byte[] payload) {
            ordered.increment();
        }

        @Override
        public void viewInstalled(View view, long position) {
        }

        @Override
        public void deliverReliable(MemberId origin, byte[] payload) {
            reliable.increment();
        }
    }

    @Test
    void fullWindowsOfKilobyteMessagesKeepFlowing() throws Exception {
        run(GroupStack.embedded());
    }

    @Test
    void stacksWithLayersThatBlockSendersAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JGroupsGroup
                .builder("refused-" + UUID.randomUUID()).listener(new Counter())
                .stack(GroupStack.fromXml("loopback-with-flow-control.xml")).join());
        assertTrue(e.getMessage().contains("MFC") || e.getMessage().contains("UFC"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> JGroupsGroup.builder("refused-" + UUID.randomUUID())
                .listener(new Counter()).stack(GroupStack.fromXml("loopback-with-sequencer.xml")).join());
        assertTrue(e.getMessage().contains("SEQUENCER"), e.getMessage());
    }

    private void run(GroupStack stack) throws Exception {
        String cluster = "load-" + UUID.randomUUID();
        List<Counter> counters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Counter c = new Counter();
            counters.add(c);
            // One member delivers inline, like the certification engine; the others on delivery threads.
            JGroupsGroup.Builder b = JGroupsGroup.builder(cluster).memberName("m" + i).listener(c).stack(stack)
                    .maxOutstanding(1_000);
            groups.add((i == 0 ? b.inlineDelivery() : b).join());
        }
        Await.until("three members", () -> groups.stream().allMatch(g -> g.view().size() == 3));
        List<Thread> senders = new ArrayList<>();
        for (JGroupsGroup g : groups) {
            Thread t = new Thread(() -> {
                byte[] payload = new byte[SIZE];
                for (int i = 0; i < MESSAGES; i++) {
                    g.broadcast(payload);
                    if (i % 10 == 0) {
                        g.reliableBroadcast(payload);
                    }
                }
            });
            senders.add(t);
            t.start();
        }
        for (Thread t : senders) {
            t.join(Duration.ofSeconds(90).toMillis());
        }
        long expected = 3L * MESSAGES;
        Await.until("every message delivered everywhere", () -> counters.stream()
                .allMatch(c -> c.ordered.sum() == expected && c.reliable.sum() == expected / 10));
    }
}
