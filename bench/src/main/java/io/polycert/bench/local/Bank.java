package io.polycert.bench.local;

/** The bank workload's view of one STM: accounts of long balances, transfers and read-only sums. */
interface Bank {

    String name();

    /** Moves {@code amount} from one account to another in one read-write transaction. */
    void transfer(int from, int to, long amount);

    /** Sums {@code count} consecutive accounts (wrapping) from {@code first} in one read-only transaction. */
    long sum(int first, int count);

    int accounts();
}
