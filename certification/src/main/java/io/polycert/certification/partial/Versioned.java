package io.polycert.certification.partial;

/**
 * A key's committed state at an owner: its encoded value (null once removed) and how many committed
 * transactions wrote it. Every owner of a key applies the same writes in the same order, so the version names
 * the same value on all of them. Removed keys keep their version (a tombstone) so a later write cannot bring an
 * old version number back.
 */
record Versioned(byte[] value, long version) {
    static final Versioned ABSENT = new Versioned(null, 0);
    /** A read's answer when no member holds a fresh copy of the key (compared by identity, never stored). */
    static final Versioned UNAVAILABLE = new Versioned(null, -1);
}
