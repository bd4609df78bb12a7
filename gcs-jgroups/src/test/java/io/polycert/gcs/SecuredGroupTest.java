package io.polycert.gcs;

import io.polycert.core.testing.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Authentication and encryption: only members with the cluster secret get in, or get heard. */
class SecuredGroupTest {
    private static final byte[] SECRET = "correct horse battery staple".getBytes(StandardCharsets.UTF_8);
    private static final byte[] WRONG = "not the cluster's secret at all".getBytes(StandardCharsets.UTF_8);
    private final List<RecordingMember> members = new ArrayList<>();
    private final String cluster = "secure-" + UUID.randomUUID();

    @AfterEach
    void leave() {
        RecordingMember.closeAll(members);
    }

    private static GroupStack stack(byte[] secret) {
        return GroupStack.embedded().failureDetection(Duration.ofMillis(1500)).secured(secret);
    }

    @Test
    void membersWithTheSecretFormTheGroupAndOthersCannotJoinOrBeHeard() throws Exception {
        RecordingMember a = RecordingMember.join(cluster, "A", stack(SECRET));
        members.add(a);
        RecordingMember b = RecordingMember.join(cluster, "B", stack(SECRET));
        members.add(b);
        a.broadcast("hello");
        Await.until("secured delivery", () -> a.count == 1 && b.count == 1);

        RecordingMember intruder = new RecordingMember("X");
        try {
            intruder.group = JGroupsGroup.builder(cluster).memberName("X").stack(stack(WRONG)).listener(intruder)
                    .stateHandler(intruder).joinTimeout(Duration.ofSeconds(5)).join();
            members.add(intruder);
            // If it could not be refused outright it sits in a view of its own: nothing it sends reaches us.
            assertFalse(a.group.view().contains(intruder.id()), "the intruder got into the view");
            intruder.broadcast("injected");
            Thread.sleep(1000);
        } catch (GroupJoinException refused) {
            // the coordinator rejected its join
        }
        a.broadcast("after");
        Await.until("after", () -> a.count == 2 && b.count == 2);
        assertEquals(List.of("hello", "after"), a.ordered);
        assertEquals(List.of("hello", "after"), b.ordered);
        assertEquals(2, a.group.view().size());
    }

    @Test
    void aShortSecretIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> GroupStack.embedded().secured(new byte[8]));
    }

    @Test
    void builtInXmlTemplatesLoad() throws Exception {
        for (String xml : List.of("polycert-tcp.xml", "polycert-udp.xml")) {
            try (org.jgroups.JChannel c = GroupStack.fromXml(xml).newChannel()) {
                assertTrue(c.getProtocolStack().getProtocols().size() > 5, xml);
            }
        }
    }
}
