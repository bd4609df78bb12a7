package io.polycert.bench.local;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Another STM's bank with a shared version clock's least cost added: every transaction reads one shared counter as
 * it begins and every transfer increments it once committed. Run beside that STM, it measures what such a clock
 * alone takes from it on this machine. It is the least for a clock that every commit moves (so that a transaction
 * begun after a commit returned is numbered after it, as PolyCert's snapshots need): a real design also takes its
 * version inside the commit and compares against the value read. TL2's GV5/GV6 schemes let many commits leave the
 * clock alone ("silent" commits), giving up that order; ScalaSTM's GV6 does so only with three or more processors.
 * A calibration, not a usable STM: the counter orders nothing.
 */
final class ClockedBank implements Bank {
    /** Added to the measured STM's name; the printout pairs the two by it. */
    static final String SUFFIX = "+clock";
    /** The counter sits in the middle of its array, away from the header and from other objects' lines. */
    private static final int SLOT = 16;

    private final Bank stm;
    private final AtomicLongArray clock = new AtomicLongArray(2 * SLOT);

    ClockedBank(Bank stm) {
        this.stm = stm;
    }

    @Override
    public String name() {
        return stm.name() + SUFFIX;
    }

    @Override
    public void transfer(int from, int to, long amount) {
        if (clock.get(SLOT) < 0) { // never: keeps the read that a snapshot would take
            throw new IllegalStateException("clock overflow");
        }
        stm.transfer(from, to, amount);
        clock.incrementAndGet(SLOT);
    }

    @Override
    public long sum(int first, int count) {
        if (clock.get(SLOT) < 0) {
            throw new IllegalStateException("clock overflow");
        }
        return stm.sum(first, count);
    }

    @Override
    public int accounts() {
        return stm.accounts();
    }

    /** How many transfers this bank committed: lets a test see that the clock moved once per transfer. */
    long ticks() {
        return clock.get(SLOT);
    }
}
