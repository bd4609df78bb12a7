package io.polycert.certification;

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
 */
public record CertificationSettings(int maxMessageBytes, double bloomFalsePositiveRate, int writeLogWindow,
        long writeLogMaxIds) {

    /** Write-set ids bounded at the default, {@value #DEFAULT_WRITE_LOG_MAX_IDS}. */
    public CertificationSettings(int maxMessageBytes, double bloomFalsePositiveRate, int writeLogWindow) {
        this(maxMessageBytes, bloomFalsePositiveRate, writeLogWindow, DEFAULT_WRITE_LOG_MAX_IDS);
    }

    /** 4 million ids: 32 MB of write-sets per replica, enough for the default window of small transactions. */
    public static final long DEFAULT_WRITE_LOG_MAX_IDS = 4_000_000;

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
        if (writeLogMaxIds < 1024) {
            throw new IllegalArgumentException("writeLogMaxIds below 1024: " + writeLogMaxIds);
        }
    }

    public static CertificationSettings defaults() {
        return new CertificationSettings(4 << 20, 0.01, 200_000);
    }
}
