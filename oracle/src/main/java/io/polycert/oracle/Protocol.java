package io.polycert.oracle;

/** The certification protocols PolyCert can use for a transaction. */
public enum Protocol {
    /** Non-voting: the read-set and write-set are broadcast; every replica certifies. */
    NVC,
    /** Bloom filter: the read-set travels as a Bloom filter; every replica certifies (a few false positives). */
    BFC,
    /** Voting: only the write-set is broadcast; the originator certifies and broadcasts its vote. */
    VC
}
