package io.polycert.gcs;

import io.polycert.core.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Message loss (JGroups DISCARD) and a slow member (JGroups DELAY). In a class of its own: JGroups 5.5.7's DELAY
 * leaves a busy thread behind, and the module's tests run each class in a fresh JVM.
 */
class LossAndDelayTest {
    private final List<RecordingMember> members = new ArrayList<>();
    private final String cluster = "lossy-" + UUID.randomUUID();

    @AfterEach
    void leave() {
        RecordingMember.closeAll(members);
    }

    private RecordingMember join(String name) {
        RecordingMember m = RecordingMember.join(cluster, name,
                GroupStack.embedded().failureDetection(Duration.ofMillis(1500)).faultInjection().delayLayer());
        members.add(m);
        return m;
    }

    @Test
    void messageLossAndASlowMemberDoNotBreakAgreement() throws Exception {
        RecordingMember a = join("A");
        RecordingMember b = join("B");
        RecordingMember c = join("C");
        for (RecordingMember m : List.of(a, b, c)) {
            m.group.discard().setUpDiscardRate(0.1).setDownDiscardRate(0.05);
        }
        c.group.delay().setInDelay(5);
        for (int i = 0; i < 500; i++) {
            a.broadcast("a-" + i);
            b.broadcast("b-" + i);
            c.broadcast("c-" + i);
        }
        Await.until("all delivered despite loss", () -> a.count == 1500 && b.count == 1500 && c.count == 1500);
        JGroupsGroupTest.assertSameHistory(List.of(a, b, c));
    }

}
