package io.polycert.gcs;

/**
 * Tuning of one member's group engine.
 *
 * @param minimumMembers members needed in the first view to found a new group (set it to a majority of the
 *     intended cluster size so two halves started apart can never both found one)
 * @param tomVariant which Skeen variant collects proposals
 * @param maxOutstanding own broadcasts allowed undelivered before {@code broadcast} blocks
 */
record Settings(int minimumMembers, TotalOrderMulticast.Variant tomVariant, int maxOutstanding) {

    Settings {
        if (minimumMembers < 1) {
            throw new IllegalArgumentException("minimumMembers must be at least 1, was " + minimumMembers);
        }
        if (maxOutstanding < 1) {
            throw new IllegalArgumentException("maxOutstanding must be at least 1, was " + maxOutstanding);
        }
    }

    static Settings defaults() {
        return new Settings(1, TotalOrderMulticast.Variant.DECENTRALIZED, 20_000);
    }
}
