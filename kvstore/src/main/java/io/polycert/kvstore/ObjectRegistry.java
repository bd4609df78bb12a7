package io.polycert.kvstore;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.polycert.certification.BoxDirectory;
import io.polycert.core.VBox;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;

/**
 * Replica-wide box ids to this replica's boxes, holding them weakly (Caffeine weak values): a box the
 * application no longer reaches can be collected, and its entry goes with it. Roots (negative ids, one per name)
 * are held strongly: everything replicated hangs off them, and each must exist from version 0 on, whether this
 * replica or a write from another one creates it first.
 *
 * <p>A consequence to keep in mind: a box that only one replica still reaches (through a local variable, not
 * through replicated state) and that is written into replicated state again later reappears elsewhere as a
 * box with no value. Keep shared boxes reachable from replicated state (roots) while they are shared.
 */
public final class ObjectRegistry implements BoxDirectory {
    /**
     * Maintenance (dropping entries whose boxes were collected) runs on the calling thread: by default Caffeine
     * hands it to the common pool from reads too, and on the certifier's path, a lookup per written box of every
     * remote commit, that hand-off cost more than the work (the 3-replica R = 1 bank: 79k-119k commits/s with the
     * pool, 131k-148k without, alternating; CERTIFICATION.md).
     */
    private final Cache<Long, VBox<?>> boxes = Caffeine.newBuilder().weakValues().executor(Runnable::run).build();
    private final ConcurrentHashMap<Long, VBox<?>> roots = new ConcurrentHashMap<>();
    private volatile LongFunction<VBox<?>> rootFactory;

    void rootFactory(LongFunction<VBox<?>> factory) {
        this.rootFactory = factory;
    }

    @Override
    public boolean isRoot(long id) {
        return id < 0;
    }

    /** Called for every box the replica's STM creates. */
    void register(VBox<?> box) {
        if (isRoot(box.id())) {
            roots.putIfAbsent(box.id(), box);
        } else {
            boxes.asMap().putIfAbsent(box.id(), box);
        }
    }

    @Override
    public VBox<?> find(long id) {
        return isRoot(id) ? roots.get(id) : boxes.getIfPresent(id);
    }

    /**
     * Creating a box registers it (through {@link #register}), so this cannot use the cache's own compute: the
     * lock keeps two callers from creating two boxes for one id.
     */
    @Override
    public synchronized VBox<?> findOrCreate(long id, LongFunction<VBox<?>> create) {
        VBox<?> box = find(id);
        if (box != null) {
            return box;
        }
        if (isRoot(id)) {
            VBox<?> root = rootFactory.apply(id); // with its version-0 value, even if a remote write creates it
            VBox<?> previous = roots.putIfAbsent(id, root);
            return previous != null ? previous : root;
        }
        VBox<?> created = create.apply(id);
        VBox<?> previous = boxes.asMap().putIfAbsent(id, created);
        return previous != null ? previous : created;
    }

    @Override
    public Iterable<VBox<?>> all() {
        List<VBox<?>> all = new ArrayList<>(roots.values());
        all.addAll(boxes.asMap().values());
        return all;
    }

    /** Boxes currently registered (approximate while the garbage collector works). */
    public long size() {
        return roots.size() + boxes.estimatedSize();
    }
}
