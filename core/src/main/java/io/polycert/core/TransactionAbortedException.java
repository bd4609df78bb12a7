package io.polycert.core;

/**
 * A transaction did not commit and none of its writes are visible anywhere.
 *
 * <p>Thrown by {@link Transaction#commit()}, and by {@link Stm#atomic} once it stops retrying: for a cause that
 * is not {@linkplain AbortCause#isRetryable() retryable}, or after the configured number of attempts.
 */
public class TransactionAbortedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final AbortCause abortCause;
    private final int attempts;

    public TransactionAbortedException(AbortCause abortCause, String message) {
        this(abortCause, message, null, 1);
    }

    public TransactionAbortedException(AbortCause abortCause, String message, Throwable cause) {
        this(abortCause, message, cause, 1);
    }

    public TransactionAbortedException(AbortCause abortCause, String message, Throwable cause, int attempts) {
        super(message, cause);
        this.abortCause = abortCause;
        this.attempts = attempts;
    }

    /** Why the (last) attempt aborted. */
    public AbortCause abortCause() {
        return abortCause;
    }

    /** How many attempts were made before giving up (1 for a single explicit commit). */
    public int attempts() {
        return attempts;
    }
}
