package io.polycert.core.codec;

import io.polycert.core.VBox;

/** Finds the local box with a replica-wide id, for values that refer to boxes. */
@FunctionalInterface
public interface BoxResolver {

    /**
     * @return the box with this id
     * @throws CodecException if there is none
     */
    VBox<?> resolve(long id);

    /** Refuses every box reference. */
    static BoxResolver none() {
        return id -> {
            throw new CodecException("the value refers to VBox#" + id + " but no box resolver was given");
        };
    }
}
