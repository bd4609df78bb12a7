package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.group.GroupListener;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import io.polycert.core.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code broadcast} waits for room in the sender window, but not for ever: a member whose broadcasts stop being
 * delivered (here: everything it sends is dropped) gives up with a clear error after the broadcast timeout and
 * sends nothing. In the fault campaign, client threads of a replica that came back from a pause waited in
 * {@code commit} for good.
 */
class BroadcastTimeoutTest {
    private final List<JGroupsGroup> groups = new ArrayList<>();

    @AfterEach
    void leave() {
        groups.forEach(JGroupsGroup::close);
    }

    private static final class Quiet implements GroupListener {
        @Override
        public void deliverOrdered(MemberId origin, long position, byte[] payload) {
        }

        @Override
        public void viewInstalled(View view, long position) {
        }
    }

    @Test
    void aBroadcastThatFindsNoRoomGivesUpAfterTheTimeout() {
        String cluster = "timeout-" + UUID.randomUUID();
        GroupStack stack = GroupStack.embedded().faultInjection();
        for (String name : List.of("A", "B")) {
            groups.add(JGroupsGroup.builder(cluster).memberName(name).stack(stack).listener(new Quiet())
                    .maxOutstanding(1).broadcastTimeout(Duration.ofMillis(300)).join());
        }
        Await.until("two members", () -> groups.stream().allMatch(g -> g.view().size() == 2));
        JGroupsGroup b = groups.get(1);
        b.discard().setDownDiscardRate(1); // B's messages go nowhere: its broadcast is never ordered
        b.broadcast(new byte[] {1}); // takes the whole window
        IllegalStateException e = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> assertThrows(IllegalStateException.class, () -> b.broadcast(new byte[] {2})));
        assertTrue(e.getMessage().contains("was not sent"), e.getMessage());
    }
}
