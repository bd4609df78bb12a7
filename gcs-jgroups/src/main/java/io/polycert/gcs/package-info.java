/**
 * Group communication over JGroups (to come, issue 3): uniform atomic broadcast, uniform reliable broadcast,
 * Skeen-style total-order multicast to subsets of members, point-to-point messages, membership views and state
 * transfer, implementing the JGroups-free group-communication SPI that the certification layer uses; plus the
 * embedded (in-JVM), TCP, UDP and secured stack configurations.
 */
package io.polycert.gcs;
