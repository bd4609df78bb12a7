package io.polycert.gcs;

import io.polycert.core.group.MemberId;
import java.util.List;

/**
 * A membership view as the transport (JGroups GMS) installs it: an id unique to this view (a number and the
 * member that created it), and the members, coordinator first.
 */
record TransportView(long id, MemberId creator, List<MemberId> members) {

    TransportView {
        members = List.copyOf(members);
    }

    MemberId coordinator() {
        return members.get(0);
    }

    boolean sameAs(long otherId, MemberId otherCreator) {
        return id == otherId && creator.equals(otherCreator);
    }
}
