package io.polycert.oracle;

/**
 * The paper's discretization of the workload: one learner per power of ten of the read-set size, [0, 10),
 * [10, 100), ..., [10^5, 10^6), and 10^6 and above.
 */
final class ReadSetBuckets {
    static final int COUNT = 7;

    private ReadSetBuckets() {
    }

    static int of(int readSetSize) {
        int bucket = 0;
        for (long bound = 10; bucket < COUNT - 1 && readSetSize >= bound; bound *= 10) {
            bucket++;
        }
        return bucket;
    }

    static String label(int bucket) {
        if (bucket == COUNT - 1) {
            return "[1e" + bucket + ", inf)";
        }
        return bucket == 0 ? "[0, 10)" : "[1e" + bucket + ", 1e" + (bucket + 1) + ")";
    }
}
