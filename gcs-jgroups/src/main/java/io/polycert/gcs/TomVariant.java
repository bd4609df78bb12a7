package io.polycert.gcs;

/** Which variant of Skeen's total-order multicast a group uses (see Ruivo's thesis). */
public enum TomVariant {
    /** TOM-3: destinations send their proposals to the origin, which sends the final timestamp back. */
    COORDINATED,
    /** TOM-2: every destination sends its proposal to every other; one step less, more messages. */
    DECENTRALIZED;

    TotalOrderMulticast.Variant internal() {
        return this == COORDINATED ? TotalOrderMulticast.Variant.COORDINATED
                : TotalOrderMulticast.Variant.DECENTRALIZED;
    }
}
