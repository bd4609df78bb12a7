package io.polycert.bench.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** How a member reads DISCARD's counts of dropped messages, as JGroups' stats report them. */
class MemberFaultsTest {
    @Test
    void countsAreReadAsNumbersOrAsTextGroupedByTheLocale() {
        assertEquals(12, MemberFaults.count("dropped_up_messages", 12));
        assertEquals(999, MemberFaults.count("dropped_up_messages", "999"));
        assertEquals(5_314, MemberFaults.count("dropped_down_messages", "5,314")); // a campaign failed on this
        assertEquals(1_234_567, MemberFaults.count("dropped_down_messages", "1.234.567"));
        assertEquals(22_723, MemberFaults.count("dropped_up_messages", "22\u00a0723"));
        assertThrows(IllegalStateException.class, () -> MemberFaults.count("dropped_up_messages", null));
        assertThrows(IllegalStateException.class, () -> MemberFaults.count("dropped_up_messages", "n/a"));
    }
}
