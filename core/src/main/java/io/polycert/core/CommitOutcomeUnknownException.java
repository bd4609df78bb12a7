package io.polycert.core;

/**
 * The commit was sent for certification, but its outcome did not become known in time (for example, this replica
 * was cut off from the group and has not rejoined). The transaction may or may not have committed; it is not
 * retried. If it committed, its writes appear once the replica has caught up: read the data again to find out.
 */
public class CommitOutcomeUnknownException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CommitOutcomeUnknownException(String message) {
        super(message);
    }
}
