package io.polycert.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Installing the group's state: into an empty STM (a joiner) and over a prefix of it (back from a minority). */
class SnapshotInstallTest {
    private final AtomicReference<CommitLog> logRef = new AtomicReference<>();
    private final Stm stm = Stm.builder().commitHandler(log -> {
        logRef.set(log);
        return log::validateAndAppend;
    }).build();

    @Test
    void aJoinerInstallsTheStateAsItsFirstVersion() {
        VBox<Integer> x = stm.root(1, null);
        logRef.get().installSnapshot(7, new VBox<?>[] {x}, new Object[] {42});
        assertEquals(7, stm.latestVersion());
        assertEquals(42, x.get());
        stm.atomic(() -> x.put(x.get() + 1));
        assertEquals(8, stm.latestVersion(), "commits go on after the installed version");
    }

    @Test
    void aNewerStateIsInstalledOverAnOlderOneAndOldSnapshotsKeepTheirValues() {
        VBox<Integer> x = stm.root(1, 0);
        VBox<Integer> y = stm.root(2, 0);
        stm.atomic(() -> x.put(1));
        Transaction reader = stm.beginReadOnly(); // on version 1, across the install
        assertEquals(1, x.get());
        Thread installer = new Thread(() -> {
            VBox<?> created = logRef.get().createBox(3); // a box the group created meanwhile
            logRef.get().installSnapshot(5, new VBox<?>[] {x, y, created}, new Object[] {2, 3, 4});
        });
        installer.start();
        join(installer);
        assertEquals(1, x.get(), "still reading its snapshot");
        assertEquals(0, y.get());
        reader.commit();
        assertEquals(5, stm.latestVersion());
        assertEquals(2, x.get());
        assertEquals(3, y.get());
    }

    @Test
    void aStateNotNewerThanTheStmIsRefused() {
        VBox<Integer> x = stm.root(1, 0);
        stm.atomic(() -> x.put(1));
        stm.atomic(() -> x.put(2));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> logRef.get().installSnapshot(2, new VBox<?>[] {x}, new Object[] {9}));
        assertTrue(e.getMessage().contains("must be newer"), e.getMessage());
        assertEquals(2, x.get(), "nothing installed");
        assertThrows(IllegalArgumentException.class,
                () -> logRef.get().installSnapshot(3, new VBox<?>[] {x}, new Object[] {}));
        assertThrows(IllegalArgumentException.class, () -> logRef.get().installSnapshot(3,
                new VBox<?>[] {Stm.create().newBox(0)}, new Object[] {1}));
    }

    private static void join(Thread t) {
        try {
            t.join(10_000);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        assertTrue(!t.isAlive(), "installer finished");
    }
}
