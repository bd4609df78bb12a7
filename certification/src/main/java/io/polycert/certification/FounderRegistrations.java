package io.polycert.certification;

import io.polycert.core.codec.CodecException;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The codec check between the members that found a group. A joiner is checked against the state it receives
 * (it must register every tag of the replica that sends it); founders receive no state, so each atomically
 * broadcasts its registrations once it is in the group, and each founder compares the others' with its own when
 * it has heard from every founder still in the view. The rule is the joiner's: a founder fails if another founder
 * registers a tag it lacks (it could not decode that founder's commits, and would differ from then on). So founders
 * with equal registrations all start; of two that differ, the one missing a tag fails, and both do if each lacks
 * one of the other's. A tag naming another class is logged, as for a joiner (a rename keeps its tag).
 *
 * <p>A founder that fails leaves the group, and it must not leave before the others have compared: it delivers an
 * announcement once the others hold it, not once they know it is held, and with two founders the one left behind
 * blocks (its view holds no majority of the founding one) without delivering the announcement, and would wait out
 * its join timeout. So every founder broadcasts that it has compared ({@link #compared()}), and one that failed
 * reports its failure only once every other founder still in its view has said so, or it lost the group's majority.
 *
 * <p>Synchronized: the delivery thread and the thread that starts the replica both call it (rarely).
 */
final class FounderRegistrations {
    private static final Logger LOG = LoggerFactory.getLogger(FounderRegistrations.class);
    /** Registrations are few; this bounds what a malformed announcement can make us allocate. */
    private static final int MAX_REGISTRATIONS = 1 << 16;

    private final SortedMap<Integer, String> ours;
    private final CompletableFuture<Void> outcome = new CompletableFuture<>();
    private final CompletableFuture<Void> compared = new CompletableFuture<>();
    /** The founders that said they have compared. */
    private final Set<MemberId> comparedBy = new HashSet<>();
    /** Why this founder cannot found the group, held until the others have compared. */
    private IllegalStateException failure;
    private final Map<MemberId, SortedMap<Integer, String>> heard = new HashMap<>();
    private MemberId self;
    /** The members of the first view, if this replica installed it without a state: then it is a founder. */
    private Set<MemberId> founders;
    private View view;
    private boolean tookState;
    private boolean announced;

    FounderRegistrations(SortedMap<Integer, String> ours) {
        this.ours = ours;
    }

    /** Completes once this replica's registrations are known to fit its group's, or fails saying why not. */
    CompletableFuture<Void> outcome() {
        return outcome;
    }

    /**
     * Completes once this replica has compared its registrations with the other founders' (whatever the result) or
     * took the state: then it says so to the group (see the class comment).
     */
    CompletableFuture<Void> compared() {
        return compared;
    }

    /** The state was installed, after the check against its sender's registrations: that check is this one's. */
    synchronized void stateInstalled() {
        tookState = true;
        outcome.complete(null);
        compared.complete(null);
    }

    synchronized void viewInstalled(View view) {
        this.view = view;
        if (founders == null && !tookState) {
            founders = Set.copyOf(view.members());
        }
        evaluate();
        reportFailure();
    }

    /** This replica is in a minority view: it no longer acknowledges anything, so waiting helps no other founder. */
    synchronized void blocked() {
        if (failure != null) {
            outcome.completeExceptionally(failure);
        }
    }

    /** A founder said, in the total order, that it has compared its registrations with the others'. */
    synchronized void comparedBy(MemberId from) {
        comparedBy.add(from);
        reportFailure();
    }

    /**
     * Called as this replica broadcasts its registrations. If it took no state (it founded the group), it decides
     * from then on, once it has heard every founder still in the view.
     */
    synchronized void startAnnouncing(MemberId self) {
        this.self = self;
        if (!tookState) {
            this.announced = true;
            evaluate();
        }
    }

    /** An announcement delivered in the total order (malformed ones throw before reaching here). */
    synchronized void delivered(MemberId from, SortedMap<Integer, String> registrations) {
        if (outcome.isDone() || founders == null || !founders.contains(from)) {
            return; // a joiner was checked with the state; announcements after the check change nothing
        }
        heard.put(from, registrations);
        evaluate();
    }

    private void evaluate() {
        if (!announced || outcome.isDone() || failure != null || founders == null || view == null) {
            return;
        }
        for (MemberId m : founders) {
            if (view.contains(m) && !heard.containsKey(m)) {
                return; // not heard yet; a founder that leaves before announcing is not waited for
            }
        }
        Map<MemberId, Set<String>> lacking = new TreeMap<>(Comparator.comparing(MemberId::toString));
        heard.forEach((member, theirs) -> {
            if (member.equals(self)) {
                return;
            }
            Set<String> missing = new LinkedHashSet<>();
            theirs.forEach((tag, type) -> {
                String here = ours.get(tag);
                if (here == null) {
                    missing.add(tag + "=" + type);
                } else if (!here.equals(type)) {
                    LOG.warn("[{}] codec tag {} is {} here and {} at founder {}: fine if the class was renamed or"
                            + " moved, wrong if these are different types", self, tag, here, type, member);
                }
            });
            if (!missing.isEmpty()) {
                lacking.put(member, missing);
            }
        });
        if (lacking.isEmpty()) {
            outcome.complete(null);
            compared.complete(null);
            return;
        }
        StringBuilder why = new StringBuilder();
        lacking.forEach((member, missing) -> why.append(why.length() == 0 ? "" : "; ").append(member)
                .append(" registers ").append(String.join(", ", missing)));
        failure = new IllegalStateException(self + " cannot found the group: other founders"
                + " register codec types it does not (" + why + "); every replica must register the same types"
                + " with the same tags (ValueCodec.builder().register)");
        compared.complete(null);
        reportFailure();
    }

    /** Fails once every other founder still in the view has compared: leaving earlier could block the group. */
    private void reportFailure() {
        if (failure == null || outcome.isDone()) {
            return;
        }
        for (MemberId m : founders) {
            if (!m.equals(self) && view.contains(m) && !comparedBy.contains(m)) {
                return;
            }
        }
        outcome.completeExceptionally(failure);
    }

    static void write(ValueOutput out, Map<Integer, String> registrations) {
        out.writeVarInt(registrations.size());
        registrations.forEach((tag, type) -> out.writeVarInt(tag).writeString(type));
    }

    static SortedMap<Integer, String> read(ValueInput in) {
        int n = in.readLength(2);
        if (n > MAX_REGISTRATIONS) {
            throw new CodecException(n + " codec registrations, more than "
                    + MAX_REGISTRATIONS);
        }
        SortedMap<Integer, String> registrations = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            int tag = in.readVarInt();
            if (registrations.put(tag, in.readString()) != null) {
                throw new CodecException("codec tag " + tag + " listed twice");
            }
        }
        return registrations;
    }
}
