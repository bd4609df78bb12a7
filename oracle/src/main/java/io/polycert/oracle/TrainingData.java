package io.polycert.oracle;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;

/**
 * An immutable table of numeric samples for the model-tree oracle: one target (what is forecast, e.g. the
 * atomic-broadcast self-delivery latency in microseconds) and a fixed list of named features per row.
 *
 * <p>CSV form, as written by the on-line sample collector: a header line whose first column names the target and
 * whose other columns name the features, then one comma-separated row of plain numbers per sample. Blank lines and
 * lines starting with {@code #} are ignored. Names and numbers are not quoted.
 */
public final class TrainingData {
    private final String targetName;
    private final List<String> featureNames;
    // Row-major; never exposed, so sharing between derived instances is safe.
    private final double[][] rows;
    private final double[] targets;

    /**
     * @param features one array per row, each {@code featureNames.size()} long; copied
     * @param targets  one target per row; copied
     */
    public TrainingData(String targetName, List<String> featureNames, double[][] features, double[] targets) {
        this(targetName, List.copyOf(featureNames), deepCopy(features), targets.clone(), true);
    }

    private TrainingData(String targetName, List<String> featureNames, double[][] rows, double[] targets,
            boolean validate) {
        this.targetName = targetName;
        this.featureNames = featureNames;
        this.rows = rows;
        this.targets = targets;
        if (validate) {
            validate();
        }
    }

    public static Builder builder(String targetName, List<String> featureNames) {
        return new Builder(targetName, featureNames);
    }

    public String targetName() {
        return targetName;
    }

    public List<String> featureNames() {
        return featureNames;
    }

    public int featureCount() {
        return featureNames.size();
    }

    public int size() {
        return rows.length;
    }

    /** A copy of the features of {@code row}, in {@link #featureNames()} order. */
    public double[] features(int row) {
        return rows[row].clone();
    }

    public double target(int row) {
        return targets[row];
    }

    /** Shared, not copied: for trainers in this package, which must not modify it. */
    double[][] rowsView() {
        return rows;
    }

    double[] targetsView() {
        return targets;
    }

    /** The same rows with only the given feature columns, in the given order. */
    public TrainingData selectFeatures(int... featureIndices) {
        List<String> names = new ArrayList<>(featureIndices.length);
        for (int f : featureIndices) {
            if (f < 0 || f >= featureNames.size()) {
                throw new IllegalArgumentException("feature index " + f + " out of range 0.."
                        + (featureNames.size() - 1));
            }
            names.add(featureNames.get(f));
        }
        if (new HashSet<>(names).size() != names.size()) {
            throw new IllegalArgumentException("feature indices repeat: " + Arrays.toString(featureIndices));
        }
        double[][] selected = new double[rows.length][];
        for (int r = 0; r < rows.length; r++) {
            double[] row = new double[featureIndices.length];
            for (int i = 0; i < featureIndices.length; i++) {
                row[i] = rows[r][featureIndices[i]];
            }
            selected[r] = row;
        }
        return new TrainingData(targetName, List.copyOf(names), selected, targets, false);
    }

    /** The same rows with only the named feature columns, in the given order. */
    public TrainingData selectFeatures(List<String> names) {
        int[] indices = new int[names.size()];
        for (int i = 0; i < indices.length; i++) {
            indices[i] = featureNames.indexOf(names.get(i));
            if (indices[i] < 0) {
                throw new IllegalArgumentException("no feature named '" + names.get(i) + "' in " + featureNames);
            }
        }
        return selectFeatures(indices);
    }

    /** The given rows (repeats allowed), in the given order. */
    public TrainingData selectRows(int... rowIndices) {
        double[][] selected = new double[rowIndices.length][];
        double[] selectedTargets = new double[rowIndices.length];
        for (int i = 0; i < rowIndices.length; i++) {
            selected[i] = rows[rowIndices[i]];
            selectedTargets[i] = targets[rowIndices[i]];
        }
        return new TrainingData(targetName, featureNames, selected, selectedTargets, false);
    }

    /** One train/test pair of a k-fold split. */
    public record Fold(TrainingData train, TrainingData test) {
    }

    /**
     * Splits the rows into {@code k} folds after a shuffle seeded by {@code seed} (the same seed gives the same
     * folds on every JVM); fold i tests on its rows and trains on all the others. Fold sizes differ by at most one.
     */
    public List<Fold> folds(int k, long seed) {
        if (k < 2 || k > rows.length) {
            throw new IllegalArgumentException("need 2 <= folds <= rows (" + rows.length + "), got " + k);
        }
        int[] order = shuffledRowOrder(seed);
        List<Fold> folds = new ArrayList<>(k);
        for (int i = 0; i < k; i++) {
            int from = (int) ((long) i * rows.length / k);
            int to = (int) ((long) (i + 1) * rows.length / k);
            int[] test = Arrays.copyOfRange(order, from, to);
            int[] train = new int[rows.length - test.length];
            System.arraycopy(order, 0, train, 0, from);
            System.arraycopy(order, to, train, from, rows.length - to);
            folds.add(new Fold(selectRows(train), selectRows(test)));
        }
        return folds;
    }

    private int[] shuffledRowOrder(long seed) {
        int[] order = new int[rows.length];
        Arrays.setAll(order, i -> i);
        Random random = new Random(seed); // specified algorithm: identical folds everywhere
        for (int i = order.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int swap = order[i];
            order[i] = order[j];
            order[j] = swap;
        }
        return order;
    }

    public static TrainingData readCsv(Path path) throws IOException {
        try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            return readCsv(reader);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(path + ": " + e.getMessage(), e);
        }
    }

    /** @throws IllegalArgumentException naming the line and the problem, on any malformed input */
    public static TrainingData readCsv(Reader reader) throws IOException {
        BufferedReader lines = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
        List<String> header = null;
        List<double[]> rows = new ArrayList<>();
        List<Double> targets = new ArrayList<>();
        int lineNumber = 0;
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            lineNumber++;
            if (lineNumber == 1 && line.startsWith("\uFEFF")) {
                line = line.substring(1); // a byte-order mark some spreadsheet exports add
            }
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            String[] cells = trimmed.split(",", -1);
            if (header == null) {
                header = parseHeader(cells, lineNumber);
                continue;
            }
            if (cells.length != header.size()) {
                throw new IllegalArgumentException("line " + lineNumber + ": expected " + header.size()
                        + " comma-separated values, found " + cells.length);
            }
            targets.add(parseNumber(cells[0], header.get(0), lineNumber));
            double[] row = new double[cells.length - 1];
            for (int i = 1; i < cells.length; i++) {
                row[i - 1] = parseNumber(cells[i], header.get(i), lineNumber);
            }
            rows.add(row);
        }
        if (header == null) {
            throw new IllegalArgumentException("line " + (lineNumber + 1) + ": no header line (empty input)");
        }
        double[] targetArray = targets.stream().mapToDouble(Double::doubleValue).toArray();
        return new TrainingData(header.get(0), List.copyOf(header.subList(1, header.size())),
                rows.toArray(double[][]::new), targetArray, true);
    }

    private static List<String> parseHeader(String[] cells, int lineNumber) {
        if (cells.length < 2) {
            throw new IllegalArgumentException("line " + lineNumber
                    + ": header needs the target column followed by at least one feature column");
        }
        List<String> names = new ArrayList<>(cells.length);
        for (String cell : cells) {
            String name = cell.strip();
            if (name.isEmpty()) {
                throw new IllegalArgumentException("line " + lineNumber + ": empty column name in header");
            }
            if (names.contains(name)) {
                throw new IllegalArgumentException("line " + lineNumber + ": column '" + name + "' appears twice");
            }
            names.add(name);
        }
        return names;
    }

    private static double parseNumber(String cell, String column, int lineNumber) {
        String text = cell.strip();
        double value;
        try {
            value = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("line " + lineNumber + ": column '" + column + "': '" + text
                    + "' is not a number");
        }
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("line " + lineNumber + ": column '" + column + "': '" + text
                    + "' is not a finite number");
        }
        return value;
    }

    public void writeCsv(Path path) throws IOException {
        try (Writer writer = Files.newBufferedWriter(path, StandardCharsets.UTF_8)) {
            writeCsv(writer);
        }
    }

    /** Writes the CSV form; {@link Double#toString} keeps every value exact through a read back. */
    public void writeCsv(Writer writer) throws IOException {
        BufferedWriter out = writer instanceof BufferedWriter b ? b : new BufferedWriter(writer);
        out.write(targetName);
        for (String name : featureNames) {
            out.write(',');
            out.write(name);
        }
        out.write('\n');
        StringBuilder line = new StringBuilder();
        for (int r = 0; r < rows.length; r++) {
            line.setLength(0);
            line.append(targets[r]);
            for (double v : rows[r]) {
                line.append(',').append(v);
            }
            out.write(line.append('\n').toString());
        }
        out.flush();
    }

    @Override
    public String toString() {
        return "TrainingData(" + rows.length + " rows, target " + targetName + ", features " + featureNames + ")";
    }

    private void validate() {
        List<String> all = new ArrayList<>(featureNames.size() + 1);
        all.add(targetName);
        all.addAll(featureNames);
        for (String name : all) {
            // The CSV form has no quoting, so names must survive an unquoted write and a stripped read.
            if (name.isEmpty() || !name.equals(name.strip()) || name.contains(",") || name.contains("\n")
                    || name.contains("\r")) {
                throw new IllegalArgumentException("unusable column name '" + name
                        + "': must be non-empty, without surrounding spaces, commas or line breaks");
            }
        }
        if (targetName.startsWith("#")) {
            throw new IllegalArgumentException("target name must not start with '#' (a CSV comment): " + targetName);
        }
        if (new HashSet<>(all).size() != all.size()) {
            throw new IllegalArgumentException("column names repeat: " + all);
        }
        if (rows.length != targets.length) {
            throw new IllegalArgumentException(rows.length + " feature rows but " + targets.length + " targets");
        }
        for (int r = 0; r < rows.length; r++) {
            if (rows[r].length != featureNames.size()) {
                throw new IllegalArgumentException("row " + r + " has " + rows[r].length + " features, expected "
                        + featureNames.size());
            }
            if (!Double.isFinite(targets[r])) {
                throw new IllegalArgumentException("row " + r + ": target is not finite: " + targets[r]);
            }
            for (int f = 0; f < rows[r].length; f++) {
                if (!Double.isFinite(rows[r][f])) {
                    throw new IllegalArgumentException("row " + r + ": feature '" + featureNames.get(f)
                            + "' is not finite: " + rows[r][f]);
                }
            }
        }
    }

    private static double[][] deepCopy(double[][] rows) {
        double[][] copy = new double[rows.length][];
        for (int r = 0; r < rows.length; r++) {
            copy[r] = rows[r].clone();
        }
        return copy;
    }

    /** Accumulates rows in memory; not thread-safe. */
    public static final class Builder {
        private final String targetName;
        private final List<String> featureNames;
        private final List<double[]> rows = new ArrayList<>();
        private double[] targets = new double[16];

        private Builder(String targetName, List<String> featureNames) {
            this.targetName = targetName;
            this.featureNames = List.copyOf(featureNames);
        }

        /** Adds one sample; {@code features} in the builder's feature order, copied. */
        public Builder add(double target, double... features) {
            if (features.length != featureNames.size()) {
                throw new IllegalArgumentException("expected " + featureNames.size() + " features, got "
                        + features.length);
            }
            if (rows.size() == targets.length) {
                targets = Arrays.copyOf(targets, targets.length * 2);
            }
            targets[rows.size()] = target;
            rows.add(features.clone());
            return this;
        }

        public TrainingData build() {
            return new TrainingData(targetName, featureNames, rows.toArray(double[][]::new),
                    Arrays.copyOf(targets, rows.size()), true);
        }
    }
}
