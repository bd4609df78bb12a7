package io.polycert.bench.process;

import static io.polycert.bench.process.MemberNode.arguments;

import io.polycert.bench.faults.FaultWorkload;
import io.polycert.bench.faults.MemberFaults;
import io.polycert.bench.faults.MixedOracle;
import io.polycert.bench.workload.Contenders;
import io.polycert.bench.workload.ReplicaLoad;
import io.polycert.bench.workload.SwitchableOracle;
import io.polycert.bench.workload.TurnClocks;
import io.polycert.bench.workload.Workload;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import io.polycert.kvstore.Replica;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/** A member process's full replica: its workload's load, its oracles, and the commands that use them. */
final class ReplicaMember extends MemberNode<ReplicaLoad> {
    private final Replica replica;
    private final Workload workload;
    private final SwitchableOracle oracle;
    private final Duration gossipInterval;
    private final Path model;
    private final int index;
    private final Map<String, ProtocolOracle> byContender = new HashMap<>();
    private final TurnClocks clocks = new TurnClocks();

    ReplicaMember(Replica replica, Workload workload, SwitchableOracle oracle, Duration gossipInterval, Path model,
            int index) {
        this.replica = replica;
        this.workload = workload;
        this.oracle = oracle;
        this.gossipInterval = gossipInterval;
        this.model = model;
        this.index = index;
    }

    @Override
    View view() {
        return replica.view();
    }

    @Override
    MemberId self() {
        return replica.self();
    }

    @Override
    MemberFaults attachFaults() {
        return MemberFaults.attach(replica);
    }

    @Override
    String commands() {
        return "populate, await, version, use, start, begin, sample, end, stop, progress, check, workload";
    }

    @Override
    String execute(String[] w) throws InterruptedException {
        switch (w[0]) {
            case "populate":
                arguments(w, 0);
                workload.populate(replica);
                return Long.toString(replica.stm().latestVersion());
            case "await": {
                if (w.length != 2 && w.length != 3) {
                    throw new IllegalArgumentException("usage: await VERSION [TIMEOUT_MS]");
                }
                long version = Long.parseLong(w[1]);
                long timeoutMs = w.length == 3 ? Long.parseLong(w[2]) : 120_000;
                long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
                while (replica.stm().latestVersion() < version) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(replica + " has not applied version " + version + " after "
                                + timeoutMs + " ms (it is at " + replica.stm().latestVersion() + ")");
                    }
                    Thread.sleep(1);
                }
                return Long.toString(replica.stm().latestVersion());
            }
            case "version":
                arguments(w, 0);
                return Long.toString(replica.stm().latestVersion());
            case "use": {
                arguments(w, 1);
                String name = w[1].toLowerCase(Locale.ROOT);
                ProtocolOracle chosen = byContender.get(name);
                if (chosen == null) {
                    chosen = name.equals("mixed") ? new MixedOracle(ProcessHandle.current().pid() * 31 + index)
                            : Contenders.oracle(name, gossipInterval, model, clocks.of(name));
                    byContender.put(name, chosen);
                }
                clocks.use(name); // its time-based rules see its own turns only, end to end
                oracle.use(chosen);
                return "";
            }
            case "start": {
                arguments(w, 2);
                if (load != null) {
                    throw new IllegalStateException("the load is already running");
                }
                ReplicaLoad l = new ReplicaLoad(replica, workload, Integer.parseInt(w[1]), Long.parseLong(w[2]));
                l.start();
                load = l;
                return "";
            }
            case "begin":
                arguments(w, 0);
                running().beginMeasuring();
                return "";
            case "sample":
                arguments(w, 0);
                running().sample();
                return "";
            case "end":
                arguments(w, 0);
                return running().endMeasuring().encode();
            case "stop":
                arguments(w, 0);
                stopLoad();
                return "";
            case "progress": {
                arguments(w, 0);
                StringBuilder sb = new StringBuilder();
                if (load == null) {
                    sb.append(0);
                    for (int i = 0; i < Protocol.values().length; i++) {
                        sb.append(" 0");
                    }
                } else {
                    ReplicaLoad.Counters c = load.current();
                    sb.append(c.commits());
                    for (Protocol p : Protocol.values()) {
                        sb.append(' ').append(c.committedBy(p));
                    }
                }
                return sb.toString();
            }
            case "check":
                arguments(w, 0);
                return Long.toString(workload.check(replica));
            case "workload":
                if (!(workload instanceof FaultWorkload)) {
                    throw new IllegalArgumentException("the " + workload.name() + " workload takes no commands");
                }
                return ((FaultWorkload) workload).command(replica, Arrays.copyOfRange(w, 1, w.length));
            default:
                return null;
        }
    }

    private ReplicaLoad running() {
        if (load == null) {
            throw new IllegalStateException("no load is running (start THREADS SEED first)");
        }
        return load;
    }

    @Override
    protected void leave() {
        replica.close(); // closes the oracles too
    }

    @Override
    public String toString() {
        return replica.toString();
    }
}
