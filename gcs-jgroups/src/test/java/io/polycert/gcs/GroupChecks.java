package io.polycert.gcs;

import io.polycert.core.group.MemberId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Properties of what simulated members delivered; each returns a list of violations (empty when all hold). */
final class GroupChecks {

    private GroupChecks() {
    }

    /** Members still running in the final primary view. */
    static List<SimNetwork.Node> correct(SimNetwork net) {
        List<SimNetwork.Node> out = new ArrayList<>();
        for (SimNetwork.Node n : net.alive()) {
            if (!n.sink.blocked && n.engine.ab.mode() == AtomicBroadcast.Mode.NORMAL) {
                out.add(n);
            }
        }
        return out;
    }

    /**
     * Atomic broadcast: identical histories at correct members, nothing lost from correct senders, and nothing
     * delivered anywhere (even by a member that crashed) that correct members do not deliver (uniformity).
     */
    static List<String> atomicBroadcast(SimNetwork net) {
        List<String> v = new ArrayList<>(net.history.violations);
        List<SimNetwork.Node> correct = correct(net);
        if (correct.isEmpty()) {
            v.add("no correct member left");
            return v;
        }
        SimNetwork.Node first = correct.get(0);
        for (SimNetwork.Node n : correct) {
            if (n.sink.count != first.sink.count || n.sink.hash != first.sink.hash
                    || n.sink.lastPosition != first.sink.lastPosition) {
                v.add(n + " ended with " + n.sink.count + " messages up to position " + n.sink.lastPosition + ", "
                        + first + " with " + first.sink.count + " up to " + first.sink.lastPosition);
            }
        }
        long maxAnywhere = net.history.positions.keySet().stream().mapToLong(Long::longValue).max().orElse(0);
        if (maxAnywhere > first.sink.lastPosition) {
            v.add("position " + maxAnywhere + " was delivered somewhere but correct members stop at "
                    + first.sink.lastPosition + " (not uniform)");
        }
        Set<MemberId> correctIds = new HashSet<>();
        for (SimNetwork.Node n : correct) {
            correctIds.add(n.id);
        }
        for (SimNetwork.Node n : correct) {
            for (Map.Entry<String, MemberId> sent : net.history.broadcast.entrySet()) {
                if (correctIds.contains(sent.getValue()) && n.sink.statesInstalled == 0
                        && !n.sink.orderedSet.contains(sent.getKey())) {
                    v.add(n + " never delivered " + sent.getKey() + " broadcast by correct " + sent.getValue());
                }
            }
        }
        for (String delivered : net.history.positions.values()) {
            if (!delivered.startsWith("view") && !net.history.broadcast.containsKey(delivered)) {
                v.add("delivered " + delivered + " which nobody broadcast");
            }
        }
        return v;
    }

    /** Reliable broadcast: correct members deliver the same set, including whatever any member delivered. */
    static List<String> reliableBroadcast(SimNetwork net) {
        List<String> v = new ArrayList<>(net.history.violations);
        List<SimNetwork.Node> correct = correct(net);
        Set<String> anywhere = new HashSet<>();
        for (SimNetwork.Node n : net.nodes) {
            anywhere.addAll(n.sink.reliable);
        }
        for (SimNetwork.Node n : correct) {
            Set<String> mine = new HashSet<>(n.sink.reliable);
            for (String s : anywhere) {
                if (!mine.contains(s)) {
                    v.add(n + " never delivered reliable " + s + " that some member delivered");
                }
            }
            for (Map.Entry<String, MemberId> sent : net.history.reliableSent.entrySet()) {
                if (correct.stream().anyMatch(c -> c.id.equals(sent.getValue())) && !mine.contains(sent.getKey())) {
                    v.add(n + " never delivered reliable " + sent.getKey() + " from correct " + sent.getValue());
                }
            }
        }
        return v;
    }

    /**
     * Total-order multicast: integrity (only destinations, at most once, at every member, crashed or not),
     * agreement among correct destinations (one delivers, all do), and one acyclic order over what the correct
     * members delivered. (A destination that crashed may have delivered in an order the survivors then revised:
     * Skeen's protocol is not uniform, see TotalOrderMulticast.)
     */
    static List<String> totalOrderMulticast(SimNetwork net) {
        List<String> v = new ArrayList<>(net.history.violations);
        List<SimNetwork.Node> correct = correct(net);
        Set<MemberId> correctIds = new HashSet<>();
        for (SimNetwork.Node n : correct) {
            correctIds.add(n.id);
        }
        Map<String, Set<MemberId>> deliveredBy = new HashMap<>();
        for (SimNetwork.Node n : net.nodes) {
            for (String s : n.sink.multicast) {
                deliveredBy.computeIfAbsent(s, k -> new HashSet<>()).add(n.id);
            }
        }
        for (Map.Entry<String, List<MemberId>> sent : net.history.multicastSent.entrySet()) {
            Set<MemberId> by = deliveredBy.getOrDefault(sent.getKey(), Set.of());
            boolean anyCorrect = by.stream().anyMatch(correctIds::contains);
            for (MemberId d : sent.getValue()) {
                if (!correctIds.contains(d)) {
                    continue;
                }
                if (anyCorrect && !by.contains(d)) {
                    v.add("correct destination " + d + " never delivered " + sent.getKey() + " delivered by " + by);
                }
            }
        }
        // One order among conflicting messages: at each member, an edge from every delivery to every later one it
        // conflicts with (messages without keys conflict with all); together they must form no cycle.
        Map<String, Set<String>> after = new HashMap<>();
        for (SimNetwork.Node n : correct) {
            List<String> seq = n.sink.multicast;
            Map<String, long[]> keys = net.history.multicastKeys;
            for (int i = 0; i < seq.size(); i++) {
                for (int j = i + 1; j < seq.size(); j++) {
                    if (conflict(keys.get(seq.get(i)), keys.get(seq.get(j)))) {
                        after.computeIfAbsent(seq.get(i), k -> new HashSet<>()).add(seq.get(j));
                    }
                }
            }
        }
        String cycle = findCycle(after);
        if (cycle != null) {
            v.add("multicast deliveries are ordered differently at different members: cycle through " + cycle);
        }
        return v;
    }

    private static boolean conflict(long[] a, long[] b) {
        if (a == null || b == null) {
            return true;
        }
        for (long x : a) {
            for (long y : b) {
                if (x == y) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Correct origins' multicasts are delivered by all their correct destinations. */
    static List<String> multicastsOfCorrectOriginsDelivered(SimNetwork net, Map<String, MemberId> origins) {
        List<String> v = new ArrayList<>();
        List<SimNetwork.Node> correct = correct(net);
        for (SimNetwork.Node n : correct) {
            for (Map.Entry<String, MemberId> e : origins.entrySet()) {
                boolean originCorrect = correct.stream().anyMatch(c -> c.id.equals(e.getValue()));
                List<MemberId> dests = net.history.multicastSent.get(e.getKey());
                if (originCorrect && dests.contains(n.id) && !n.sink.multicast.contains(e.getKey())) {
                    v.add(n + " never delivered " + e.getKey() + " from correct " + e.getValue());
                }
            }
        }
        return v;
    }

    private static String findCycle(Map<String, Set<String>> edges) {
        Map<String, Integer> colour = new HashMap<>();
        for (String start : edges.keySet()) {
            if (colour.getOrDefault(start, 0) != 0) {
                continue;
            }
            List<String> stack = new ArrayList<>();
            List<java.util.Iterator<String>> its = new ArrayList<>();
            stack.add(start);
            its.add(edges.getOrDefault(start, Set.of()).iterator());
            colour.put(start, 1);
            while (!stack.isEmpty()) {
                java.util.Iterator<String> it = its.get(its.size() - 1);
                if (!it.hasNext()) {
                    colour.put(stack.remove(stack.size() - 1), 2);
                    its.remove(its.size() - 1);
                    continue;
                }
                String next = it.next();
                int c = colour.getOrDefault(next, 0);
                if (c == 1) {
                    return next;
                }
                if (c == 0) {
                    colour.put(next, 1);
                    stack.add(next);
                    its.add(edges.getOrDefault(next, Set.of()).iterator());
                }
            }
        }
        return null;
    }
}
