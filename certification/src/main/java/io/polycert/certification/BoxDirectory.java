package io.polycert.certification;

import io.polycert.core.VBox;
import java.util.function.LongFunction;

/**
 * Replica-wide box ids to this replica's box objects: how a write-set received from another replica finds the
 * boxes it writes. Implemented by the object registry of {@code polycert-kvstore}.
 */
public interface BoxDirectory {

    /** The box with this id, or null if this replica has none (never had it, or it was collected). */
    VBox<?> find(long id);

    /** The box with this id, created with {@code create} if this replica has none. */
    VBox<?> findOrCreate(long id, LongFunction<VBox<?>> create);

    /**
     * Whether {@code id} names a root: a box every replica has from version 0 on, made on first use, so a commit
     * may name it before this replica ever did.
     */
    default boolean isRoot(long id) {
        return false;
    }

    /** Every box this replica holds now. */
    Iterable<VBox<?>> all();
}
