package io.polycert.certification;

import io.polycert.oracle.Protocol;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/** Counters of one replica's certification: what its own transactions did, by protocol. Thread-safe. */
public final class CertificationStatistics {

    /** Counters for one protocol. */
    public static final class PerProtocol {
        final LongAdder committed = new LongAdder();
        final LongAdder conflicts = new LongAdder();
        final LongAdder falsePositives = new LongAdder();
        final LongAdder otherAborts = new LongAdder();
        final LongAdder outcomeUnknown = new LongAdder();
        final LongAdder bytes = new LongAdder();
        final LongAdder latencyNanos = new LongAdder();

        public long committed() {
            return committed.sum();
        }

        /** Aborts because a read was overwritten. */
        public long conflicts() {
            return conflicts.sum();
        }

        /** BFC aborts that a precise check would not have made. */
        public long falsePositives() {
            return falsePositives.sum();
        }

        /** Aborts for any other cause (the replica left, a value that cannot be encoded, ...). */
        public long otherAborts() {
            return otherAborts.sum();
        }

        /**
         * Commits whose caller stopped waiting (outcome timeout, or interrupted) with
         * {@link io.polycert.core.CommitOutcomeUnknownException}: neither committed nor aborted as far as this
         * replica's caller knows; the group decided them all the same.
         */
        public long outcomeUnknown() {
            return outcomeUnknown.sum();
        }

        /** Bytes this replica broadcast for these transactions. */
        public long bytesBroadcast() {
            return bytes.sum();
        }

        /** Total commit latency of the committed ones, nanoseconds. */
        public long committedLatencyNanos() {
            return latencyNanos.sum();
        }
    }

    private final Map<Protocol, PerProtocol> byProtocol = new EnumMap<>(Protocol.class);
    final LongAdder remoteCommits = new LongAdder();
    final LongAdder remoteAborts = new LongAdder();
    final LongAdder rerouted = new LongAdder();
    final LongAdder unknownBoxes = new LongAdder();
    final LongAdder filtersChecked = new LongAdder();
    final LongAdder filtersUnderSized = new LongAdder();
    final DoubleAdder expectedFalsePositives = new DoubleAdder();

    CertificationStatistics() {
        for (Protocol p : Protocol.values()) {
            byProtocol.put(p, new PerProtocol());
        }
    }

    public PerProtocol of(Protocol protocol) {
        return byProtocol.get(protocol);
    }

    /** Transactions of other replicas that this replica applied. */
    public long remoteCommits() {
        return remoteCommits.sum();
    }

    public long remoteAborts() {
        return remoteAborts.sum();
    }

    /**
     * Boxes that remote commits named but this replica no longer had (collected because no replicated state
     * reached them): each is a divergence from the originator, caused by keeping a shared box only in a variable.
     */
    public long unknownBoxes() {
        return unknownBoxes.sum();
    }

    /** NVC or BFC transactions sent by VC because their message would have been too large. */
    public long reroutedToVoting() {
        return rerouted.sum();
    }

    /**
     * This replica's BFC transactions whose filter was checked in full: those that committed and those aborted by
     * a false positive (not those that really conflicted).
     */
    public long bloomFiltersChecked() {
        return filtersChecked.sum();
    }

    /**
     * Of {@link #bloomFiltersChecked()}, those checked against more written ids than their filter was sized for
     * (more writes during the commit than forecast, see docs/CERTIFICATION.md): their false-positive odds were
     * above the configured rate.
     */
    public long bloomFiltersUnderSized() {
        return filtersUnderSized.sum();
    }

    /**
     * The false-positive aborts to expect over {@link #bloomFiltersChecked()}: for each, the chance that its
     * filter, as filled, matches at least one of the distinct ids it was checked against (ids are counted as
     * distinct without checking beyond 16,384, so the expectation is high for huge write windows). Set against
     * {@code of(BFC).falsePositives()}, it tells whether false positives are as rare as the filters promise.
     */
    public double bloomExpectedFalsePositives() {
        return expectedFalsePositives.sum();
    }
}
