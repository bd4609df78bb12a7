package io.polycert.bench.report;

import static io.polycert.bench.report.Runs.params;
import static io.polycert.bench.report.Runs.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportWriterTest {
    private static final List<String> METRICS = List.of("seconds", "committed", "committed_per_s", "read_only",
            "aborts_conflict", "aborts_false_positive", "aborts_other", "abort_rate", "p50_us", "p90_us", "p99_us",
            "bytes_per_tx", "gc_ms", "commit_share");

    @TempDir
    Path dir;

    private static RunResult tricky() {
        return new RunResult("bank \"quoted\"", "ucb,dist", params("mix", "write,\nheavy", "readSet", "100"), 2.5,
                1_000, 250, 30, 20, 10, Double.NaN, 12.25, Double.POSITIVE_INFINITY, 1_500, 500, 7,
                List.of(new RunResult.Second(1, 100, 200, 100, 100), new RunResult.Second(2, 150, 150, 100, 100)));
    }

    @Test
    void csvHasOneColumnPerParameterInFirstSeenOrderAndOneRowPerRun() {
        List<RunResult> runs = List.of(
                run("bank", "NVC", params("readSet", "10", "replicas", "3"), 2, 500, 40),
                run("bank", "BFC", params("mix", "read", "readSet", "100"), 2, 400, 50));
        List<List<String>> rows = parseCsv(ReportWriter.csv(runs));
        List<String> expected = new ArrayList<>(List.of("benchmark", "contender", "readSet", "replicas", "mix"));
        expected.addAll(METRICS);
        assertEquals(expected, rows.get(0));
        assertEquals(3, rows.size());
        Map<String, String> second = row(rows, 2);
        assertEquals("BFC", second.get("contender"));
        assertEquals("100", second.get("readSet"));
        assertEquals("", second.get("replicas"), "a parameter the run lacks is an empty cell");
        assertEquals("read", second.get("mix"));
        assertEquals("800", second.get("committed"));
        assertEquals("400", second.get("committed_per_s"));
        assertEquals("200", second.get("read_only"));
        assertEquals("10", second.get("aborts_conflict"));
        assertEquals("2", second.get("aborts_false_positive"));
        assertEquals("1", second.get("aborts_other"));
        assertEquals(13.0 / (600 + 13), Double.parseDouble(second.get("abort_rate")), 1e-12);
        assertEquals("50", second.get("p50_us"));
        assertEquals("100", second.get("p90_us"));
        assertEquals("250", second.get("p99_us"));
        assertEquals("64", second.get("bytes_per_tx"));
        assertEquals("12", second.get("gc_ms"));
        assertEquals("0.25", second.get("commit_share"));
    }

    @Test
    void csvQuotesPerRfc4180OnlyWhereNeeded() {
        String csv = ReportWriter.csv(List.of(tricky()));
        assertTrue(csv.contains("\"bank \"\"quoted\"\"\",\"ucb,dist\",\"write,\nheavy\",100,"), csv);
        assertTrue(csv.endsWith("\r\n"), "records end with CRLF");
        assertEquals(2, csv.split("\r\n").length, "one header and one record (the LF inside quotes is data)");
        Map<String, String> r = row(parseCsv(csv), 1);
        assertEquals("bank \"quoted\"", r.get("benchmark"));
        assertEquals("ucb,dist", r.get("contender"));
        assertEquals("write,\nheavy", r.get("mix"));
        assertEquals("", r.get("p50_us"), "NaN is an empty cell");
        assertEquals("", r.get("p99_us"), "infinity is an empty cell");
        assertEquals("12.25", r.get("p90_us"));
        assertEquals("2.5", r.get("seconds"));
    }

    @Test
    void parameterClashingWithAFixedColumnIsPrefixed() {
        List<List<String>> rows = parseCsv(ReportWriter.csv(List.of(
                run("bank", "VC", params("seconds", "10"), 1, 5, 1))));
        assertTrue(rows.get(0).contains("param_seconds"), rows.get(0).toString());
        assertEquals("10", row(rows, 1).get("param_seconds"));
        assertEquals("1", row(rows, 1).get("seconds"));
    }

    @Test
    void numbersIgnoreTheDefaultLocaleAndNeverUseExponents() {
        Locale saved = Locale.getDefault();
        try {
            Locale.setDefault(Locale.GERMANY);
            RunResult big = new RunResult("b", "c", Map.of(), 0.5, 12_345_678, 0, 0, 0, 0, 1234.5, 1e-7, 3e9, 0, 0,
                    0, List.of());
            Map<String, String> r = row(parseCsv(ReportWriter.csv(List.of(big))), 1);
            assertEquals("24691356", r.get("committed_per_s"));
            assertEquals("1234.5", r.get("p50_us"));
            assertEquals("0.0000001", r.get("p90_us"));
            assertEquals("3000000000", r.get("p99_us"));
            String json = ReportWriter.json(List.of(big));
            assertTrue(json.contains("\"p50Micros\": 1234.5,"), json);
            assertTrue(json.contains("\"p99Micros\": 3000000000,"), json);
        } finally {
            Locale.setDefault(saved);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonParsesAndHoldsEveryFieldAndTheTimeline() {
        List<RunResult> runs = List.of(tricky(), run("stmbench7", "VC", params("mix", "read"), 3, 40, 9.5));
        Object parsed = MiniJson.parse(ReportWriter.json(runs));
        List<Object> array = (List<Object>) parsed;
        assertEquals(2, array.size());
        Map<String, Object> first = (Map<String, Object>) array.get(0);
        assertEquals(List.of("benchmark", "contender", "parameters", "seconds", "committed", "committedPerSecond",
                "committedReadOnly", "abortsConflict", "abortsFalsePositive", "abortsOther", "abortRate", "p50Micros",
                "p90Micros", "p99Micros", "bytesBroadcast", "broadcastTransactions", "bytesPerTransaction",
                "gcMillis", "commitShare", "kinds", "timeline"), new ArrayList<>(first.keySet()));
        assertEquals("bank \"quoted\"", first.get("benchmark"));
        assertEquals("ucb,dist", first.get("contender"));
        assertEquals(Map.of("mix", "write,\nheavy", "readSet", "100"), first.get("parameters"));
        assertEquals(2.5, first.get("seconds"));
        assertEquals(1000.0, first.get("committed"));
        assertEquals(400.0, first.get("committedPerSecond"));
        assertEquals(60.0 / 810, (Double) first.get("abortRate"), 1e-12);
        assertTrue(first.containsKey("p50Micros"));
        assertNull(first.get("p50Micros"), "NaN is null");
        assertNull(first.get("p99Micros"), "infinity is null");
        assertNull(first.get("commitShare"), "not measured is null");
        assertEquals(3.0, first.get("bytesPerTransaction"));
        List<Object> timeline = (List<Object>) first.get("timeline");
        assertEquals(2, timeline.size());
        assertEquals(Map.of("atSeconds", 2.0, "readOnly", 150.0, "nvc", 150.0, "bfc", 100.0, "vc", 100.0,
                "total", 500.0), timeline.get(1));
        Map<String, Object> second = (Map<String, Object>) array.get(1);
        assertEquals(3, ((List<Object>) second.get("timeline")).size());
        assertEquals(Map.of("mix", "read"), second.get("parameters"));
        assertEquals(0.25, second.get("commitShare"));
        assertEquals(List.of(Map.of("name", "transfer", "count", 120.0, "meanMicros", 9.5)), second.get("kinds"));
        assertEquals(List.of(), first.get("kinds"));
    }

    @Test
    void jsonEscapesStringsSoTheyReadBackExactly() {
        String nasty = "q\" b\\ s/ nl\n cr\r tab\t bs\b ff\f nul\u0000 us\u001f del\u007f ls\u2028 ps\u2029"
                + " é 😀 lone\ud800 end";
        RunResult r = new RunResult("b", nasty, params(nasty, nasty), 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, List.of());
        String json = ReportWriter.json(List.of(r));
        for (char c : json.toCharArray()) {
            assertFalse(c < 0x20 && c != '\n', "raw control character " + (int) c + " in " + json);
        }
        assertFalse(json.contains("\u2028") || json.contains("\ud800"), json);
        assertTrue(json.contains("😀"), "paired surrogates stay as they are");
        @SuppressWarnings("unchecked")
        Map<String, Object> o = (Map<String, Object>) ((List<?>) MiniJson.parse(json)).get(0);
        assertEquals(nasty, o.get("contender"));
        assertEquals(Map.of(nasty, nasty), o.get("parameters"));
        assertEquals("\"a\\\"b\\\\c\\n\\u0001\"", ReportWriter.jsonString("a\"b\\c\n\u0001"));
        assertEquals("null", ReportWriter.jsonString(null));
    }

    @Test
    void anyTableIsWrittenAsCsvAndJson() throws Exception {
        List<Path> files = ReportWriter.writeTable(dir, "table", List.of("keys", "contender", "rate", "note"),
                List.of(List.of(1000, "TOM_3", 0.25, "a,b"), java.util.Arrays.asList(5L, "TWO_PC", Double.NaN,
                        null)));
        assertEquals(List.of("keys,contender,rate,note", "1000,TOM_3,0.25,\"a,b\"", "5,TWO_PC,,"),
                Files.readAllLines(files.get(0), StandardCharsets.UTF_8));
        List<?> rows = (List<?>) MiniJson.parse(Files.readString(files.get(1), StandardCharsets.UTF_8));
        assertEquals(2, rows.size());
        Map<?, ?> second = (Map<?, ?>) rows.get(1);
        assertEquals("TWO_PC", second.get("contender"));
        assertNull(second.get("rate"), "NaN is null in JSON");
        assertTrue(second.containsKey("note"));
        assertThrows(IllegalArgumentException.class, () -> ReportWriter.writeTable(dir, "bad", List.of("a", "b"),
                List.of(List.of(1))));
        assertThrows(IllegalArgumentException.class, () -> ReportWriter.writeTable(dir, "bad", List.of("a"),
                List.of(List.of(new Object()))));
        assertThrows(IllegalArgumentException.class, () -> ReportWriter.writeTable(dir, "../up", List.of("a"),
                List.of()));
    }

    @Test
    void emptyListGivesHeaderOnlyAndEmptyArray() {
        assertEquals(String.join(",", List.of("benchmark", "contender")) + "," + String.join(",", METRICS) + "\r\n",
                ReportWriter.csv(List.of()));
        assertEquals(List.of(), MiniJson.parse(ReportWriter.json(List.of())));
    }

    @Test
    void writeCreatesBothFilesInTheDirectory() throws Exception {
        Path target = dir.resolve("nested/out");
        List<RunResult> runs = Runs.readSetSweep();
        List<Path> written = ReportWriter.write(runs, target, "fig2");
        assertEquals(List.of(target.resolve("fig2.csv"), target.resolve("fig2.json")), written);
        assertEquals(ReportWriter.csv(runs), Files.readString(written.get(0), StandardCharsets.UTF_8));
        assertEquals(ReportWriter.json(runs), Files.readString(written.get(1), StandardCharsets.UTF_8));
        assertEquals(runs.size() + 1, parseCsv(Files.readString(written.get(0))).size());
        assertEquals(runs.size(), ((List<?>) MiniJson.parse(Files.readString(written.get(1)))).size());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ReportWriter.write(runs, target, "../escape"));
        assertTrue(e.getMessage().contains("../escape"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ReportWriter.write(runs, target, " "));
    }

    /** Header names to the cells of record {@code index} (1 = first record). */
    private static Map<String, String> row(List<List<String>> rows, int index) {
        List<String> header = rows.get(0);
        List<String> cells = rows.get(index);
        assertEquals(header.size(), cells.size(), "record " + index + " has as many cells as the header");
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < header.size(); i++) {
            m.put(header.get(i), cells.get(i));
        }
        return m;
    }

    /** A strict RFC 4180 reader: CRLF record ends, quotes only around whole fields, "" for a quote inside. */
    static List<List<String>> parseCsv(String text) {
        List<List<String>> rows = new ArrayList<>();
        List<String> row = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '"' && field.length() == 0) {
                i++;
                while (true) {
                    if (i >= text.length()) {
                        throw new IllegalStateException("unterminated quoted field");
                    }
                    char q = text.charAt(i++);
                    if (q == '"') {
                        if (i < text.length() && text.charAt(i) == '"') {
                            field.append('"');
                            i++;
                        } else {
                            break;
                        }
                    } else {
                        field.append(q);
                    }
                }
                if (i < text.length() && text.charAt(i) != ',' && text.charAt(i) != '\r') {
                    throw new IllegalStateException("text after a closing quote at " + i);
                }
            } else if (c == ',') {
                row.add(field.toString());
                field.setLength(0);
                i++;
            } else if (c == '\r') {
                if (i + 1 >= text.length() || text.charAt(i + 1) != '\n') {
                    throw new IllegalStateException("CR without LF at " + i);
                }
                row.add(field.toString());
                field.setLength(0);
                rows.add(row);
                row = new ArrayList<>();
                i += 2;
            } else if (c == '"' || c == '\n') {
                throw new IllegalStateException("unquoted " + (c == '"' ? "quote" : "LF") + " at " + i);
            } else {
                field.append(c);
                i++;
            }
        }
        if (field.length() > 0 || !row.isEmpty()) {
            throw new IllegalStateException("last record lacks its CRLF");
        }
        return rows;
    }
}
