package io.polycert.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TrainModelTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return TrainModel.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private Path samples(int rows, int noiseColumns) throws IOException {
        Path csv = dir.resolve("samples.csv");
        ModelTreeTrainerTest.piecewiseSamples(31, rows, noiseColumns, 0.5).writeCsv(csv);
        return csv;
    }

    @Test
    void trainsSelectsAndSavesALoadableModel() throws IOException {
        Path csv = samples(1000, 3);
        Path model = dir.resolve("model.json");
        int exit = run("--data", csv.toString(), "--out", model.toString(), "--folds", "5");
        String stdout = out.toString(StandardCharsets.UTF_8);
        System.out.print(stdout);
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
        assertTrue(stdout.contains("all 6 features, 5-fold cross-validation: correlation 0.9"), stdout);
        assertTrue(stdout.contains("forward selection kept 3 of 6 features"), stdout);
        assertTrue(stdout.contains("selected features, 5-fold cross-validation: correlation 0.9"), stdout);

        ModelTree tree = ModelTree.load(model);
        assertEquals(List.of("x0", "x1", "x2"), tree.featureNames().stream().sorted().toList());
        assertEquals("y", tree.targetName());
        double[] x = new double[3];
        int x0 = tree.featureNames().indexOf("x0");
        int x1 = tree.featureNames().indexOf("x1");
        int x2 = tree.featureNames().indexOf("x2");
        x[x0] = 6;
        x[x1] = 2;
        x[x2] = 1;
        assertEquals(2 * 6 + 3, tree.predict(x), 0.5);
        assertTrue(tree.crossValidatedCorrelation() > 0.9, "the selected features' score travels with the model");
        assertFalse(stdout.contains("warning"), stdout);
    }

    @Test
    void aModelOfNoiseIsSavedWithItsScoreAndAWarning() throws IOException {
        TrainingData.Builder data = TrainingData.builder("y", List.of("a", "b"));
        Random random = new Random(5);
        for (int i = 0; i < 600; i++) {
            data.add(random.nextGaussian(), random.nextGaussian(), random.nextGaussian());
        }
        Path csv = dir.resolve("noise.csv");
        data.build().writeCsv(csv);
        Path model = dir.resolve("model.json");
        assertEquals(0, run("--no-selection", "--data", csv.toString(), "--out", model.toString()));
        String stdout = out.toString(StandardCharsets.UTF_8);
        double correlation = ModelTree.load(model).crossValidatedCorrelation();
        assertTrue(correlation < CostModelOracle.DEFAULT_MIN_MODEL_CORRELATION, "correlation " + correlation);
        assertTrue(stdout.contains("warning: its cross-validated correlation"), stdout);
        assertTrue(CostModelOracle.builder().model(ModelTree.load(model)).build().toString().contains("not used"));
    }

    @Test
    void noSelectionKeepsEveryFeature() throws IOException {
        Path csv = samples(300, 2);
        Path model = dir.resolve("model.json");
        assertEquals(0, run("--no-selection", "--min-leaf", "8", "--data", csv.toString(), "--out", model.toString()));
        String stdout = out.toString(StandardCharsets.UTF_8);
        assertTrue(stdout.contains("all 5 features, 10-fold cross-validation"), stdout);
        assertFalse(stdout.contains("forward selection"), stdout);
        assertTrue(stdout.contains("minLeaf=8"), stdout);
        assertEquals(List.of("x0", "x1", "x2", "noise0", "noise1"), ModelTree.load(model).featureNames());
    }

    @Test
    void keptFeaturesSurviveSelection() throws IOException {
        Path csv = samples(300, 2);
        Path model = dir.resolve("model.json");
        assertEquals(0, run("--keep", "noise1", "--data", csv.toString(), "--out", model.toString()));
        assertTrue(ModelTree.load(model).featureNames().contains("noise1"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "--data d.csv", "--out m.json", "--data d.csv --out m.json --folds 1",
            "--data d.csv --out m.json --folds ten", "--data d.csv --out m.json --min-leaf 0",
            "--data d.csv --out m.json --verbose", "--data --out m.json", "--data d.csv --out"})
    void badArgumentsPrintUsageAndExitTwo(String args) {
        String[] split = args.isEmpty() ? new String[0] : args.split(" ");
        assertEquals(2, run(split));
        String stderr = err.toString(StandardCharsets.UTF_8);
        assertTrue(stderr.contains(TrainModel.USAGE), stderr);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void unreadableDataExitsOneNamingTheProblem() throws IOException {
        Path missing = dir.resolve("missing.csv");
        assertEquals(1, run("--data", missing.toString(), "--out", dir.resolve("m.json").toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("missing.csv"));

        Path broken = dir.resolve("broken.csv");
        Files.writeString(broken, "y,a\n1,2\n3,x\n");
        err.reset();
        assertEquals(1, run("--data", broken.toString(), "--out", dir.resolve("m.json").toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("line 3"), err.toString(StandardCharsets.UTF_8));
        assertFalse(Files.exists(dir.resolve("m.json")));
    }
}
