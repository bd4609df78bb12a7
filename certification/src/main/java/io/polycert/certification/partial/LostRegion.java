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
 * <p>Only the owners of a key that left the group last can bring it back. An owner that stayed after another one
 * left may have voted yes on transactions the first never received (its own yes covers a key once the other owner
 * is out of its view, and the originator counts any owner's yes), so the copy of the one that left first may lack
 * acknowledged writes: taken, it would win the key, and the newer copy be ignored (issue 8). {@link #left} says
 * when each owner left: the epoch of the first primary view after the placement without it. Primary views come in
 * one sequence, at their place in the order, seen alike by every member that went through them, so every member
 * computes the same region. Owners that left in the same view are all awaited: one may have voted yes on a
 * transaction just before the cut that the other never received. Their copies are merged as they come (the higher
 * version wins) and the key is served once the last of them is back.
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

    /** A region found at a rebalance: {@code freshHolders} went through it; {@code knownLeft} as far as known. */
    static LostRegion found(long placement, HashRing ring, Set<MemberId> freshHolders, Map<MemberId, Long> knownLeft) {
        Map<MemberId, Long> left = new HashMap<>();
        for (MemberId m : ring.members()) {
            if (!freshHolders.contains(m)) {
                left.put(m, knownLeft.getOrDefault(m, LAST));
            }
        }
        return new LostRegion(placement, ring, freshHolders, left);
    }

    private LostRegion(long placement, HashRing ring, Set<MemberId> holders, Map<MemberId, Long> left) {
        this.placement = placement;
        this.ring = ring;
        this.holders = Set.copyOf(holders);
        this.left = Map.copyOf(left);
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
        return new LostRegion(wire.placement(), new HashRing(wire.ring(), degree, virtualNodes), holders, left);
    }

    Message.Lost toWire() {
        List<Long> when = new ArrayList<>(ring.members().size());
        for (MemberId m : ring.members()) {
            when.add(left.getOrDefault(m, 0L));
        }
        return new Message.Lost(placement, ring.members(), List.copyOf(holders), when);
    }

    boolean covers(ByteKey key) {
        return lost(ring.owners(key));
    }

    /**
     * Whether keys with these owners under the placement are lost: none of them went through it fresh, and some
     * owner among those that left last is not back yet.
     */
    private boolean lost(List<MemberId> owners) {
        long last = 0;
        for (MemberId o : owners) {
            if (!left.containsKey(o)) {
                return false; // a fresh holder
            }
            last = Math.max(last, left.get(o));
        }
        for (MemberId o : owners) {
            if (left.get(o) == last && !holders.contains(o)) {
                return true;
            }
        }
        return false;
    }

    /** Whether no key is lost any more. */
    boolean isEmpty() {
        return !ring.someKeyHasOwners(this::lost);
    }

    /** Whether {@code member} owned some of these keys under the placement and is not yet counted as holding them. */
    boolean recoverableBy(MemberId member) {
        return ring.members().contains(member) && !holders.contains(member);
    }

    /**
     * Whether {@code member}'s copy of the key is taken when it comes back: the key is lost, it owned it, and no
     * other owner of it stayed in the group after {@code member} left.
     */
    boolean takesFrom(MemberId member, ByteKey key) {
        List<MemberId> owners = ring.owners(key);
        if (!owners.contains(member) || holders.contains(member) || !lost(owners)) {
            return false;
        }
        long last = 0;
        for (MemberId o : owners) {
            last = Math.max(last, left.get(o));
        }
        return left.get(member) == last;
    }

    /** The region once {@code member} is back with its copies: the keys it left last with are no longer lost. */
    LostRegion recoveredBy(MemberId member) {
        Set<MemberId> more = new HashSet<>(holders);
        more.add(member);
        return new LostRegion(placement, ring, more, left);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LostRegion r && r.placement == placement && r.ring.members().equals(ring.members())
                && r.holders.equals(holders) && r.left.equals(left);
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
                + ")";
    }
}
