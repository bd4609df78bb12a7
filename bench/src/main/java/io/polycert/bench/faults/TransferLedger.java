package io.polycert.bench.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The audited bank's record of every transfer attempt and how it ended, and the check of the final balances
 * against it. A wrong total shows only transfers that create or destroy money; a transfer acknowledged and then
 * lost, or one reported aborted and applied anyway, leaves the total intact and moves two balances by one. The
 * ledger catches those: every account must end at its initial balance plus the committed transfers' moves, give or
 * take the transfers whose outcome is unknown.
 *
 * <p>One file per client thread ({@code bank-m<MEMBER>-p<PID>-t<THREAD>.ledger}), each line written with one
 * unbuffered write as it happens, so it survives SIGKILL: {@code I SEQ FROM TO} before the attempt, then
 * {@code C SEQ} (committed), {@code A SEQ CAUSE} (aborted, with its {@code AbortCause}) or {@code U SEQ} (outcome
 * unknown). An attempt with no outcome line (its process was killed) is unknown.
 */
final class TransferLedger implements AutoCloseable {
    private static final String SUFFIX = ".ledger";

    private final RecordFile out;
    private long sequence;

    TransferLedger(Path dir, int member, long pid, int thread) {
        this.out = new RecordFile(dir.resolve("bank-m" + member + "-p" + pid + "-t" + thread + SUFFIX),
                "the transfer ledger");
    }

    /** Records a transfer of 1 from {@code from} to {@code to} about to be attempted; returns its number. */
    long invoke(int from, int to) {
        long seq = ++sequence;
        out.write("I " + seq + " " + from + " " + to + "\n");
        return seq;
    }

    void committed(long seq) {
        out.write("C " + seq + "\n");
    }

    void aborted(long seq, String cause) {
        out.write("A " + seq + " " + cause + "\n");
    }

    void unknown(long seq) {
        out.write("U " + seq + "\n");
    }

    @Override
    public void close() {
        out.close();
    }

    /**
     * What the ledgers of a run say, and where the final balances disagree with them.
     *
     * @param problems one line per account whose balance no combination of the unknown transfers explains
     */
    record Check(long committed, long aborted, long unknown, List<String> problems) {
        boolean valid() {
            return problems.isEmpty();
        }

        String describe() {
            return committed + " committed, " + aborted + " aborted, " + unknown + " unknown transfers; "
                    + (problems.isEmpty() ? "every balance matches them" : problems.size() + " problems");
        }
    }

    /**
     * Checks {@code balances} (every account's final balance, read at one member once all members agree) against
     * every ledger in {@code dir}: account {@code a} must hold {@code initial} plus the committed transfers into it
     * minus those out of it, plus at most the unknown transfers into it and minus at most those out of it.
     */
    static Check check(Path dir, long[] balances, long initial) {
        return check(snapshot(dir), balances, initial);
    }

    /**
     * The complete lines of every ledger in {@code dir}, by file. Taken before the balances are read, it leaves a
     * transfer still running then open (unknown), whatever it writes afterwards.
     */
    static Map<Path, List<String>> snapshot(Path dir) {
        Map<Path, List<String>> lines = new java.util.TreeMap<>();
        for (Path f : ledgers(dir)) {
            lines.put(f, List.copyOf(History.completeLines(f)));
        }
        return lines;
    }

    /** {@link #check(Path, long[], long)} of a {@link #snapshot}. */
    static Check check(Map<Path, List<String>> ledgers, long[] balances, long initial) {
        long[] committedNet = new long[balances.length];
        long[] unknownIn = new long[balances.length];
        long[] unknownOut = new long[balances.length];
        long committed = 0;
        long aborted = 0;
        long unknown = 0;
        List<String> problems = new ArrayList<>();
        for (Map.Entry<Path, List<String>> ledger : ledgers.entrySet()) {
            Path f = ledger.getKey();
            Map<Long, int[]> open = new HashMap<>();
            for (String line : ledger.getValue()) {
                if (line.isEmpty()) {
                    continue;
                }
                String[] w = line.split(" ");
                try {
                    long seq = Long.parseLong(w[1]);
                    if (w[0].equals("I")) {
                        int from = Integer.parseInt(w[2]);
                        int to = Integer.parseInt(w[3]);
                        if (from < 0 || from >= balances.length || to < 0 || to >= balances.length) {
                            throw new IllegalArgumentException("no such account");
                        }
                        open.put(seq, new int[] {from, to});
                        continue;
                    }
                    int[] t = open.remove(seq);
                    if (t == null) {
                        throw new IllegalArgumentException("an outcome of a transfer never invoked");
                    }
                    switch (w[0]) {
                        case "C" -> {
                            committed++;
                            committedNet[t[0]]--;
                            committedNet[t[1]]++;
                        }
                        case "A" -> aborted++;
                        case "U" -> {
                            unknown++;
                            unknownOut[t[0]]++;
                            unknownIn[t[1]]++;
                        }
                        default -> throw new IllegalArgumentException("unknown record");
                    }
                } catch (RuntimeException e) {
                    problems.add(f.getFileName() + ": malformed line '" + line + "' (" + e.getMessage() + ")");
                }
            }
            for (int[] t : open.values()) { // its process died before it knew the outcome
                unknown++;
                unknownOut[t[0]]++;
                unknownIn[t[1]]++;
            }
        }
        for (int a = 0; a < balances.length; a++) {
            long base = initial + committedNet[a];
            // A transfer from an account to itself moves nothing, and counts on both sides: the range stays sound.
            long low = base - unknownOut[a];
            long high = base + unknownIn[a];
            if (balances[a] < low || balances[a] > high) {
                problems.add("account " + a + " holds " + balances[a] + ", the recorded transfers allow "
                        + (low == high ? Long.toString(low) : low + " to " + high) + " (a transfer acknowledged"
                        + " and lost, or one reported aborted and applied)");
            }
        }
        return new Check(committed, aborted, unknown, List.copyOf(problems));
    }

    private static List<Path> ledgers(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(SUFFIX)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }
}
