package io.polycert.certification;

/**
 * Tuning of the certification engine.
 *
 * @param maxMessageBytes a commit message larger than this is not broadcast: NVC and BFC transactions are sent
 *     by VC instead (only the write-set travels); a VC message still too large aborts with {@code TOO_LARGE}
 * @param bloomFalsePositiveRate the extra abort rate Bloom-filter certification may cause (D2STM's default 1%)
 * @param writeLogWindow committed versions whose write-sets are kept for certification; a transaction whose
 *     snapshot is older aborts (on every replica alike)
 */
public record CertificationSettings(int maxMessageBytes, double bloomFalsePositiveRate, int writeLogWindow) {

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
    }

    public static CertificationSettings defaults() {
        return new CertificationSettings(4 << 20, 0.01, 200_000);
    }
}
