package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CertificationSettingsTest {
    private static final int MAX = CertificationSettings.MAX_WRITE_LOG;

    /** Past 2^28 the write log's arrays would overflow once it filled up, on the certifier thread: refused here. */
    @Test
    void aWriteLogTooLargeToHoldIsRefusedWhenConfigured() {
        String window = assertThrows(IllegalArgumentException.class,
                () -> new CertificationSettings(1 << 20, 0.01, MAX + 1)).getMessage();
        assertTrue(window.contains("writeLogWindow above 268435456"), window);
        String ids = assertThrows(IllegalArgumentException.class,
                () -> new CertificationSettings(1 << 20, 0.01, 1_000, MAX + 1L)).getMessage();
        assertTrue(ids.contains("writeLogMaxIds above 268435456"), ids);
    }

    @Test
    void theLargestWriteLogIsAccepted() {
        CertificationSettings largest = new CertificationSettings(1 << 20, 0.01, MAX, MAX);
        assertEquals(MAX, largest.writeLogWindow());
        assertEquals(MAX, largest.writeLogMaxIds());
    }

    @Test
    void tooSmallAWriteLogIsRefusedToo() {
        assertThrows(IllegalArgumentException.class, () -> new CertificationSettings(1 << 20, 0.01, 15));
        assertThrows(IllegalArgumentException.class, () -> new CertificationSettings(1 << 20, 0.01, 16, 1_023));
    }
}
