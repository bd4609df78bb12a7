package io.polycert.bench.process;

import io.polycert.bench.faults.FaultStore;
import io.polycert.bench.faults.FaultWorkload;
import io.polycert.bench.workload.Workload;
import io.polycert.core.TransactionAbortedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The client threads of a member of partial replication: each calls its {@link Workload.Client} in a loop, as
 * {@link io.polycert.bench.workload.ReplicaLoad} does for a replica, and counts what committed.
 */
final class StoreLoad implements AutoCloseable {
    /** What a client returns when it did not commit anything (see the fault workloads). */
    private static final List<String> NOTHING_COMMITTED = List.of("idle", "error");

    private final List<Thread> workers = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final LongAdder committed = new LongAdder();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    StoreLoad(FaultStore store, FaultWorkload workload, int member, int threads, long seed) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, was " + threads);
        }
        for (int t = 0; t < threads; t++) {
            Workload.Client client = workload.client(store, new Workload.Slot(member, member + 1, t, threads,
                    seed * 1_000_003L + t));
            Thread w = new Thread(() -> loop(store, client), store.self() + "-client-" + t);
            w.setDaemon(true);
            workers.add(w);
        }
        workers.forEach(Thread::start);
    }

    private void loop(FaultStore store, Workload.Client client) {
        while (!stop.get()) {
            try {
                if (!NOTHING_COMMITTED.contains(client.next())) {
                    committed.increment();
                }
            } catch (TransactionAbortedException e) {
                // the workload counts and records it
            } catch (RuntimeException | Error e) {
                if (stop.get() || store.isClosed()) {
                    return;
                }
                failure.compareAndSet(null, e);
                System.err.println("a client at " + store.self() + " failed:");
                e.printStackTrace();
                return;
            }
        }
    }

    /** Operations committed so far (read-only ones included). */
    long committed() {
        Throwable f = failure.get();
        if (f != null) {
            throw new IllegalStateException("a client failed: " + f, f);
        }
        return committed.sum();
    }

    @Override
    public void close() {
        stop.set(true);
        for (Thread w : workers) {
            try {
                w.join(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
