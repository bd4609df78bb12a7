package io.polycert.kvstore.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * A replica's settings ({@code polycert.replica.*}) when PolyCert is wired with Micronaut.
 *
 * @param cluster the group to join (required)
 * @param memberName a name for logs and views; empty for a generated one
 * @param stack {@code embedded} (in-JVM replicas over shared loopback) or a JGroups XML file or class-path resource
 *     (e.g. {@code polycert-tcp.xml})
 * @param minimumMembers members the replica waits for before it serves transactions
 * @param maxAttempts attempts {@code atomic} makes before giving up
 * @param joinTimeoutSeconds how long joining (and state transfer) may take
 */
@ConfigurationProperties("polycert.replica")
public record ReplicaProperties(
        @Bindable(defaultValue = "") String cluster,
        @Bindable(defaultValue = "") String memberName,
        @Bindable(defaultValue = "embedded") String stack,
        @Bindable(defaultValue = "1") int minimumMembers,
        @Bindable(defaultValue = "100") int maxAttempts,
        @Bindable(defaultValue = "30") int joinTimeoutSeconds) {
}
