package io.polycert.certification.partial;

import io.polycert.core.AbortCause;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** Counters of one member's partially replicated transactions (those it originated). */
public final class PartitionedStatistics {
    final LongAdder committed = new LongAdder();
    final LongAdder commitNanos = new LongAdder();
    final LongAdder commitRounds = new LongAdder();
    final LongAdder readOnlyLocal = new LongAdder();
    final Map<AbortCause, LongAdder> aborts = new EnumMap<>(AbortCause.class);
    final LongAdder remoteReads = new LongAdder();
    final LongAdder nearCacheHits = new LongAdder();
    final LongAdder rebalances = new LongAdder();
    final LongAdder keysReceived = new LongAdder();
    final LongAdder droppedMessages = new LongAdder();
    final LongAdder voteQueries = new LongAdder();
    final LongAdder abortedUnvoted = new LongAdder();
    final LongAdder inDoubtCommitted = new LongAdder();

    PartitionedStatistics() {
        for (AbortCause c : AbortCause.values()) {
            aborts.put(c, new LongAdder());
        }
    }

    /** Transactions that committed through the commit protocol (read-only ones certified under serializable too). */
    public long committed() {
        return committed.sum();
    }

    /**
     * Mean time from sending a commit to learning its outcome, over every commit that sent a message, committed or
     * aborted (microseconds).
     */
    public double meanCommitMicros() {
        long n = commitRounds.sum();
        return n == 0 ? 0 : commitNanos.sum() / 1e3 / n;
    }

    /** Commits that sent a message (the rest were local: read-only). */
    public long commitRounds() {
        return commitRounds.sum();
    }

    /** Read-only transactions that committed without any message. */
    public long readOnlyCommittedLocally() {
        return readOnlyLocal.sum();
    }

    public long aborts(AbortCause cause) {
        return aborts.get(cause).sum();
    }

    public long aborts() {
        long n = 0;
        for (LongAdder a : aborts.values()) {
            n += a.sum();
        }
        return n;
    }

    /** Reads of keys this member does not own that went to an owner. */
    public long remoteReads() {
        return remoteReads.sum();
    }

    /** Reads of keys this member does not own served by the near cache. */
    public long nearCacheHits() {
        return nearCacheHits.sum();
    }

    /** Placements this member moved to. */
    public long rebalances() {
        return rebalances.sum();
    }

    /** Keys this member received from former owners. */
    public long keysReceived() {
        return keysReceived.sum();
    }

    /** Malformed or unexpected messages dropped. */
    public long droppedMessages() {
        return droppedMessages.sum();
    }

    /** Times this member, having voted, asked owners for votes still missing after a second. */
    public long voteQueries() {
        return voteQueries.sum();
    }

    /**
     * Transactions this member aborted because every owner of one of their keys dropped them without voting (cut
     * off before their turn came).
     */
    public long abortedUnvoted() {
        return abortedUnvoted.sum();
    }

    /**
     * Transactions this member dropped while cut off that turned out to have committed, whose writes it applied to
     * the copies of lost keys it brought back.
     */
    public long inDoubtCommitted() {
        return inDoubtCommitted.sum();
    }

    @Override
    public String toString() {
        return "committed=" + committed() + " readOnlyLocal=" + readOnlyCommittedLocally() + " aborts=" + aborts()
                + " remoteReads=" + remoteReads() + " nearCacheHits=" + nearCacheHits();
    }
}
