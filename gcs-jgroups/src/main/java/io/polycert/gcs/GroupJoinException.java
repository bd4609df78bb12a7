package io.polycert.gcs;

/** A member could not join its group (stack failure, or no primary view with the group's state in time). */
public class GroupJoinException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public GroupJoinException(String message, Throwable cause) {
        super(message, cause);
    }
}
