package io.polycert.kvstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.context.ApplicationContext;
import io.polycert.certification.partial.CommitProtocol;
import io.polycert.certification.partial.ConsistencyLevel;
import io.polycert.core.testing.Await;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A partially replicated store started from configuration, protocol and level included. */
class PartitionedStoreConfigurationTest {

    @Test
    void configuredMembersFormAStoreWithTheConfiguredProtocol() {
        String cluster = "configured-partial-" + UUID.randomUUID();
        Map<String, Object> common = Map.of("polycert.partitioned.cluster", cluster,
                "polycert.partitioned.protocol", "two-phase-commit",
                "polycert.partitioned.consistency", "write-skew-check",
                "polycert.partitioned.replication-degree", "1");
        try (ApplicationContext a = ApplicationContext.run(with(common, "a"));
                ApplicationContext b = ApplicationContext.run(with(common, "b"))) {
            PartitionedStore sa = a.getBean(PartitionedStore.class);
            PartitionedStore sb = b.getBean(PartitionedStore.class);
            assertEquals(CommitProtocol.TWO_PHASE_COMMIT, sa.protocol());
            assertEquals(ConsistencyLevel.REPEATABLE_READ_WRITE_SKEW_CHECK, sa.consistency());
            Await.until("one placement of two members", () -> sa.isReady() && sb.isReady()
                    && sa.placementEpoch() == sb.placementEpoch() && sa.view().size() == 2
                    && sa.placementEpoch() == sa.view().epoch());
            TxMap<String, String> map = sa.map("greetings");
            sa.atomic(() -> map.put("hello", "world"));
            Await.until("the other member reads it", () -> "world".equals(sb.<String, String>map("greetings")
                    .get("hello")));
        }
    }

    @Test
    void badSettingsAreClearErrors() {
        try (ApplicationContext context = ApplicationContext.run()) {
            assertTrue(messages(assertThrows(RuntimeException.class, () -> context.getBean(PartitionedStore.class)))
                    .contains("polycert.partitioned.cluster is required"));
        }
        try (ApplicationContext context = ApplicationContext.run(Map.of("polycert.partitioned.cluster", "x",
                "polycert.partitioned.consistency", "snapshot"))) {
            String m = messages(assertThrows(RuntimeException.class, () -> context.getBean(PartitionedStore.class)));
            assertTrue(m.contains("consistency 'snapshot' is not"), m);
        }
    }

    private static Map<String, Object> with(Map<String, Object> common, String member) {
        java.util.HashMap<String, Object> m = new java.util.HashMap<>(common);
        m.put("polycert.partitioned.member-name", member);
        return m;
    }

    private static String messages(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            sb.append(t.getMessage()).append(" / ");
        }
        return sb.toString();
    }
}
