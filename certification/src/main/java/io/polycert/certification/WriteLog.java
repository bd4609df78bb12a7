package io.polycert.certification;

/**
 * The ids each committed version wrote, for the last {@code window} versions and at most {@code maxIds} ids in all:
 * what certification checks read-sets against. Kept identically on every replica (it depends only on the committed
 * sequence), so a transaction whose snapshot is older than the log is refused alike everywhere. The id bound keeps
 * memory bounded when write-sets are huge (STMBench7's long update traversals write 10^5 boxes each: a window of
 * versions alone would hold gigabytes). Certifier thread only.
 *
 * <p>The ids sit in one ring of longs and the versions' boundaries in another, not in an object per version: the
 * default window holds a few seconds of commits, just long enough for each version's objects to be copied by a
 * young collection or two and then promoted: in the small-transaction bank, the log's objects were the largest
 * part of what each young collection copied (CERTIFICATION.md, "The write log in two rings").
 */
final class WriteLog {
    private static final int MIN_CAPACITY = 64;

    private final int window;
    private final long maxIds;
    /**
     * The held versions' ids, oldest first: the id appended at position {@code p} (counting every id ever appended)
     * sits at {@code ids[p & (ids.length - 1)]}; held are the positions from {@link #firstStart} to {@link #appended}.
     */
    private long[] ids = new long[MIN_CAPACITY];
    /** For each held version {@code v}, the position after its last id, at {@code ends[v & (ends.length - 1)]}. */
    private long[] ends = new long[MIN_CAPACITY];
    /** The oldest held version; none is held while it is above {@link #latest}. Versions are consecutive. */
    private long first;
    private long firstStart;
    private long appended;
    /** Per id, the last version that wrote it (only ids written within the window). */
    private final LongLongMap lastWrite = new LongLongMap();
    private long latest;

    WriteLog(int window, long maxIds, long latest) {
        this.window = window;
        this.maxIds = maxIds;
        this.latest = latest;
        this.first = latest + 1;
    }

    long latest() {
        return latest;
    }

    /** The oldest snapshot this log can certify: versions after it are all known. */
    long horizon() {
        return first - 1;
    }

    void committed(long version, long[] written) {
        if (version != latest + 1) {
            throw new IllegalStateException("version " + version + " after " + latest);
        }
        // Dropped before appending, as many as would be dropped after it: the newest version always stays, so a
        // snapshot just before it can still be certified.
        while (heldVersions() >= window || (heldIds() + written.length > maxIds && heldVersions() >= 1)) {
            dropOldest();
        }
        append(written);
    }

    private long heldVersions() {
        return latest - first + 1;
    }

    private long heldIds() {
        return appended - firstStart;
    }

    private void append(long[] written) {
        long version = latest + 1;
        if (heldVersions() + 1 > ends.length) {
            ends = resized(ends, first, latest + 1, heldVersions() + 1);
        }
        long needed = heldIds() + written.length;
        // Shrunk once a huge version is dropped, so that memory follows what is held.
        if (needed > ids.length || (ids.length > MIN_CAPACITY && needed < ids.length / 8)) {
            ids = resized(ids, firstStart, appended, needed);
        }
        int mask = ids.length - 1;
        for (long id : written) {
            ids[(int) (appended++ & mask)] = id;
            lastWrite.put(id, version);
        }
        ends[(int) (version & (ends.length - 1))] = appended;
        latest = version;
    }

    /** A ring of the least power-of-two length that holds {@code needed} entries, with those of positions from to. */
    private static long[] resized(long[] ring, long from, long to, long needed) {
        long capacity = Math.max(MIN_CAPACITY, Long.highestOneBit(Math.max(1, needed * 2 - 1)));
        if (capacity > 1 << 30) {
            throw new IllegalStateException("the write log cannot hold " + needed + " entries");
        }
        long[] grown = new long[(int) capacity];
        for (long p = from; p < to; p++) {
            grown[(int) (p & (capacity - 1))] = ring[(int) (p & (ring.length - 1))];
        }
        return grown;
    }

    private void dropOldest() {
        long end = ends[(int) (first & (ends.length - 1))];
        int mask = ids.length - 1;
        for (long p = firstStart; p < end; p++) {
            lastWrite.remove(ids[(int) (p & mask)], first);
        }
        firstStart = end;
        first++;
    }

    /** The position of version {@code v}'s first id ({@code v} held). */
    private long start(long v) {
        return v == first ? firstStart : ends[(int) ((v - 1) & (ends.length - 1))];
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
        int mask = ids.length - 1;
        // Newest version first, each version's ids in the order written.
        for (long v = latest; v > snapshot && v >= first; v--) {
            long end = ends[(int) (v & (ends.length - 1))];
            for (long p = start(v); p < end; p++) {
                if (visitor.test(ids[(int) (p & mask)])) {
                    return true;
                }
            }
        }
        return false;
    }

    /** How many ids were written after {@code snapshot}. */
    int writesAfter(long snapshot) {
        long from = Math.max(snapshot + 1, first);
        return from > latest ? 0 : (int) (appended - start(from));
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
        out.writeVarLong(latest).writeVarInt((int) heldVersions());
        int mask = ids.length - 1;
        for (long v = first; v <= latest; v++) {
            long end = ends[(int) (v & (ends.length - 1))];
            out.writeVarLong(v).writeVarInt((int) (end - start(v)));
            for (long p = start(v); p < end; p++) {
                out.writeLong(ids[(int) (p & mask)]);
            }
        }
    }

    static WriteLog read(io.polycert.core.codec.ValueInput in, int window, long maxIds) {
        long latest = in.readVarLong();
        int n = in.readLength(2);
        WriteLog log = null;
        for (int i = 0; i < n; i++) {
            long version = in.readVarLong();
            if (log == null) {
                log = new WriteLog(window, maxIds, version - 1);
            } else if (version != log.latest + 1) {
                throw new io.polycert.core.codec.CodecException("write log: version " + version + " after "
                        + log.latest);
            }
            long[] written = new long[in.readLength(8)];
            for (int k = 0; k < written.length; k++) {
                written[k] = in.readLong();
            }
            log.append(written);
        }
        if (log == null) {
            return new WriteLog(window, maxIds, latest);
        }
        if (log.latest != latest) {
            throw new io.polycert.core.codec.CodecException("write log: versions end at " + log.latest
                    + ", latest is " + latest);
        }
        return log;
    }
}
