package io.polycert.oracle;

/** Chooses by read-set size: NVC for small read-sets, BFC for medium ones, VC for large ones. */
final class ThresholdOracle implements ProtocolOracle {
    private final int bfcFrom;
    private final int vcFrom;

    ThresholdOracle(int bfcFrom, int vcFrom) {
        if (bfcFrom < 0 || vcFrom < bfcFrom) {
            throw new IllegalArgumentException("thresholds must satisfy 0 <= bfcFrom <= vcFrom, got " + bfcFrom
                    + " and " + vcFrom);
        }
        this.bfcFrom = bfcFrom;
        this.vcFrom = vcFrom;
    }

    @Override
    public Protocol choose(TransactionProfile profile) {
        int r = profile.readSetSize();
        return r < bfcFrom ? Protocol.NVC : r < vcFrom ? Protocol.BFC : Protocol.VC;
    }

    @Override
    public void record(Protocol protocol, TransactionProfile profile, long latencyNanos, Outcome outcome) {
    }

    @Override
    public String toString() {
        return "threshold(bfc>=" + bfcFrom + ", vc>=" + vcFrom + ")";
    }
}
