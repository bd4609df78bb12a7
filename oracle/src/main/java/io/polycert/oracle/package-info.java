/**
 * The replication protocol selector oracle: the SPI the polymorphic replication
 * manager asks which certification protocol (NVC, BFC or VC) a committing transaction should use, and its
 * implementations: static and threshold oracles, UCB and DistUCB bandits, a decision-tree (model-tree) cost
 * model, the monitoring layer and training-data collection.
 */
package io.polycert.oracle;
