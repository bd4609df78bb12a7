package io.polycert.certification.partial;

import io.polycert.core.CommitOutcomeUnknownException;

/**
 * The commit was sent but its outcome could not be learned: every owner of one of its keys left the group (more
 * failures than the replication degree tolerates) or no answer came in time. The transaction may or may not
 * have committed; the application must find out (for example by reading the keys again). A
 * {@link CommitOutcomeUnknownException}, so one catch covers full and partial replication.
 */
public class OutcomeUnknownException extends CommitOutcomeUnknownException {
    private static final long serialVersionUID = 1L;

    public OutcomeUnknownException(String message) {
        super(message);
    }
}
