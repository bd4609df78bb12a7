package io.polycert.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CostModelOracleTest {
    private static final int WRITES = 2;
    private static final int VALUE_BYTES = 16;
    private static final int HEADER = 40;

    /** A synthetic system: the true cost of each step, from which the oracle's observations are made. */
    private static final class Synthetic {
        double abBaseNanos = 50_000;
        double abPerByte = 10;
        double[] marshalPerByte = {1, 1, 1};
        double nvcBytesPerRead = 2;
        double bfcBytesPerRead = 1.2;
        double nvcValidationPerRead = 20;
        double vcValidationPerRead = 20;
        double bfcValidation = 2_000;
        double bloomPerRead = 10;
        double voteNanos = 80_000;

        int bytes(Protocol p, int reads) {
            double payload = VALUE_BYTES + 9.0 * WRITES + HEADER;
            return (int) Math.round(payload + switch (p) {
                case NVC -> nvcBytesPerRead * reads;
                case BFC -> bfcBytesPerRead * reads;
                case VC -> 0;
            });
        }

        double cost(Protocol p, int reads) {
            int m = bytes(p, reads);
            double ab = abBaseNanos + abPerByte * m;
            return marshalPerByte[p.ordinal()] * m + ab + switch (p) {
                case NVC -> nvcValidationPerRead * (reads + 1);
                case BFC -> bfcValidation + bloomPerRead * reads;
                case VC -> vcValidationPerRead * (reads + 1) + voteNanos;
            };
        }

        Protocol best(int reads) {
            Protocol best = Protocol.NVC;
            for (Protocol p : Protocol.values()) {
                if (cost(p, reads) < cost(best, reads)) {
                    best = p;
                }
            }
            return best;
        }

        CommitTimings observation(Protocol p, int reads) {
            int m = bytes(p, reads);
            return new CommitTimings(p, new TransactionProfile(reads, WRITES, VALUE_BYTES), -1, m,
                    Math.round(marshalPerByte[p.ordinal()] * m),
                    p == Protocol.BFC ? Math.round(bloomPerRead * reads) : -1,
                    Math.round(switch (p) {
                        case NVC -> nvcValidationPerRead * (reads + 1);
                        case BFC -> bfcValidation;
                        case VC -> vcValidationPerRead * (reads + 1);
                    }),
                    Math.round(abBaseNanos + abPerByte * m), p == Protocol.VC ? Math.round(voteNanos) : -1);
        }

        /** The read-set sizes where the best protocol changes. */
        List<Integer> crossovers(int upTo) {
            List<Integer> at = new ArrayList<>();
            for (int r = 1; r < upTo; r++) {
                if (best(r) != best(r - 1)) {
                    at.add(r);
                }
            }
            return at;
        }
    }

    private static void train(CostModelOracle oracle, Synthetic system) {
        train(oracle, system, true);
    }

    private static void train(CostModelOracle oracle, Synthetic system, boolean broadcastMeasured) {
        SplittableRandom random = new SplittableRandom(1);
        for (int bucket = 0; bucket < 6; bucket++) {
            int lo = (int) Math.pow(10, bucket);
            for (int i = 0; i < 60; i++) {
                int reads = lo + random.nextInt(9 * lo);
                for (Protocol p : Protocol.values()) {
                    CommitTimings t = system.observation(p, reads);
                    oracle.observe(broadcastMeasured ? t : new CommitTimings(t.protocol(), t.profile(), -1,
                            t.messageBytes(), t.marshalNanos(), t.bloomBuildNanos(), t.validationNanos(), -1,
                            t.voteNanos()));
                }
            }
        }
    }

    @Test
    void picksTheCheapestProtocolOnBothSidesOfEveryCrossover() {
        Synthetic system = new Synthetic();
        CostModelOracle oracle = CostModelOracle.builder().build();
        train(oracle, system);
        List<Integer> crossovers = system.crossovers(1_000_000);
        assertEquals(2, crossovers.size(), "the synthetic system has NVC, then BFC, then VC: " + crossovers);
        for (int at : crossovers) {
            for (int reads : new int[] {(int) (at * 0.85), (int) (at * 1.15)}) {
                Protocol chosen = oracle.choose(new TransactionProfile(reads, WRITES, VALUE_BYTES));
                assertEquals(system.best(reads), chosen, "at " + reads + " reads (crossover " + at + "): true "
                        + system.cost(Protocol.NVC, reads) + "/" + system.cost(Protocol.BFC, reads) + "/"
                        + system.cost(Protocol.VC, reads) + ", " + oracle.describe(new TransactionProfile(reads,
                        WRITES, VALUE_BYTES)));
            }
        }
    }

    /** A model tree of the system's broadcast latency against message size, trained on exact samples. */
    private static ModelTree broadcastModel(Synthetic system) {
        TrainingData.Builder data = TrainingData.builder(TrainingCollector.TARGET, List.of(TrainingCollector.SIZE));
        for (int size = 50; size < 200_000; size += 97) {
            data.add((system.abBaseNanos + system.abPerByte * size) / 1000, size);
        }
        return ModelTreeTrainer.builder().build().train(data.build());
    }

    @Test
    void aModelForTheBroadcastLatencyMovesTheCrossover() {
        Synthetic system = new Synthetic();
        // A network where every byte is dear: a model that knows it must favour VC much earlier.
        system.abPerByte = 400;
        ModelTree model = broadcastModel(system);
        // Broadcast latencies are not observed here: only the model knows what bytes cost.
        CostModelOracle oracle = CostModelOracle.builder().model(model).build();
        CostModelOracle blind = CostModelOracle.builder().build();
        train(oracle, system, false);
        train(blind, system, false);
        List<Integer> crossovers = system.crossovers(1_000_000);
        int vcFrom = crossovers.get(crossovers.size() - 1);
        assertEquals(Protocol.VC, system.best(vcFrom));
        TransactionProfile above = new TransactionProfile((int) (vcFrom * 1.3), WRITES, VALUE_BYTES);
        assertEquals(Protocol.VC, oracle.choose(above));
        assertTrue(blind.choose(above) != Protocol.VC, "without the model the bytes look free");
        assertTrue(oracle.choose(new TransactionProfile((int) (vcFrom * 0.7), WRITES, VALUE_BYTES)) != Protocol.VC);
    }

    @Test
    void aModelThatCrossValidatedPoorlyIsNotUsedUnlessAllowed() {
        Synthetic system = new Synthetic();
        system.abPerByte = 400;
        // The same informative tree as above, labelled as its training would label a tree that fits noise.
        ModelTree model = broadcastModel(system).withCrossValidatedCorrelation(0.1);
        CostModelOracle ignoring = CostModelOracle.builder().model(model).build();
        CostModelOracle allowed = CostModelOracle.builder().model(model).minModelCorrelation(0.05).build();
        train(ignoring, system, false);
        train(allowed, system, false);
        List<Integer> crossovers = system.crossovers(1_000_000);
        TransactionProfile above = new TransactionProfile((int) (crossovers.get(crossovers.size() - 1) * 1.3), WRITES,
                VALUE_BYTES);
        assertTrue(ignoring.choose(above) != Protocol.VC, "a model under the minimum must not be used");
        assertFalse(ignoring.usesModel());
        assertTrue(allowed.usesModel());
        assertTrue(ignoring.toString().contains("not used: cross-validated correlation 0.100"), ignoring.toString());
        assertEquals(Protocol.VC, allowed.choose(above));
        assertThrows(IllegalArgumentException.class, () -> CostModelOracle.builder().minModelCorrelation(1.5));
    }

    @Test
    void aModelBlindToSizeStillPaysForBytes() {
        Synthetic system = new Synthetic();
        system.abPerByte = 400; // bytes are dear on this network
        // A model trained where size told nothing: constant latency, one load feature
        TrainingData.Builder data = TrainingData.builder(TrainingCollector.TARGET, List.of("undelivMsgs"));
        for (int i = 0; i < 200; i++) {
            data.add(system.abBaseNanos / 1000, i % 7);
        }
        ModelTree model = ModelTreeTrainer.builder().build().train(data.build());
        CostModelOracle oracle = CostModelOracle.builder().model(model).build();
        oracle.attach(new MonitoringTest.FakeGroup()); // the model reads a monitored feature
        try {
            assertTrue(oracle.monitoring());
            train(oracle, system); // the observed broadcasts show what bytes cost
            int vcFrom = system.crossovers(1_000_000).get(system.crossovers(1_000_000).size() - 1);
            TransactionProfile above = new TransactionProfile((int) (vcFrom * 1.3), WRITES, VALUE_BYTES);
            assertEquals(Protocol.VC, oracle.choose(above), oracle.describe(above));
        } finally {
            oracle.close();
        }
    }

    @Test
    void noMonitorSamplesWhenNothingReadsIt() {
        CostModelOracle online = CostModelOracle.builder().build();
        online.attach(new MonitoringTest.FakeGroup());
        assertFalse(online.monitoring(), "no model, no training file: no sampling thread");
        online.close();
    }

    @Test
    void aProtocolThatAbortsMoreCostsMorePerCommit() {
        Synthetic system = new Synthetic();
        CostModelOracle oracle = CostModelOracle.builder().build();
        train(oracle, system);
        int reads = 50; // NVC is cheapest per attempt here
        TransactionProfile profile = new TransactionProfile(reads, WRITES, VALUE_BYTES);
        assertEquals(Protocol.NVC, system.best(reads));
        assertEquals(Protocol.NVC, oracle.choose(profile));
        for (int i = 0; i < 500; i++) { // but half its attempts abort, BFC's do not
            oracle.record(Protocol.NVC, profile, 1, i % 2 == 0 ? Outcome.CONFLICT : Outcome.COMMITTED);
            oracle.record(Protocol.BFC, profile, 1, Outcome.COMMITTED);
        }
        assertEquals(Protocol.BFC, oracle.choose(profile), oracle.describe(profile));
    }

    @Test
    void triesEveryProtocolBeforeTrustingItsEstimates() {
        CostModelOracle oracle = CostModelOracle.builder().build();
        Synthetic system = new Synthetic();
        List<Protocol> tried = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            Protocol p = oracle.choose(new TransactionProfile(5, WRITES, VALUE_BYTES));
            tried.add(p);
            oracle.observe(system.observation(p, 5));
        }
        for (Protocol p : Protocol.values()) {
            assertEquals(5, tried.stream().filter(p::equals).count(), "tried " + tried);
        }
    }

    @Test
    void refusesAModelThatNeedsAFeatureNobodyMeasures() {
        TrainingData.Builder data = TrainingData.builder(TrainingCollector.TARGET, List.of("cosmicRays"));
        for (int i = 0; i < 50; i++) {
            data.add(i, i);
        }
        ModelTree model = ModelTreeTrainer.builder().build().train(data.build());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CostModelOracle.builder().model(model).build());
        assertTrue(e.getMessage().contains("cosmicRays"), e.getMessage());
    }
}
