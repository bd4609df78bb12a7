package io.polycert.certification;

import java.time.Duration;
import java.util.Objects;

/**
 * Tuning of the certification engine.
 *
 * @param maxMessageBytes a commit message larger than this is not broadcast: NVC and BFC transactions are sent
 *     by VC instead (only the write-set travels); a VC message still too large aborts with {@code TOO_LARGE}
 * @param bloomFalsePositiveRate the extra abort rate Bloom-filter certification may cause (D2STM's default 1%)
 * @param writeLogWindow committed versions whose write-sets are kept for certification; a transaction whose
 *     snapshot is older aborts (on every replica alike)
 * @param writeLogMaxIds box ids those write-sets may hold in all (8 bytes each, plus an index entry per distinct
 *     id); when huge write-sets pass it, the oldest versions are dropped early, with the same effect
 * @param outcomeTimeout how long a committing thread waits for the outcome of a transaction it sent before
 *     giving up with {@link io.polycert.core.CommitOutcomeUnknownException} (the transaction may still commit):
 *     a commit always ends, even on a replica cut off from the group that does not come back
 * @param outcomeYields how many times a committing thread yields its core, checking for its outcome, before it
 *     parks (zero: it parks at once). Waking a parked thread costs a scheduling delay longer than a whole commit
 *     among in-JVM replicas on a busy machine; yielding lets the threads that decide the commit run meanwhile
 */
public record CertificationSettings(int maxMessageBytes, double bloomFalsePositiveRate, int writeLogWindow,
        long writeLogMaxIds, Duration outcomeTimeout, int outcomeYields) {

    /** Write-set ids bounded at the default, {@value #DEFAULT_WRITE_LOG_MAX_IDS}. */
    public CertificationSettings(int maxMessageBytes, double bloomFalsePositiveRate, int writeLogWindow) {
        this(maxMessageBytes, bloomFalsePositiveRate, writeLogWindow, DEFAULT_WRITE_LOG_MAX_IDS);
    }

    /** The default outcome timeout, {@link #DEFAULT_OUTCOME_TIMEOUT}. */
    public CertificationSettings(int maxMessageBytes, double bloomFalsePositiveRate, int writeLogWindow,
            long writeLogMaxIds) {
        this(maxMessageBytes, bloomFalsePositiveRate, writeLogWindow, writeLogMaxIds, DEFAULT_OUTCOME_TIMEOUT);
    }

    /** The default outcome yields, {@value #DEFAULT_OUTCOME_YIELDS}. */
    public CertificationSettings(int maxMessageBytes, double bloomFalsePositiveRate, int writeLogWindow,
            long writeLogMaxIds, Duration outcomeTimeout) {
        this(maxMessageBytes, bloomFalsePositiveRate, writeLogWindow, writeLogMaxIds, outcomeTimeout,
                DEFAULT_OUTCOME_YIELDS);
    }

    /**
     * With nothing else to run, 100 yields last some tens of microseconds, a few commits among in-JVM replicas.
     * The 3-replica R = 1 bank commits about 1.3 to 1.5 times as many transactions with them as when threads park
     * at once (CERTIFICATION.md).
     */
    public static final int DEFAULT_OUTCOME_YIELDS = 100;

    /** 30 s: far above any commit latency seen under load, well below "forever". */
    public static final Duration DEFAULT_OUTCOME_TIMEOUT = Duration.ofSeconds(30);

    /** 4 million ids: 32 MB of write-sets per replica, enough for the default window of small transactions. */
    public static final long DEFAULT_WRITE_LOG_MAX_IDS = 4_000_000;
    /**
     * The most {@code writeLogWindow} and {@code writeLogMaxIds} may be (2^28): the write log keeps its versions and
     * ids in arrays of at most 2^30 entries, which must also hold the write-set being added; a larger setting would
     * fail later, on the certifier thread, once the log filled up.
     */
    public static final int MAX_WRITE_LOG = 1 << 28;

    public CertificationSettings {
        if (maxMessageBytes < 1024) {
            throw new IllegalArgumentException("maxMessageBytes below 1 KiB: " + maxMessageBytes);
        }
        if (!(bloomFalsePositiveRate > 0 && bloomFalsePositiveRate < 0.5)) {
            throw new IllegalArgumentException("bloomFalsePositiveRate must be in (0, 0.5), was "
                    + bloomFalsePositiveRate);
        }
        if (writeLogWindow < 16) {
            throw new IllegalArgumentException("writeLogWindow below 16: " + writeLogWindow);
        }
        if (writeLogWindow > MAX_WRITE_LOG) {
            throw new IllegalArgumentException("writeLogWindow above " + MAX_WRITE_LOG + ": " + writeLogWindow);
        }
        if (writeLogMaxIds < 1024) {
            throw new IllegalArgumentException("writeLogMaxIds below 1024: " + writeLogMaxIds);
        }
        if (writeLogMaxIds > MAX_WRITE_LOG) {
            throw new IllegalArgumentException("writeLogMaxIds above " + MAX_WRITE_LOG + ": " + writeLogMaxIds);
        }
        Objects.requireNonNull(outcomeTimeout, "outcomeTimeout");
        if (outcomeTimeout.isNegative() || outcomeTimeout.isZero()) {
            throw new IllegalArgumentException("outcomeTimeout must be positive, was " + outcomeTimeout);
        }
        if (outcomeYields < 0) {
            throw new IllegalArgumentException("outcomeYields cannot be negative, was " + outcomeYields);
        }
    }

    /** These settings with another {@link #outcomeTimeout()}. */
    public CertificationSettings withOutcomeTimeout(Duration timeout) {
        return new CertificationSettings(maxMessageBytes, bloomFalsePositiveRate, writeLogWindow, writeLogMaxIds,
                timeout, outcomeYields);
    }

    /** These settings with another {@link #outcomeYields()}. */
    public CertificationSettings withOutcomeYields(int yields) {
        return new CertificationSettings(maxMessageBytes, bloomFalsePositiveRate, writeLogWindow, writeLogMaxIds,
                outcomeTimeout, yields);
    }

    public static CertificationSettings defaults() {
        return new CertificationSettings(4 << 20, 0.01, 200_000);
    }
}
