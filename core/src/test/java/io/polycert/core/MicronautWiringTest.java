package io.polycert.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.context.ApplicationContext;
import io.polycert.core.config.StmProperties;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Later modules pick their protocol and oracle the same way: beans created from configuration properties. */
class MicronautWiringTest {

    @Test
    void stmBeanIsBuiltFromConfigurationProperties() {
        Map<String, Object> config = Map.of("polycert.stm.name", "configured", "polycert.stm.max-attempts", 3);
        Stm stm;
        try (ApplicationContext context = ApplicationContext.run(config)) {
            assertEquals(3, context.getBean(StmProperties.class).maxAttempts());
            stm = context.getBean(Stm.class);
            assertEquals("Stm[configured]", stm.toString());
            VBox<Integer> x = stm.newBox(0);
            TransactionAbortedException e = org.junit.jupiter.api.Assertions.assertThrows(
                    TransactionAbortedException.class, () -> stm.atomic(() -> {
                        x.put(x.get() + 1);
                        CompletableFuture.runAsync(() -> x.put(-1)).join();
                    }));
            assertEquals(3, e.attempts(), "max-attempts from configuration is in force");
        }
        assertTrue(stm.isClosed(), "the context closes the STM it created");
    }

    @Test
    void defaultsApplyWithoutConfiguration() {
        try (ApplicationContext context = ApplicationContext.run()) {
            assertEquals(100, context.getBean(StmProperties.class).maxAttempts());
        }
    }
}
