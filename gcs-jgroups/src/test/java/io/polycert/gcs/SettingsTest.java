package io.polycert.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SettingsTest {
    @Test
    void aSmallSenderWindowKeepsTheDefaultLagBound() {
        assertEquals(Settings.DEFAULT_MAX_LAG_BYTES, Settings.maxLagBytesFor(1));
        assertEquals(Settings.DEFAULT_MAX_LAG_BYTES, Settings.maxLagBytesFor(Settings.DEFAULT_MAX_LAG_BYTES / 8));
    }

    @Test
    void aLargerSenderWindowAllowsEightWindowsOfLag() {
        long window = Settings.DEFAULT_MAX_LAG_BYTES / 8 + 1;
        assertEquals(8 * window, Settings.maxLagBytesFor(window));
        assertEquals(8L << 40, Settings.maxLagBytesFor(1L << 40));
    }

    @Test
    void aHugeSenderWindowDoesNotOverflow() {
        assertEquals(Long.MAX_VALUE, Settings.maxLagBytesFor(Long.MAX_VALUE / 8 + 1));
        assertEquals(Long.MAX_VALUE, Settings.maxLagBytesFor(Long.MAX_VALUE));
        assertEquals(Long.MAX_VALUE / 8 * 8, Settings.maxLagBytesFor(Long.MAX_VALUE / 8));
    }
}
