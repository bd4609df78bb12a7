package io.polycert.core;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.polycert.core.testing.History;
import io.polycert.core.testing.SerializationGraphChecker;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** A commit handler that skips validation must be caught by the checker: proof the history tests can fail. */
class BrokenHandlerIsCaughtTest {

    @Test
    void lostUpdateFromAHandlerWithoutValidationIsDetected() throws Exception {
        Stm stm = Stm.builder().commitHandler(log -> log::append).build(); // no validation: wrong on purpose
        VBox<Long> x = stm.newBox(History.INITIAL_VALUE);
        History history = new History();
        ExecutorService first = Executors.newSingleThreadExecutor();
        ExecutorService second = Executors.newSingleThreadExecutor();
        try {
            History.Recorder a = new History.Recorder("a");
            History.Recorder b = new History.Recorder("b");
            Transaction txA = first.submit(() -> {
                Transaction tx = stm.begin();
                a.read(x.id(), x.get());
                return tx;
            }).get();
            second.submit(() -> {
                Transaction tx = stm.begin();
                b.read(x.id(), x.get());
                x.put(2L);
                b.write(x.id(), 2L);
                tx.commit();
                history.add(b.committedAt(tx.commitVersion()));
            }).get();
            first.submit(() -> {
                x.put(1L);
                a.write(x.id(), 1L);
                txA.commit();
                history.add(a.committedAt(txA.commitVersion()));
            }).get();
        } finally {
            first.shutdownNow();
            second.shutdownNow();
        }
        assertFalse(SerializationGraphChecker.check(history).isSerializable());
    }
}
