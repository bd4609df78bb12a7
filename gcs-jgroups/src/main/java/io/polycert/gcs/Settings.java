package io.polycert.gcs;

/**
 * Tuning of one member's group engine.
 *
 * @param minimumMembers members needed in the first view to found a new group (set it to a majority of the
 *     intended cluster size so two halves started apart can never both found one)
 * @param tomVariant which Skeen variant collects proposals
 * @param maxOutstanding own broadcasts allowed undelivered before {@code broadcast} blocks
 * @param maxLag ordered entries a member may hold fewer of than the coordinator ordered before the coordinator
 *     excludes it (it comes back by state transfer): the group delivers on a majority, so without a bound a member
 *     that falls behind (a lossy link) makes itself and everyone else buffer until their heaps run out
 * @param maxLagBytes the same bound in payload bytes, since what the others buffer for a member is bytes, whatever
 *     the number of entries
 * @param stallNanos how long a coordinator waiting for the others (entries or reliable broadcasts they have not
 *     acknowledged) may hear nothing from any of them before it concludes they have excluded it (a coordinator
 *     stopped with SIGSTOP wakes up in a view nobody else has, which nothing else would make it leave) and
 *     excludes them in turn, to merge back
 */
record Settings(int minimumMembers, TotalOrderMulticast.Variant tomVariant, int maxOutstanding, int maxLag,
        long maxLagBytes, long stallNanos) {

    Settings {
        if (minimumMembers < 1) {
            throw new IllegalArgumentException("minimumMembers must be at least 1, was " + minimumMembers);
        }
        if (maxOutstanding < 1) {
            throw new IllegalArgumentException("maxOutstanding must be at least 1, was " + maxOutstanding);
        }
        if (maxLag < 1) {
            throw new IllegalArgumentException("maxLag must be at least 1, was " + maxLag);
        }
        if (maxLagBytes < 1) {
            throw new IllegalArgumentException("maxLagBytes must be at least 1, was " + maxLagBytes);
        }
        if (stallNanos < 1) {
            throw new IllegalArgumentException("stallNanos must be positive, was " + stallNanos);
        }
    }

    static final int DEFAULT_MAX_LAG = 50_000;
    /**
     * 512 MiB: eight times what one sender may have outstanding by default (64 MiB). The broadcast benchmark with
     * 1 MB payloads excluded nobody with it (docs/RELIABILITY.md, bug 4).
     */
    static final long DEFAULT_MAX_LAG_BYTES = 512L << 20;

    /** The bytes bound for a sender window of {@code maxOutstandingBytes}: the default, or 8 windows if larger. */
    static long maxLagBytesFor(long maxOutstandingBytes) {
        return Math.max(DEFAULT_MAX_LAG_BYTES, maxOutstandingBytes > Long.MAX_VALUE / 8 ? Long.MAX_VALUE
                : 8 * maxOutstandingBytes);
    }
    static final long DEFAULT_STALL_NANOS = 30_000_000_000L;

    Settings(int minimumMembers, TotalOrderMulticast.Variant tomVariant, int maxOutstanding) {
        this(minimumMembers, tomVariant, maxOutstanding, DEFAULT_MAX_LAG, DEFAULT_MAX_LAG_BYTES, DEFAULT_STALL_NANOS);
    }

    static Settings defaults() {
        return new Settings(1, TotalOrderMulticast.Variant.DECENTRALIZED, 20_000);
    }
}
