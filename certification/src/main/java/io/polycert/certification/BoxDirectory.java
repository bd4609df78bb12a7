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

    /** Every box this replica holds now. */
    Iterable<VBox<?>> all();
}
