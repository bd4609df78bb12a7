package io.polycert.oracle;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * Trains {@link ModelTree}s the M5 way (Quinlan 1992, "Learning with continuous classes"; Wang and Witten 1997,
 * "Inducing model trees for continuous classes"):
 * <ol>
 * <li>grow a binary tree, choosing at each node the split that most reduces the target's standard deviation, until
 * a node has too few rows, a target deviation under 5% of the whole set's, or the maximum depth;</li>
 * <li>bottom-up, fit a least-squares linear model at every node over the features tested in its subtree, greedily
 * dropping terms while that lowers the estimated error, and replace the subtree by the node's model when the model's
 * estimated error is no worse than the subtree's;</li>
 * <li>optionally smooth each leaf's model with those of its ancestors, folded into the leaf's coefficients so that
 * prediction stays one linear model per leaf.</li>
 * </ol>
 * Deterministic: the same data and settings give the same tree. Instances are immutable and thread-safe.
 */
public final class ModelTreeTrainer {
    /** M5's smoothing constant k: a parent's model weighs as much as k extra rows of the child. */
    private static final double SMOOTHING_CONSTANT = 15;
    /** M5 stops splitting a node whose target deviation is below this fraction of the whole set's. */
    private static final double MIN_DEVIATION_FRACTION = 0.05;
    /** Added to the Gram diagonal, relative to each entry: keeps Cholesky stable on collinear metrics. */
    private static final double RIDGE = 1e-8;

    private final int minLeafSize;
    private final int maxDepth;
    private final boolean pruning;
    private final boolean smoothing;

    private ModelTreeTrainer(Builder builder) {
        this.minLeafSize = builder.minLeafSize;
        this.maxDepth = builder.maxDepth;
        this.pruning = builder.pruning;
        this.smoothing = builder.smoothing;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Minimum leaf size 4, maximum depth 30, pruning and smoothing on (M5's defaults). */
    public static ModelTreeTrainer withDefaults() {
        return builder().build();
    }

    /** @throws IllegalArgumentException if {@code data} has no rows */
    public ModelTree train(TrainingData data) {
        if (data.size() == 0) {
            throw new IllegalArgumentException("cannot train on an empty data set");
        }
        return new Training(data).run();
    }

    @Override
    public String toString() {
        return "M5(minLeaf=" + minLeafSize + ", maxDepth=" + maxDepth + ", pruning=" + pruning + ", smoothing="
                + smoothing + ")";
    }

    public static final class Builder {
        private int minLeafSize = 4;
        private int maxDepth = 30;
        private boolean pruning = true;
        private boolean smoothing = true;

        private Builder() {
        }

        /** Fewest training rows on each side of a split; at least 1. */
        public Builder minLeafSize(int rows) {
            if (rows < 1) {
                throw new IllegalArgumentException("minimum leaf size must be at least 1, got " + rows);
            }
            this.minLeafSize = rows;
            return this;
        }

        /** Deepest split level (0 gives a single linear model); at most 1000. */
        public Builder maxDepth(int depth) {
            if (depth < 0 || depth > 1000) {
                throw new IllegalArgumentException("maximum depth must be within 0..1000, got " + depth);
            }
            this.maxDepth = depth;
            return this;
        }

        public Builder pruning(boolean on) {
            this.pruning = on;
            return this;
        }

        public Builder smoothing(boolean on) {
            this.smoothing = on;
            return this;
        }

        public ModelTreeTrainer build() {
            return new ModelTreeTrainer(this);
        }
    }

    /** A node while training. {@code model} is [intercept, one slope per feature], as in {@link ModelTree}. */
    static final class Node {
        final int rows;
        int feature = -1;
        double threshold;
        Node left;
        Node right;
        boolean[] testedFeatures; // features split on in this subtree, before pruning
        double[] model;
        double error; // M5's estimated error of the (pruned) subtree

        Node(int rows) {
            this.rows = rows;
        }
    }

    /** A fitted linear model and its M5 estimated error. */
    record Fit(double[] model, double estimatedError) {
    }

    /** The state of one training run. */
    private final class Training {
        private final String target;
        private final List<String> featureNames;
        private final double[][] x;
        private final double[] y;
        private final int featureCount;
        private final double[][] columns; // column-major copy: split search scans one feature at a time
        private final boolean[] goesLeft; // scratch for partitioning, indexed by row
        private double rootDeviation;

        Training(TrainingData data) {
            this.target = data.targetName();
            this.featureNames = data.featureNames();
            this.x = data.rowsView();
            this.y = data.targetsView();
            this.featureCount = data.featureCount();
            this.columns = new double[featureCount][y.length];
            for (int r = 0; r < y.length; r++) {
                for (int f = 0; f < featureCount; f++) {
                    columns[f][r] = x[r][f];
                }
            }
            this.goesLeft = new boolean[y.length];
        }

        ModelTree run() {
            int[][] sorted = new int[featureCount][];
            for (int f = 0; f < featureCount; f++) {
                sorted[f] = sortedIndices(columns[f]);
            }
            int[] rows = new int[y.length];
            Arrays.setAll(rows, i -> i);
            rootDeviation = deviation(rows);
            Node root = grow(rows, sorted, 0);
            if (smoothing) {
                smooth(root, new ArrayDeque<>());
            }
            return flatten(root);
        }

        /** Grows the subtree over {@code rows} (each {@code sorted[f]} lists the same rows by feature f), pruned. */
        private Node grow(int[] rows, int[][] sorted, int depth) {
            Node node = new Node(rows.length);
            node.testedFeatures = new boolean[featureCount];
            if (depth >= maxDepth || !findSplit(node, rows, sorted)) {
                Fit constant = fit(rows, node.testedFeatures); // M5: nothing tested below a leaf, so a constant
                node.model = constant.model();
                node.error = constant.estimatedError();
                return node;
            }
            int leftRows = 0;
            for (int r : rows) {
                goesLeft[r] = columns[node.feature][r] <= node.threshold;
                leftRows += goesLeft[r] ? 1 : 0;
            }
            int[][] leftSorted = new int[featureCount][leftRows];
            int[][] rightSorted = new int[featureCount][rows.length - leftRows];
            for (int f = 0; f < featureCount; f++) {
                int l = 0;
                int rt = 0;
                for (int r : sorted[f]) {
                    if (goesLeft[r]) {
                        leftSorted[f][l++] = r;
                    } else {
                        rightSorted[f][rt++] = r;
                    }
                }
            }
            Arrays.fill(sorted, null); // the children own these rows now: memory stays O(rows x features)
            node.left = grow(leftSorted[0], leftSorted, depth + 1);
            node.right = grow(rightSorted[0], rightSorted, depth + 1);
            for (int f = 0; f < featureCount; f++) {
                node.testedFeatures[f] = f == node.feature || node.left.testedFeatures[f]
                        || node.right.testedFeatures[f];
            }
            // M5 restricts a node's model to the features tested in its subtree rather than all of them: the
            // splits already picked the features that matter in this region, so the model cannot chase noise
            // metrics, the normal equations stay small, and the published pruning heuristics apply unchanged.
            Fit fit = fit(rows, node.testedFeatures);
            node.model = fit.model();
            double subtreeError = (node.left.rows * node.left.error + node.right.rows * node.right.error) / node.rows;
            if (pruning && fit.estimatedError() <= subtreeError) {
                node.feature = -1;
                node.left = null;
                node.right = null;
                node.error = fit.estimatedError();
            } else {
                node.error = subtreeError;
            }
            return node;
        }

        /** Sets the node's split to the one of greatest standard deviation reduction, or returns false. */
        private boolean findSplit(Node node, int[] rows, int[][] sorted) {
            int n = rows.length;
            if (n < 2 * minLeafSize || featureCount == 0) {
                return false;
            }
            double mean = mean(rows);
            double sum = 0; // of deviations from the node mean, for precision on large targets
            double sumSquares = 0;
            for (int r : rows) {
                double d = y[r] - mean;
                sum += d;
                sumSquares += d * d;
            }
            double deviation = Math.sqrt(sumSquares / n);
            if (deviation <= MIN_DEVIATION_FRACTION * rootDeviation) {
                return false;
            }
            double bestReduction = 1e-12 * deviation; // ignore rounding-level gains
            boolean found = false;
            for (int f = 0; f < featureCount; f++) {
                int[] order = sorted[f];
                double[] column = columns[f];
                double leftSum = 0;
                double leftSquares = 0;
                for (int i = 0; i < n - minLeafSize; i++) {
                    double d = y[order[i]] - mean;
                    leftSum += d;
                    leftSquares += d * d;
                    int leftCount = i + 1;
                    double below = column[order[i]];
                    double above = column[order[i + 1]];
                    if (leftCount < minLeafSize || below == above) {
                        continue;
                    }
                    int rightCount = n - leftCount;
                    double rightSum = sum - leftSum;
                    double leftDeviation = Math.sqrt(Math.max(0, leftSquares - leftSum * leftSum / leftCount)
                            / leftCount);
                    double rightDeviation = Math.sqrt(Math.max(0, (sumSquares - leftSquares)
                            - rightSum * rightSum / rightCount) / rightCount);
                    double reduction = deviation - (leftCount * leftDeviation + rightCount * rightDeviation) / n;
                    if (reduction > bestReduction) {
                        bestReduction = reduction;
                        node.feature = f;
                        node.threshold = between(below, above);
                        found = true;
                    }
                }
            }
            return found;
        }

        /**
         * Least squares over the allowed features that vary in {@code rows}, then M5's greedy elimination: drop
         * the term whose removal lowers the estimated error most, while one does.
         */
        private Fit fit(int[] rows, boolean[] allowed) {
            int n = rows.length;
            int[] features = new int[featureCount];
            int k = 0;
            for (int f = 0; f < featureCount; f++) {
                if (allowed[f]) {
                    features[k++] = f;
                }
            }
            features = Arrays.copyOf(features, k);
            double yMean = mean(rows);
            double[] xMean = new double[k];
            for (int r : rows) {
                for (int j = 0; j < k; j++) {
                    xMean[j] += x[r][features[j]];
                }
            }
            for (int j = 0; j < k; j++) {
                xMean[j] /= n;
            }
            // Centred normal equations: the intercept drops out and the sums keep their precision.
            double[][] gram = new double[k][k];
            double[] xy = new double[k];
            double yy = 0;
            double[] centred = new double[k];
            for (int r : rows) {
                double dy = y[r] - yMean;
                yy += dy * dy;
                for (int j = 0; j < k; j++) {
                    centred[j] = x[r][features[j]] - xMean[j];
                    xy[j] += centred[j] * dy;
                    for (int i = 0; i <= j; i++) {
                        gram[j][i] += centred[j] * centred[i];
                    }
                }
            }
            boolean[] active = new boolean[k];
            for (int j = 0; j < k; j++) {
                for (int i = 0; i < j; i++) {
                    gram[i][j] = gram[j][i];
                }
                active[j] = gram[j][j] > 1e-20 * n * xMean[j] * xMean[j]; // constant here: nothing to fit
            }
            Solution best = solve(gram, xy, yy, n, active);
            while (true) {
                Solution bestDrop = null;
                int drop = -1;
                for (int j = 0; j < k; j++) {
                    if (active[j]) {
                        active[j] = false;
                        Solution candidate = solve(gram, xy, yy, n, active);
                        active[j] = true;
                        if (bestDrop == null || candidate.error < bestDrop.error) {
                            bestDrop = candidate;
                            drop = j;
                        }
                    }
                }
                if (bestDrop == null || bestDrop.error > best.error) {
                    break;
                }
                active[drop] = false;
                best = bestDrop;
            }
            double[] model = new double[featureCount + 1];
            model[0] = yMean;
            for (int j = 0; j < k; j++) {
                model[1 + features[j]] = best.slopes[j];
                model[0] -= best.slopes[j] * xMean[j];
            }
            return new Fit(model, best.error);
        }

        /** Smooths each leaf's model with its ancestors' (nearest first in {@code ancestors}), M5 style. */
        private void smooth(Node node, Deque<Node> ancestors) {
            if (node.feature < 0) {
                double[] model = node.model.clone();
                Node below = node;
                for (Node above : ancestors) {
                    double weight = below.rows + SMOOTHING_CONSTANT;
                    for (int i = 0; i < model.length; i++) {
                        model[i] = (below.rows * model[i] + SMOOTHING_CONSTANT * above.model[i]) / weight;
                    }
                    below = above;
                }
                node.model = model; // ancestors keep their unsmoothed models: their other leaves still need them
                return;
            }
            ancestors.push(node);
            smooth(node.left, ancestors);
            smooth(node.right, ancestors);
            ancestors.pop();
        }

        private ModelTree flatten(Node root) {
            List<Node> preorder = new ArrayList<>();
            Deque<Node> pending = new ArrayDeque<>();
            pending.push(root);
            while (!pending.isEmpty()) {
                Node node = pending.pop();
                preorder.add(node);
                if (node.feature >= 0) {
                    pending.push(node.right);
                    pending.push(node.left);
                }
            }
            int count = preorder.size();
            int[] feature = new int[count];
            double[] threshold = new double[count];
            int[] left = new int[count];
            int[] right = new int[count];
            double[][] leafModels = new double[count][];
            // Preorder: a left child directly follows its parent; the right child follows the left subtree.
            int[] subtreeSize = new int[count];
            for (int i = count - 1; i >= 0; i--) {
                Node node = preorder.get(i);
                feature[i] = node.feature;
                if (node.feature < 0) {
                    subtreeSize[i] = 1;
                    left[i] = right[i] = -1;
                    leafModels[i] = node.model;
                } else {
                    threshold[i] = node.threshold;
                    left[i] = i + 1;
                    right[i] = i + 1 + subtreeSize[i + 1];
                    subtreeSize[i] = 1 + subtreeSize[left[i]] + subtreeSize[right[i]];
                }
            }
            return new ModelTree(target, featureNames, feature, threshold, left, right, leafModels);
        }

        private double mean(int[] rows) {
            double sum = 0;
            for (int r : rows) {
                sum += y[r];
            }
            return sum / rows.length;
        }

        private double deviation(int[] rows) {
            double mean = mean(rows);
            double squares = 0;
            for (int r : rows) {
                squares += (y[r] - mean) * (y[r] - mean);
            }
            return Math.sqrt(squares / rows.length);
        }
    }

    /** Slopes over the centred features and M5's estimated error. */
    private record Solution(double[] slopes, double error) {
    }

    /**
     * Solves the ridge-regularised normal equations restricted to {@code active} by Cholesky, and rates the result
     * with M5's estimated error: the training RMS error times (n + v) / (n - v), v the number of parameters.
     */
    private static Solution solve(double[][] gram, double[] xy, double yy, int n, boolean[] active) {
        int k = gram.length;
        int[] index = new int[k];
        int v = 0;
        for (int j = 0; j < k; j++) {
            if (active[j]) {
                index[v++] = j;
            }
        }
        double[] beta = new double[v];
        for (double ridge = RIDGE; ridge <= 1e-2 && !choleskySolve(gram, xy, index, v, ridge, beta); ridge *= 1e3) {
            Arrays.fill(beta, 0); // ill-conditioned: retry with more regularisation
        }
        double sse = yy;
        for (int a = 0; a < v; a++) {
            double gramBeta = 0;
            for (int b = 0; b < v; b++) {
                gramBeta += gram[index[a]][index[b]] * beta[b];
            }
            sse += beta[a] * (gramBeta - 2 * xy[index[a]]);
        }
        double[] slopes = new double[k];
        for (int a = 0; a < v; a++) {
            slopes[index[a]] = beta[a];
        }
        int parameters = v + 1;
        double factor = n > parameters ? (double) (n + parameters) / (n - parameters) : 10; // Weka's cap when n <= v
        return new Solution(slopes, Math.sqrt(Math.max(0, sse) / n) * factor);
    }

    private static boolean choleskySolve(double[][] gram, double[] xy, int[] index, int v, double ridge,
            double[] beta) {
        double[][] l = new double[v][v];
        for (int i = 0; i < v; i++) {
            for (int j = 0; j <= i; j++) {
                double s = gram[index[i]][index[j]] * (i == j ? 1 + ridge : 1);
                for (int p = 0; p < j; p++) {
                    s -= l[i][p] * l[j][p];
                }
                if (i == j) {
                    if (!(s > 0)) {
                        return false;
                    }
                    l[i][i] = Math.sqrt(s);
                } else {
                    l[i][j] = s / l[j][j];
                }
            }
        }
        for (int i = 0; i < v; i++) { // L z = xy
            double s = xy[index[i]];
            for (int p = 0; p < i; p++) {
                s -= l[i][p] * beta[p];
            }
            beta[i] = s / l[i][i];
        }
        for (int i = v - 1; i >= 0; i--) { // L^T beta = z
            double s = beta[i];
            for (int p = i + 1; p < v; p++) {
                s -= l[p][i] * beta[p];
            }
            beta[i] = s / l[i][i];
        }
        return true;
    }

    /** A threshold strictly below {@code above} and not below {@code below}, so both sides keep their rows. */
    private static double between(double below, double above) {
        double middle = below + (above - below) / 2;
        return middle < above ? middle : below;
    }

    /** Row indices ordered by {@code keys}; a stable bottom-up merge sort, so ties keep row order. */
    private static int[] sortedIndices(double[] keys) {
        int n = keys.length;
        int[] source = new int[n];
        Arrays.setAll(source, i -> i);
        int[] target = new int[n];
        for (int width = 1; width < n; width <<= 1) {
            for (int low = 0; low < n; low += width << 1) {
                int middle = Math.min(low + width, n);
                int high = Math.min(low + (width << 1), n);
                int i = low;
                int j = middle;
                int out = low;
                while (i < middle && j < high) {
                    target[out++] = keys[source[j]] < keys[source[i]] ? source[j++] : source[i++];
                }
                while (i < middle) {
                    target[out++] = source[i++];
                }
                while (j < high) {
                    target[out++] = source[j++];
                }
            }
            int[] swap = source;
            source = target;
            target = swap;
        }
        return source;
    }
}
