package io.polycert.bench.faults;

import io.polycert.bench.faults.History.Append;
import io.polycert.bench.faults.History.FinalRead;
import io.polycert.bench.faults.History.Op;
import io.polycert.bench.faults.History.Outcome;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks a list-append {@link History} in the spirit of Elle's list-append analysis (Kingsbury and Alvaro,
 * "Elle: inferring isolation anomalies from experimental observations", VLDB 2020).
 *
 * <p><b>Which operations count.</b> COMMITTED operations are committed, ABORTED ones are not (every abort cause
 * is a decided abort: an undecided outcome is reported as {@code CommitOutcomeUnknownException}, recorded as
 * UNKNOWN), and UNKNOWN ones are committed if and only if some read (final reads included) observed one of their
 * appends. Only committed operations' reads are used; final reads are committed read-only operations.
 *
 * <p><b>Version order.</b> Per key, the longest list any read returned. Every other read of the key must be a
 * prefix of it, else {@link Anomaly#INCOMPATIBLE_ORDER} (that read is then left out of the dependency graph).
 *
 * <p><b>Dependencies</b> between committed operations, per key: ww from the writer of each value to the writer of
 * the next one in the version order; wr from the writer of the last value a read saw to the reader; rw from a
 * reader to the writer of the first value it did not see. Writers of aborted values are skipped (the nearest
 * committed writer stands for them).
 *
 * <p><b>Anomalies.</b>
 * <ul>
 *   <li>{@link Anomaly#G0}: a cycle of ww edges; {@link Anomaly#G1C}: a cycle of ww and wr edges with at least one
 *       wr; {@link Anomaly#G2}: a cycle with at least one rw edge. Found per strongly connected component (Tarjan),
 *       each counted once per component, with the shortest cycle through one qualifying edge as example.</li>
 *   <li>{@link Anomaly#G1A}: a read saw a value appended by an ABORTED operation (counted per aborted
 *       operation).</li>
 *   <li>{@link Anomaly#G1B}: a read saw some but not all of one operation's appends to a key, or the version
 *       order holds them out of order or with another value in between.</li>
 *   <li>{@link Anomaly#DUPLICATE_ELEMENT}: a list holds a value twice (an append applied twice);
 *       {@link Anomaly#GARBAGE_READ}: a list holds a value no operation appended to that key.</li>
 *   <li>With final reads: {@link Anomaly#DIVERGENCE} if they differ between members, and
 *       {@link Anomaly#LOST_COMMIT} for each committed operation (acknowledged, or unknown but observed) with an
 *       append missing from some member's final read.</li>
 * </ul>
 */
public final class ListAppendChecker {

    /** Anomaly types, lowest first. */
    public enum Anomaly {
        G0, G1A, G1B, G1C, G2, INCOMPATIBLE_ORDER, DUPLICATE_ELEMENT, GARBAGE_READ, LOST_COMMIT, DIVERGENCE
    }

    private static final int WW = 1;
    private static final int WR = 2;
    private static final int RW = 4;

    /**
     * What a check found.
     *
     * @param operations operations in the history
     * @param committed acknowledged commits
     * @param aborted definite aborts
     * @param unknown operations without a known outcome
     * @param unknownCommitted of those, the ones some read observed (counted as committed)
     * @param edges dependency edges between committed operations
     * @param counts anomalies found, by type (types not found are absent)
     * @param examples one example per type found
     * @param lostAcknowledged acknowledged (COMMITTED) operations with an append missing from a final read
     * @param lostObserved unknown-outcome operations observed by a read whose append is missing from a final read
     * @param finals final reads compared
     */
    public record Result(int operations, int committed, int aborted, int unknown, int unknownCommitted,
            int edges, Map<Anomaly, Integer> counts, Map<Anomaly, String> examples,
            int lostAcknowledged, int lostObserved, int finals) {

        public Result {
            counts = Collections.unmodifiableMap(new EnumMap<>(counts.isEmpty() ? new EnumMap<>(Anomaly.class)
                    : counts));
            examples = Collections.unmodifiableMap(examples.isEmpty() ? new EnumMap<>(Anomaly.class)
                    : new EnumMap<>(examples));
        }

        /** True when no anomaly was found. */
        public boolean valid() {
            return counts.isEmpty();
        }

        /** Anomalies of all types. */
        public int anomalies() {
            int n = 0;
            for (int c : counts.values()) {
                n += c;
            }
            return n;
        }

        public int count(Anomaly a) {
            return counts.getOrDefault(a, 0);
        }

        /** Several lines: the counts, then one example per anomaly type. */
        public String describe() {
            StringBuilder sb = new StringBuilder();
            sb.append(operations).append(" operations: ").append(committed).append(" committed, ").append(aborted)
                    .append(" aborted, ").append(unknown).append(" unknown (").append(unknownCommitted)
                    .append(" observed); ").append(edges).append(" dependency edges; ").append(finals)
                    .append(" final reads; lost: ").append(lostAcknowledged).append(" acknowledged, ")
                    .append(lostObserved).append(" observed");
            if (counts.isEmpty()) {
                sb.append("; no anomalies");
            }
            for (Map.Entry<Anomaly, Integer> e : counts.entrySet()) {
                sb.append("\n  ").append(e.getKey()).append(" x").append(e.getValue()).append(": ")
                        .append(examples.get(e.getKey()));
            }
            return sb.toString();
        }
    }

    private ListAppendChecker() {
    }

    public static Result check(History history) {
        return new Run(history.ops(), history.finals()).check();
    }

    public static Result check(List<Op> ops, List<FinalRead> finals) {
        return new Run(ops, finals).check();
    }

    /** One read of one key: by operation {@code reader} (finals are numbered after the operations). */
    private record Read(int reader, long key, long[] list) {
    }

    private static final class Run {
        final List<Op> ops;
        final List<FinalRead> finals;
        final int n;
        final Map<Anomaly, Integer> counts = new EnumMap<>(Anomaly.class);
        final Map<Anomaly, String> examples = new EnumMap<>(Anomaly.class);
        /** value -> index of the operation that appended it. */
        final Map<Long, Integer> writer = new HashMap<>();
        /** value -> key it was appended to. */
        final Map<Long, Long> keyOfValue = new HashMap<>();
        final boolean[] included;
        final Map<Long, Integer> edgeMask = new HashMap<>(); // (u << 32 | v) -> mask
        final List<List<Integer>> out = new ArrayList<>();

        Run(List<Op> ops, List<FinalRead> finals) {
            this.ops = ops;
            this.finals = finals;
            this.n = ops.size() + finals.size();
            this.included = new boolean[n];
        }

        void found(Anomaly a, String example) {
            counts.merge(a, 1, Integer::sum);
            examples.putIfAbsent(a, example);
        }

        String name(int node) {
            if (node >= ops.size()) {
                FinalRead f = finals.get(node - ops.size());
                return "final read at r" + f.member() + " (pid " + f.process() + ")";
            }
            return ops.get(node).toString();
        }

        String shortName(int node) {
            if (node >= ops.size()) {
                return "final@r" + finals.get(node - ops.size()).member();
            }
            return "op " + ops.get(node).id();
        }

        Result check() {
            for (int i = 0; i < ops.size(); i++) {
                for (Append a : ops.get(i).appends()) {
                    Integer prev = writer.put(a.value(), i);
                    if (prev != null) {
                        throw new IllegalArgumentException("value " + a.value() + " is appended by both "
                                + ops.get(prev) + " and " + ops.get(i) + ": values must be unique");
                    }
                    keyOfValue.put(a.value(), a.key());
                }
            }
            // Reads of committed operations, and the final reads.
            List<Read> reads = new ArrayList<>();
            for (int i = 0; i < ops.size(); i++) {
                Op op = ops.get(i);
                if (op.outcome() == Outcome.COMMITTED) {
                    for (Map.Entry<Long, long[]> r : op.reads().entrySet()) {
                        reads.add(new Read(i, r.getKey(), r.getValue()));
                    }
                }
            }
            for (int f = 0; f < finals.size(); f++) {
                for (Map.Entry<Long, long[]> r : finals.get(f).lists().entrySet()) {
                    reads.add(new Read(ops.size() + f, r.getKey(), r.getValue()));
                }
            }
            Set<Long> observed = new HashSet<>();
            Map<Long, List<Read>> byKey = new TreeMap<>();
            for (Read r : reads) {
                byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r);
                for (long v : r.list()) {
                    observed.add(v);
                }
            }
            // Which operations count as committed.
            int committed = 0;
            int aborted = 0;
            int unknown = 0;
            int unknownCommitted = 0;
            for (int i = 0; i < ops.size(); i++) {
                Op op = ops.get(i);
                boolean seen = false;
                for (Append a : op.appends()) {
                    seen |= observed.contains(a.value());
                }
                if (op.outcome() == Outcome.COMMITTED) {
                    committed++;
                    included[i] = true;
                } else if (op.outcome() == Outcome.UNKNOWN) {
                    unknown++;
                    if (seen) {
                        unknownCommitted++;
                        included[i] = true;
                    }
                } else {
                    aborted++;
                    if (seen) {
                        found(Anomaly.G1A, g1aExample(i, reads));
                    }
                }
            }
            for (int f = ops.size(); f < n; f++) {
                included[f] = true;
            }
            for (int i = 0; i < n; i++) {
                out.add(new ArrayList<>());
            }
            for (Map.Entry<Long, List<Read>> e : byKey.entrySet()) {
                checkKey(e.getKey(), e.getValue());
            }
            checkG1b(byKey);
            cycles();
            int[] lost = finals.isEmpty() ? new int[2] : lostAndDivergence();
            return new Result(ops.size(), committed, aborted, unknown, unknownCommitted, edgeMask.size(), counts,
                    examples, lost[0], lost[1], finals.size());
        }

        String g1aExample(int op, List<Read> reads) {
            Set<Long> values = new HashSet<>();
            for (Append a : ops.get(op).appends()) {
                values.add(a.value());
            }
            for (Read r : reads) {
                for (long v : r.list()) {
                    if (values.contains(v)) {
                        return name(r.reader()) + " read " + v + " at key " + r.key() + ", appended by aborted "
                                + name(op);
                    }
                }
            }
            return name(op);
        }

        void checkKey(long key, List<Read> reads) {
            long[] longest = new long[0];
            for (Read r : reads) {
                if (r.list().length > longest.length) {
                    longest = r.list();
                }
            }
            for (Read r : reads) {
                Set<Long> seen = new HashSet<>();
                for (long v : r.list()) {
                    if (!seen.add(v)) {
                        found(Anomaly.DUPLICATE_ELEMENT, name(r.reader()) + " read " + v + " twice at key " + key
                                + ": " + History.abbreviate(r.list()));
                        break;
                    }
                }
                for (long v : r.list()) {
                    Long k = keyOfValue.get(v);
                    if (k == null || k != key) {
                        found(Anomaly.GARBAGE_READ, name(r.reader()) + " read " + v + " at key " + key + ", which "
                                + (k == null ? "no operation appended" : "was appended to key " + k));
                        break;
                    }
                }
            }
            List<Read> consistent = new ArrayList<>();
            for (Read r : reads) {
                if (isPrefix(r.list(), longest)) {
                    consistent.add(r);
                } else {
                    found(Anomaly.INCOMPATIBLE_ORDER, "key " + key + ": " + name(r.reader()) + " read "
                            + History.abbreviate(r.list()) + " (" + r.list().length + " values), not a prefix of "
                            + History.abbreviate(longest) + " (" + longest.length + " values), first difference at "
                            + firstDifference(r.list(), longest));
                }
            }
            // ww: consecutive committed writers in the version order.
            int previous = -1;
            for (long v : longest) {
                int w = committedWriter(v);
                if (w < 0 || w == previous) {
                    continue;
                }
                if (previous >= 0) {
                    edge(previous, w, WW);
                }
                previous = w;
            }
            for (Read r : consistent) {
                long[] l = r.list();
                int seenWriter = -1;
                for (int i = l.length - 1; i >= 0; i--) { // wr: the last committed writer it saw
                    int w = committedWriter(l[i]);
                    if (w >= 0) {
                        seenWriter = w;
                        if (w != r.reader()) {
                            edge(w, r.reader(), WR);
                        }
                        break;
                    }
                }
                // rw: the first committed writer it missed. Versions are per operation: the rest of the writer it
                // saw (an intermediate read, G1b) is not a later version.
                for (int i = l.length; i < longest.length; i++) {
                    int w = committedWriter(longest[i]);
                    if (w >= 0 && w != r.reader() && w != seenWriter) {
                        edge(r.reader(), w, RW);
                        break;
                    }
                }
            }
        }

        int committedWriter(long value) {
            Integer w = writer.get(value);
            return w != null && included[w] ? w : -1;
        }

        void edge(int from, int to, int type) {
            long k = ((long) from << 32) | to;
            Integer old = edgeMask.get(k);
            if (old == null) {
                edgeMask.put(k, type);
                out.get(from).add(to);
            } else {
                edgeMask.put(k, old | type);
            }
        }

        int mask(int from, int to) {
            Integer m = edgeMask.get(((long) from << 32) | to);
            return m == null ? 0 : m;
        }

        void checkG1b(Map<Long, List<Read>> byKey) {
            for (int i = 0; i < ops.size(); i++) {
                if (!included[i]) {
                    continue;
                }
                Map<Long, List<Long>> perKey = new LinkedHashMap<>();
                for (Append a : ops.get(i).appends()) {
                    perKey.computeIfAbsent(a.key(), k -> new ArrayList<>()).add(a.value());
                }
                for (Map.Entry<Long, List<Long>> e : perKey.entrySet()) {
                    List<Long> mine = e.getValue();
                    if (mine.size() < 2) {
                        continue;
                    }
                    for (Read r : byKey.getOrDefault(e.getKey(), List.of())) {
                        String problem = intermediate(r.list(), mine);
                        if (problem != null) {
                            found(Anomaly.G1B, name(r.reader()) + " read key " + e.getKey() + " = "
                                    + History.abbreviate(r.list()) + ": " + problem + " of " + name(i));
                            break;
                        }
                    }
                }
            }
        }

        /** Why {@code list} shows an intermediate state of appends {@code mine}, or null if it does not. */
        static String intermediate(long[] list, List<Long> mine) {
            int[] at = new int[mine.size()];
            int present = 0;
            for (int j = 0; j < mine.size(); j++) {
                at[j] = indexOf(list, mine.get(j));
                if (at[j] >= 0) {
                    present++;
                }
            }
            if (present == 0) {
                return null;
            }
            if (present < mine.size()) {
                return "it saw " + present + " of the " + mine.size() + " appends " + mine;
            }
            for (int j = 1; j < at.length; j++) {
                if (at[j] != at[j - 1] + 1) {
                    return "the appends " + mine + " are not adjacent and in order (positions "
                            + Arrays.toString(at) + ")";
                }
            }
            return null;
        }

        static int indexOf(long[] list, long v) {
            for (int i = 0; i < list.length; i++) {
                if (list[i] == v) {
                    return i;
                }
            }
            return -1;
        }

        static boolean isPrefix(long[] a, long[] b) {
            if (a.length > b.length) {
                return false;
            }
            for (int i = 0; i < a.length; i++) {
                if (a[i] != b[i]) {
                    return false;
                }
            }
            return true;
        }

        static String firstDifference(long[] a, long[] b) {
            int i = 0;
            while (i < a.length && i < b.length && a[i] == b[i]) {
                i++;
            }
            return "index " + i + " (" + (i < a.length ? a[i] : "end") + " vs " + (i < b.length ? b[i] : "end")
                    + ")";
        }

        // ---- cycles ------------------------------------------------------------------------------------------

        void cycles() {
            cyclesOf(WW, WW, Anomaly.G0);
            cyclesOf(WW | WR, WR, Anomaly.G1C);
            cyclesOf(WW | WR | RW, RW, Anomaly.G2);
        }

        /**
         * For each strongly connected component of the graph of {@code allowed} edges, one cycle through an edge
         * with a {@code required} bit, if there is one.
         */
        void cyclesOf(int allowed, int required, Anomaly anomaly) {
            int[] component = scc(allowed);
            Set<Integer> reported = new HashSet<>();
            for (int u = 0; u < n; u++) {
                if (reported.contains(component[u])) {
                    continue;
                }
                for (int v : out.get(u)) {
                    int m = mask(u, v);
                    if ((m & allowed) == 0 || (m & required) == 0 || component[u] != component[v]) {
                        continue;
                    }
                    List<Integer> path = path(v, u, allowed, component);
                    if (path == null) {
                        continue; // cannot happen within a component
                    }
                    reported.add(component[u]);
                    List<Integer> cycle = new ArrayList<>();
                    cycle.add(u);
                    cycle.addAll(path); // v ... u
                    found(anomaly, describeCycle(cycle, allowed));
                    break;
                }
            }
        }

        String describeCycle(List<Integer> cycle, int allowed) {
            StringBuilder sb = new StringBuilder("cycle ");
            for (int i = 0; i + 1 < cycle.size(); i++) {
                int a = cycle.get(i);
                int b = cycle.get(i + 1);
                sb.append(shortName(a)).append(" -").append(label(mask(a, b) & allowed)).append("-> ");
            }
            sb.append(shortName(cycle.get(cycle.size() - 1)));
            sb.append("; where");
            Set<Integer> shown = new HashSet<>();
            for (int node : cycle) {
                if (shown.add(node) && shown.size() <= 6) {
                    sb.append("\n      ").append(name(node));
                }
            }
            return sb.toString();
        }

        static String label(int m) {
            List<String> parts = new ArrayList<>();
            if ((m & WW) != 0) {
                parts.add("ww");
            }
            if ((m & WR) != 0) {
                parts.add("wr");
            }
            if ((m & RW) != 0) {
                parts.add("rw");
            }
            return String.join("+", parts);
        }

        /** The shortest path from {@code from} to {@code to} within one component, both ends included. */
        List<Integer> path(int from, int to, int allowed, int[] component) {
            Map<Integer, Integer> parent = new HashMap<>();
            ArrayDeque<Integer> queue = new ArrayDeque<>();
            parent.put(from, -1);
            queue.add(from);
            while (!queue.isEmpty()) {
                int x = queue.poll();
                if (x == to) {
                    List<Integer> p = new ArrayList<>();
                    for (int y = to; y != -1; y = parent.get(y)) {
                        p.add(y);
                    }
                    Collections.reverse(p);
                    return p;
                }
                for (int y : out.get(x)) {
                    if ((mask(x, y) & allowed) != 0 && component[y] == component[from] && !parent.containsKey(y)) {
                        parent.put(y, x);
                        queue.add(y);
                    }
                }
            }
            return null;
        }

        /** Strongly connected components (iterative Tarjan) of the graph of {@code allowed} edges. */
        int[] scc(int allowed) {
            int[] index = new int[n];
            int[] low = new int[n];
            int[] component = new int[n];
            boolean[] onStack = new boolean[n];
            Arrays.fill(index, -1);
            int[] stack = new int[n];
            int sp = 0;
            int[] callNode = new int[n];
            int[] callEdge = new int[n];
            int next = 0;
            int components = 0;
            for (int root = 0; root < n; root++) {
                if (index[root] >= 0) {
                    continue;
                }
                int depth = 0;
                callNode[0] = root;
                callEdge[0] = 0;
                index[root] = low[root] = next++;
                stack[sp++] = root;
                onStack[root] = true;
                while (depth >= 0) {
                    int u = callNode[depth];
                    List<Integer> edges = out.get(u);
                    if (callEdge[depth] < edges.size()) {
                        int v = edges.get(callEdge[depth]++);
                        if ((mask(u, v) & allowed) == 0) {
                            continue;
                        }
                        if (index[v] < 0) {
                            index[v] = low[v] = next++;
                            stack[sp++] = v;
                            onStack[v] = true;
                            depth++;
                            callNode[depth] = v;
                            callEdge[depth] = 0;
                        } else if (onStack[v]) {
                            low[u] = Math.min(low[u], index[v]);
                        }
                        continue;
                    }
                    if (low[u] == index[u]) {
                        int w;
                        do {
                            w = stack[--sp];
                            onStack[w] = false;
                            component[w] = components;
                        } while (w != u);
                        components++;
                    }
                    depth--;
                    if (depth >= 0) {
                        int parent = callNode[depth];
                        low[parent] = Math.min(low[parent], low[u]);
                    }
                }
            }
            return component;
        }

        // ---- final reads -------------------------------------------------------------------------------------

        /** Returns {acknowledged operations lost, observed operations lost}. */
        int[] lostAndDivergence() {
            FinalRead first = finals.get(0);
            for (int f = 1; f < finals.size(); f++) {
                FinalRead other = finals.get(f);
                Set<Long> all = new java.util.TreeSet<>(first.lists().keySet());
                all.addAll(other.lists().keySet());
                for (long k : all) {
                    if (!Arrays.equals(first.list(k), other.list(k))) {
                        found(Anomaly.DIVERGENCE, "key " + k + ": " + name(ops.size()) + " has "
                                + History.abbreviate(first.list(k)) + " (" + first.list(k).length + " values), "
                                + name(ops.size() + f) + " has " + History.abbreviate(other.list(k)) + " ("
                                + other.list(k).length + " values)");
                        break;
                    }
                }
            }
            List<Map<Long, Long>> present = new ArrayList<>(); // per final: value -> key
            for (FinalRead f : finals) {
                Map<Long, Long> m = new HashMap<>();
                for (Map.Entry<Long, long[]> e : f.lists().entrySet()) {
                    for (long v : e.getValue()) {
                        m.put(v, e.getKey());
                    }
                }
                present.add(m);
            }
            int acknowledged = 0;
            int observed = 0;
            for (int i = 0; i < ops.size(); i++) {
                if (!included[i]) {
                    continue;
                }
                Op op = ops.get(i);
                String missing = null;
                for (Append a : op.appends()) {
                    for (int f = 0; f < finals.size() && missing == null; f++) {
                        Long k = present.get(f).get(a.value());
                        if (k == null || k != a.key()) {
                            missing = a.key() + ":" + a.value() + " is missing from the " + name(ops.size() + f);
                        }
                    }
                }
                if (missing != null) {
                    if (op.outcome() == Outcome.COMMITTED) {
                        acknowledged++;
                    } else {
                        observed++;
                    }
                    found(Anomaly.LOST_COMMIT, missing + ", appended by " + name(i)
                            + (op.outcome() == Outcome.COMMITTED ? " (acknowledged)" : " (observed by a read)"));
                }
            }
            return new int[] {acknowledged, observed};
        }
    }
}
