package io.polycert.kvstore.config;

import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.annotation.Nullable;
import io.polycert.core.codec.ValueCodec;
import io.polycert.gcs.GroupStack;
import io.polycert.kvstore.Replica;
import io.polycert.oracle.ProtocolOracle;
import jakarta.inject.Singleton;
import java.time.Duration;

/**
 * Starts the application's {@link Replica} from {@link ReplicaProperties}, with the oracle bean
 * ({@code polycert.oracle}) and the application's {@link ValueCodec} bean if it defines one (else the built-in
 * types only). The replica leaves its group when the context closes.
 */
@Factory
public class ReplicaFactory {

    @Singleton
    @Bean(preDestroy = "close")
    public Replica replica(ReplicaProperties properties, ProtocolOracle oracle, @Nullable ValueCodec codec) {
        if (properties.cluster().isBlank()) {
            throw new ConfigurationException("polycert.replica.cluster is required: the name of the group to join");
        }
        Replica.Builder builder = Replica.builder(properties.cluster()).oracle(oracle)
                .stack(stack(properties.stack())).codec(codec != null ? codec : ValueCodec.standard());
        if (!properties.memberName().isBlank()) {
            builder.memberName(properties.memberName());
        }
        try {
            return builder.minimumMembers(properties.minimumMembers()).maxAttempts(properties.maxAttempts())
                    .joinTimeout(Duration.ofSeconds(properties.joinTimeoutSeconds())).start();
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException("polycert.replica settings: " + e.getMessage(), e);
        }
    }

    static GroupStack stack(String stack) {
        return stack.isBlank() || stack.trim().equals("embedded") ? GroupStack.embedded()
                : GroupStack.fromXml(stack.trim());
    }
}
