package io.polycert.oracle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TrainingDataTest {

    private static TrainingData parse(String csv) throws IOException {
        return TrainingData.readCsv(new StringReader(csv));
    }

    @Test
    void readsTargetFirstThenFeaturesSkippingBlankAndCommentLines() throws IOException {
        TrainingData data = parse("""
                # collected by node 1
                ab_latency_us, free_memory ,undelivered

                120.5,1e9,3
                # a pause
                98,2.5E8,-0
                """);
        assertEquals("ab_latency_us", data.targetName());
        assertEquals(List.of("free_memory", "undelivered"), data.featureNames());
        assertEquals(2, data.size());
        assertEquals(120.5, data.target(0));
        assertArrayEquals(new double[] {1e9, 3}, data.features(0));
        assertEquals(98, data.target(1));
        assertArrayEquals(new double[] {2.5e8, -0.0}, data.features(1));
    }

    static Stream<Arguments> malformedCsv() {
        return Stream.of(
                arguments("wrong column count", "y,a,b\n1,2,3\n\n4,5",
                        "line 4: expected 3 comma-separated values, found 2"),
                arguments("not a number", "# c\ny,a\n1,2\n3,fast", "line 4: column 'a': 'fast' is not a number"),
                arguments("empty cell", "y,a\n1,", "line 2: column 'a': '' is not a number"),
                arguments("NaN", "y,a\nNaN,1", "line 2: column 'y': 'NaN' is not a finite number"),
                arguments("infinite", "y,a\n1,-Infinity", "line 2: column 'a': '-Infinity' is not a finite number"),
                arguments("empty file", "", "line 1: no header line (empty input)"),
                arguments("only comments", "# nothing\n\n", "line 3: no header line (empty input)"),
                arguments("no feature column", "y\n1",
                        "line 1: header needs the target column followed by at least one feature column"),
                arguments("repeated column", "y,a,a\n1,2,3", "line 1: column 'a' appears twice"),
                arguments("empty column name", "y,,a\n1,2,3", "line 1: empty column name in header"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedCsv")
    void rejectsMalformedCsvNamingTheLine(String problem, String csv, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse(csv), problem);
        assertEquals(message, e.getMessage());
    }

    @Test
    void skipsAByteOrderMark() throws IOException {
        assertEquals("y", parse("\uFEFFy,a\n1,2\n").targetName());
    }

    @Test
    void fileErrorsNameTheFileToo(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("samples.csv");
        Files.writeString(file, "y,a\n1,2\n1,2,3\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TrainingData.readCsv(file));
        assertEquals(file + ": line 3: expected 2 comma-separated values, found 3", e.getMessage());
    }

    @Property(tries = 100)
    void csvRoundTripKeepsEveryValueExactly(@ForAll long seed, @ForAll @IntRange(min = 0, max = 30) int rows,
            @ForAll @IntRange(min = 1, max = 6) int features) throws IOException {
        TrainingData data = random(new Random(seed), rows, features);
        StringWriter csv = new StringWriter();
        data.writeCsv(csv);
        TrainingData back = parse(csv.toString());
        assertEquals(data.targetName(), back.targetName());
        assertEquals(data.featureNames(), back.featureNames());
        assertEquals(data.size(), back.size());
        for (int r = 0; r < rows; r++) {
            assertEquals(data.target(r), back.target(r));
            assertArrayEquals(data.features(r), back.features(r));
        }
    }

    @Test
    void fileRoundTrip(@TempDir Path dir) throws IOException {
        TrainingData data = random(new Random(7), 50, 4);
        Path file = dir.resolve("samples.csv");
        data.writeCsv(file);
        TrainingData back = TrainingData.readCsv(file);
        assertEquals(data.toString(), back.toString());
        assertArrayEquals(data.features(49), back.features(49));
    }

    @Test
    void selectsFeaturesByIndexAndName() {
        TrainingData data = TrainingData.builder("y", List.of("a", "b", "c"))
                .add(1, 10, 20, 30)
                .add(2, 11, 21, 31)
                .build();
        TrainingData ca = data.selectFeatures(2, 0);
        assertEquals(List.of("c", "a"), ca.featureNames());
        assertArrayEquals(new double[] {31, 11}, ca.features(1));
        assertEquals(2, ca.target(1));
        assertEquals(ca.featureNames(), data.selectFeatures(List.of("c", "a")).featureNames());
        assertEquals(0, data.selectFeatures().featureCount());
        assertThrows(IllegalArgumentException.class, () -> data.selectFeatures(3));
        assertThrows(IllegalArgumentException.class, () -> data.selectFeatures(1, 1));
        assertThrows(IllegalArgumentException.class, () -> data.selectFeatures(List.of("d")));
    }

    @Test
    void constructorCopiesAndValidates() {
        double[][] rows = {{1, 2}};
        double[] targets = {3};
        TrainingData data = new TrainingData("y", List.of("a", "b"), rows, targets);
        rows[0][0] = 99;
        targets[0] = 99;
        assertArrayEquals(new double[] {1, 2}, data.features(0));
        assertEquals(3, data.target(0));
        assertThrows(IllegalArgumentException.class,
                () -> new TrainingData("y", List.of("a"), new double[][] {{1, 2}}, new double[] {1}));
        assertThrows(IllegalArgumentException.class,
                () -> new TrainingData("y", List.of("a"), new double[][] {{1}}, new double[] {1, 2}));
        assertThrows(IllegalArgumentException.class,
                () -> new TrainingData("y", List.of("a"), new double[][] {{Double.NaN}}, new double[] {1}));
        assertThrows(IllegalArgumentException.class,
                () -> new TrainingData("y", List.of("a,b"), new double[][] {{1}}, new double[] {1}));
        assertThrows(IllegalArgumentException.class,
                () -> new TrainingData("y", List.of("y"), new double[][] {{1}}, new double[] {1}));
        assertThrows(IllegalArgumentException.class, () -> TrainingData.builder("y", List.of("a")).add(1, 2, 3));
    }

    @Property(tries = 50)
    void foldsPartitionTheRowsEvenlyAndDeterministically(@ForAll @IntRange(min = 2, max = 60) int rows,
            @ForAll @IntRange(min = 2, max = 12) int k, @ForAll long seed) {
        if (k > rows) {
            assertThrows(IllegalArgumentException.class, () -> indexData(rows).folds(k, seed));
            return;
        }
        TrainingData data = indexData(rows);
        List<TrainingData.Fold> folds = data.folds(k, seed);
        assertEquals(k, folds.size());
        List<Double> tested = new ArrayList<>();
        for (TrainingData.Fold fold : folds) {
            int size = fold.test().size();
            assertTrue(size == rows / k || size == rows / k + 1, "fold size " + size);
            assertEquals(rows, size + fold.train().size());
            for (int r = 0; r < size; r++) {
                tested.add(fold.test().target(r));
            }
            List<Double> train = new ArrayList<>();
            for (int r = 0; r < fold.train().size(); r++) {
                train.add(fold.train().target(r));
            }
            for (int r = 0; r < size; r++) {
                assertTrue(!train.contains(fold.test().target(r)), "a row both trains and tests");
            }
        }
        double[] sorted = tested.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double[] expected = new double[rows];
        Arrays.setAll(expected, i -> i);
        assertArrayEquals(expected, sorted, "every row tested exactly once");
        assertEquals(firstTestTargets(folds), firstTestTargets(data.folds(k, seed)));
    }

    @Test
    void differentSeedsShuffleDifferently() {
        TrainingData data = indexData(100);
        assertNotEquals(firstTestTargets(data.folds(10, 1)), firstTestTargets(data.folds(10, 2)));
    }

    private static List<Double> firstTestTargets(List<TrainingData.Fold> folds) {
        TrainingData test = folds.get(0).test();
        List<Double> targets = new ArrayList<>();
        for (int r = 0; r < test.size(); r++) {
            targets.add(test.target(r));
        }
        return targets;
    }

    /** Targets 0..rows-1, so a row is known by its target. */
    private static TrainingData indexData(int rows) {
        TrainingData.Builder builder = TrainingData.builder("row", List.of("x"));
        for (int r = 0; r < rows; r++) {
            builder.add(r, r * 2.0);
        }
        return builder.build();
    }

    static TrainingData random(Random random, int rows, int features) {
        List<String> names = new ArrayList<>();
        for (int f = 0; f < features; f++) {
            names.add("metric_" + f);
        }
        TrainingData.Builder builder = TrainingData.builder("latency", names);
        for (int r = 0; r < rows; r++) {
            double[] x = new double[features];
            for (int f = 0; f < features; f++) {
                x[f] = switch (random.nextInt(4)) {
                    case 0 -> random.nextGaussian() * 1e-300;
                    case 1 -> random.nextInt(1000);
                    case 2 -> random.nextGaussian() * 1e12;
                    default -> random.nextDouble();
                };
            }
            builder.add(random.nextGaussian() * 1000, x);
        }
        return builder.build();
    }
}
