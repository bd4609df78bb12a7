package io.polycert.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class ModelEvaluationTest {

    @Test
    void scoresAreTheTextbookFormulas() {
        double[] targets = {1, 2, 3, 6}; // mean 3, sum |mean - y| = 2 + 1 + 0 + 3 = 6
        ModelEvaluation.Scores perfect = ModelEvaluation.score(targets.clone(), targets);
        assertEquals(1, perfect.correlation(), 1e-12);
        assertEquals(0, perfect.relativeAbsoluteError());

        ModelEvaluation.Scores mean = ModelEvaluation.score(new double[] {3, 3, 3, 3}, targets);
        assertEquals(1, mean.relativeAbsoluteError(), 1e-12);
        assertEquals(0, mean.correlation(), "a constant forecast has no correlation");

        ModelEvaluation.Scores some = ModelEvaluation.score(new double[] {2, 2, 4, 5}, targets);
        assertEquals((1 + 0 + 1 + 1) / 6.0, some.relativeAbsoluteError(), 1e-12);
        assertEquals(3 / 4.0, some.meanAbsoluteError(), 1e-12);
        // Pearson by hand: dp = {-1.25, -1.25, 0.75, 1.75}, dt = {-2, -1, 0, 3}
        double covariance = 2.5 + 1.25 + 0 + 5.25;
        double expected = covariance / Math.sqrt((1.5625 * 2 + 0.5625 + 3.0625) * (4 + 1 + 0 + 9));
        assertEquals(expected, some.correlation(), 1e-12);

        ModelEvaluation.Scores reversed = ModelEvaluation.score(new double[] {6, 3, 2, 1}, targets);
        assertTrue(reversed.correlation() < -0.8, reversed.toString());
        assertTrue(reversed.relativeAbsoluteError() > 1, reversed.toString());
    }

    @Property(tries = 100)
    void scoresAreInvariantUnderShiftAndScaleOfBoth(@ForAll @Size(min = 3, max = 20) List<@DoubleRange(min = -1e3,
            max = 1e3) Double> values, @ForAll @DoubleRange(min = 0.01, max = 100) double scale,
            @ForAll @DoubleRange(min = -1e4, max = 1e4) double shift) {
        double[] targets = values.stream().mapToDouble(Double::doubleValue).toArray();
        double[] predictions = new double[targets.length];
        for (int i = 0; i < targets.length; i++) {
            predictions[i] = targets[(i + 1) % targets.length] * 0.5 + targets[i] * 0.5;
        }
        ModelEvaluation.Scores plain = ModelEvaluation.score(predictions, targets);
        double[] scaledPredictions = new double[targets.length];
        double[] scaledTargets = new double[targets.length];
        for (int i = 0; i < targets.length; i++) {
            scaledPredictions[i] = predictions[i] * scale + shift;
            scaledTargets[i] = targets[i] * scale + shift;
        }
        ModelEvaluation.Scores scaled = ModelEvaluation.score(scaledPredictions, scaledTargets);
        if (Double.isFinite(plain.relativeAbsoluteError()) && plain.relativeAbsoluteError() < 1e6) {
            assertEquals(plain.relativeAbsoluteError(), scaled.relativeAbsoluteError(),
                    1e-6 * (1 + plain.relativeAbsoluteError()));
            assertEquals(plain.correlation(), scaled.correlation(), 1e-6);
        }
        assertTrue(Math.abs(plain.correlation()) <= 1 + 1e-12);
    }

    @Test
    void crossValidationOfTheKnownFunctionIsAccurateAndDeterministic() {
        TrainingData data = ModelTreeTrainerTest.piecewiseSamples(21, 1000, 2, 0.5);
        ModelEvaluation evaluation = new ModelEvaluation(ModelTreeTrainer.withDefaults());
        ModelEvaluation.Scores scores = evaluation.crossValidate(data);
        System.out.println("piecewise, 10-fold cross-validation: " + scores);
        assertTrue(scores.relativeAbsoluteError() < 0.1, scores.toString());
        assertTrue(scores.correlation() > 0.98, scores.toString());
        assertEquals(scores, evaluation.crossValidate(data), "same seed, same folds, same scores");

        ModelEvaluation.Scores constant = evaluation.crossValidate(data.selectFeatures());
        assertTrue(constant.relativeAbsoluteError() > 0.95, "a constant model is no better than the mean");
    }

    @Test
    void tinyDataSetsFallBackToLeaveOneOut() {
        TrainingData data = TrainingData.builder("y", List.of("x")).add(1, 1).add(2, 2).add(3, 3).build();
        ModelEvaluation.Scores scores = new ModelEvaluation(ModelTreeTrainer.withDefaults(), 10, 1).crossValidate(data);
        assertTrue(Double.isFinite(scores.relativeAbsoluteError()), scores.toString());
        assertThrows(IllegalArgumentException.class,
                () -> new ModelEvaluation(ModelTreeTrainer.withDefaults()).crossValidate(data.selectRows(0)));
        assertThrows(IllegalArgumentException.class, () -> new ModelEvaluation(ModelTreeTrainer.withDefaults(), 1, 1));
    }

    @Test
    void forwardSelectionKeepsTheRelevantFeaturesAndDropsNoise() {
        TrainingData data = ModelTreeTrainerTest.piecewiseSamples(22, 2000, 5, 0.5);
        long start = System.nanoTime();
        ModelEvaluation.Selection selection = new ModelEvaluation(ModelTreeTrainer.withDefaults())
                .forwardSelection(data);
        System.out.printf("forward selection in %.2f s: %s%n", (System.nanoTime() - start) / 1e9, selection);
        assertEquals(List.of("x0", "x1", "x2"), selection.features().stream().sorted().toList());
        assertTrue(selection.selected().relativeAbsoluteError() < 0.05, selection.toString());
        assertTrue(selection.selected().relativeAbsoluteError()
                <= selection.allFeatures().relativeAbsoluteError() + 0.005, selection.toString());
        assertTrue(selection.selected().correlation() > 0.99, selection.toString());
    }

    @Test
    void forwardSelectionKeepsNothingWhenNothingHelps() {
        java.util.Random random = new java.util.Random(23);
        TrainingData.Builder builder = TrainingData.builder("y", List.of("a", "b"));
        for (int r = 0; r < 300; r++) {
            builder.add(random.nextGaussian(), random.nextDouble(), random.nextDouble());
        }
        ModelEvaluation.Selection selection = new ModelEvaluation(ModelTreeTrainer.withDefaults())
                .forwardSelection(builder.build());
        assertEquals(List.of(), selection.features(), selection.toString());
    }

    @Test
    void requiredFeaturesStayEvenWhenTheyDoNotHelp() {
        java.util.Random random = new java.util.Random(29);
        TrainingData.Builder builder = TrainingData.builder("y", List.of("a", "b"));
        for (int r = 0; r < 300; r++) {
            builder.add(random.nextGaussian(), random.nextDouble(), random.nextDouble());
        }
        ModelEvaluation evaluation = new ModelEvaluation(ModelTreeTrainer.withDefaults());
        ModelEvaluation.Selection selection = evaluation.forwardSelection(builder.build(),
                ModelEvaluation.DEFAULT_MIN_IMPROVEMENT, List.of("b"));
        assertEquals(List.of("b"), selection.features(), selection.toString());
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> evaluation.forwardSelection(builder.build(), 0.001, List.of("c")));
        assertTrue(e.getMessage().contains("'c'"), e.getMessage());
    }
}
