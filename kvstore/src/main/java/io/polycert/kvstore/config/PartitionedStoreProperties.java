package io.polycert.kvstore.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * A partially replicated store's settings ({@code polycert.partitioned.*}) when PolyCert is wired with Micronaut.
 * Every member of a cluster must use the same consistency, protocol, TOM variant and replication degree.
 *
 * @param cluster the group to join (required)
 * @param memberName a name for logs and views; empty for a generated one
 * @param stack {@code embedded} (in-JVM members over shared loopback) or a JGroups XML file or class-path resource
 * @param consistency {@code serializable}, {@code write-skew-check}, {@code repeatable-read} or
 *     {@code read-committed}
 * @param protocol {@code total-order} or {@code two-phase-commit} (the baseline)
 * @param tomVariant {@code tom-3} (coordinated) or {@code tom-2} (decentralized)
 * @param replicationDegree members holding each key
 * @param minimumMembers members needed to found the group and place keys
 * @param lockTimeoutMillis two-phase commit: how long a prepare waits for a lock
 * @param maxAttempts attempts {@code atomic} makes before giving up
 * @param joinTimeoutSeconds how long joining may take
 */
@ConfigurationProperties("polycert.partitioned")
public record PartitionedStoreProperties(
        @Bindable(defaultValue = "") String cluster,
        @Bindable(defaultValue = "") String memberName,
        @Bindable(defaultValue = "embedded") String stack,
        @Bindable(defaultValue = "serializable") String consistency,
        @Bindable(defaultValue = "total-order") String protocol,
        @Bindable(defaultValue = "tom-3") String tomVariant,
        @Bindable(defaultValue = "2") int replicationDegree,
        @Bindable(defaultValue = "1") int minimumMembers,
        @Bindable(defaultValue = "500") long lockTimeoutMillis,
        @Bindable(defaultValue = "100") int maxAttempts,
        @Bindable(defaultValue = "30") int joinTimeoutSeconds) {
}
