package io.polycert.certification;

import java.util.ArrayDeque;

/**
 * The ids each committed version wrote, for the last {@code window} versions and at most {@code maxIds} ids in all:
 * what certification checks read-sets against. Kept identically on every replica (it depends only on the committed
 * sequence), so a transaction whose snapshot is older than the log is refused alike everywhere. The id bound keeps
 * memory bounded when write-sets are huge (STMBench7's long update traversals write 10^5 boxes each: a window of
 * versions alone would hold gigabytes). Certifier thread only.
 */
final class WriteLog {
    private record Version(long version, long[] ids) {
    }

    private final int window;
    private final long maxIds;
    private final ArrayDeque<Version> versions = new ArrayDeque<>();
    /** Ids held by {@link #versions}, in all. */
    private long heldIds;
    /** Per id, the last version that wrote it (only ids written within the window). */
    private final LongLongMap lastWrite = new LongLongMap();
    private long latest;

    WriteLog(int window, long maxIds, long latest) {
        this.window = window;
        this.maxIds = maxIds;
        this.latest = latest;
    }

    long latest() {
        return latest;
    }

    /** The oldest snapshot this log can certify: versions after it are all known. */
    long horizon() {
        return versions.isEmpty() ? latest : versions.peekFirst().version() - 1;
    }

    void committed(long version, long[] ids) {
        if (version != latest + 1) {
            throw new IllegalStateException("version " + version + " after " + latest);
        }
        latest = version;
        append(version, ids);
        // The newest version always stays: a snapshot just before it can still be certified.
        while (versions.size() > window || (heldIds > maxIds && versions.size() > 1)) {
            Version old = versions.pollFirst();
            heldIds -= old.ids().length;
            for (long id : old.ids()) {
                lastWrite.remove(id, old.version());
            }
        }
    }

    private void append(long version, long[] ids) {
        versions.addLast(new Version(version, ids));
        heldIds += ids.length;
        for (long id : ids) {
            lastWrite.put(id, version);
        }
    }

    /** Whether {@code id} was written by a version after {@code snapshot} (which must be within the window). */
    boolean writtenAfter(long id, long snapshot) {
        return lastWrite.get(id, Long.MIN_VALUE) > snapshot;
    }

    /**
     * A read written by a version after {@code snapshot}, or null if none: NVC's certification. Scans whichever is
     * shorter, the ids written since the snapshot (each looked up in the sorted reads) or the reads (each looked up
     * in the log): a large read-set against a few recent writes costs a few binary searches, not a lookup per read.
     */
    Long readWrittenAfter(long[] sortedReadIds, long snapshot) {
        long perWrite = 64 - Long.numberOfLeadingZeros(sortedReadIds.length);
        if ((long) writesAfter(snapshot) * perWrite < sortedReadIds.length) {
            Long[] found = new Long[1];
            anyWrittenAfter(snapshot, id -> {
                if (java.util.Arrays.binarySearch(sortedReadIds, id) >= 0) {
                    found[0] = id;
                    return true;
                }
                return false;
            });
            return found[0];
        }
        for (long id : sortedReadIds) {
            if (writtenAfter(id, snapshot)) {
                return id;
            }
        }
        return null;
    }

    /** Calls {@code visitor} with every id written after {@code snapshot}; stops when it returns true. */
    boolean anyWrittenAfter(long snapshot, java.util.function.LongPredicate visitor) {
        for (java.util.Iterator<Version> it = versions.descendingIterator(); it.hasNext(); ) {
            Version v = it.next();
            if (v.version() <= snapshot) {
                break;
            }
            for (long id : v.ids()) {
                if (visitor.test(id)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** How many ids were written after {@code snapshot}. */
    int writesAfter(long snapshot) {
        int n = 0;
        for (java.util.Iterator<Version> it = versions.descendingIterator(); it.hasNext(); ) {
            Version v = it.next();
            if (v.version() <= snapshot) {
                break;
            }
            n += v.ids().length;
        }
        return n;
    }

    /** How many distinct ids were written after {@code snapshot}: {@code written} is {@link #writesAfter}'s count. */
    int distinctWritesAfter(long snapshot, int written) {
        long[] ids = new long[written];
        int[] n = {0};
        anyWrittenAfter(snapshot, id -> {
            ids[n[0]++] = id;
            return false;
        });
        java.util.Arrays.sort(ids);
        int distinct = 0;
        for (int i = 0; i < ids.length; i++) {
            if (i == 0 || ids[i] != ids[i - 1]) {
                distinct++;
            }
        }
        return distinct;
    }

    // ---- state transfer ----

    void write(io.polycert.core.codec.ValueOutput out) {
        out.writeVarLong(latest).writeVarInt(versions.size());
        for (Version v : versions) {
            out.writeVarLong(v.version()).writeVarInt(v.ids().length);
            for (long id : v.ids()) {
                out.writeLong(id);
            }
        }
    }

    static WriteLog read(io.polycert.core.codec.ValueInput in, int window, long maxIds) {
        long latest = in.readVarLong();
        int n = in.readLength(2);
        WriteLog log = new WriteLog(window, maxIds, latest);
        for (int i = 0; i < n; i++) {
            long version = in.readVarLong();
            long[] ids = new long[in.readLength(8)];
            for (int k = 0; k < ids.length; k++) {
                ids[k] = in.readLong();
            }
            log.append(version, ids);
        }
        return log;
    }
}
