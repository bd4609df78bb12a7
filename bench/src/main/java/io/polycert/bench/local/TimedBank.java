package io.polycert.bench.local;

/**
 * Another STM's bank with the least cost of a hardware time base added (Ordo-style designs: a synchronized clock
 * instead of a shared counter): every transaction reads {@link System#nanoTime()} as it begins and every transfer
 * reads it again once committed, with no shared write. A real design also reads it inside the commit, compares
 * versions against it, and waits out the clocks' uncertainty before it returns; this pays none of that. Run beside
 * that STM, and beside {@link ClockedBank}, it measures whether the time base would be cheaper than a shared
 * counter on this machine. A calibration, not a usable STM: the times order nothing.
 */
final class TimedBank implements Bank {
    /** Added to the measured STM's name; the printout pairs the two by it. */
    static final String SUFFIX = "+time";

    private final Bank stm;

    TimedBank(Bank stm) {
        this.stm = stm;
    }

    @Override
    public String name() {
        return stm.name() + SUFFIX;
    }

    @Override
    public void transfer(int from, int to, long amount) {
        long begin = System.nanoTime();
        stm.transfer(from, to, amount);
        if (System.nanoTime() < begin - 1_000_000_000L) { // never: uses both reads, so neither can be dropped
            throw new IllegalStateException("the monotonic clock went back by more than a second");
        }
    }

    @Override
    public long sum(int first, int count) {
        long begin = System.nanoTime();
        long sum = stm.sum(first, count);
        return begin == Long.MIN_VALUE ? sum + 1 : sum; // never: keeps the read
    }

    @Override
    public int accounts() {
        return stm.accounts();
    }
}
