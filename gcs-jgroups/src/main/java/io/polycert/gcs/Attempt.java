package io.polycert.gcs;

import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.MemberId;
import java.util.ArrayList;
import java.util.List;

/** An epoch a member installed (or knows was established): its ballot and its members. */
record Attempt(Ballot ballot, List<MemberId> config) {
    static final Attempt NONE = new Attempt(Ballot.NONE, List.of());

    Attempt {
        config = List.copyOf(config);
    }

    /** Whether {@code members} holds a majority of this attempt's members (always, for the empty one). */
    boolean majorityIn(List<MemberId> members) {
        int present = 0;
        for (MemberId m : config) {
            if (members.contains(m)) {
                present++;
            }
        }
        return present > config.size() / 2 || config.isEmpty();
    }

    void write(ValueOutput out) {
        ballot.write(out);
        Wire.writeMembers(out, config);
    }

    static Attempt read(ValueInput in) {
        return new Attempt(Ballot.read(in), Wire.readMembers(in));
    }

    static void writeAll(ValueOutput out, List<Attempt> attempts) {
        out.writeVarInt(attempts.size());
        for (Attempt a : attempts) {
            a.write(out);
        }
    }

    static List<Attempt> readAll(ValueInput in) {
        int n = in.readLength(18);
        if (n > 1000) {
            throw new io.polycert.core.codec.CodecException(n + " attempts");
        }
        List<Attempt> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(read(in));
        }
        return out;
    }
}
