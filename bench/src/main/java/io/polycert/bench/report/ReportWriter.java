package io.polycert.bench.report;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Writes benchmark results as a table ({@code <name>.csv}, one row per run) and in full ({@code <name>.json}, an
 * array with one object per run, per-second timeline included).
 *
 * <p>The CSV follows RFC 4180: comma-separated, CRLF line ends, a header row, and a field quoted (with inner quotes
 * doubled) only when it holds a comma, a quote or a line break. Every parameter of any run becomes a column of its
 * own, in first-seen order; a run without that parameter leaves the cell empty. The JSON is written by hand, UTF-8,
 * pretty-printed. Numbers in both are locale-independent ({@code 1234.5}, never {@code 1 234,5}) and never in
 * exponent notation; a value that is not a finite number is written as an empty cell (CSV) or {@code null} (JSON).
 */
public final class ReportWriter {
    /** The fixed CSV columns after {@code benchmark}, {@code contender} and the parameters. */
    static final List<String> METRIC_COLUMNS = List.of("seconds", "committed", "committed_per_s", "read_only",
            "aborts_conflict", "aborts_false_positive", "aborts_other", "abort_rate", "p50_us", "p90_us", "p99_us",
            "bytes_per_tx", "gc_ms", "commit_share");
    private static final String CRLF = "\r\n";

    private ReportWriter() {
    }

    /**
     * Writes {@code directory/<name>.csv} and {@code directory/<name>.json}, creating the directory if needed and
     * replacing files of those names.
     *
     * @param results the runs, in the order they should appear
     * @param directory where to write
     * @param name the file name without extension, e.g. {@code fig2-bank}; no path separators
     * @return the two files written: the CSV, then the JSON
     * @throws IllegalArgumentException if the name is empty or holds a path separator
     */
    public static List<Path> write(List<RunResult> results, Path directory, String name) throws IOException {
        Objects.requireNonNull(results, "results");
        Objects.requireNonNull(directory, "directory");
        checkName(name);
        Files.createDirectories(directory);
        Path csvFile = directory.resolve(name + ".csv");
        Path jsonFile = directory.resolve(name + ".json");
        Files.writeString(csvFile, csv(results), StandardCharsets.UTF_8);
        Files.writeString(jsonFile, json(results), StandardCharsets.UTF_8);
        return List.of(csvFile, jsonFile);
    }

    /**
     * Writes a table of any benchmark as {@code <name>.csv} (a header row, then the rows) and {@code <name>.json}
     * (an array of objects keyed by column): for benchmarks whose rows are not {@link RunResult}s (the partial
     * replication ones). Cells are numbers (NaN and infinities become empty / null), strings, or null.
     *
     * @return the two files written: the CSV, then the JSON
     * @throws IllegalArgumentException if a row's length differs from the columns', or a cell is of another type
     */
    public static List<Path> writeTable(Path directory, String name, List<String> columns, List<List<Object>> rows)
            throws IOException {
        StringBuilder csv = new StringBuilder();
        appendRow(csv, columns);
        StringBuilder json = new StringBuilder("[");
        for (int r = 0; r < rows.size(); r++) {
            List<Object> row = rows.get(r);
            if (row.size() != columns.size()) {
                throw new IllegalArgumentException("row " + r + " has " + row.size() + " cells for "
                        + columns.size() + " columns");
            }
            List<String> cells = new java.util.ArrayList<>();
            json.append(r == 0 ? "\n  {" : ",\n  {");
            for (int c = 0; c < columns.size(); c++) {
                Object v = row.get(c);
                String jsonValue;
                if (v == null) {
                    cells.add(null);
                    jsonValue = "null";
                } else if (v instanceof Number n) {
                    double d = n.doubleValue();
                    boolean integral = v instanceof Long || v instanceof Integer || v instanceof Short
                            || v instanceof Byte;
                    cells.add(integral ? Long.toString(n.longValue()) : csvNumber(d));
                    jsonValue = integral ? Long.toString(n.longValue()) : jsonNumber(d);
                } else if (v instanceof String || v instanceof Enum<?>) {
                    cells.add(v.toString());
                    jsonValue = jsonString(v.toString());
                } else {
                    throw new IllegalArgumentException("cell (" + r + ", " + columns.get(c) + ") is a "
                            + v.getClass().getName() + "; only numbers, strings and enums are written");
                }
                json.append(c == 0 ? "" : ", ").append(jsonString(columns.get(c))).append(": ").append(jsonValue);
            }
            json.append('}');
            appendRow(csv, cells);
        }
        json.append(rows.isEmpty() ? "]\n" : "\n]\n");
        checkName(name);
        Files.createDirectories(directory);
        Path csvFile = directory.resolve(name + ".csv");
        Path jsonFile = directory.resolve(name + ".json");
        Files.writeString(csvFile, csv.toString(), StandardCharsets.UTF_8);
        Files.writeString(jsonFile, json.toString(), StandardCharsets.UTF_8);
        return List.of(csvFile, jsonFile);
    }

    private static void checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank() || name.contains("/") || name.contains("\\") || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("report name must be a plain file name without extension, not '"
                    + name + "'");
        }
    }

    /** The CSV text: a header row, then one row per run. */
    public static String csv(List<RunResult> results) {
        Objects.requireNonNull(results, "results");
        List<String> parameters = parameterNames(results);
        StringBuilder out = new StringBuilder();
        List<String> header = new ArrayList<>();
        header.add("benchmark");
        header.add("contender");
        for (String p : parameters) {
            header.add(parameterColumn(p));
        }
        header.addAll(METRIC_COLUMNS);
        appendRow(out, header);
        for (RunResult r : results) {
            List<String> row = new ArrayList<>();
            row.add(r.benchmark());
            row.add(r.contender());
            for (String p : parameters) {
                row.add(r.parameters().get(p));
            }
            row.add(csvNumber(r.seconds()));
            row.add(Long.toString(r.committed()));
            row.add(csvNumber(r.committedPerSecond()));
            row.add(Long.toString(r.committedReadOnly()));
            row.add(Long.toString(r.abortsConflict()));
            row.add(Long.toString(r.abortsFalsePositive()));
            row.add(Long.toString(r.abortsOther()));
            row.add(csvNumber(r.abortRate()));
            row.add(csvNumber(r.p50Micros()));
            row.add(csvNumber(r.p90Micros()));
            row.add(csvNumber(r.p99Micros()));
            row.add(csvNumber(r.bytesPerTransaction()));
            row.add(Long.toString(r.gcMillis()));
            row.add(csvNumber(r.commitShare()));
            appendRow(out, row);
        }
        return out.toString();
    }

    /** The JSON text: an array with one object per run, every field of {@link RunResult} and its derived values. */
    public static String json(List<RunResult> results) {
        Objects.requireNonNull(results, "results");
        StringBuilder out = new StringBuilder();
        if (results.isEmpty()) {
            return "[]\n";
        }
        out.append("[\n");
        for (int i = 0; i < results.size(); i++) {
            appendRun(out, results.get(i));
            out.append(i + 1 < results.size() ? ",\n" : "\n");
        }
        out.append("]\n");
        return out.toString();
    }

    private static void appendRun(StringBuilder out, RunResult r) {
        out.append("  {\n");
        field(out, "benchmark", jsonString(r.benchmark()));
        field(out, "contender", jsonString(r.contender()));
        out.append("    \"parameters\": {");
        boolean first = true;
        for (Map.Entry<String, String> e : r.parameters().entrySet()) {
            out.append(first ? "" : ", ").append(jsonString(e.getKey())).append(": ").append(jsonString(e.getValue()));
            first = false;
        }
        out.append("},\n");
        field(out, "seconds", jsonNumber(r.seconds()));
        field(out, "committed", Long.toString(r.committed()));
        field(out, "committedPerSecond", jsonNumber(r.committedPerSecond()));
        field(out, "committedReadOnly", Long.toString(r.committedReadOnly()));
        field(out, "abortsConflict", Long.toString(r.abortsConflict()));
        field(out, "abortsFalsePositive", Long.toString(r.abortsFalsePositive()));
        field(out, "abortsOther", Long.toString(r.abortsOther()));
        field(out, "abortRate", jsonNumber(r.abortRate()));
        field(out, "p50Micros", jsonNumber(r.p50Micros()));
        field(out, "p90Micros", jsonNumber(r.p90Micros()));
        field(out, "p99Micros", jsonNumber(r.p99Micros()));
        field(out, "bytesBroadcast", Long.toString(r.bytesBroadcast()));
        field(out, "broadcastTransactions", Long.toString(r.broadcastTransactions()));
        field(out, "bytesPerTransaction", jsonNumber(r.bytesPerTransaction()));
        field(out, "gcMillis", Long.toString(r.gcMillis()));
        field(out, "commitShare", jsonNumber(r.commitShare()));
        out.append("    \"kinds\": [");
        for (int i = 0; i < r.kinds().size(); i++) {
            RunResult.Kind k = r.kinds().get(i);
            out.append(i == 0 ? "" : ", ").append("{\"name\": ").append(jsonString(k.name())).append(", \"count\": ")
                    .append(k.count()).append(", \"meanMicros\": ").append(jsonNumber(k.meanMicros())).append('}');
        }
        out.append("],\n");
        out.append("    \"timeline\": [");
        List<RunResult.Second> timeline = r.timeline();
        for (int i = 0; i < timeline.size(); i++) {
            RunResult.Second s = timeline.get(i);
            out.append(i == 0 ? "\n" : ",\n");
            out.append("      {\"atSeconds\": ").append(jsonNumber(s.atSeconds()))
                    .append(", \"readOnly\": ").append(s.readOnly())
                    .append(", \"nvc\": ").append(s.nvc())
                    .append(", \"bfc\": ").append(s.bfc())
                    .append(", \"vc\": ").append(s.vc())
                    .append(", \"total\": ").append(s.total()).append('}');
        }
        out.append(timeline.isEmpty() ? "]\n" : "\n    ]\n");
        out.append("  }");
    }

    private static void field(StringBuilder out, String key, String value) {
        out.append("    \"").append(key).append("\": ").append(value).append(",\n");
    }

    /** Parameter names over all runs, in first-seen order. */
    static List<String> parameterNames(List<RunResult> results) {
        Set<String> names = new LinkedHashSet<>();
        for (RunResult r : results) {
            names.addAll(r.parameters().keySet());
        }
        return new ArrayList<>(names);
    }

    /** A parameter's column name: its own, unless that clashes with a fixed column. */
    static String parameterColumn(String parameter) {
        boolean clash = parameter.equals("benchmark") || parameter.equals("contender")
                || METRIC_COLUMNS.contains(parameter);
        return clash ? "param_" + parameter : parameter;
    }

    private static void appendRow(StringBuilder out, List<String> fields) {
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            out.append(csvField(fields.get(i)));
        }
        out.append(CRLF);
    }

    /** One CSV field, quoted per RFC 4180 if it holds a comma, a double quote, CR or LF; {@code null} is empty. */
    static String csvField(String value) {
        if (value == null) {
            return "";
        }
        boolean quote = false;
        for (int i = 0; i < value.length() && !quote; i++) {
            char c = value.charAt(i);
            quote = c == ',' || c == '"' || c == '\r' || c == '\n';
        }
        return quote ? '"' + value.replace("\"", "\"\"") + '"' : value;
    }

    private static String csvNumber(double value) {
        return Double.isFinite(value) ? plain(value) : "";
    }

    private static String jsonNumber(double value) {
        return Double.isFinite(value) ? plain(value) : "null";
    }

    /** The shortest decimal that reads back as {@code value}, without exponent; locale-independent. */
    static String plain(double value) {
        if (value == 0) {
            return "0";
        }
        return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }

    /**
     * A JSON string literal: quotes, backslashes and control characters escaped, and so are U+2028/U+2029 (which
     * JavaScript does not allow raw in strings) and unpaired surrogates (which UTF-8 cannot encode); {@code null}
     * gives {@code null}.
     */
    static String jsonString(String value) {
        if (value == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder(value.length() + 2);
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"':
                    out.append("\\\"");
                    break;
                case '\\':
                    out.append("\\\\");
                    break;
                case '\b':
                    out.append("\\b");
                    break;
                case '\f':
                    out.append("\\f");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                default:
                    if (c < 0x20 || c == '\u2028' || c == '\u2029' || c == 0x7f) {
                        unicodeEscape(out, c);
                    } else if (Character.isHighSurrogate(c) && i + 1 < value.length()
                            && Character.isLowSurrogate(value.charAt(i + 1))) {
                        out.append(c).append(value.charAt(++i));
                    } else if (Character.isSurrogate(c)) {
                        unicodeEscape(out, c);
                    } else {
                        out.append(c);
                    }
            }
        }
        return out.append('"').toString();
    }

    private static void unicodeEscape(StringBuilder out, char c) {
        out.append("\\u");
        String hex = Integer.toHexString(c);
        for (int k = hex.length(); k < 4; k++) {
            out.append('0');
        }
        out.append(hex);
    }
}
