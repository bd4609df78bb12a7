package io.polycert.bench.faults;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Writes one client thread's history file ({@link History} format). Every record goes to the operating system
 * with one unbuffered write as it happens, so the file holds every invocation even if the process is killed
 * right after. One writer per thread: not thread-safe.
 */
final class HistoryWriter implements AutoCloseable {
    private final RecordFile out;
    private final StringBuilder line = new StringBuilder(256);

    HistoryWriter(Path dir, int member, long pid, int thread) {
        this.out = new RecordFile(dir.resolve("la-m" + member + "-p" + pid + "-t" + thread + ".hist"),
                "the history file");
        line.append("H 1 ").append(member).append(' ').append(pid).append(' ').append(thread);
        flushLine();
    }

    void invoke(long op, List<History.Append> appends) {
        line.append("I ").append(op).append(' ').append(System.nanoTime()).append(' ')
                .append(History.encodeAppends(appends));
        flushLine();
    }

    void ok(long op, Map<Long, long[]> reads) {
        line.append("OK ").append(op).append(' ').append(System.nanoTime()).append(' ')
                .append(History.encodeReads(reads));
        flushLine();
    }

    void fail(long op, String cause) {
        line.append("FAIL ").append(op).append(' ').append(System.nanoTime()).append(' ').append(cause);
        flushLine();
    }

    void info(long op, String text) {
        line.append("INFO ").append(op).append(' ').append(System.nanoTime()).append(' ')
                .append(text.replace('\n', ' ').replace('\r', ' '));
        flushLine();
    }

    private void flushLine() {
        line.append('\n');
        String record = line.toString();
        line.setLength(0);
        out.write(record);
    }

    @Override
    public void close() {
        out.close();
    }
}
