/**
 * The versioned-box STM and the replication SPI.
 *
 * <p>Applications use {@link io.polycert.core.Stm} and {@link io.polycert.core.VBox}; frameworks may demarcate
 * transactions with {@link io.polycert.core.Transaction}. Replication layers plug in a
 * {@link io.polycert.core.CommitHandler}, which receives each committing read-write transaction as a
 * {@link io.polycert.core.CommitRequest} and installs versions through the {@link io.polycert.core.CommitLog}.
 * Nothing here depends on a group-communication toolkit.
 */
package io.polycert.core;
