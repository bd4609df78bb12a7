package io.polycert.core.group;

/**
 * This member is not in a primary view (one holding a majority of the last primary view), so it cannot order or
 * deliver anything; it will catch up when it merges back with the majority.
 */
public class NotInMajorityException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public NotInMajorityException(String message) {
        super(message);
    }
}
