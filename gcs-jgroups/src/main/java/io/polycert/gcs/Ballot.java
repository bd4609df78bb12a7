package io.polycert.gcs;

import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.MemberId;

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

    static Ballot of(TransportView view) {
        return new Ballot(view.id(), view.creator());
    }

    @Override
    public int compareTo(Ballot o) {
        int c = Long.compare(viewId, o.viewId);
        return c != 0 ? c : creator.compareTo(o.creator);
    }

    void write(ValueOutput out) {
        out.writeVarLong(viewId);
        Wire.writeMember(out, creator);
    }

    static Ballot read(ValueInput in) {
        return new Ballot(Wire.readPositive(in), Wire.readMember(in));
    }

    /**
     * The ballot as the tag of DATA, ORDER and ACK, several per commit: its view number and its creator's id,
     * without the creator's name (ballots compare and match by id alone).
     */
    void writeTag(ValueOutput out) {
        out.writeVarLong(viewId).writeLong(creator.high()).writeLong(creator.low());
    }

    /**
     * Reads a {@linkplain #writeTag tag}: {@code current} itself if it matches (the common case: no allocation, no
     * name to decode), else a ballot whose creator is named only by its view number, for comparisons.
     */
    static Ballot readTag(ValueInput in, Ballot current) {
        long viewId = Wire.readPositive(in);
        long high = in.readLong();
        long low = in.readLong();
        MemberId c = current.creator;
        if (viewId == current.viewId && high == c.high() && low == c.low()) {
            return current;
        }
        return new Ballot(viewId, new MemberId(high, low, "creator of view " + viewId));
    }
}
