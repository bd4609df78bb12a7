package io.polycert.core.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.testing.History.Op;
import io.polycert.core.testing.History.Txn;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The checker must flag each classic anomaly, or the tests that rely on it prove nothing. */
class SerializationGraphCheckerTest {

    private static Txn txn(String name, long order, List<Op> reads, List<Op> writes) {
        return new Txn(name, order, reads, writes);
    }

    private static Op op(long key, long value) {
        return new Op(key, value);
    }

    @Test
    void serialHistoryPasses() {
        var result = SerializationGraphChecker.check(List.of(
                txn("a", 1, List.of(op(1, 0)), List.of(op(1, 10))),
                txn("b", 2, List.of(op(1, 10)), List.of(op(1, 20))),
                txn("ro", 0, List.of(op(1, 20)), List.of())));
        result.assertSerializable();
        assertTrue(result.edges() >= 4);
    }

    @Test
    void lostUpdateIsACycle() {
        // both read the initial value of key 1 and both write it
        var result = SerializationGraphChecker.check(List.of(
                txn("a", 1, List.of(op(1, 0)), List.of(op(1, 10))),
                txn("b", 2, List.of(op(1, 0)), List.of(op(1, 20)))));
        assertFalse(result.isSerializable());
        assertTrue(result.anomalies().get(0).contains("cycle"), result.anomalies().toString());
        assertThrows(AssertionError.class, result::assertSerializable);
    }

    @Test
    void writeSkewIsACycle() {
        var result = SerializationGraphChecker.check(List.of(
                txn("a", 1, List.of(op(1, 0), op(2, 0)), List.of(op(1, 10))),
                txn("b", 2, List.of(op(1, 0), op(2, 0)), List.of(op(2, 20)))));
        assertFalse(result.isSerializable());
    }

    @Test
    void readOnlyTransactionSeeingAFracturedSnapshotIsACycle() {
        // w writes keys 1 and 2 together; the reader sees the new 1 but the old 2
        var result = SerializationGraphChecker.check(List.of(
                txn("w", 1, List.of(), List.of(op(1, 10), op(2, 20))),
                txn("ro", 0, List.of(op(1, 10), op(2, 0)), List.of())));
        assertFalse(result.isSerializable());
    }

    @Test
    void readOfAValueNobodyCommittedIsReported() {
        var result = SerializationGraphChecker.check(List.of(
                txn("ro", 0, List.of(op(1, 99)), List.of())));
        assertFalse(result.isSerializable());
        assertTrue(result.anomalies().get(0).contains("no committed transaction wrote"));
    }

    @Test
    void circularInformationFlowG1cIsACycle() {
        var result = SerializationGraphChecker.check(List.of(
                txn("a", 1, List.of(op(2, 20)), List.of(op(1, 10))),
                txn("b", 2, List.of(op(1, 10)), List.of(op(2, 20)))));
        assertFalse(result.isSerializable());
    }
}
