/**
 * The group-communication SPI: uniform atomic broadcast, uniform reliable broadcast, total-order multicast to
 * subsets, point-to-point messages, membership views and state transfer, with no dependency on a toolkit. The
 * {@code gcs-jgroups} module implements it over JGroups.
 */
package io.polycert.core.group;
