package io.polycert.bench.report;

import java.util.List;
import java.util.Map;

/**
 * Everything one measured run (one contender, one setting) produced, summed over all replicas.
 *
 * @param benchmark which benchmark, e.g. {@code bank}, {@code stmbench7}, {@code oracle}
 * @param contender what was measured: a protocol ({@code NVC}, {@code BFC}, {@code VC}) or an oracle
 *     ({@code ucb}, {@code dist-ucb}, {@code decision-tree}, ...)
 * @param parameters the setting, e.g. {@code readSet=1000}, {@code mix=write}, {@code replicas=3}; stable order
 * @param seconds measured time
 * @param committed transactions committed in that time (read-only ones included)
 * @param committedReadOnly of which committed locally, without certification: read-only transactions, and update
 *     operations that wrote nothing (an STMBench7 operation that found nothing to change, for example)
 * @param abortsConflict read-write attempts aborted by a real conflict
 * @param abortsFalsePositive attempts aborted by a Bloom-filter false positive only
 * @param abortsOther attempts aborted for any other reason (too large, replica left, ...)
 * @param p50Micros operation latency as the client sees it (start of the operation to its commit, retries
 *     included), 50th percentile
 * @param p90Micros 90th percentile
 * @param p99Micros 99th percentile
 * @param bytesBroadcast commit-message bytes broadcast in that time
 * @param broadcastTransactions read-write transactions broadcast in that time (the denominator of bytes/tx)
 * @param gcMillis garbage-collection time of the JVM(s) in that time
 * @param timeline one sample per second: commits per protocol
 * @param commitShare the share of the client threads' time spent in certified commits that committed, from the
 *     commit call to its outcome (marshalling, broadcast, certification, votes); what is left is execution,
 *     retries and local work, which no choice of protocol removes. NaN when not measured
 * @param kinds per operation kind (what the workload's client names it, e.g. {@code T1} or {@code OP15}), how many
 *     completed and the time spent on the kind per operation completed (retries included, and the time of
 *     operations that finally aborted); sorted by name; empty when not measured
 */
public record RunResult(String benchmark, String contender, Map<String, String> parameters, double seconds,
        long committed, long committedReadOnly, long abortsConflict, long abortsFalsePositive, long abortsOther,
        double p50Micros, double p90Micros, double p99Micros, long bytesBroadcast, long broadcastTransactions,
        long gcMillis, List<Second> timeline, double commitShare, List<Kind> kinds) {

    /**
     * Operations of one kind in the run: how many completed, and the time spent on the kind per operation completed
     * (NaN if none completed).
     */
    public record Kind(String name, long count, double meanMicros) {
    }

    /** A result whose commit share was not measured. */
    public RunResult(String benchmark, String contender, Map<String, String> parameters, double seconds,
            long committed, long committedReadOnly, long abortsConflict, long abortsFalsePositive, long abortsOther,
            double p50Micros, double p90Micros, double p99Micros, long bytesBroadcast, long broadcastTransactions,
            long gcMillis, List<Second> timeline) {
        this(benchmark, contender, parameters, seconds, committed, committedReadOnly, abortsConflict,
                abortsFalsePositive, abortsOther, p50Micros, p90Micros, p99Micros, bytesBroadcast,
                broadcastTransactions, gcMillis, timeline, Double.NaN, List.of());
    }

    /** Commits in one second of the run, by the protocol that certified them (read-only ones apart). */
    public record Second(double atSeconds, long readOnly, long nvc, long bfc, long vc) {
        public long total() {
            return readOnly + nvc + bfc + vc;
        }
    }

    public RunResult {
        parameters = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(parameters));
        timeline = List.copyOf(timeline);
        kinds = List.copyOf(kinds);
    }

    /** The kind named {@code name}, or {@code null}. */
    public Kind kind(String name) {
        for (Kind k : kinds) {
            if (k.name().equals(name)) {
                return k;
            }
        }
        return null;
    }

    public double committedPerSecond() {
        return seconds <= 0 ? 0 : committed / seconds;
    }

    /** Aborted attempts over all read-write attempts. */
    public double abortRate() {
        long aborts = abortsConflict + abortsFalsePositive + abortsOther;
        long attempts = committed - committedReadOnly + aborts;
        return attempts == 0 ? 0 : (double) aborts / attempts;
    }

    public double bytesPerTransaction() {
        return broadcastTransactions == 0 ? 0 : (double) bytesBroadcast / broadcastTransactions;
    }

    /** A parameter's value, or {@code null}. */
    public String parameter(String name) {
        return parameters.get(name);
    }
}
