package io.polycert.certification.partial;

import io.polycert.core.group.MemberId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Keys no member holds a fresh copy of: those whose owners under placement {@code placement} are all outside
 * {@code holders}, the members that went through that placement and stayed fresh (or came back with their copies
 * since). Which keys those are follows from the placement alone, so a key never written is told apart from one
 * written and lost only by its owners, not by its value: both are refused, as nobody left can tell them apart.
 *
 * <p>A lost key is served again only once every owner of it that left the group last is back. An owner that
 * stayed after another one left may have voted yes on transactions the first never received (its own yes covers a
 * key once the other owner is out of its view, and the originator counts any owner's yes), so the copy of the one
 * that left first may lack acknowledged writes: served alone, it would win the key, and the newer copy be ignored
 * (issue 8). {@link #left} says when each owner left: the epoch of the first primary view after the placement
 * without it. Primary views come in one sequence, at their place in the order, seen alike by every member that
 * went through them, so every member computes the same region, given the same fresh "done" messages (a member
 * that leaves mid-rebalance may have reached some members with its "done" and not others: that was already so for
 * the holders). Owners that left in the same view are all awaited:
 * one may have voted yes on a transaction just before the cut that the other never received. Every owner's copy is
 * taken as it comes back while the key is still refused (the higher version wins), whenever that owner left: who
 * left last decides only when the key is served, never whose copy counts.
 *
 * <p>An owner that never completed the rebalance of the placement ({@link #answered}) voted on nothing under it
 * (its transactions wait behind that rebalance), so it holds nothing newer than the others; it may lack keys it
 * gained with the placement. Back, it counts as one of those that left last, but not as a copy: the key is served
 * once, besides, some owner is back with a copy complete for the placement ({@link #holders}).
 */
final class LostRegion {
    /** Left after every departure the fresh members had seen when they found the keys lost. */
    static final long LAST = Long.MAX_VALUE;

    final long placement;
    final HashRing ring;
    final Set<MemberId> holders;
    /**
     * When each member of the ring that did not go through the placement fresh left ({@link #LAST} when after every
     * departure known): exactly the members outside the fresh holders. A member back with its copies is in
     * {@link #holders} too, and keeps its entry.
     */
    final Map<MemberId, Long> left;
    /** Members of the ring back without a copy complete for the placement: they never completed its rebalance. */
    final Set<MemberId> answered;

    /** A region found at a rebalance: {@code freshHolders} went through it; {@code knownLeft} as far as known. */
    static LostRegion found(long placement, HashRing ring, Set<MemberId> freshHolders, Map<MemberId, Long> knownLeft) {
        Map<MemberId, Long> left = new HashMap<>();
        for (MemberId m : ring.members()) {
            if (!freshHolders.contains(m)) {
                left.put(m, knownLeft.getOrDefault(m, LAST));
            }
        }
        return new LostRegion(placement, ring, freshHolders, left, Set.of());
    }

    private LostRegion(long placement, HashRing ring, Set<MemberId> holders, Map<MemberId, Long> left,
            Set<MemberId> answered) {
        this.placement = placement;
        this.ring = ring;
        this.holders = Set.copyOf(holders);
        this.left = Map.copyOf(left);
        this.answered = Set.copyOf(answered);
    }

    static LostRegion of(Message.Lost wire, int degree, int virtualNodes) {
        Set<MemberId> holders = new HashSet<>(wire.holders());
        Map<MemberId, Long> left = new HashMap<>();
        for (int i = 0; i < wire.ring().size(); i++) {
            MemberId m = wire.ring().get(i);
            long when = wire.left().isEmpty() ? 0 : wire.left().get(i);
            if (when != 0) {
                left.put(m, when);
            } else if (!holders.contains(m)) {
                left.put(m, LAST); // not known: it counts as having left last
            }
        }
        return new LostRegion(wire.placement(), new HashRing(wire.ring(), degree, virtualNodes), holders, left,
                new HashSet<>(wire.answered()));
    }

    Message.Lost toWire() {
        List<Long> when = new ArrayList<>(ring.members().size());
        for (MemberId m : ring.members()) {
            when.add(left.getOrDefault(m, 0L));
        }
        return new Message.Lost(placement, ring.members(), List.copyOf(holders), when, List.copyOf(answered));
    }

    boolean covers(ByteKey key) {
        return lost(ring.owners(key));
    }

    /**
     * Whether keys with these owners under the placement are lost: none of them went through it fresh, and some
     * owner among those that left last is not back yet, or none is back with a copy complete for the placement.
     */
    private boolean lost(List<MemberId> owners) {
        long last = 0;
        for (MemberId o : owners) {
            if (!left.containsKey(o)) {
                return false; // a fresh holder
            }
            last = Math.max(last, left.get(o));
        }
        boolean copy = false;
        for (MemberId o : owners) {
            if (holders.contains(o)) {
                copy = true;
            } else if (left.get(o) == last && !answered.contains(o)) {
                return true;
            }
        }
        return !copy;
    }

    /** Whether no key is lost any more. */
    boolean isEmpty() {
        return !ring.someKeyHasOwners(this::lost);
    }

    /** Whether {@code member} owned some of these keys under the placement and is not yet counted as back. */
    boolean recoverableBy(MemberId member) {
        return ring.members().contains(member) && !holders.contains(member) && !answered.contains(member);
    }

    /**
     * Whether {@code member}'s copy of the key is taken when it comes back: it owned the key, and the key is still
     * refused (once served, it may have been written since). Whenever {@code member} left: the higher version wins.
     */
    boolean takesFrom(MemberId member, ByteKey key) {
        List<MemberId> owners = ring.owners(key);
        return owners.contains(member) && !holders.contains(member) && lost(owners);
    }

    /** The region once {@code member} is back with copies complete for the placement. */
    LostRegion recoveredBy(MemberId member) {
        Set<MemberId> more = new HashSet<>(holders);
        more.add(member);
        return new LostRegion(placement, ring, more, left, answered);
    }

    /** The region once {@code member}, which never completed the placement's rebalance, is back (no copy). */
    LostRegion answeredBy(MemberId member) {
        Set<MemberId> more = new HashSet<>(answered);
        more.add(member);
        return new LostRegion(placement, ring, holders, left, more);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LostRegion r && r.placement == placement && r.ring.members().equals(ring.members())
                && r.holders.equals(holders) && r.left.equals(left) && r.answered.equals(answered);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(placement) * 31 + holders.hashCode();
    }

    @Override
    public String toString() {
        return "keys of placement " + placement + " owned only outside " + holders.stream().map(MemberId::name)
                .sorted().toList() + " (left: " + left.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> e.getKey().name() + (e.getValue() == LAST ? " last" : " at " + e.getValue())).toList()
                + (answered.isEmpty() ? "" : ", back without a complete copy: " + answered.stream()
                        .map(MemberId::name).sorted().toList()) + ")";
    }
}
