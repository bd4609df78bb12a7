package io.polycert.kvstore;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Opt-in: {@link BloomFilterCertificationTest}'s case over many random read-sets in one JVM, with the totals that
 * docs/CERTIFICATION.md records. {@code -Dscan.cases} (default 60) and {@code -Dscan.seed} (default 1) choose them.
 */
class BloomFilterScanTest {

    @Test
    @Tag("bench")
    void scan() throws Exception {
        SplittableRandom random = new SplittableRandom(Long.getLong("scan.seed", 1));
        int cases = Integer.getInteger("scan.cases", 60);
        int failing = 0;
        long falsePositives = 0;
        double expected = 0;
        long checked = 0;
        long underSized = 0;
        long worstUnderSized = 0;
        for (int c = 0; c < cases; c++) {
            BloomFilterCertificationTest.CaseResult r = BloomFilterCertificationTest.run(random.nextInt(1, 3_001));
            if (!r.violations().isEmpty()) {
                failing++;
                System.out.println("failing case " + r.violations() + ": " + r);
            }
            falsePositives += r.falsePositives();
            expected += r.expected();
            checked += r.checked();
            underSized += r.underSized();
            worstUnderSized = Math.max(worstUnderSized, r.underSized());
        }
        System.out.printf("%d cases, %d failing; false positives %d observed, %.1f expected (rate %.4f); "
                + "%d of %d filters under-sized (%.1f%%, at most %d in a case)%n", cases, failing, falsePositives,
                expected, (double) falsePositives / checked, underSized, checked, 100.0 * underSized / checked,
                worstUnderSized);
    }
}
