package io.polycert.oracle;

/**
 * What the oracle knows about a committing transaction.
 *
 * @param readSetSize distinct boxes read
 * @param writeSetSize boxes written (including created)
 * @param writeSetBytes encoded size of the written values
 */
public record TransactionProfile(int readSetSize, int writeSetSize, int writeSetBytes) {

    public TransactionProfile {
        if (readSetSize < 0 || writeSetSize < 0 || writeSetBytes < 0) {
            throw new IllegalArgumentException("negative size in " + readSetSize + "/" + writeSetSize + "/"
                    + writeSetBytes);
        }
    }
}
