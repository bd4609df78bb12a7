package io.polycert.certification.partial;

import io.polycert.core.AbortCause;
import io.polycert.core.TransactionAbortedException;

/**
 * A read or commit touched a key no member holds a fresh copy of: every member that owned it left the group or
 * was cut off (more failures than the replication degree tolerates). The store refuses the key rather than serve
 * it as if it had never been written, until one of those owners is back with its copy. Not retried by
 * {@code atomic}.
 */
public class KeyUnavailableException extends TransactionAbortedException {
    private static final long serialVersionUID = 1L;

    private final byte[] key;

    public KeyUnavailableException(byte[] key, String message) {
        super(AbortCause.OWNERS_UNAVAILABLE, message);
        this.key = key.clone();
    }

    /** The encoded key (map name and key, as the store encodes them). */
    public byte[] key() {
        return key.clone();
    }
}
