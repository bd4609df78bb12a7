package io.polycert.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ModelTreeTrainerTest {

    /** y = 2 x0 + 3 if x1 < 5, else -x0 + 4 x2 + 40. */
    static double piecewise(double[] x) {
        return x[1] < 5 ? 2 * x[0] + 3 : -x[0] + 4 * x[2] + 40;
    }

    /**
     * Features x0, x1, x2 and then {@code noiseColumns} irrelevant ones, all uniform on [0, 10); target
     * {@link #piecewise} plus Gaussian noise of deviation {@code noise}.
     */
    static TrainingData piecewiseSamples(long seed, int rows, int noiseColumns, double noise) {
        Random random = new Random(seed);
        List<String> names = new ArrayList<>(List.of("x0", "x1", "x2"));
        for (int i = 0; i < noiseColumns; i++) {
            names.add("noise" + i);
        }
        TrainingData.Builder builder = TrainingData.builder("y", names);
        for (int r = 0; r < rows; r++) {
            double[] x = new double[names.size()];
            for (int f = 0; f < x.length; f++) {
                x[f] = random.nextDouble() * 10;
            }
            builder.add(piecewise(x) + random.nextGaussian() * noise, x);
        }
        return builder.build();
    }

    static ModelEvaluation.Scores heldOutScores(ModelTree tree, TrainingData test) {
        double[] predictions = new double[test.size()];
        double[] targets = new double[test.size()];
        for (int r = 0; r < test.size(); r++) {
            predictions[r] = tree.predict(test.features(r));
            targets[r] = test.target(r);
        }
        return ModelEvaluation.score(predictions, targets);
    }

    @ParameterizedTest(name = "smoothing {0}, pruning {1}")
    @CsvSource({"true, true", "false, true", "true, false", "false, false"})
    void recoversAPiecewiseLinearFunctionFromNoisySamples(boolean smoothing, boolean pruning) {
        TrainingData train = piecewiseSamples(1, 2000, 0, 0.5);
        TrainingData test = piecewiseSamples(2, 1000, 0, 0.5);
        ModelTree tree = ModelTreeTrainer.builder().smoothing(smoothing).pruning(pruning).build().train(train);

        ModelEvaluation.Scores scores = heldOutScores(tree, test);
        System.out.printf("piecewise, smoothing %s, pruning %s: %s, %d nodes%n", smoothing, pruning, scores,
                tree.nodeCount());
        assertTrue(scores.relativeAbsoluteError() < (pruning ? 0.05 : 0.1), scores.toString());
        assertTrue(scores.correlation() > 0.98, scores.toString());
        if (pruning) {
            // The exact structure: one split on x1 near 5, a linear model on each side.
            String json = tree.toJson();
            assertEquals(3, tree.nodeCount(), json);
            assertTrue(json.contains("\"feature\": \"x1\""), json);
            double threshold = Double.parseDouble(json.replaceAll("(?s).*\"threshold\": ([-0-9.E]+).*", "$1"));
            assertEquals(5, threshold, 0.05, json);
            assertEquals(2 * 7.0 + 3, tree.predict(new double[] {7, 1, 9}), 0.3);
            assertEquals(-7 + 4 * 9.0 + 40, tree.predict(new double[] {7, 8, 9}), 0.3);
        }
    }

    @Test
    void aPurelyLinearTargetPrunesToOneExactModel() {
        Random random = new Random(3);
        TrainingData.Builder builder = TrainingData.builder("y", List.of("a", "b", "c"));
        for (int r = 0; r < 500; r++) {
            double a = random.nextDouble() * 100;
            double b = random.nextDouble();
            double c = random.nextGaussian();
            builder.add(1000 + 3 * a - 250 * b + 0 * c, a, b, c);
        }
        ModelTree tree = ModelTreeTrainer.withDefaults().train(builder.build());
        assertEquals(1, tree.nodeCount(), tree.toJson());
        assertEquals(1000 + 3 * 50 - 250 * 0.5, tree.predict(new double[] {50, 0.5, 7}), 1e-6);
    }

    @Test
    void aConstantTargetGivesAConstantLeaf() {
        TrainingData.Builder builder = TrainingData.builder("y", List.of("a", "b"));
        for (int r = 0; r < 100; r++) {
            builder.add(42, r, r % 7);
        }
        ModelTree tree = ModelTreeTrainer.withDefaults().train(builder.build());
        assertEquals(1, tree.nodeCount());
        assertEquals(42, tree.predict(new double[] {1e6, -3}), 1e-9);
    }

    @Test
    void noFeaturesGivesTheMean() {
        TrainingData data = new TrainingData("y", List.of(), new double[][] {{}, {}, {}, {}},
                new double[] {1, 2, 3, 10});
        ModelTree tree = ModelTreeTrainer.withDefaults().train(data);
        assertEquals(4, tree.predict(new double[0]), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> ModelTreeTrainer.withDefaults().train(data.selectRows()));
    }

    @Test
    void depthAndLeafSizeBoundTheTree() {
        TrainingData data = piecewiseSamples(4, 400, 2, 0.5);
        ModelTreeTrainer.Builder unpruned = ModelTreeTrainer.builder().pruning(false).smoothing(false);
        assertEquals(1, unpruned.maxDepth(0).build().train(data).nodeCount());
        assertEquals(3, unpruned.maxDepth(1).build().train(data).nodeCount());
        // Every leaf keeps at least minLeafSize rows, so at most rows / minLeafSize leaves.
        ModelTree coarse = unpruned.maxDepth(30).minLeafSize(50).build().train(data);
        assertTrue(coarse.leafCount() <= 400 / 50, coarse.toString());
        ModelTree fine = unpruned.minLeafSize(2).build().train(data);
        assertTrue(fine.leafCount() > coarse.leafCount(), fine + " vs " + coarse);
        assertThrows(IllegalArgumentException.class, () -> ModelTreeTrainer.builder().minLeafSize(0));
        assertThrows(IllegalArgumentException.class, () -> ModelTreeTrainer.builder().maxDepth(-1));
    }

    @Test
    void trainingIsDeterministic() {
        TrainingData data = piecewiseSamples(5, 1000, 5, 2);
        assertEquals(ModelTreeTrainer.withDefaults().train(data).toJson(),
                ModelTreeTrainer.withDefaults().train(data).toJson());
    }

    @Test
    void collinearAndConstantFeaturesDoNotBreakTheFit() {
        Random random = new Random(6);
        TrainingData.Builder builder = TrainingData.builder("y", List.of("a", "twiceA", "constant", "b"));
        for (int r = 0; r < 300; r++) {
            double a = random.nextDouble() * 10;
            double b = random.nextDouble() * 10;
            builder.add(a < 5 ? a : 20 + b, a, 2 * a, 7, b);
        }
        // Unsmoothed, so the leaves are the plain fits under test.
        ModelTree tree = ModelTreeTrainer.builder().smoothing(false).build().train(builder.build());
        assertEquals(2, tree.predict(new double[] {2, 4, 7, 9}), 0.05);
        assertEquals(23, tree.predict(new double[] {8, 16, 7, 3}), 0.05);
    }

    @Test
    void trainsTenThousandRowsOfTwentyFiveFeaturesInSeconds() {
        Random random = new Random(8);
        List<String> names = new ArrayList<>();
        for (int f = 0; f < 25; f++) {
            names.add("metric" + f);
        }
        TrainingData.Builder builder = TrainingData.builder("latency_us", names);
        for (int r = 0; r < 10_000; r++) {
            double[] x = new double[25];
            for (int f = 0; f < 25; f++) {
                x[f] = random.nextDouble() * 100;
            }
            double y = 100 + 3 * x[0] + (x[1] > 50 ? 2 * x[2] : -x[3]) + x[4] * x[5] / 20 + random.nextGaussian() * 5;
            builder.add(y, x);
        }
        TrainingData data = builder.build();
        ModelTreeTrainer.withDefaults().train(data.selectRows(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)); // warm up
        long start = System.nanoTime();
        ModelTree tree = ModelTreeTrainer.withDefaults().train(data);
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("10000 x 25: trained in %.3f s, %s%n", seconds, tree);
        assertTrue(seconds < 5, seconds + " s");
        assertTrue(heldOutScores(tree, data).correlation() > 0.99);
    }
}
