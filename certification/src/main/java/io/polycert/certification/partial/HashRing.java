package io.polycert.certification.partial;

import io.polycert.core.group.MemberId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

/**
 * Consistent hashing with virtual nodes: each member takes {@code virtualNodes} points on a 64-bit ring, and a
 * key's owners are the first {@code degree} distinct members clockwise from the key's hash. Adding or removing
 * one member moves only the keys next to its points. Built from the same member list, every member computes the
 * same placement (the hashes use the members' 128-bit ids, never {@code hashCode}).
 */
final class HashRing {
    private final List<MemberId> members;
    private final int degree;
    private final long[] points;
    /**
     * The owners of the keys up to each point (from the point before it, exclusive), primary first, computed once:
     * every read and commit asks for its keys' owners, and walking the ring each time allocated a list per key.
     */
    private final List<List<MemberId>> arcOwners;

    HashRing(List<MemberId> members, int degree, int virtualNodes) {
        if (members.isEmpty()) {
            throw new IllegalArgumentException("a ring needs at least one member");
        }
        if (degree < 1 || virtualNodes < 1) {
            throw new IllegalArgumentException("degree and virtualNodes must be >= 1");
        }
        this.members = List.copyOf(members);
        this.degree = Math.min(degree, members.size());
        int n = members.size() * virtualNodes;
        long[] hashes = new long[n];
        MemberId[] owners = new MemberId[n];
        int i = 0;
        for (MemberId m : members) {
            for (int v = 0; v < virtualNodes; v++) {
                hashes[i] = mix(mix(m.high() ^ (v * 0x9e3779b97f4a7c15L)) ^ m.low());
                owners[i++] = m;
            }
        }
        Integer[] order = new Integer[n];
        for (int k = 0; k < n; k++) {
            order[k] = k;
        }
        Arrays.sort(order, (a, b) -> {
            int c = Long.compare(hashes[a], hashes[b]);
            return c != 0 ? c : owners[a].compareTo(owners[b]);
        });
        points = new long[n];
        MemberId[] pointOwners = new MemberId[n];
        for (int k = 0; k < n; k++) {
            points[k] = hashes[order[k]];
            pointOwners[k] = owners[order[k]];
        }
        List<List<MemberId>> arcs = new ArrayList<>(n);
        for (int start = 0; start < n; start++) {
            List<MemberId> arc = new ArrayList<>(this.degree);
            for (int k = 0; arc.size() < this.degree && k < n; k++) {
                MemberId m = pointOwners[(start + k) % n];
                if (!arc.contains(m)) {
                    arc.add(m);
                }
            }
            arcs.add(List.copyOf(arc));
        }
        arcOwners = List.copyOf(arcs);
    }

    List<MemberId> members() {
        return members;
    }

    int degree() {
        return degree;
    }

    /** The key's owners, primary first (an unmodifiable list). */
    List<MemberId> owners(ByteKey key) {
        return owners(key.placementHash());
    }

    List<MemberId> owners(long hash) {
        int start = Arrays.binarySearch(points, hash);
        if (start < 0) {
            start = -start - 1;
        }
        return arcOwners.get(start == points.length ? 0 : start);
    }

    boolean isOwner(MemberId member, ByteKey key) {
        return owners(key).contains(member);
    }

    /** Whether some key's owners match {@code wanted}: the owners change only at the ring's points. */
    boolean someKeyHasOwners(Predicate<List<MemberId>> wanted) {
        for (long point : points) {
            if (wanted.test(owners(point))) {
                return true;
            }
        }
        return false;
    }

    /** Stafford's variant 13 of the MurmurHash3 finalizer. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
