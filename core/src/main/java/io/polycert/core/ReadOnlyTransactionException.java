package io.polycert.core;

/** A write (or a box creation) was attempted inside a read-only transaction. */
public class ReadOnlyTransactionException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public ReadOnlyTransactionException(String message) {
        super(message);
    }
}
