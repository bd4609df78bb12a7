package io.polycert.oracle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** DistUCB's merge is idempotent: repeats, reordering and echoes change nothing. */
class DistUcbMergePropertiesTest {

    @Property(tries = 50)
    void repeatedReorderedAndEchoedGossipEqualsTheLatestOfEachReplica(@ForAll @IntRange(min = 1, max = 4) int replicas,
            @ForAll @IntRange(min = 1, max = 6) int rounds, @ForAll long seed) {
        AtomicLong now = new AtomicLong();
        List<UcbOracle> others = new ArrayList<>();
        for (int i = 0; i < replicas; i++) {
            others.add(UcbOracleTest.gossipingDistUcb().bootstrap(2, 2).clock(now::get).build());
        }
        UcbOracle receiver = UcbOracleTest.gossipingDistUcb().bootstrap(2, 2).clock(now::get).build();
        UcbOracle reference = UcbOracleTest.gossipingDistUcb().bootstrap(2, 2).clock(now::get).build();
        Random random = new Random(seed);
        // Both learn the same locally (before any gossip, which would steer their choices apart).
        new SimulatedBandit(seed, 0.4, 150, 120, 240).play(receiver, 3, 50);
        new SimulatedBandit(seed, 0.4, 150, 120, 240).play(reference, 3, 50);
        List<byte[]> all = new ArrayList<>();
        List<byte[]> latest = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            latest.clear();
            for (int i = 0; i < replicas; i++) {
                SimulatedBandit bandit = new SimulatedBandit(random.nextLong(), 0.4, 150, 120, 240);
                bandit.play(others.get(i), random.nextInt(3) == 0 ? 5_000 : 3, 20 + random.nextInt(200));
            }
            now.addAndGet(10_000_000_001L);
            for (UcbOracle o : others) {
                byte[] g = o.gossipToSend();
                all.add(g);
                latest.add(g);
            }
            receiver.gossipReceived(all.get(random.nextInt(all.size()))); // some arrive early, some twice
        }
        // the receiver's own statistics, echoed back to it
        now.addAndGet(10_000_000_001L);
        byte[] echo = receiver.gossipToSend();
        reference.gossipToSend();
        List<byte[]> shuffled = new ArrayList<>(all);
        shuffled.addAll(all);
        shuffled.add(echo);
        Collections.shuffle(shuffled, random);
        shuffled.forEach(receiver::gossipReceived);
        latest.forEach(reference::gossipReceived);
        for (int readSet : new int[] {3, 5_000}) {
            assertArrayEquals(reference.mergedStatistics(readSet), receiver.mergedStatistics(readSet), 1e-9);
        }
    }
}
