package io.polycert.bench.faults;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A list-append history: every client operation (one transaction attempt) with what it appended, what it read
 * and how it ended, plus the lists each surviving member read at the end.
 *
 * <h2>File format (version 1)</h2>
 *
 * Text, UTF-8, one record per line, fields separated by one space. Each client thread of each member process
 * writes a file of its own, {@code la-m<MEMBER>-p<PID>-t<THREAD>.hist}, and writes every record with one
 * {@code write(2)} as it happens, so the file survives the process being killed (a torn last line is ignored):
 *
 * <pre>
 * H 1 MEMBER PID THREAD            header (format version 1)
 * I OP NANOS APPENDS               invoked: the appends it will make, in order, "KEY:VALUE,KEY:VALUE" or "-"
 * OK OP NANOS READS                committed: what it read, "KEY=V.V.V;KEY=;..." (lists in order) or "-"
 * FAIL OP NANOS CAUSE              aborted, with TransactionAbortedException.abortCause()
 * INFO OP NANOS TEXT...            ended with another exception: outcome unknown
 * </pre>
 *
 * An operation with an {@code I} record and no completion has an unknown outcome (its member died, was killed,
 * or the run ended while it waited). NANOS is the member's {@code System.nanoTime()}: comparable within one
 * process only. Values are globally unique ({@link ListAppendWorkload#value}).
 *
 * <p>The final read of one member, {@code final-m<MEMBER>-p<PID>.txt}:
 *
 * <pre>
 * F 1 MEMBER PID NANOS
 * KEY=V.V.V                         one line per non-empty key
 * END DIGEST                        present once the read is complete
 * </pre>
 */
public final class History {

    /** How an operation ended, as its client saw it. */
    public enum Outcome {
        COMMITTED,
        ABORTED,
        /** No reply: the member died or was killed, or the operation failed with something other than an abort. */
        UNKNOWN
    }

    /** One append: {@code value} to the end of the list at {@code key}. */
    public record Append(long key, long value) {
    }

    /**
     * One operation.
     *
     * @param id unique in the history
     * @param member the member index it ran at
     * @param process the member process (pid) it ran in
     * @param thread the client thread
     * @param invokeNanos when it started (member clock)
     * @param completeNanos when it ended, or -1 if it did not
     * @param cause the abort cause, or the text of an INFO record, or null
     * @param appends what it appended, in order
     * @param reads what it read, per key (empty unless committed)
     */
    public record Op(long id, int member, long process, int thread, long invokeNanos, long completeNanos,
            Outcome outcome, String cause, List<Append> appends, Map<Long, long[]> reads) {
        public Op {
            Objects.requireNonNull(outcome, "outcome");
            appends = List.copyOf(appends);
            reads = Collections.unmodifiableMap(new LinkedHashMap<>(reads));
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("op ").append(id).append(" (r").append(member).append(" pid ")
                    .append(process).append(" t").append(thread).append(' ').append(outcome);
            if (cause != null) {
                sb.append(' ').append(cause);
            }
            sb.append(':');
            for (Append a : appends) {
                sb.append(" append ").append(a.key()).append(':').append(a.value());
            }
            for (Map.Entry<Long, long[]> r : reads.entrySet()) {
                sb.append(" read ").append(r.getKey()).append('=').append(abbreviate(r.getValue()));
            }
            return sb.append(')').toString();
        }
    }

    /** What one surviving member read of every key at the end, after healing. */
    public record FinalRead(int member, long process, Map<Long, long[]> lists, long digest) {
        public FinalRead {
            lists = Collections.unmodifiableMap(new TreeMap<>(lists));
        }

        /** The list at {@code key}, empty if it has none. */
        public long[] list(long key) {
            long[] l = lists.get(key);
            return l == null ? new long[0] : l;
        }
    }

    private final List<Op> ops;
    private final List<FinalRead> finals;

    public History(List<Op> ops, List<FinalRead> finals) {
        this.ops = List.copyOf(ops);
        this.finals = List.copyOf(finals);
    }

    public List<Op> ops() {
        return ops;
    }

    public List<FinalRead> finals() {
        return finals;
    }

    /** The largest key any operation appended to or read. */
    public long maxKey() {
        long max = -1;
        for (Op op : ops) {
            for (Append a : op.appends()) {
                max = Math.max(max, a.key());
            }
            for (Long k : op.reads().keySet()) {
                max = Math.max(max, k);
            }
        }
        return max;
    }

    // ---- encoding -------------------------------------------------------------------------------------------

    static String encodeAppends(List<Append> appends) {
        if (appends.isEmpty()) {
            return "-";
        }
        StringBuilder sb = new StringBuilder();
        for (Append a : appends) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(a.key()).append(':').append(a.value());
        }
        return sb.toString();
    }

    static List<Append> decodeAppends(String s) {
        if (s.equals("-")) {
            return List.of();
        }
        List<Append> out = new ArrayList<>();
        for (String part : s.split(",")) {
            int colon = part.indexOf(':');
            out.add(new Append(Long.parseLong(part.substring(0, colon)), Long.parseLong(part.substring(colon + 1))));
        }
        return out;
    }

    static String encodeReads(Map<Long, long[]> reads) {
        if (reads.isEmpty()) {
            return "-";
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Long, long[]> e : reads.entrySet()) {
            if (sb.length() > 0) {
                sb.append(';');
            }
            sb.append(e.getKey()).append('=');
            appendList(sb, e.getValue());
        }
        return sb.toString();
    }

    static void appendList(StringBuilder sb, long[] list) {
        for (int i = 0; i < list.length; i++) {
            if (i > 0) {
                sb.append('.');
            }
            sb.append(list[i]);
        }
    }

    static long[] decodeList(String s) {
        if (s.isEmpty()) {
            return new long[0];
        }
        String[] parts = s.split("\\.");
        long[] out = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            out[i] = Long.parseLong(parts[i]);
        }
        return out;
    }

    static Map<Long, long[]> decodeReads(String s) {
        Map<Long, long[]> out = new LinkedHashMap<>();
        if (s.equals("-")) {
            return out;
        }
        for (String part : s.split(";")) {
            int eq = part.indexOf('=');
            out.put(Long.parseLong(part.substring(0, eq)), decodeList(part.substring(eq + 1)));
        }
        return out;
    }

    /** A list for messages: its length and its last few values. */
    static String abbreviate(long[] list) {
        StringBuilder sb = new StringBuilder("[");
        int from = Math.max(0, list.length - 4);
        if (from > 0) {
            sb.append("(").append(from).append(" more) ");
        }
        for (int i = from; i < list.length; i++) {
            sb.append(i > from ? " " : "").append(list[i]);
        }
        return sb.append(']').toString();
    }

    // ---- reading a directory -----------------------------------------------------------------------------

    /** Reads every history file and final read in {@code dir}. */
    public static History read(Path dir) {
        List<Op> ops = new ArrayList<>();
        List<FinalRead> finals = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
        for (Path f : files) {
            String name = f.getFileName().toString();
            if (name.endsWith(".hist")) {
                ops.addAll(readOps(f));
            } else if (name.startsWith("final-") && name.endsWith(".txt")) {
                FinalRead fr = readFinal(f);
                if (fr != null) {
                    finals.add(fr);
                }
            }
        }
        return new History(ops, finals);
    }

    /** The lines of {@code file} that end with a newline (a torn last line is left out). */
    static List<String> completeLines(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        int end = text.lastIndexOf('\n');
        if (end < 0) {
            return List.of();
        }
        return Arrays.asList(text.substring(0, end).split("\n", -1));
    }

    /** The operations of one history file. */
    public static List<Op> readOps(Path file) {
        List<String> lines = completeLines(file);
        if (lines.isEmpty()) {
            return List.of();
        }
        String[] h = lines.get(0).split(" ");
        if (h.length != 5 || !h[0].equals("H") || !h[1].equals("1")) {
            throw new IllegalArgumentException(file + " is not a version 1 list-append history: '" + lines.get(0)
                    + "'");
        }
        int member = Integer.parseInt(h[2]);
        long pid = Long.parseLong(h[3]);
        int thread = Integer.parseInt(h[4]);
        Map<Long, long[]> noReads = Map.of();
        Map<Long, Object[]> open = new LinkedHashMap<>(); // id -> {invokeNanos, appends}
        Map<Long, Op> done = new HashMap<>();
        List<Long> order = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split(" ", 4);
            try {
                long id = Long.parseLong(f[1]);
                long nanos = Long.parseLong(f[2]);
                switch (f[0]) {
                    case "I":
                        open.put(id, new Object[] {nanos, decodeAppends(f[3])});
                        order.add(id);
                        break;
                    case "OK":
                    case "FAIL":
                    case "INFO": {
                        Object[] inv = open.remove(id);
                        if (inv == null) {
                            throw new IllegalArgumentException("completion of an operation never invoked");
                        }
                        @SuppressWarnings("unchecked")
                        List<Append> appends = (List<Append>) inv[1];
                        Outcome outcome = f[0].equals("OK") ? Outcome.COMMITTED
                                : f[0].equals("FAIL") ? Outcome.ABORTED : Outcome.UNKNOWN;
                        String cause = f[0].equals("OK") ? null : (f.length > 3 ? f[3] : "");
                        Map<Long, long[]> reads = f[0].equals("OK") ? decodeReads(f.length > 3 ? f[3] : "-")
                                : noReads;
                        done.put(id, new Op(id, member, pid, thread, (Long) inv[0], nanos, outcome, cause, appends,
                                reads));
                        break;
                    }
                    default:
                        throw new IllegalArgumentException("unknown record type");
                }
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(file + " line " + (i + 1) + " '" + line + "': " + e.getMessage(),
                        e);
            }
        }
        List<Op> ops = new ArrayList<>();
        for (Long id : order) {
            Op op = done.get(id);
            if (op == null) {
                Object[] inv = open.get(id);
                @SuppressWarnings("unchecked")
                List<Append> appends = (List<Append>) inv[1];
                op = new Op(id, member, pid, thread, (Long) inv[0], -1, Outcome.UNKNOWN, null, appends, noReads);
            }
            ops.add(op);
        }
        return ops;
    }

    /** One member's final read, or null if the file is incomplete (no END line). */
    public static FinalRead readFinal(Path file) {
        List<String> lines = completeLines(file);
        if (lines.isEmpty()) {
            return null;
        }
        String[] h = lines.get(0).split(" ");
        if (h.length != 5 || !h[0].equals("F") || !h[1].equals("1")) {
            throw new IllegalArgumentException(file + " is not a version 1 final read: '" + lines.get(0) + "'");
        }
        Map<Long, long[]> lists = new TreeMap<>();
        for (int i = 1; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("END ")) {
                return new FinalRead(Integer.parseInt(h[2]), Long.parseLong(h[3]), lists,
                        Long.parseLong(line.substring(4).trim()));
            }
            int eq = line.indexOf('=');
            lists.put(Long.parseLong(line.substring(0, eq)), decodeList(line.substring(eq + 1)));
        }
        return null;
    }
}
