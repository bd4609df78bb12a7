package io.polycert.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One commit in flight, shared by the pending bodies it pushed onto the boxes it writes. Its state moves, by CAS,
 * through
 * <pre>
 *   LOCKING  -> LOCKED -> VERSIONED(v) -> COMMITTED(v)        a local commit (validated against (snapshot, v))
 *   LOCKING  -> COMMITTED(v)                                  an install (certified elsewhere, never aborted)
 *   LOCKING, LOCKED or VERSIONED(v) -> ABORTED
 * </pre>
 *
 * <p>A commit pushes all its bodies before it leaves {@code LOCKING}, and takes its version from the clock only
 * after that. So a reader whose snapshot was taken before it saw a commit in {@code LOCKING} knows the commit's
 * version will be newer than its snapshot, and skips its bodies without waiting. A commit in {@code LOCKED} may or
 * may not have taken its version: anyone may give it one from the clock (newer than any snapshot taken so far),
 * and the commit adopts whichever version won. A {@code VERSIONED} commit not yet validated is in the way of a
 * reader whose snapshot includes its version: the reader aborts it rather than wait for its outcome. Readers
 * therefore never wait and never abort; writers may abort each other (see {@link Stm}).
 */
final class Commit {
    /** Pushing its bodies; its version, when it takes one, will be newer than every snapshot taken so far. */
    static final long LOCKING = -1;
    /** All bodies pushed; its version is being taken. */
    static final long LOCKED = -2;
    static final long ABORTED = -3;
    /** What {@link #versionAtMost} answers for a commit whose writes a bounded reader must not see. */
    static final long INVISIBLE = Long.MAX_VALUE;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Commit.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * A negative constant above, or {@code version << 1}, with the low bit set once committed. Set plainly when
     * constructed: a commit is published by the CAS that makes its first pending body a box's head.
     */
    private volatile long state;
    /** Certified elsewhere (a write-set installed by the replication layer): nobody may abort it. */
    final boolean certified;

    Commit(boolean certified) {
        this.certified = certified;
        STATE.set(this, LOCKING);
    }

    static long versioned(long version) {
        return version << 1;
    }

    static long committed(long version) {
        return version << 1 | 1;
    }

    static long versionOf(long state) {
        return state >>> 1;
    }

    static boolean isCommitted(long state) {
        return state >= 0 && (state & 1) != 0;
    }

    long state() {
        return state;
    }

    boolean compareAndSet(long expected, long next) {
        return STATE.compareAndSet(this, expected, next);
    }

    /** For an install, the only thread that decides it. */
    void setCommitted(long version) {
        state = committed(version);
    }

    /**
     * This commit's version if it committed at {@code bound} or before, else {@link #INVISIBLE}; never waits. A
     * commit still undecided at a version up to {@code bound} is aborted, since whoever asks cannot go on without
     * knowing its outcome; one that has not taken its version yet is given one after {@code bound} (every
     * caller's bound is at most the clock).
     */
    long versionAtMost(long bound, PaddedLong clock) {
        for (;;) {
            long s = state;
            if (s == LOCKING || s == ABORTED) {
                return INVISIBLE;
            }
            if (s == LOCKED) {
                compareAndSet(LOCKED, versioned(clock.incrementAndGet()));
                continue;
            }
            long version = versionOf(s);
            if (version > bound) {
                return INVISIBLE;
            }
            if (isCommitted(s) || certified) {
                return version;
            }
            compareAndSet(s, ABORTED);
        }
    }

    /** The version if committed (or certified and versioned), else -1; reads only. */
    long committedVersion() {
        long s = state;
        return s >= 0 && (isCommitted(s) || certified) ? versionOf(s) : -1;
    }
}
