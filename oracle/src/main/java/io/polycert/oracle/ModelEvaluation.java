package io.polycert.oracle;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * Rates a {@link ModelTreeTrainer} on a data set by k-fold cross-validation, and picks features by greedy forward
 * selection on the cross-validated relative absolute error. Deterministic: folds come from a seeded shuffle, and
 * folds trained in parallel write to disjoint slots, so the scores do not depend on thread timing.
 */
public final class ModelEvaluation {
    /** Forward selection stops when the best addition lowers the relative absolute error by less than this. */
    public static final double DEFAULT_MIN_IMPROVEMENT = 0.001;

    private final ModelTreeTrainer trainer;
    private final int folds;
    private final long seed;

    /**
     * @param folds at least 2; data sets with fewer rows are cross-validated leave-one-out
     * @param seed  of the row shuffle that assigns rows to folds
     */
    public ModelEvaluation(ModelTreeTrainer trainer, int folds, long seed) {
        if (folds < 2) {
            throw new IllegalArgumentException("cross-validation needs at least 2 folds, got " + folds);
        }
        this.trainer = trainer;
        this.folds = folds;
        this.seed = seed;
    }

    /** Ten folds, seed 42. */
    public ModelEvaluation(ModelTreeTrainer trainer) {
        this(trainer, 10, 42);
    }

    /**
     * Cross-validated scores of out-of-fold predictions.
     *
     * @param correlation           Pearson correlation of predictions and targets (0 if either is constant)
     * @param relativeAbsoluteError sum |prediction - target| / sum |mean(target) - target|: 0 is perfect, 1 no
     *                              better than always forecasting the mean
     * @param meanAbsoluteError     in the target's unit
     */
    public record Scores(double correlation, double relativeAbsoluteError, double meanAbsoluteError) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "correlation %.4f, relative absolute error %.4f, "
                    + "mean absolute error %.4g", correlation, relativeAbsoluteError, meanAbsoluteError);
        }
    }

    /**
     * The outcome of forward selection.
     *
     * @param features     the chosen feature names, in the order they were added
     * @param allFeatures  scores with every feature
     * @param selected     scores with the chosen features only
     */
    public record Selection(List<String> features, Scores allFeatures, Scores selected) {
        public Selection {
            features = List.copyOf(features);
        }
    }

    /** @throws IllegalArgumentException if {@code data} has fewer than 2 rows */
    public Scores crossValidate(TrainingData data) {
        int n = data.size();
        if (n < 2) {
            throw new IllegalArgumentException("cross-validation needs at least 2 rows, got " + n);
        }
        List<TrainingData.Fold> split = data.folds(Math.min(folds, n), seed);
        double[][] predictions = new double[split.size()][];
        double[][] targets = new double[split.size()][];
        IntStream.range(0, split.size()).parallel().forEach(i -> {
            ModelTree tree = trainer.train(split.get(i).train());
            TrainingData test = split.get(i).test();
            predictions[i] = new double[test.size()];
            targets[i] = new double[test.size()];
            for (int r = 0; r < test.size(); r++) {
                predictions[i][r] = tree.predict(test.rowsView()[r]);
                targets[i][r] = test.target(r);
            }
        });
        return score(concat(predictions), concat(targets));
    }

    /** Forward selection with {@link #DEFAULT_MIN_IMPROVEMENT}. */
    public Selection forwardSelection(TrainingData data) {
        return forwardSelection(data, DEFAULT_MIN_IMPROVEMENT);
    }

    /**
     * Starts from no feature (a constant model), and repeatedly adds the feature whose addition gives the lowest
     * cross-validated relative absolute error, while that improves on the current error by more than
     * {@code minImprovement}. Ties go to the earlier feature.
     */
    public Selection forwardSelection(TrainingData data, double minImprovement) {
        return forwardSelection(data, minImprovement, List.of());
    }

    /**
     * Forward selection that starts from the {@code required} features instead of none (a cost model that must
     * depend on the message size, whatever the noise says).
     *
     * @throws IllegalArgumentException if a required feature is not in the data
     */
    public Selection forwardSelection(TrainingData data, double minImprovement, List<String> required) {
        Scores all = crossValidate(data);
        List<Integer> chosen = new ArrayList<>();
        for (String name : required) {
            int f = data.featureNames().indexOf(name);
            if (f < 0) {
                throw new IllegalArgumentException("required feature '" + name + "' is not in the data "
                        + data.featureNames());
            }
            if (!chosen.contains(f)) {
                chosen.add(f);
            }
        }
        Scores current = crossValidate(data.selectFeatures(toArray(chosen)));
        while (chosen.size() < data.featureCount()) {
            int bestFeature = -1;
            Scores best = null;
            for (int f = 0; f < data.featureCount(); f++) {
                if (chosen.contains(f)) {
                    continue;
                }
                List<Integer> candidate = new ArrayList<>(chosen);
                candidate.add(f);
                Scores scores = crossValidate(data.selectFeatures(toArray(candidate)));
                if (best == null || scores.relativeAbsoluteError() < best.relativeAbsoluteError()) {
                    best = scores;
                    bestFeature = f;
                }
            }
            if (!(best.relativeAbsoluteError() < current.relativeAbsoluteError() - minImprovement)) {
                break;
            }
            chosen.add(bestFeature);
            current = best;
        }
        List<String> names = chosen.stream().map(data.featureNames()::get).toList();
        return new Selection(names, all, current);
    }

    /** Scores of {@code predictions} against {@code targets}. */
    static Scores score(double[] predictions, double[] targets) {
        int n = targets.length;
        double targetMean = 0;
        double predictionMean = 0;
        for (int i = 0; i < n; i++) {
            targetMean += targets[i];
            predictionMean += predictions[i];
        }
        targetMean /= n;
        predictionMean /= n;
        double absoluteError = 0;
        double absoluteDeviation = 0;
        double covariance = 0;
        double targetVariance = 0;
        double predictionVariance = 0;
        for (int i = 0; i < n; i++) {
            absoluteError += Math.abs(predictions[i] - targets[i]);
            absoluteDeviation += Math.abs(targetMean - targets[i]);
            double dt = targets[i] - targetMean;
            double dp = predictions[i] - predictionMean;
            covariance += dt * dp;
            targetVariance += dt * dt;
            predictionVariance += dp * dp;
        }
        double correlation = targetVariance > 0 && predictionVariance > 0
                ? covariance / Math.sqrt(targetVariance * predictionVariance) : 0;
        // A constant target: perfect if matched exactly, else infinitely worse than the (perfect) mean.
        double relative = absoluteDeviation > 0 ? absoluteError / absoluteDeviation
                : absoluteError == 0 ? 0 : Double.POSITIVE_INFINITY;
        return new Scores(correlation, relative, absoluteError / n);
    }

    private static double[] concat(double[][] parts) {
        return Arrays.stream(parts).flatMapToDouble(Arrays::stream).toArray();
    }

    private static int[] toArray(List<Integer> indices) {
        return indices.stream().mapToInt(Integer::intValue).toArray();
    }
}
