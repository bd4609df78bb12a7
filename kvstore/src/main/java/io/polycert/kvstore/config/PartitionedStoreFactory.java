package io.polycert.kvstore.config;

import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.annotation.Nullable;
import io.polycert.certification.partial.CommitProtocol;
import io.polycert.certification.partial.ConsistencyLevel;
import io.polycert.core.codec.ValueCodec;
import io.polycert.gcs.TomVariant;
import io.polycert.kvstore.PartitionedStore;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Locale;

/**
 * Starts the application's {@link PartitionedStore} from {@link PartitionedStoreProperties}, with the
 * application's {@link ValueCodec} bean if it defines one. The member leaves its group when the context closes.
 */
@Factory
public class PartitionedStoreFactory {

    @Singleton
    @Bean(preDestroy = "close")
    public PartitionedStore partitionedStore(PartitionedStoreProperties p, @Nullable ValueCodec codec) {
        if (p.cluster().isBlank()) {
            throw new ConfigurationException("polycert.partitioned.cluster is required: the name of the group to"
                    + " join");
        }
        try {
            PartitionedStore.Builder b = PartitionedStore.builder(p.cluster()).stack(ReplicaFactory.stack(p.stack()))
                    .codec(codec != null ? codec : ValueCodec.standard())
                    .consistency(ConsistencyLevel.fromName(p.consistency()))
                    .protocol(protocol(p.protocol())).tomVariant(tomVariant(p.tomVariant()))
                    .replicationDegree(p.replicationDegree()).minimumMembers(p.minimumMembers())
                    .lockTimeout(Duration.ofMillis(p.lockTimeoutMillis())).maxAttempts(p.maxAttempts())
                    .joinTimeout(Duration.ofSeconds(p.joinTimeoutSeconds()));
            if (!p.memberName().isBlank()) {
                b.memberName(p.memberName());
            }
            return b.start();
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException("polycert.partitioned settings: " + e.getMessage(), e);
        }
    }

    private static CommitProtocol protocol(String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "total-order" -> CommitProtocol.TOTAL_ORDER;
            case "two-phase-commit", "2pc" -> CommitProtocol.TWO_PHASE_COMMIT;
            default -> throw new IllegalArgumentException("protocol '" + name + "' is not total-order or"
                    + " two-phase-commit");
        };
    }

    private static TomVariant tomVariant(String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "tom-3", "coordinated" -> TomVariant.COORDINATED;
            case "tom-2", "decentralized" -> TomVariant.DECENTRALIZED;
            default -> throw new IllegalArgumentException("tom-variant '" + name + "' is not tom-3 or tom-2");
        };
    }
}
