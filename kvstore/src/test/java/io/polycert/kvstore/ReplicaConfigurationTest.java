package io.polycert.kvstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.context.ApplicationContext;
import io.polycert.core.VBox;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A replica started from configuration, with the oracle chosen by configuration too. */
class ReplicaConfigurationTest {

    @Test
    void twoConfiguredReplicasFormAGroupAndReplicate() throws Exception {
        String cluster = "configured-" + UUID.randomUUID();
        try (ApplicationContext a = ApplicationContext.run(Map.of("polycert.replica.cluster", cluster,
                "polycert.replica.member-name", "a", "polycert.oracle", "static-vc"));
                ApplicationContext b = ApplicationContext.run(Map.of("polycert.replica.cluster", cluster,
                        "polycert.replica.member-name", "b", "polycert.oracle", "ucb"))) {
            Replica ra = a.getBean(Replica.class);
            Replica rb = b.getBean(Replica.class);
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (rb.view().members().size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(2, rb.view().members().size(), "both replicas in one view");
            VBox<String> greeting = ra.root("greeting");
            ra.stm().atomic(() -> greeting.put("hello"));
            VBox<String> seen = rb.root("greeting");
            while (!"hello".equals(rb.stm().readOnly(seen::get)) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals("hello", rb.stm().readOnly(seen::get));
            assertEquals(1, ra.statistics().of(io.polycert.oracle.Protocol.VC).committed(),
                    "the configured static-vc oracle certified it");
        }
    }

    @Test
    void aMissingClusterNameIsAClearError() {
        try (ApplicationContext context = ApplicationContext.run()) {
            RuntimeException e = assertThrows(RuntimeException.class, () -> context.getBean(Replica.class));
            StringBuilder messages = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause()) {
                messages.append(t.getMessage()).append(" / ");
            }
            assertTrue(messages.toString().contains("polycert.replica.cluster is required"), messages.toString());
        }
    }
}
