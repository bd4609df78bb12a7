package io.polycert.core;

/** The {@link Stm} was closed; no new transaction can start and no commit can proceed. */
public class StmClosedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public StmClosedException(String message) {
        super(message);
    }
}
