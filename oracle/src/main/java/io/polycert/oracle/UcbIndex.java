package io.polycert.oracle;

/** How a bandit scores an arm: its mean reward plus an upper confidence bound. */
public enum UcbIndex {
    /** Auer et al.'s UCB1, the paper's rule: mean + sqrt(2 ln n / n_i). */
    UCB1,
    /**
     * UCB1-Tuned: the bound shrinks with the arm's observed reward variance. PolyCert's rewards sit in a narrow band
     * (arms differ by a few hundredths), where UCB1 keeps exploring long after the answer is clear.
     */
    UCB1_TUNED;

    /** The index of an arm played {@code ni} times out of {@code n}, with this mean and variance of reward. */
    double score(double mean, double variance, double ni, double n) {
        if (ni <= 0) {
            return Double.POSITIVE_INFINITY;
        }
        double logN = Math.log(Math.max(n, 1));
        return switch (this) {
            case UCB1 -> mean + Math.sqrt(2 * logN / ni);
            case UCB1_TUNED -> {
                double v = Math.max(0, variance) + Math.sqrt(2 * logN / ni);
                yield mean + Math.sqrt(logN / ni * Math.min(0.25, v));
            }
        };
    }
}
