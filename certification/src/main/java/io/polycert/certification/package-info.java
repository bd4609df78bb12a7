/**
 * Certification of replicated transactions (to come, issues 4 and 6): non-voting (NVC), Bloom-filter (BFC) and
 * voting (VC) certification over atomic broadcast, coexisting in one certification queue under the polymorphic
 * replication manager; and genuine partial replication committed by total-order multicast. Built on the core's
 * {@link io.polycert.core.CommitHandler} SPI.
 */
package io.polycert.certification;
