package io.polycert.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A long alone on its cache lines, for the STM's version clock and the collector's marks: every commit increments
 * the clock and every transaction reads it, so sharing a line with read-mostly fields would make those miss after
 * every commit on another core. The JVM lays out superclass fields first, so the padding classes keep other
 * objects' fields away on both sides.
 */
final class PaddedLong extends PaddedLongRightPadding {
    private static final VarHandle VALUE;

    static {
        try {
            VALUE = MethodHandles.lookup().findVarHandle(PaddedLongValue.class, "value", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    long get() {
        return (long) VALUE.getVolatile(this);
    }

    void set(long value) {
        VALUE.setVolatile(this, value);
    }

    long incrementAndGet() {
        return (long) VALUE.getAndAdd(this, 1L) + 1;
    }

    boolean compareAndSet(long expected, long next) {
        return VALUE.compareAndSet(this, expected, next);
    }
}

@SuppressWarnings("unused")
abstract class PaddedLongLeftPadding {
    long p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15, p16;
}

abstract class PaddedLongValue extends PaddedLongLeftPadding {
    volatile long value;
}

@SuppressWarnings("unused")
abstract class PaddedLongRightPadding extends PaddedLongValue {
    long q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15, q16;
}
