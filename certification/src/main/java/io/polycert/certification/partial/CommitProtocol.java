package io.polycert.certification.partial;

/** How a partially replicated transaction commits among the owners of its keys. */
public enum CommitProtocol {
    /**
     * Skeen total-order multicast to the owners (genuine: no other member takes part). Owners apply transactions
     * in the multicast order, so there are no distributed deadlocks and no lock timeouts. Which TOM variant
     * (TOM-3 or TOM-2) is chosen when the group is built.
     */
    TOTAL_ORDER,
    /**
     * The baseline: two-phase commit with per-key locks taken at prepare time, a lock timeout and the detection
     * of direct deadlocks at each owner, as in Infinispan's native protocol.
     */
    TWO_PHASE_COMMIT
}
