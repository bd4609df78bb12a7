package io.polycert.core.config;

import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.polycert.core.Stm;
import jakarta.inject.Singleton;

/** Creates the application's {@link Stm} from {@link StmProperties}; closed with the context. */
@Factory
public class StmFactory {

    @Singleton
    @Bean(preDestroy = "close")
    public Stm stm(StmProperties properties) {
        Stm.Builder builder = Stm.builder().maxAttempts(properties.maxAttempts());
        if (!properties.name().isEmpty()) {
            builder.name(properties.name());
        }
        return builder.build();
    }
}
