package io.polycert.core.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * STM settings bound from configuration ({@code polycert.stm.*}) when PolyCert is wired with Micronaut.
 *
 * @param name a name for logs ({@code polycert.stm.name}); empty for a generated one
 * @param maxAttempts attempts {@link io.polycert.core.Stm#atomic} makes before giving up
 *     ({@code polycert.stm.max-attempts}, default 100)
 */
@ConfigurationProperties("polycert.stm")
public record StmProperties(
        @Bindable(defaultValue = "") String name,
        @Bindable(defaultValue = "100") int maxAttempts) {
}
