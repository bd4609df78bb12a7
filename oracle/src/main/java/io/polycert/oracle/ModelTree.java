package io.polycert.oracle;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A trained regression model tree (M5 style): binary splits {@code x[feature] <= threshold} lead to leaves that
 * each hold one linear model {@code intercept + sum(coefficient[i] * x[i])}. Immutable and thread-safe.
 *
 * <p>The tree is kept flattened in primitive arrays so that {@link #predict} walks a few array slots and computes
 * one dot product, with no allocation and no boxing. Every structural property that predict relies on (child
 * indices in range, no cycles, one coefficient per feature) is checked once at construction.
 *
 * <p>JSON form (see {@link #toJson()}), versioned so that the off-line trainer and the runtime can evolve apart:
 * <pre>{@code
 * {"format": "polycert-model-tree", "version": 1, "target": "ab_latency_us", "features": ["x0", "x1"],
 *  "nodes": [{"id": 0, "feature": "x1", "threshold": 5.0, "left": 1, "right": 2},
 *            {"id": 1, "intercept": 3.0, "coefficients": [2.0, 0.0]},
 *            {"id": 2, "intercept": 40.0, "coefficients": [-1.0, 0.0]}]}
 * }</pre>
 * Node 0 is the root; node ids are their positions in {@code nodes}. Version 2 adds an optional
 * {@code "crossValidation": {"correlation": 0.42}}: how well the trainer's cross-validation found the model to
 * forecast (see {@link #crossValidatedCorrelation()}). Version 1 files, without it, still load.
 */
public final class ModelTree {
    static final String FORMAT = "polycert-model-tree";
    static final int VERSION = 2;
    private static final int LEAF = -1;
    private static final String NODE_KINDS =
            " (a split node has id, feature, threshold, left, right; a leaf has id, intercept, coefficients)";

    private final String targetName;
    private final List<String> featureNames;
    private final int featureCount;
    private final int[] splitFeature; // LEAF for leaves
    private final double[] threshold; // x[splitFeature] <= threshold goes left
    private final int[] left;
    private final int[] right;
    private final int[] modelOffset; // leaves: index of the intercept in models, followed by featureCount slopes
    private final double[] models;
    private final int leafCount;
    /** The trainer's cross-validated correlation of forecast and target; NaN if not known. */
    private final double crossValidatedCorrelation;

    /**
     * @param leafModels per node: {@code null} for a split node, else {@code [intercept, slope_0 .. slope_{F-1}]}
     * @throws IllegalArgumentException if the arrays do not describe a well-formed tree rooted at node 0
     */
    ModelTree(String targetName, List<String> featureNames, int[] splitFeature, double[] threshold, int[] left,
            int[] right, double[][] leafModels) {
        this.targetName = targetName;
        this.featureNames = List.copyOf(featureNames);
        this.featureCount = featureNames.size();
        this.crossValidatedCorrelation = Double.NaN;
        this.splitFeature = splitFeature.clone();
        this.threshold = threshold.clone();
        this.left = left.clone();
        this.right = right.clone();
        int nodes = splitFeature.length;
        if (nodes == 0) {
            throw new IllegalArgumentException("a model tree needs at least one node");
        }
        if (threshold.length != nodes || left.length != nodes || right.length != nodes || leafModels.length != nodes) {
            throw new IllegalArgumentException("per-node arrays differ in length");
        }
        if (Set.copyOf(this.featureNames).size() != featureCount) {
            throw new IllegalArgumentException("feature names repeat: " + featureNames);
        }
        this.modelOffset = new int[nodes];
        int leaves = 0;
        for (int n = 0; n < nodes; n++) {
            if (splitFeature[n] == LEAF) {
                checkLeafModel(n, leafModels[n]);
                modelOffset[n] = leaves++ * (featureCount + 1);
            } else {
                checkSplit(n, leafModels[n]);
                modelOffset[n] = -1;
            }
        }
        this.leafCount = leaves;
        this.models = new double[leaves * (featureCount + 1)];
        for (int n = 0; n < nodes; n++) {
            if (splitFeature[n] == LEAF) {
                System.arraycopy(leafModels[n], 0, models, modelOffset[n], featureCount + 1);
            }
        }
        checkIsTree();
    }

    /** The same tree (sharing its immutable arrays) with its cross-validated correlation. */
    private ModelTree(ModelTree tree, double crossValidatedCorrelation) {
        this.targetName = tree.targetName;
        this.featureNames = tree.featureNames;
        this.featureCount = tree.featureCount;
        this.splitFeature = tree.splitFeature;
        this.threshold = tree.threshold;
        this.left = tree.left;
        this.right = tree.right;
        this.modelOffset = tree.modelOffset;
        this.models = tree.models;
        this.leafCount = tree.leafCount;
        this.crossValidatedCorrelation = crossValidatedCorrelation;
    }

    /**
     * This tree, recording how its training's cross-validation scored it.
     *
     * @throws IllegalArgumentException if {@code correlation} is not within [-1, 1]
     */
    ModelTree withCrossValidatedCorrelation(double correlation) {
        if (!(correlation >= -1 && correlation <= 1)) {
            throw new IllegalArgumentException("a correlation lies within [-1, 1], got " + correlation);
        }
        return new ModelTree(this, correlation);
    }

    private void checkLeafModel(int node, double[] model) {
        if (model == null) {
            throw new IllegalArgumentException("node " + node + ": a leaf needs a linear model");
        }
        if (model.length != featureCount + 1) {
            throw new IllegalArgumentException("node " + node + ": expected " + featureCount
                    + " coefficients (one per feature), found " + (model.length - 1));
        }
        for (double c : model) {
            if (!Double.isFinite(c)) {
                throw new IllegalArgumentException("node " + node + ": linear model has a non-finite value " + c);
            }
        }
    }

    private void checkSplit(int node, double[] model) {
        if (model != null) {
            throw new IllegalArgumentException("node " + node + ": a split node cannot also hold a linear model");
        }
        if (splitFeature[node] < 0 || splitFeature[node] >= featureCount) {
            throw new IllegalArgumentException("node " + node + ": split feature index " + splitFeature[node]
                    + " out of range 0.." + (featureCount - 1));
        }
        if (!Double.isFinite(threshold[node])) {
            throw new IllegalArgumentException("node " + node + ": threshold is not finite: " + threshold[node]);
        }
        for (int child : new int[] {left[node], right[node]}) {
            if (child < 0 || child >= splitFeature.length) {
                throw new IllegalArgumentException("node " + node + ": child " + child + " out of range 0.."
                        + (splitFeature.length - 1));
            }
        }
    }

    /** Every node reached exactly once from the root: no cycles (predict terminates), no shared or stray nodes. */
    private void checkIsTree() {
        boolean[] reached = new boolean[splitFeature.length];
        Deque<Integer> pending = new ArrayDeque<>();
        pending.push(0);
        while (!pending.isEmpty()) {
            int node = pending.pop();
            if (reached[node]) {
                throw new IllegalArgumentException("node " + node
                        + " is reached twice from the root (a cycle or a shared subtree)");
            }
            reached[node] = true;
            if (splitFeature[node] != LEAF) {
                pending.push(right[node]);
                pending.push(left[node]);
            }
        }
        for (int n = 0; n < reached.length; n++) {
            if (!reached[n]) {
                throw new IllegalArgumentException("node " + n + " is not reachable from the root (node 0)");
            }
        }
    }

    /**
     * The forecast for one sample.
     *
     * @param features in {@link #featureNames()} order; a NaN takes the right branch of splits on its feature
     * @throws IllegalArgumentException if {@code features} does not have {@link #featureCount()} values
     */
    public double predict(double[] features) {
        if (features.length != featureCount) {
            throw new IllegalArgumentException("expected " + featureCount + " features, got " + features.length);
        }
        int node = 0;
        int feature;
        while ((feature = splitFeature[node]) != LEAF) {
            node = features[feature] <= threshold[node] ? left[node] : right[node];
        }
        int offset = modelOffset[node];
        double y = models[offset];
        for (int i = 0, c = offset + 1; i < featureCount; i++, c++) {
            y += models[c] * features[i];
        }
        return y;
    }

    public List<String> featureNames() {
        return featureNames;
    }

    public int featureCount() {
        return featureCount;
    }

    public String targetName() {
        return targetName;
    }

    public int nodeCount() {
        return splitFeature.length;
    }

    public int leafCount() {
        return leafCount;
    }

    /**
     * The correlation between forecast and measured target that the trainer's cross-validation found (on samples
     * each fold's tree had not seen), or NaN if the file did not say (version 1, or a tree built by hand). Near 0,
     * the tree forecasts no better than a constant, whatever its size.
     */
    public double crossValidatedCorrelation() {
        return crossValidatedCorrelation;
    }

    @Override
    public String toString() {
        return "ModelTree(" + targetName + ", " + splitFeature.length + " nodes, " + leafCount + " leaves, features "
                + featureNames + ")";
    }

    public void save(Path path) throws IOException {
        Files.writeString(path, toJson(), StandardCharsets.UTF_8);
    }

    public static ModelTree load(Path path) throws IOException {
        try {
            return fromJson(Files.readString(path, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(path + ": " + e.getMessage(), e);
        }
    }

    /** The JSON form, one node per line; {@link Double#toString} keeps every number exact through a reload. */
    public String toJson() {
        StringBuilder json = new StringBuilder(256 + splitFeature.length * (64 + 24 * featureCount));
        json.append("{\n  \"format\": ").append(quote(FORMAT)).append(",\n  \"version\": ").append(VERSION)
                .append(",\n  \"target\": ").append(quote(targetName)).append(",\n  \"features\": [");
        for (int f = 0; f < featureCount; f++) {
            json.append(f == 0 ? "" : ", ").append(quote(featureNames.get(f)));
        }
        json.append("],\n");
        if (!Double.isNaN(crossValidatedCorrelation)) {
            json.append("  \"crossValidation\": {\"correlation\": ").append(crossValidatedCorrelation).append("},\n");
        }
        json.append("  \"nodes\": [\n");
        for (int n = 0; n < splitFeature.length; n++) {
            json.append("    {\"id\": ").append(n);
            if (splitFeature[n] == LEAF) {
                json.append(", \"intercept\": ").append(models[modelOffset[n]]).append(", \"coefficients\": [");
                for (int f = 0; f < featureCount; f++) {
                    json.append(f == 0 ? "" : ", ").append(models[modelOffset[n] + 1 + f]);
                }
                json.append("]}");
            } else {
                json.append(", \"feature\": ").append(quote(featureNames.get(splitFeature[n])))
                        .append(", \"threshold\": ").append(threshold[n]).append(", \"left\": ").append(left[n])
                        .append(", \"right\": ").append(right[n]).append('}');
            }
            json.append(n + 1 < splitFeature.length ? ",\n" : "\n");
        }
        return json.append("  ]\n}\n").toString();
    }

    /** @throws IllegalArgumentException if {@code json} is not a well-formed model tree of a known format version */
    public static ModelTree fromJson(String json) {
        Map<String, Object> root = asObject(new JsonReader(json).readDocument(), "the document");
        checkKeys(root, "the document", List.of("format", "version", "target", "features", "nodes"),
                List.of("crossValidation"), "");
        Map<String, Object> crossValidation = root.containsKey("crossValidation")
                ? asObject(root.get("crossValidation"), "crossValidation") : null;
        Object format = root.get("format");
        if (!FORMAT.equals(format)) {
            throw new IllegalArgumentException("unknown format " + describe(format) + ", expected \"" + FORMAT + '"');
        }
        Object version = root.get("version");
        if (!(version instanceof Double v) || (v != 1 && v != VERSION)) {
            throw new IllegalArgumentException("unsupported version " + describe(version) + ", this reader knows 1"
                    + " and " + VERSION);
        }
        if (crossValidation != null && (double) version == 1) {
            throw new IllegalArgumentException("\"crossValidation\" needs version 2; this file says version 1");
        }
        String target = asString(root.get("target"), "target");
        List<String> features = new ArrayList<>();
        Map<String, Integer> featureIndex = new HashMap<>();
        for (Object name : asArray(root.get("features"), "features")) {
            String feature = asString(name, "a feature name");
            if (featureIndex.put(feature, features.size()) != null) {
                throw new IllegalArgumentException("feature '" + feature + "' is listed twice");
            }
            features.add(feature);
        }
        List<Object> nodes = asArray(root.get("nodes"), "nodes");
        int count = nodes.size();
        int[] splitFeature = new int[count];
        double[] threshold = new double[count];
        int[] left = new int[count];
        int[] right = new int[count];
        double[][] leafModels = new double[count][];
        for (int n = 0; n < count; n++) {
            String where = "node " + n;
            Map<String, Object> node = asObject(nodes.get(n), where);
            if (asInt(node.get("id"), where + " id") != n) {
                throw new IllegalArgumentException(where + ": id " + describe(node.get("id"))
                        + " does not match its position " + n + " in nodes");
            }
            if (node.containsKey("feature")) {
                checkKeys(node, where, List.of("id", "feature", "threshold", "left", "right"), NODE_KINDS);
                String feature = asString(node.get("feature"), where + " feature");
                Integer index = featureIndex.get(feature);
                if (index == null) {
                    throw new IllegalArgumentException(where + ": splits on unknown feature '" + feature + "'");
                }
                splitFeature[n] = index;
                threshold[n] = asNumber(node.get("threshold"), where + " threshold");
                left[n] = asInt(node.get("left"), where + " left");
                right[n] = asInt(node.get("right"), where + " right");
            } else {
                checkKeys(node, where, List.of("id", "intercept", "coefficients"), NODE_KINDS);
                List<Object> coefficients = asArray(node.get("coefficients"), where + " coefficients");
                double[] model = new double[coefficients.size() + 1];
                model[0] = asNumber(node.get("intercept"), where + " intercept");
                for (int i = 0; i < coefficients.size(); i++) {
                    model[i + 1] = asNumber(coefficients.get(i), where + " coefficient " + i);
                }
                splitFeature[n] = LEAF;
                left[n] = right[n] = LEAF;
                leafModels[n] = model;
            }
        }
        ModelTree tree = new ModelTree(target, features, splitFeature, threshold, left, right, leafModels);
        if (crossValidation == null) {
            return tree;
        }
        checkKeys(crossValidation, "crossValidation", List.of("correlation"), "");
        return tree.withCrossValidatedCorrelation(asNumber(crossValidation.get("correlation"),
                "crossValidation correlation"));
    }

    // ---- schema checks over the generic JSON values ----

    private static void checkKeys(Map<String, Object> object, String where, List<String> expected, String hint) {
        checkKeys(object, where, expected, List.of(), hint);
    }

    private static void checkKeys(Map<String, Object> object, String where, List<String> expected,
            List<String> optional, String hint) {
        for (String key : expected) {
            if (!object.containsKey(key)) {
                throw new IllegalArgumentException(where + ": missing \"" + key + '"' + hint);
            }
        }
        for (String key : object.keySet()) {
            if (!expected.contains(key) && !optional.contains(key)) {
                throw new IllegalArgumentException(where + ": unexpected key \"" + key + '"' + hint);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asObject(Object value, String what) {
        if (value instanceof Map<?, ?> map) {
            return (Map<String, Object>) map;
        }
        throw new IllegalArgumentException(what + ": expected a JSON object, found " + describe(value));
    }

    @SuppressWarnings("unchecked")
    private static List<Object> asArray(Object value, String what) {
        if (value instanceof List<?> list) {
            return (List<Object>) list;
        }
        throw new IllegalArgumentException(what + ": expected a JSON array, found " + describe(value));
    }

    private static String asString(Object value, String what) {
        if (value instanceof String s && !s.isEmpty()) {
            return s;
        }
        throw new IllegalArgumentException(what + ": expected a non-empty string, found " + describe(value));
    }

    private static double asNumber(Object value, String what) {
        if (value instanceof Double d && Double.isFinite(d)) {
            return d;
        }
        throw new IllegalArgumentException(what + ": expected a finite number, found " + describe(value));
    }

    private static int asInt(Object value, String what) {
        if (value instanceof Double d && d == Math.rint(d) && Math.abs(d) <= Integer.MAX_VALUE) {
            return d.intValue();
        }
        throw new IllegalArgumentException(what + ": expected an integer, found " + describe(value));
    }

    private static String describe(Object value) {
        if (value == null) {
            return "nothing";
        }
        if (value == JsonReader.NULL) {
            return "null";
        }
        if (value instanceof String s) {
            return quote(s);
        }
        if (value instanceof Map) {
            return "an object";
        }
        if (value instanceof List) {
            return "an array";
        }
        if (value instanceof Double d && d == Math.rint(d) && Math.abs(d) < 1e15) {
            return Long.toString(d.longValue());
        }
        return value.toString();
    }

    private static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    /**
     * A strict RFC 8259 reader, just enough for this schema: objects become {@link LinkedHashMap}s, arrays
     * {@link ArrayList}s, numbers {@link Double}s, JSON null {@link #NULL}. Errors name the line and column.
     */
    static final class JsonReader {
        static final Object NULL = new Object() {
            @Override
            public String toString() {
                return "null";
            }
        };
        private static final int MAX_NESTING = 64; // the schema needs 3; bounds recursion on hostile input

        private final String text;
        private int pos;

        JsonReader(String text) {
            this.text = text;
        }

        Object readDocument() {
            Object value = readValue(0);
            skipWhitespace();
            if (pos < text.length()) {
                throw error("unexpected text after the JSON document");
            }
            return value;
        }

        private Object readValue(int depth) {
            if (depth > MAX_NESTING) {
                throw error("nested deeper than " + MAX_NESTING + " levels");
            }
            skipWhitespace();
            if (pos >= text.length()) {
                throw error("unexpected end of input");
            }
            char c = text.charAt(pos);
            switch (c) {
                case '{':
                    return readObject(depth);
                case '[':
                    return readArray(depth);
                case '"':
                    return readString();
                case 't':
                    return readLiteral("true", Boolean.TRUE);
                case 'f':
                    return readLiteral("false", Boolean.FALSE);
                case 'n':
                    return readLiteral("null", NULL);
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        return readNumber();
                    }
                    throw error("unexpected character '" + c + "'");
            }
        }

        private Map<String, Object> readObject(int depth) {
            Map<String, Object> object = new LinkedHashMap<>();
            pos++; // '{'
            skipWhitespace();
            if (peek() == '}') {
                pos++;
                return object;
            }
            while (true) {
                skipWhitespace();
                if (peek() != '"') {
                    throw error("expected a quoted key");
                }
                int keyPos = pos;
                String key = readString();
                expect(':');
                if (object.put(key, readValue(depth + 1)) != null) {
                    pos = keyPos;
                    throw error("duplicate key \"" + key + '"');
                }
                skipWhitespace();
                char c = next();
                if (c == '}') {
                    return object;
                }
                if (c != ',') {
                    pos--;
                    throw error("expected ',' or '}'");
                }
            }
        }

        private List<Object> readArray(int depth) {
            List<Object> array = new ArrayList<>();
            pos++; // '['
            skipWhitespace();
            if (peek() == ']') {
                pos++;
                return array;
            }
            while (true) {
                array.add(readValue(depth + 1));
                skipWhitespace();
                char c = next();
                if (c == ']') {
                    return array;
                }
                if (c != ',') {
                    pos--;
                    throw error("expected ',' or ']'");
                }
            }
        }

        private String readString() {
            StringBuilder out = new StringBuilder();
            pos++; // opening quote
            while (true) {
                char c = next();
                if (c == '"') {
                    return out.toString();
                }
                if (c < 0x20) {
                    pos--;
                    throw error("unescaped control character in a string");
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char escape = next();
                switch (escape) {
                    case '"', '\\', '/' -> out.append(escape);
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'u' -> {
                        if (pos + 4 > text.length()) {
                            throw error("truncated \\u escape");
                        }
                        try {
                            out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                        } catch (NumberFormatException e) {
                            throw error("bad \\u escape");
                        }
                        pos += 4;
                    }
                    default -> {
                        pos--;
                        throw error("bad escape '\\" + escape + "'");
                    }
                }
            }
        }

        private Double readNumber() {
            int start = pos;
            if (peek() == '-') {
                pos++;
            }
            if (peek() == '0') {
                pos++;
            } else if (!digits()) {
                throw error("malformed number");
            }
            if (peek() == '.') {
                pos++;
                if (!digits()) {
                    throw error("malformed number: digits expected after '.'");
                }
            }
            if (peek() == 'e' || peek() == 'E') {
                pos++;
                if (peek() == '+' || peek() == '-') {
                    pos++;
                }
                if (!digits()) {
                    throw error("malformed number: digits expected in the exponent");
                }
            }
            double value = Double.parseDouble(text.substring(start, pos));
            if (!Double.isFinite(value)) {
                pos = start;
                throw error("number out of range");
            }
            return value;
        }

        private boolean digits() {
            int start = pos;
            while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
                pos++;
            }
            return pos > start;
        }

        private Object readLiteral(String literal, Object value) {
            if (!text.startsWith(literal, pos)) {
                throw error("unexpected word");
            }
            pos += literal.length();
            return value;
        }

        private void expect(char expected) {
            skipWhitespace();
            if (next() != expected) {
                pos--;
                throw error("expected '" + expected + "'");
            }
        }

        private char peek() {
            return pos < text.length() ? text.charAt(pos) : '\0';
        }

        private char next() {
            if (pos >= text.length()) {
                throw error("unexpected end of input");
            }
            return text.charAt(pos++);
        }

        private void skipWhitespace() {
            while (pos < text.length()) {
                char c = text.charAt(pos);
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                    return;
                }
                pos++;
            }
        }

        private IllegalArgumentException error(String problem) {
            int line = 1;
            int column = 1;
            for (int i = 0; i < Math.min(pos, text.length()); i++) {
                if (text.charAt(i) == '\n') {
                    line++;
                    column = 1;
                } else {
                    column++;
                }
            }
            return new IllegalArgumentException("malformed JSON at line " + line + ", column " + column + ": "
                    + problem);
        }
    }
}
