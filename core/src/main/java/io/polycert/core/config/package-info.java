/**
 * Optional Micronaut wiring for the core: configuration properties and bean factories. Micronaut Inject is an
 * optional dependency; applications that do not use it never load these classes.
 */
package io.polycert.core.config;
