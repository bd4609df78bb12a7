package io.polycert.core.testing;

import io.polycert.core.testing.History.Op;
import io.polycert.core.testing.History.Txn;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongBiFunction;

/**
 * Checks a history of committed register transactions for serializability (Adya's direct serialization graph):
 * write-write edges between consecutive versions of a key, write-read edges from a version's writer to its
 * readers, and read-write (anti-dependency) edges from a reader to the writer of the next version. The history is
 * serializable iff the graph has no cycle. Also reported: reads of values no committed transaction wrote
 * (aborted or intermediate reads) and writes ordered ambiguously.
 */
public final class SerializationGraphChecker {

    private SerializationGraphChecker() {
    }

    /** What the check found. */
    public record Result(int transactions, int edges, List<String> anomalies) {
        public boolean isSerializable() {
            return anomalies.isEmpty();
        }

        /** Throws an {@link AssertionError} describing the anomalies, if any. */
        public Result assertSerializable() {
            if (!anomalies.isEmpty()) {
                throw new AssertionError("history of " + transactions + " transactions is not serializable:\n  "
                        + String.join("\n  ", anomalies.subList(0, Math.min(10, anomalies.size()))));
            }
            return this;
        }
    }

    public static Result check(History history) {
        return check(history.txns());
    }

    public static Result check(List<Txn> committed) {
        return check(committed, (txn, key) -> txn.order());
    }

    /**
     * For histories without one commit order (partial replication): {@code versionOrder} gives where a
     * transaction's write of a key falls in that key's version order (for example the key's version number).
     */
    public static Result check(List<Txn> committed, ToLongBiFunction<Txn, Long> versionOrder) {
        List<String> anomalies = new ArrayList<>();
        int n = committed.size() + 1; // node 0 is the initial transaction
        List<List<int[]>> out = new ArrayList<>(n); // edges: {target, kind}
        for (int i = 0; i < n; i++) {
            out.add(new ArrayList<>());
        }
        String[] names = new String[n];
        names[0] = "init";

        // Writers of each key, in version order; and the writer of each (key, value).
        Map<Long, List<Integer>> versions = new HashMap<>();
        Map<Op, Integer> writerOf = new HashMap<>();
        for (int t = 1; t < n; t++) {
            Txn txn = committed.get(t - 1);
            names[t] = txn.name();
            for (Op w : txn.writes()) {
                Integer previous = writerOf.putIfAbsent(w, t);
                if (previous != null || w.value() == History.INITIAL_VALUE) {
                    anomalies.add("value " + w.value() + " of key " + w.key() + " written twice (by "
                            + (previous == null ? "init" : names[previous]) + " and " + txn.name()
                            + "): the history cannot name writers");
                }
                versions.computeIfAbsent(w.key(), k -> new ArrayList<>()).add(t);
            }
        }
        Map<Long, Map<Integer, Integer>> positionOf = new HashMap<>();
        int[] edges = {0};
        versions.forEach((key, writers) -> {
            writers.sort(Comparator.comparingLong(t -> versionOrder.applyAsLong(committed.get(t - 1), key)));
            Map<Integer, Integer> pos = new HashMap<>();
            int previous = 0;
            for (int i = 0; i < writers.size(); i++) {
                int t = writers.get(i);
                long at = versionOrder.applyAsLong(committed.get(t - 1), key);
                if (i > 0 && at == versionOrder.applyAsLong(committed.get(previous - 1), key)) {
                    anomalies.add(names[previous] + " and " + names[t] + " wrote key " + key
                            + " at the same position " + at);
                }
                pos.put(t, i);
                addEdge(out, previous, t, Kind.WW, edges);
                previous = t;
            }
            positionOf.put(key, pos);
        });

        for (int t = 1; t < n; t++) {
            Txn txn = committed.get(t - 1);
            for (Op r : txn.reads()) {
                int writer;
                if (r.value() == History.INITIAL_VALUE) {
                    writer = 0;
                } else {
                    Integer w = writerOf.get(r);
                    if (w == null) {
                        anomalies.add(txn.name() + " read value " + r.value() + " of key " + r.key()
                                + ", which no committed transaction wrote (aborted or intermediate read)");
                        continue;
                    }
                    writer = w;
                }
                if (writer != t) {
                    addEdge(out, writer, t, Kind.WR, edges);
                }
                List<Integer> writers = versions.getOrDefault(r.key(), List.of());
                int nextIndex = writer == 0 ? 0 : positionOf.get(r.key()).get(writer) + 1;
                if (nextIndex < writers.size() && writers.get(nextIndex) != t) {
                    addEdge(out, t, writers.get(nextIndex), Kind.RW, edges);
                }
            }
        }
        List<String> cycle = findCycle(out, names);
        if (cycle != null) {
            anomalies.add("dependency cycle: " + String.join(" ", cycle));
        }
        return new Result(committed.size(), edges[0], anomalies);
    }

    private enum Kind { WW, WR, RW }

    private static void addEdge(List<List<int[]>> out, int from, int to, Kind kind, int[] count) {
        out.get(from).add(new int[] {to, kind.ordinal()});
        count[0]++;
    }

    /** Iterative DFS with colours; returns the first cycle as "a -ww-> b -rw-> a", or null. */
    private static List<String> findCycle(List<List<int[]>> out, String[] names) {
        int n = out.size();
        byte[] colour = new byte[n]; // 0 new, 1 on stack, 2 done
        int[] parent = new int[n];
        int[] parentKind = new int[n];
        int[] nextEdge = new int[n];
        for (int root = 0; root < n; root++) {
            if (colour[root] != 0) {
                continue;
            }
            Deque<Integer> stack = new ArrayDeque<>();
            stack.push(root);
            colour[root] = 1;
            parent[root] = -1;
            while (!stack.isEmpty()) {
                int u = stack.peek();
                if (nextEdge[u] == out.get(u).size()) {
                    colour[u] = 2;
                    stack.pop();
                    continue;
                }
                int[] e = out.get(u).get(nextEdge[u]++);
                int v = e[0];
                if (colour[v] == 0) {
                    colour[v] = 1;
                    parent[v] = u;
                    parentKind[v] = e[1];
                    stack.push(v);
                } else if (colour[v] == 1) {
                    List<String> path = new ArrayList<>();
                    path.add(names[v]);
                    path.add(0, "-" + Kind.values()[e[1]].name().toLowerCase() + "->");
                    for (int w = u; w != v; w = parent[w]) {
                        path.add(0, names[w]);
                        path.add(0, "-" + Kind.values()[parentKind[w]].name().toLowerCase() + "->");
                    }
                    path.add(0, names[v]);
                    return path;
                }
            }
        }
        return null;
    }
}
