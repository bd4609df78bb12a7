package io.polycert.oracle;

/** How a bandit scores an arm: its mean reward plus an upper confidence bound. */
public enum UcbIndex {
    /** Auer et al.'s UCB1, the paper's rule: mean + sqrt(2 ln n / n_i). */
    UCB1,
    /**
     * UCB1-Tuned: the bound shrinks with the arm's observed reward variance. PolyCert's rewards sit in a narrow band
     * (arms differ by a few hundredths), where UCB1 keeps exploring long after the answer is clear.
     */
    UCB1_TUNED,
    /**
     * KL-UCB for Gaussian rewards: mean + sqrt(2 s^2 ln n / n_i), with s^2 the variance of rewards pooled over the
     * bucket's arms (every arm's deviations from its own mean), plus half a pseudo-sample of variance 1/4 so that a
     * few alike rewards cannot make it overconfident. For DistUCB's epochs (their default): an epoch's reward is a
     * rate over at least 32 commits, so rewards of one arm vary little, and pooling lends each arm the others'
     * samples to say how little. UCB1-Tuned's bound, floored by sqrt(2 ln n / n_i) until an arm has many samples,
     * kept playing an arm a third slower for a quarter of a phase that holds only some forty epochs.
     */
    KL_UCB_GAUSSIAN;

    /**
     * Pseudo-samples of variance 1/4 (the most rewards in [0, 1] can have) in {@link #KL_UCB_GAUSSIAN}'s pool: on
     * simulated epochs (UcbOracleTest's, varied; docs/ORACLE.md) half a sample lost less than two in every case
     * tried, with epoch-to-epoch noise of 5% and 15%.
     */
    static final double PRIOR_SAMPLES = 0.5;

    /** Its name in configuration ({@code polycert.ucb.index}) and in an oracle's description. */
    public String configName() {
        return this == KL_UCB_GAUSSIAN ? "kl-ucb" : name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /**
     * The index of an arm played {@code ni} times out of {@code n}, with this mean and variance of reward;
     * {@code pooledVariance} is the bucket's (see {@link #pooledVariance}), used by {@link #KL_UCB_GAUSSIAN} only.
     */
    double score(double mean, double variance, double ni, double n, double pooledVariance) {
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
            case KL_UCB_GAUSSIAN -> mean + Math.sqrt(2 * pooledVariance * logN / ni);
        };
    }

    /**
     * The variance of rewards pooled over arms: the arms' squared deviations from their own means over their
     * degrees of freedom, with {@link #PRIOR_SAMPLES} samples of variance 1/4 added.
     *
     * @param statistics per arm {n, sum of rewards, sum of squared rewards}, arm after arm
     */
    static double pooledVariance(double[] statistics) {
        double squares = PRIOR_SAMPLES * 0.25;
        double freedom = PRIOR_SAMPLES;
        for (int a = 0; a + 2 < statistics.length; a += 3) {
            double ni = statistics[a];
            if (ni > 1) {
                squares += Math.max(0, statistics[a + 2] - statistics[a + 1] * statistics[a + 1] / ni);
                freedom += ni - 1;
            }
        }
        return squares / freedom;
    }
}
