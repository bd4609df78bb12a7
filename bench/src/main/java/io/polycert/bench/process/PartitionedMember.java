package io.polycert.bench.process;

import static io.polycert.bench.process.MemberNode.arguments;

import io.polycert.bench.faults.FaultWorkload;
import io.polycert.bench.faults.MemberFaults;
import io.polycert.bench.faults.OwnerCheck;
import io.polycert.bench.faults.PartitionedFaultStore;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import io.polycert.oracle.Protocol;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A member process of partial replication: a {@link io.polycert.kvstore.PartitionedStore} (through a
 * {@link PartitionedFaultStore}) running a {@link FaultWorkload}. There is no global version under partial
 * replication and no certification oracle, so some commands differ from a replica's:
 *
 * <ul>
 *   <li>{@code populate}: creates the initial state; result {@code 0}</li>
 *   <li>{@code version}: {@code 0}; {@code await VERSION [TIMEOUT_MS]}: waits until this member can read the
 *       workload's whole initial state (whatever VERSION), result {@code 0}</li>
 *   <li>{@code start THREADS SEED}, {@code stop}; {@code progress}: {@code COMMITS 0 0 0} (no NVC/BFC/VC)</li>
 *   <li>{@code check}: the workload's check through this member; result its digest</li>
 *   <li>{@code placement}: {@code EPOCH READY OWNEDKEYS}; {@code state}: what its commit protocol waits for</li>
 *   <li>{@code owned FILE MAXKEY}: writes what this member owns of the workload's registers
 *       ({@link OwnerCheck#write}); result how many it owns</li>
 *   <li>{@code workload ARGS...}: a command of the workload</li>
 * </ul>
 */
final class PartitionedMember extends MemberNode<StoreLoad> {
    private final PartitionedFaultStore store;
    private final FaultWorkload workload;
    private final int index;

    PartitionedMember(PartitionedFaultStore store, FaultWorkload workload, int index) {
        this.store = store;
        this.workload = workload;
        this.index = index;
    }

    @Override
    View view() {
        return store.store().view();
    }

    @Override
    MemberId self() {
        return store.store().self();
    }

    @Override
    MemberFaults attachFaults() {
        return MemberFaults.attach(store.store());
    }

    @Override
    String commands() {
        return "populate, await, version, start, stop, progress, check, placement, state, owned, workload";
    }

    @Override
    String execute(String[] w) throws InterruptedException {
        switch (w[0]) {
            case "populate":
                arguments(w, 0);
                workload.populate(store);
                return "0";
            case "version":
                arguments(w, 0);
                return "0";
            case "await": {
                if (w.length != 2 && w.length != 3) {
                    throw new IllegalArgumentException("usage: await VERSION [TIMEOUT_MS]");
                }
                long timeoutMs = w.length == 3 ? Long.parseLong(w[2]) : 120_000;
                long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
                while (!workload.populated(store)) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(store.self() + " cannot read the whole initial state after "
                                + timeoutMs + " ms");
                    }
                    Thread.sleep(10);
                }
                return "0";
            }
            case "start":
                arguments(w, 2);
                if (load != null) {
                    throw new IllegalStateException("the load is already running");
                }
                load = new StoreLoad(store, workload, index, Integer.parseInt(w[1]), Long.parseLong(w[2]));
                return "";
            case "stop":
                arguments(w, 0);
                stopLoad();
                return "";
            case "progress":
                arguments(w, 0);
                return (load == null ? 0 : load.committed()) + " 0".repeat(Protocol.values().length);
            case "check":
                arguments(w, 0);
                return Long.toString(workload.check(store));
            case "placement":
                arguments(w, 0);
                return store.store().placementEpoch() + " " + store.store().isReady() + " "
                        + store.store().ownedKeys();
            case "state":
                arguments(w, 0);
                return store.store().describeState().strip().replace("\n", " | ");
            case "owned":
                arguments(w, 2);
                return Integer.toString(OwnerCheck.write(Path.of(w[1]), store, workload.registers(
                        Long.parseLong(w[2]))));
            case "use":
                throw new IllegalArgumentException("partial replication has no certification oracle to switch");
            case "workload":
                return workload.command(store, Arrays.copyOfRange(w, 1, w.length));
            default:
                return null;
        }
    }

    @Override
    protected void leave() {
        store.close();
    }

    @Override
    public String toString() {
        return store.store().toString();
    }
}
