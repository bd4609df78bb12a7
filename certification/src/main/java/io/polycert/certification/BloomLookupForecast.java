package io.polycert.certification;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Forecasts how many written ids a BFC transaction's filter will be checked against when it is certified, so that
 * the filter can be sized for the configured extra abort rate. Two parts:
 * <ul>
 *   <li>the ids certified between the transaction's snapshot and the moment it is encoded: counted, from a running
 *       total per version;</li>
 *   <li>the ids certified while its commit is in flight: forecast from this replica's own recent BFC commits, as TCP
 *       forecasts a round trip (mean plus four mean deviations). A run of slow commits, or a burst of concurrent
 *       writers, widens the next filters at once; a quiet spell narrows them over a few dozen commits.</li>
 * </ul>
 * The certifier thread writes; application threads read. Their reads are racy but only size a filter: a count
 * that is off by a version costs a slightly different false-positive rate, never a wrong decision.
 */
final class BloomLookupForecast {
    /** Versions whose running totals are kept (32 KiB); older snapshots are extrapolated from the average. */
    static final int SPAN = 4096;
    /** The least number of lookups a filter is sized for: a filter is small anyway. */
    static final int MIN_LOOKUPS = 8;

    /** The ids certified up to and including version {@code v}, at {@code v % SPAN}. */
    private final AtomicLongArray idsUpTo = new AtomicLongArray(SPAN);
    /** The newest version counted, and the oldest that readers may use in {@link #idsUpTo}. */
    private volatile long latest;
    private volatile long oldest;
    private long total;
    // Certifier thread only: the forecast's state, in ids.
    private double mean;
    private double deviation;
    private boolean sampled;
    /** The version the running totals restarted at: commits encoded before it are not sampled. */
    private long restartedAt;
    /** The published forecast of ids certified during one commit. */
    private volatile int duringCommit = MIN_LOOKUPS;

    BloomLookupForecast(long latest) {
        restart(latest);
    }

    /** After a state transfer: the running totals start again at {@code version}; the forecast is kept. */
    void restart(long version) {
        restartedAt = version;
        total = 0;
        idsUpTo.set(index(version), 0);
        oldest = version;
        latest = version;
    }

    /** Certifier thread: {@code version} wrote {@code ids} ids. */
    void committed(long version, int ids) {
        total += ids;
        idsUpTo.set(index(version), total);
        // The slot of the oldest version is the next one overwritten: readers stop one short of it.
        if (version - oldest >= SPAN - 1) {
            oldest = version - SPAN + 2;
        }
        latest = version; // published last: a reader that sees it sees its total
    }

    /** The newest certified version, to pass back to {@link #observeCommit} when the transaction is certified. */
    long latest() {
        return latest;
    }

    /**
     * How many ids were certified after {@code version}: exact within the last {@link #SPAN} versions, extrapolated
     * at their average before that.
     */
    long writtenSince(long version) {
        long now = latest;
        if (version >= now) {
            return 0;
        }
        long from = Math.max(version, oldest);
        if (from >= now) { // a read racing a restart
            return now - version;
        }
        long counted = idsUpTo.get(index(now)) - idsUpTo.get(index(from));
        // The certifier overwrites the slot of version from + SPAN before it publishes that version.
        if (latest - from >= SPAN - 1 || counted < 0) {
            return now - version; // overwritten while read: one id a version
        }
        if (from == version) {
            return counted;
        }
        return counted + (long) Math.ceil((double) counted * (from - version) / (now - from));
    }

    /**
     * Certifier thread: one of this replica's commits, encoded when {@code encodedAt} was the newest version, is
     * being certified now; the ids certified in between are a sample of what a commit sees in flight.
     */
    void observeCommit(long encodedAt) {
        if (encodedAt < restartedAt) {
            return; // the gap of a state transfer is not a commit's time in flight
        }
        double sample = writtenSince(encodedAt);
        if (!sampled) {
            mean = sample;
            deviation = sample / 2;
            sampled = true;
        } else {
            deviation += (Math.abs(sample - mean) - deviation) / 4;
            mean += (sample - mean) / 8;
        }
        duringCommit = (int) Math.min(Integer.MAX_VALUE / 2, Math.ceil(mean + 4 * deviation));
    }

    /** The ids a filter built now, for a transaction with this snapshot, will be checked against. */
    int expectedLookups(long snapshot) {
        long lookups = writtenSince(snapshot) + duringCommit;
        return (int) Math.max(MIN_LOOKUPS, Math.min(Integer.MAX_VALUE / 2, lookups));
    }

    private static int index(long version) {
        return (int) Math.floorMod(version, (long) SPAN);
    }
}
