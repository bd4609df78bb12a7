package io.polycert.gcs;

import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.MemberId;
import java.util.Comparator;

/**
 * Identifies an epoch by the transport view whose recovery created it: the view's number, then its creator.
 * Every member installs views in increasing order, and answers recovery only for its current view, so a member
 * that moved on to a newer view can no longer join an older recovery; a coordinator that finished an older
 * recovery anyway gets an epoch that nobody else acknowledges (it delivers nothing) and that loses to the newer
 * ballot in the next recovery. Tags on ORDER and ACK messages keep epochs apart even if their display numbers
 * coincide.
 */
record Ballot(long viewId, MemberId creator) implements Comparable<Ballot> {
    static final Ballot NONE = new Ballot(0, new MemberId(0, 0, "-"));

    private static final Comparator<Ballot> ORDER = Comparator.comparingLong(Ballot::viewId)
            .thenComparing(Ballot::creator);

    static Ballot of(TransportView view) {
        return new Ballot(view.id(), view.creator());
    }

    @Override
    public int compareTo(Ballot o) {
        return ORDER.compare(this, o);
    }

    void write(ValueOutput out) {
        out.writeVarLong(viewId);
        Wire.writeMember(out, creator);
    }

    static Ballot read(ValueInput in) {
        return new Ballot(Wire.readPositive(in), Wire.readMember(in));
    }
}
