/**
 * The application-facing replicated store (to come, issues 4 and 6): the object registry that maps replica-wide
 * box ids to local objects (weak values), replica start-up and shutdown, and the transactional key-value map over
 * full or partial replication.
 */
package io.polycert.kvstore;
