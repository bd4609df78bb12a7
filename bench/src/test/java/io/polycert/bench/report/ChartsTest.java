package io.polycert.bench.report;

import static io.polycert.bench.report.Runs.params;
import static io.polycert.bench.report.Runs.run;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

class ChartsTest {
    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    /** NVC's fixed colour in every chart. */
    private static final int NVC_RGB = 0x0072B2;

    @TempDir
    Path dir;

    /** Reads the file back as a PNG of the chart's size that is not blank, and counts NVC-coloured pixels. */
    private static int checkPng(Path png) throws Exception {
        byte[] bytes = Files.readAllBytes(png);
        assertTrue(bytes.length > 1_000, png + " is only " + bytes.length + " bytes");
        assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(bytes, 8), png + " is not a PNG");
        BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image, png + " cannot be decoded");
        assertEquals(Charts.WIDTH, image.getWidth());
        assertEquals(Charts.HEIGHT, image.getHeight());
        assertTrue(Charts.WIDTH >= 640 && Charts.HEIGHT >= 400);
        Set<Integer> colors = new HashSet<>();
        int nvc = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y) & 0xffffff;
                colors.add(rgb);
                if (rgb == NVC_RGB) {
                    nvc++;
                }
            }
        }
        assertTrue(colors.size() > 20, png + " looks blank: " + colors.size() + " colours");
        return nvc;
    }

    @Test
    void throughputByReadSetWritesAPng() throws Exception {
        Path png = dir.resolve("sub/fig2.png");
        Charts.throughputByReadSet(Runs.readSetSweep(), png);
        assertTrue(checkPng(png) > 50, "the NVC series is drawn");
        assertNotNull(System.getProperty("java.awt.headless"), "Charts sets headless mode when nobody has");
    }

    @Test
    void latencyByReadSetWritesAPng() throws Exception {
        Path png = dir.resolve("fig4.png");
        Charts.latencyByReadSet(Runs.readSetSweep(), png);
        assertTrue(checkPng(png) > 50);
    }

    @Test
    void normalizedThroughputWritesAPngForNumericAndNamedGroups() throws Exception {
        Path png = dir.resolve("fig5.png");
        Charts.normalizedThroughput(Runs.readSetSweep(), "readSet", png);
        assertTrue(checkPng(png) > 500, "NVC's bars are drawn");

        List<RunResult> stmbench7 = new ArrayList<>();
        for (String mix : List.of("read", "read-write", "write")) {
            stmbench7.add(run("stmbench7", "NVC", params("mix", mix), 2, mix.equals("read") ? 900 : 300, 10));
            stmbench7.add(run("stmbench7", "BFC", params("mix", mix), 2, 600, 10));
            stmbench7.add(run("stmbench7", "ucb", params("mix", mix), 2, 500, 10));
        }
        Path fig8 = dir.resolve("fig8.png");
        Charts.normalizedThroughput(stmbench7, "mix", fig8);
        checkPng(fig8);
    }

    @Test
    void elevenContendersGetElevenColoursAndALongNameWidensTheChart() throws Exception {
        List<RunResult> runs = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        for (int i = 0; i < 11; i++) {
            String name = i < 10 ? "oracle-" + i : "decision-tree-any-model";
            names.add(name);
            runs.add(run("oracle", name, params("readSet", "1"), 2, 100 + 10 * i, 1));
        }
        assertEquals(11, new HashSet<>(Charts.colors(names).values()).size(), "no two contenders share a colour");
        assertEquals(Charts.WIDTH, Charts.width(Set.of("decision-tree", "static-nvc")));
        Path png = dir.resolve("wide.png");
        Charts.normalizedThroughput(runs, "readSet", png);
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(Charts.width(names), image.getWidth());
        assertTrue(image.getWidth() > Charts.WIDTH, "a 23-character name widens the chart");
    }

    @Test
    void normalizationDividesByTheBestOfEachGroup() {
        List<RunResult> runs = new ArrayList<>(List.of(
                run("oracle", "VC", params("readSet", "1000"), 2, 50, 1),
                run("oracle", "NVC", params("readSet", "1000"), 2, 200, 1),
                run("oracle", "NVC", params("readSet", "20"), 2, 100, 1),
                run("oracle", "BFC", params("readSet", "20"), 2, 400, 1),
                run("oracle", "BFC", params("readSet", "1000"), 2, 100, 1),
                // A repeat of NVC at 20: averaged with the first, (100 + 300) / 2 = 200.
                run("oracle", "NVC", params("readSet", "20"), 2, 300, 1),
                run("other", "NVC", params("replicas", "3"), 2, 999, 1)));
        Charts.Normalized n = Charts.normalize(runs, "readSet");
        assertEquals(List.of("20", "1000"), n.groups(), "numeric groups ascend");
        assertEquals(List.of("VC", "NVC", "BFC"), new ArrayList<>(n.values().keySet()));
        assertEquals(Arrays.asList(null, 0.25), n.values().get("VC"));
        assertEquals(List.of(0.5, 1.0), n.values().get("NVC"));
        assertEquals(List.of(1.0, 0.5), n.values().get("BFC"));
        assertEquals(6, n.runs().size(), "the run without readSet is left out");
    }

    @Test
    void throughputOverTimeConcatenatesEachContendersRuns() throws Exception {
        List<RunResult> runs = new ArrayList<>();
        int[] readSets = {10, 1000, 10};
        for (int rs : readSets) {
            runs.add(run("bank", "NVC", params("readSet", Integer.toString(rs)), 5, 100_000 / rs, 1));
            runs.add(run("bank", "ucb", params("readSet", Integer.toString(rs)), 5, 80_000 / rs, 1));
        }
        Path png = dir.resolve("fig7.png");
        Charts.throughputOverTime(runs, png);
        assertTrue(checkPng(png) > 50);

        Map<String, List<RunResult>> byContender = new LinkedHashMap<>();
        byContender.put("NVC", List.of(runs.get(0), runs.get(2), runs.get(4)));
        byContender.put("none", List.of(new RunResult("bank", "none", Map.of(), 3, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0,
                0, List.of())));
        Map<String, double[][]> series = Charts.timelines(byContender);
        assertEquals(List.of("NVC"), new ArrayList<>(series.keySet()), "a contender without samples has no line");
        double[][] nvc = series.get("NVC");
        assertArrayEquals(new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, nvc[0]);
        assertEquals(10_000, nvc[1][0]);
        assertEquals(100, nvc[1][5]);
        assertEquals(10_000, nvc[1][14]);
    }

    @Test
    void protocolMixOverTimeWritesAPng() throws Exception {
        List<RunResult.Second> timeline = new ArrayList<>();
        for (int s = 1; s <= 30; s++) {
            timeline.add(new RunResult.Second(s, 200, s < 10 ? 800 : 100, s < 20 ? 0 : 500, s < 20 ? 0 : 100));
        }
        RunResult r = new RunResult("bank", "ucb", params("readSet", "1000"), 30, 30_000, 6_000, 1, 1, 1, 10, 20,
                30, 100, 10, 1, timeline);
        Path png = dir.resolve("mix.png");
        Charts.protocolMixOverTime(r, png);
        assertTrue(checkPng(png) > 1_000, "the NVC layer is filled");
    }

    @Test
    void badInputIsRejectedWithAMessageNamingTheProblem() {
        Path png = dir.resolve("bad.png");
        List<RunResult> noReadSet = List.of(run("stmbench7", "NVC", params("mix", "read"), 1, 10, 1));
        assertMessage("readSet", () -> Charts.throughputByReadSet(noReadSet, png));
        assertMessage("readSet", () -> Charts.latencyByReadSet(noReadSet, png));
        assertMessage("'mix'", () -> Charts.normalizedThroughput(Runs.readSetSweep(), "mix", png));
        assertMessage("no results", () -> Charts.throughputByReadSet(List.of(), png));
        assertMessage("not a number", () -> Charts.throughputByReadSet(
                List.of(run("bank", "NVC", params("readSet", "large"), 1, 10, 1)), png));
        assertMessage("differ in another setting", () -> Charts.throughputByReadSet(List.of(
                run("bank", "NVC", params("readSet", "10", "replicas", "3"), 1, 10, 1),
                run("bank", "NVC", params("readSet", "10", "replicas", "5"), 1, 10, 1)), png));
        assertMessage("zero", () -> Charts.throughputByReadSet(
                List.of(run("bank", "NVC", params("readSet", "10"), 1, 0, 1)), png));
        assertMessage("p50", () -> Charts.latencyByReadSet(
                List.of(run("bank", "NVC", params("readSet", "10"), 1, 10, Double.NaN)), png));
        assertMessage("committed", () -> Charts.normalizedThroughput(
                List.of(run("bank", "NVC", params("readSet", "10"), 1, 0, 1)), "readSet", png));
        RunResult noTimeline = new RunResult("bank", "NVC", Map.of(), 1, 5, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0,
                List.of());
        assertMessage("timeline", () -> Charts.throughputOverTime(List.of(noTimeline), png));
        assertMessage("timeline", () -> Charts.protocolMixOverTime(noTimeline, png));
        assertTrue(Files.notExists(png), "nothing is written for bad input");
    }

    private static void assertMessage(String expected, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(expected), "message '" + e.getMessage() + "' lacks '" + expected + "'");
    }
}
