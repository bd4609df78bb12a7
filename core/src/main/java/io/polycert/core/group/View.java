package io.polycert.core.group;

import java.util.List;

/**
 * A membership view as the group layer installs it: its members (the first is the coordinator) and whether it
 * is primary, that is, holds a majority of the previous primary view. Only a primary view orders and delivers;
 * a minority view refuses broadcasts ({@link NotInMajorityException}) until it merges back.
 *
 * @param epoch increases with every view the group installs in its ordered stream
 */
public record View(long epoch, List<MemberId> members, boolean primary) {

    public View {
        members = List.copyOf(members);
    }

    public MemberId coordinator() {
        return members.get(0);
    }

    public boolean contains(MemberId member) {
        return members.contains(member);
    }

    public int size() {
        return members.size();
    }

    /** Smallest number of members that is a majority of this view. */
    public int majority() {
        return members.size() / 2 + 1;
    }
}
