package io.polycert.oracle;

import io.polycert.core.group.GroupStatistics;

/** What a replica tells its oracle about itself once it has joined its group (for the monitoring layer). */
public interface OracleContext {

    /** The group member's counters. */
    GroupStatistics group();

    /** The id of the thread that last delivered certification messages, or -1 if none yet. */
    long deliveryThreadId();

    /** How far certification lags behind the delivery stream: the age of the oldest undecided delivery. */
    long replayLagNanos();
}
