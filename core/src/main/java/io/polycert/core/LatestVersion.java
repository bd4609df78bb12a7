package io.polycert.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The newest published version, alone on its cache lines. Every commit writes it and every transaction reads it;
 * sharing a line with the STM's read-mostly fields made each box read miss after every commit on another core.
 * The JVM lays out superclass fields first, so the padding classes keep other objects' fields away on both sides.
 */
final class LatestVersion extends LatestVersionRightPadding {
    private static final VarHandle VALUE;

    static {
        try {
            VALUE = MethodHandles.lookup().findVarHandle(LatestVersionValue.class, "value", CommitRecord.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    LatestVersion(CommitRecord initial) {
        VALUE.setVolatile(this, initial);
    }

    CommitRecord get() {
        return (CommitRecord) VALUE.getVolatile(this);
    }

    boolean compareAndSet(CommitRecord expected, CommitRecord next) {
        return VALUE.compareAndSet(this, expected, next);
    }
}

@SuppressWarnings("unused")
abstract class LatestVersionLeftPadding {
    long p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15, p16;
}

abstract class LatestVersionValue extends LatestVersionLeftPadding {
    volatile CommitRecord value;
}

@SuppressWarnings("unused")
abstract class LatestVersionRightPadding extends LatestVersionValue {
    long q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15, q16;
}
