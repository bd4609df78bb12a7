package io.polycert.bench.faults;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A file of records a client thread appends to as things happen: each record goes to the operating system with one
 * unbuffered write, so the file holds it even if the process is killed right after. Not thread-safe.
 */
final class RecordFile implements AutoCloseable {
    private final FileOutputStream out;
    private final Path file;
    private final String what;
    private boolean failed;

    /** Opens {@code file} for appending; {@code what} names it in errors (e.g. "the history file"). */
    RecordFile(Path file, String what) {
        this.file = file;
        this.what = what;
        try {
            this.out = new FileOutputStream(file.toFile(), true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + what + " " + file, e);
        }
    }

    /** Appends {@code record} (ending in a newline). The first failure is also printed on stderr. */
    void write(String record) {
        try {
            out.write(record.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            if (!failed) {
                failed = true;
                System.err.println("writing " + what + " " + file + " failed: " + e);
            }
            throw new UncheckedIOException("cannot write " + what + " " + file, e);
        }
    }

    @Override
    public void close() {
        try {
            out.close();
        } catch (IOException e) {
            // nothing to do
        }
    }
}
