package io.polycert.kvstore;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.polycert.certification.BoxDirectory;
import io.polycert.core.VBox;
import java.util.function.LongFunction;

/**
 * Replica-wide box ids to this replica's boxes, holding them weakly (Caffeine weak values): a box the
 * application no longer reaches can be collected, and its entry goes with it.
 *
 * <p>A consequence to keep in mind: a box that only one replica still reaches (through a local variable, not
 * through replicated state) and that is written into replicated state again later reappears elsewhere as a
 * box with no value. Keep shared boxes reachable from replicated state (roots) while they are shared.
 */
public final class ObjectRegistry implements BoxDirectory {
    private final Cache<Long, VBox<?>> boxes = Caffeine.newBuilder().weakValues().build();

    /** Called for every box the replica's STM creates. */
    void register(VBox<?> box) {
        boxes.asMap().putIfAbsent(box.id(), box);
    }

    @Override
    public VBox<?> find(long id) {
        return boxes.getIfPresent(id);
    }

    /**
     * Creating a box registers it (through {@link #register}), so this cannot use the cache's own compute: the
     * lock keeps two callers from creating two boxes for one id.
     */
    @Override
    public synchronized VBox<?> findOrCreate(long id, LongFunction<VBox<?>> create) {
        VBox<?> box = boxes.getIfPresent(id);
        if (box != null) {
            return box;
        }
        VBox<?> created = create.apply(id);
        VBox<?> previous = boxes.asMap().putIfAbsent(id, created);
        return previous != null ? previous : created;
    }

    @Override
    public Iterable<VBox<?>> all() {
        return boxes.asMap().values();
    }

    /** Boxes currently registered (approximate while the garbage collector works). */
    public long size() {
        return boxes.estimatedSize();
    }
}
