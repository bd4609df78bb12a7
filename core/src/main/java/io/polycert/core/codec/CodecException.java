package io.polycert.core.codec;

/** A value could not be encoded, or bytes could not be decoded (truncated, malformed or hostile input). */
public class CodecException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public CodecException(String message) {
        super(message);
    }

    public CodecException(String message, Throwable cause) {
        super(message, cause);
    }
}
