package io.polycert.certification.partial;

import io.polycert.core.group.MemberId;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Keys no member holds a fresh copy of: those whose owners under placement {@code placement} are all outside
 * {@code holders}, the members that went through that placement and stayed fresh (or came back with their copies
 * since). Which keys those are follows from the placement alone, so a key never written is told apart from one
 * written and lost only by its owners, not by its value: both are refused, as nobody left can tell them apart.
 */
final class LostRegion {
    final long placement;
    final HashRing ring;
    final Set<MemberId> holders;

    LostRegion(long placement, HashRing ring, Set<MemberId> holders) {
        this.placement = placement;
        this.ring = ring;
        this.holders = Set.copyOf(holders);
    }

    static LostRegion of(Message.Lost wire, int degree, int virtualNodes) {
        return new LostRegion(wire.placement(), new HashRing(wire.ring(), degree, virtualNodes),
                new HashSet<>(wire.holders()));
    }

    Message.Lost toWire() {
        return new Message.Lost(placement, ring.members(), List.copyOf(holders));
    }

    boolean covers(ByteKey key) {
        for (MemberId owner : ring.owners(key)) {
            if (holders.contains(owner)) {
                return false;
            }
        }
        return true;
    }

    /** Whether no key is lost any more. */
    boolean isEmpty() {
        return !ring.someKeyHasNoOwnerIn(holders);
    }

    /** Whether {@code member} owned some of these keys under the placement and is not yet counted as holding them. */
    boolean recoverableBy(MemberId member) {
        return ring.members().contains(member) && !holders.contains(member);
    }

    /** The region once {@code member} is back with its copies: the keys it owned are no longer lost. */
    LostRegion recoveredBy(MemberId member) {
        Set<MemberId> more = new HashSet<>(holders);
        more.add(member);
        return new LostRegion(placement, ring, more);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LostRegion r && r.placement == placement && r.ring.members().equals(ring.members())
                && r.holders.equals(holders);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(placement) * 31 + holders.hashCode();
    }

    @Override
    public String toString() {
        return "keys of placement " + placement + " owned only outside " + holders.stream().map(MemberId::name)
                .sorted().toList();
    }
}
