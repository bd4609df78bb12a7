package io.polycert.core;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Hands out box ids. Ids must be unique among all boxes that replicas exchange: replication layers supply an
 * allocator that folds a replica-unique prefix into each id.
 */
@FunctionalInterface
public interface IdAllocator {

    long nextId();

    /** Ids 1, 2, 3, ... : deterministic, so replicas running the same set-up code create boxes with equal ids. */
    static IdAllocator sequential() {
        AtomicLong next = new AtomicLong();
        return next::incrementAndGet;
    }
}
