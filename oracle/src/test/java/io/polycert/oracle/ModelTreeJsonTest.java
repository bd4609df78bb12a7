package io.polycert.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ModelTreeJsonTest {

    /** A hand-written tree over two features: split on b at 5, then a on the left. */
    private static final String VALID = """
            {"format": "polycert-model-tree", "version": 1, "target": "y", "features": ["a", "b"],
             "nodes": [
               {"id": 0, "feature": "b", "threshold": 5, "left": 1, "right": 4},
               {"id": 1, "feature": "a", "threshold": -1.5e1, "left": 2, "right": 3},
               {"id": 2, "intercept": 1, "coefficients": [0, 0]},
               {"id": 3, "intercept": 2, "coefficients": [0.5, 0]},
               {"id": 4, "intercept": -3, "coefficients": [0, 2]}
             ]}
            """;

    @Test
    void readsAHandWrittenTree() {
        ModelTree tree = ModelTree.fromJson(VALID);
        assertEquals(List.of("a", "b"), tree.featureNames());
        assertEquals(2, tree.featureCount());
        assertEquals("y", tree.targetName());
        assertEquals(5, tree.nodeCount());
        assertEquals(3, tree.leafCount());
        assertEquals(1, tree.predict(new double[] {-20, 5})); // b <= 5 goes left, a <= -15 goes left
        assertEquals(2 + 0.5 * 10, tree.predict(new double[] {10, 0}));
        assertEquals(-3 + 2 * 5.5, tree.predict(new double[] {10, 5.5}));
    }

    @Test
    void aVersionOneFileSaysNothingOfCrossValidation() {
        assertTrue(Double.isNaN(ModelTree.fromJson(VALID).crossValidatedCorrelation()));
    }

    @Test
    void crossValidatedCorrelationRoundTrips() {
        ModelTree tree = ModelTree.fromJson(VALID).withCrossValidatedCorrelation(0.0161);
        ModelTree back = ModelTree.fromJson(tree.toJson());
        assertEquals(0.0161, back.crossValidatedCorrelation());
        assertEquals(tree.toJson(), back.toJson());
        assertEquals(tree.predict(new double[] {10, 5.5}), back.predict(new double[] {10, 5.5}));
    }

    @Test
    void predictRejectsTheWrongNumberOfFeatures() {
        ModelTree tree = ModelTree.fromJson(VALID);
        assertThrows(IllegalArgumentException.class, () -> tree.predict(new double[1]));
        assertThrows(IllegalArgumentException.class, () -> tree.predict(new double[3]));
    }

    @Test
    void trainedTreeRoundTripsThroughAFile(@TempDir Path dir) throws IOException {
        TrainingData data = ModelTreeTrainerTest.piecewiseSamples(11, 1500, 3, 1);
        ModelTree tree = ModelTreeTrainer.builder().pruning(false).build().train(data);
        Path file = dir.resolve("model.json");
        tree.save(file);
        ModelTree loaded = ModelTree.load(file);
        assertEquals(tree.toJson(), loaded.toJson());
        assertEquals(tree.featureNames(), loaded.featureNames());
        assertEquals(tree.nodeCount(), loaded.nodeCount());
        for (int r = 0; r < data.size(); r++) {
            double[] x = data.features(r);
            assertEquals(Double.doubleToLongBits(tree.predict(x)), Double.doubleToLongBits(loaded.predict(x)));
        }
    }

    @Test
    void loadNamesTheFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("broken.json");
        Files.writeString(file, "{");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ModelTree.load(file));
        assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
    }

    @Property(tries = 200)
    void randomTreesRoundTripWithIdenticalPredictions(@ForAll long seed,
            @ForAll @IntRange(min = 0, max = 6) int features, @ForAll @IntRange(min = 0, max = 20) int splits) {
        Random random = new Random(seed);
        ModelTree tree = randomTree(random, features, features == 0 ? 0 : splits);
        ModelTree back = ModelTree.fromJson(tree.toJson());
        assertEquals(tree.toJson(), back.toJson());
        for (int i = 0; i < 50; i++) {
            double[] x = new double[features];
            for (int f = 0; f < features; f++) {
                x[f] = random.nextGaussian() * 100;
            }
            assertEquals(Double.doubleToLongBits(tree.predict(x)), Double.doubleToLongBits(back.predict(x)));
        }
    }

    @Property(tries = 30)
    void treesTrainedOnRandomDataAreValidAndRoundTrip(@ForAll long seed,
            @ForAll @IntRange(min = 1, max = 300) int rows, @ForAll @IntRange(min = 0, max = 5) int features) {
        TrainingData data = TrainingDataTest.random(new Random(seed), rows, features);
        ModelTree tree = ModelTreeTrainer.builder().minLeafSize(1 + Math.floorMod(seed, 5)).build().train(data);
        ModelTree back = ModelTree.fromJson(tree.toJson());
        for (int r = 0; r < rows; r++) {
            double prediction = tree.predict(data.features(r));
            assertTrue(Double.isFinite(prediction), "prediction " + prediction);
            assertEquals(prediction, back.predict(data.features(r)));
        }
    }

    /** A random binary tree in the same preorder layout the trainer writes. */
    private static ModelTree randomTree(Random random, int features, int splits) {
        List<String> names = new ArrayList<>();
        for (int f = 0; f < features; f++) {
            names.add("f\"" + f + "\\ \u00e9\n"); // names that need escaping
        }
        List<int[]> shape = new ArrayList<>(); // {feature, left, right}
        List<Double> thresholds = new ArrayList<>();
        List<double[]> models = new ArrayList<>();
        build(random, features, splits, shape, thresholds, models);
        int n = shape.size();
        int[] feature = new int[n];
        double[] threshold = new double[n];
        int[] left = new int[n];
        int[] right = new int[n];
        for (int i = 0; i < n; i++) {
            feature[i] = shape.get(i)[0];
            left[i] = shape.get(i)[1];
            right[i] = shape.get(i)[2];
            threshold[i] = thresholds.get(i);
        }
        return new ModelTree("target", names, feature, threshold, left, right, models.toArray(double[][]::new));
    }

    private static int build(Random random, int features, int splits, List<int[]> shape, List<Double> thresholds,
            List<double[]> models) {
        int id = shape.size();
        if (splits == 0) {
            double[] model = new double[features + 1];
            for (int i = 0; i < model.length; i++) {
                model[i] = random.nextBoolean() ? 0 : random.nextGaussian() * Math.pow(10, random.nextInt(20) - 10);
            }
            shape.add(new int[] {-1, -1, -1});
            thresholds.add(0.0);
            models.add(model);
            return id;
        }
        int[] node = {random.nextInt(features), 0, 0};
        shape.add(node);
        thresholds.add(random.nextGaussian() * 100);
        models.add(null);
        int leftSplits = random.nextInt(splits);
        node[1] = build(random, features, leftSplits, shape, thresholds, models);
        node[2] = build(random, features, splits - 1 - leftSplits, shape, thresholds, models);
        return id;
    }

    private static final String HEAD = "{\"format\": \"polycert-model-tree\", \"version\": 1, \"target\": \"y\", ";
    private static final String SPLIT_KEYS =
            " (a split node has id, feature, threshold, left, right; a leaf has id, intercept, coefficients)";

    static Stream<Arguments> malformedDocuments() {
        return Stream.of(
                arguments("not JSON", "hello", "malformed JSON at line 1, column 1: unexpected character 'h'"),
                arguments("truncated", "{\"format\": \"polycert-model-tree\", \"version\": 1",
                        "malformed JSON at line 1, column 47: unexpected end of input"),
                arguments("error on a later line", "{\n  \"format\": \"a\",\n  \"b\" 1}",
                        "malformed JSON at line 3, column 7: expected ':'"),
                arguments("trailing text", "{} {}",
                        "malformed JSON at line 1, column 4: unexpected text after the JSON document"),
                arguments("NaN literal", "{\"format\": NaN}",
                        "malformed JSON at line 1, column 12: unexpected character 'N'"),
                arguments("number out of range", "{\"format\": 1e999}",
                        "malformed JSON at line 1, column 12: number out of range"),
                arguments("duplicate key", "{\"format\": 1, \"format\": 2}",
                        "malformed JSON at line 1, column 15: duplicate key \"format\""),
                arguments("bad escape", "{\"format\": \"a\\x\"}",
                        "malformed JSON at line 1, column 15: bad escape '\\x'"),
                arguments("not an object", "[]", "the document: expected a JSON object, found an array"),
                arguments("unknown format",
                        "{\"format\": \"weka\", \"version\": 1, \"target\": \"y\", \"features\": [], \"nodes\": []}",
                        "unknown format \"weka\", expected \"polycert-model-tree\""),
                arguments("unknown version",
                        HEAD.replace("1", "3") + "\"features\": [], \"nodes\": []}",
                        "unsupported version 3, this reader knows 1 and 2"),
                arguments("cross-validation in a version 1 file", HEAD + "\"features\": [], \"nodes\": [],"
                        + " \"crossValidation\": {\"correlation\": 0.5}}",
                        "\"crossValidation\" needs version 2; this file says version 1"),
                arguments("correlation out of range", HEAD.replace("1", "2") + "\"features\": [], \"nodes\": ["
                        + "{\"id\": 0, \"intercept\": 1, \"coefficients\": []}], \"crossValidation\":"
                        + " {\"correlation\": 1.5}}", "a correlation lies within [-1, 1], got 1.5"),
                arguments("unknown cross-validation score", HEAD.replace("1", "2") + "\"features\": [], \"nodes\": ["
                        + "{\"id\": 0, \"intercept\": 1, \"coefficients\": []}], \"crossValidation\":"
                        + " {\"correlation\": 0.5, \"r2\": 0.25}}", "crossValidation: unexpected key \"r2\""),
                arguments("missing key", HEAD + "\"features\": []}", "the document: missing \"nodes\""),
                arguments("unexpected key", HEAD + "\"features\": [], \"nodes\": [], \"x\": 0}",
                        "the document: unexpected key \"x\""),
                arguments("no nodes", HEAD + "\"features\": [], \"nodes\": []}",
                        "a model tree needs at least one node"),
                arguments("repeated feature", HEAD + "\"features\": [\"a\", \"a\"], \"nodes\": []}",
                        "feature 'a' is listed twice"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedDocuments")
    void rejectsMalformedDocuments(String problem, String json, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ModelTree.fromJson(json),
                problem);
        assertEquals(message, e.getMessage(), problem);
    }

    /** Each case edits {@link #VALID}: replaces the first {@code valid} text by {@code broken}. */
    static Stream<Arguments> inconsistentTrees() {
        return Stream.of(
                arguments("child out of range", "\"left\": 1, \"right\": 4", "\"left\": 1, \"right\": 5",
                        "node 0: child 5 out of range 0..4"),
                arguments("negative child", "\"left\": 2, \"right\": 3", "\"left\": -1, \"right\": 3",
                        "node 1: child -1 out of range 0..4"),
                arguments("cycle", "\"left\": 2, \"right\": 3", "\"left\": 2, \"right\": 0",
                        "node 0 is reached twice from the root (a cycle or a shared subtree)"),
                arguments("shared subtree", "\"left\": 2, \"right\": 3", "\"left\": 2, \"right\": 4",
                        "node 4 is reached twice from the root (a cycle or a shared subtree)"),
                arguments("same child twice", "\"left\": 2, \"right\": 3", "\"left\": 2, \"right\": 2",
                        "node 2 is reached twice from the root (a cycle or a shared subtree)"),
                arguments("unreachable node", "[0, 2]}",
                        "[0, 2]}, {\"id\": 5, \"intercept\": 0, \"coefficients\": [0, 0]}",
                        "node 5 is not reachable from the root (node 0)"),
                arguments("too few coefficients", "[0.5, 0]", "[0.5]",
                        "node 3: expected 2 coefficients (one per feature), found 1"),
                arguments("too many coefficients", "[0.5, 0]", "[0.5, 0, 1]",
                        "node 3: expected 2 coefficients (one per feature), found 3"),
                arguments("coefficient not a number", "[0.5, 0]", "[0.5, \"0\"]",
                        "node 3 coefficient 1: expected a finite number, found \"0\""),
                arguments("unknown split feature", "\"feature\": \"a\"", "\"feature\": \"c\"",
                        "node 1: splits on unknown feature 'c'"),
                arguments("id out of order", "{\"id\": 2,", "{\"id\": 7,",
                        "node 2: id 7 does not match its position 2 in nodes"),
                arguments("fractional child", "\"left\": 1,", "\"left\": 1.5,",
                        "node 0 left: expected an integer, found 1.5"),
                arguments("missing threshold", "\"threshold\": 5, ", "",
                        "node 0: missing \"threshold\"" + SPLIT_KEYS),
                arguments("leaf with a split key", "\"intercept\": 1,", "\"intercept\": 1, \"left\": 1,",
                        "node 2: unexpected key \"left\"" + SPLIT_KEYS),
                arguments("null intercept", "\"intercept\": -3", "\"intercept\": null",
                        "node 4 intercept: expected a finite number, found null"),
                arguments("version as a string", "\"version\": 1", "\"version\": \"1\"",
                        "unsupported version \"1\", this reader knows 1 and 2"),
                arguments("empty target", "\"target\": \"y\"", "\"target\": \"\"",
                        "target: expected a non-empty string, found \"\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("inconsistentTrees")
    void rejectsInconsistentTrees(String problem, String valid, String broken, String message) {
        assertTrue(VALID.contains(valid), problem + ": the edit must apply");
        String json = VALID.replaceFirst(Pattern.quote(valid), Matcher.quoteReplacement(broken));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ModelTree.fromJson(json),
                problem);
        assertEquals(message, e.getMessage(), problem);
    }

    @Test
    void constructorChecksTheSameInvariants() {
        List<String> one = List.of("a");
        double[][] twoLeaves = {null, {0, 1}, {0, 2}};
        assertEquals(3, new ModelTree("y", one, new int[] {0, -1, -1}, new double[3], new int[] {1, -1, -1},
                new int[] {2, -1, -1}, twoLeaves).nodeCount());
        assertThrows(IllegalArgumentException.class, () -> new ModelTree("y", one, new int[] {0, -1, -1},
                new double[] {Double.NaN, 0, 0}, new int[] {1, -1, -1}, new int[] {2, -1, -1}, twoLeaves));
        assertThrows(IllegalArgumentException.class, () -> new ModelTree("y", one, new int[] {1, -1, -1},
                new double[3], new int[] {1, -1, -1}, new int[] {2, -1, -1}, twoLeaves));
        assertThrows(IllegalArgumentException.class, () -> new ModelTree("y", one, new int[] {-1},
                new double[1], new int[] {-1}, new int[] {-1}, new double[][] {{Double.POSITIVE_INFINITY, 0}}));
        assertThrows(IllegalArgumentException.class, () -> new ModelTree("y", List.of("a", "a"), new int[] {-1},
                new double[1], new int[] {-1}, new int[] {-1}, new double[][] {{0, 0, 0}}));
    }

    @Test
    void jsonIsReadableAndEscapesNames() {
        ModelTree tree = new ModelTree("lat\"ency", List.of("a\\b"), new int[] {-1}, new double[1], new int[] {-1},
                new int[] {-1}, new double[][] {{1.5, -2e-7}});
        String json = tree.toJson();
        assertTrue(json.contains("\"format\": \"polycert-model-tree\""), json);
        assertTrue(json.contains("\"target\": \"lat\\\"ency\""), json);
        assertTrue(json.contains("\"features\": [\"a\\\\b\"]"), json);
        assertTrue(json.contains("{\"id\": 0, \"intercept\": 1.5, \"coefficients\": [-2.0E-7]}"), json);
        assertEquals(json, ModelTree.fromJson(json).toJson());
    }
}
