package io.polycert.core.codec;

/**
 * Writes and reads values of one application type registered with a {@link ValueCodec}. Implementations write
 * the fields they need and rebuild the object from them: nothing is instantiated by class name.
 *
 * @param <T> the registered type
 */
public interface ValueSerializer<T> {

    void write(T value, ValueOutput out);

    /** Reads a value written by {@link #write}; must throw {@link CodecException} on malformed input. */
    T read(ValueInput in);
}
