package io.polycert.oracle;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The off-line trainer: reads the samples collected on-line, reports cross-validated accuracy with all features and
 * after forward feature selection, trains the final model tree on every row with the selected features and saves
 * it as JSON for the decision-tree oracle.
 *
 * <pre>java io.polycert.oracle.TrainModel --data samples.csv --out model.json [--folds 10] [--no-selection]
 *     [--min-leaf N]</pre>
 */
public final class TrainModel {
    static final String USAGE = "usage: TrainModel --data samples.csv --out model.json [--folds 10] [--no-selection]"
            + " [--min-leaf N] [--keep feature,feature]";
    private static final long SEED = 42;

    private TrainModel() {
    }

    public static void main(String[] args) {
        int exitCode = run(args, System.out, System.err);
        if (exitCode != 0) {
            System.exit(exitCode);
        }
    }

    /** @return 0 on success, 1 if the data cannot be read or the model not saved, 2 on bad arguments */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        Path data = null;
        Path model = null;
        int folds = 10;
        boolean selection = true;
        List<String> keep = List.of();
        ModelTreeTrainer.Builder trainerSettings = ModelTreeTrainer.builder();
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--data" -> data = Path.of(value(args, ++i));
                    case "--out" -> model = Path.of(value(args, ++i));
                    case "--folds" -> folds = positive(args, ++i, 2);
                    case "--min-leaf" -> trainerSettings.minLeafSize(positive(args, ++i, 1));
                    case "--no-selection" -> selection = false;
                    case "--keep" -> keep = List.of(value(args, ++i).split(","));
                    default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'");
                }
            }
            if (data == null || model == null) {
                throw new IllegalArgumentException("--data and --out are required");
            }
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println(USAGE);
            return 2;
        }
        try {
            train(data, model, folds, selection, keep, trainerSettings.build(), out);
            return 0;
        } catch (IOException | IllegalArgumentException e) {
            err.println("training failed: " + e.getMessage());
            return 1;
        }
    }

    private static void train(Path dataFile, Path modelFile, int folds, boolean selection, List<String> keep,
            ModelTreeTrainer trainer, PrintStream out) throws IOException {
        TrainingData data = TrainingData.readCsv(dataFile);
        if (data.size() < 2) {
            throw new IllegalArgumentException(dataFile + ": need at least 2 samples, found " + data.size());
        }
        out.printf(Locale.ROOT, "%d samples of %s with %d features, %s%n", data.size(), data.targetName(),
                data.featureCount(), trainer);
        int effectiveFolds = Math.min(folds, data.size());
        ModelEvaluation evaluation = new ModelEvaluation(trainer, effectiveFolds, SEED);
        ModelEvaluation.Scores scores = evaluation.crossValidate(data);
        out.printf(Locale.ROOT, "all %d features, %d-fold cross-validation: %s%n", data.featureCount(),
                effectiveFolds, scores);
        TrainingData chosen = data;
        if (selection) {
            ModelEvaluation.Selection result = evaluation.forwardSelection(data,
                    ModelEvaluation.DEFAULT_MIN_IMPROVEMENT, keep);
            out.printf(Locale.ROOT, "forward selection kept %d of %d features: %s%n", result.features().size(),
                    data.featureCount(), String.join(", ", result.features()));
            out.printf(Locale.ROOT, "selected features, %d-fold cross-validation: %s%n", effectiveFolds,
                    result.selected());
            chosen = data.selectFeatures(result.features());
            scores = result.selected();
        }
        // The score travels with the model, so the oracle can tell a tree that forecasts from one that fits noise.
        ModelTree tree = trainer.train(chosen).withCrossValidatedCorrelation(scores.correlation());
        tree.save(modelFile);
        out.printf(Locale.ROOT, "saved a tree of %d nodes (%d leaves) over %d features to %s%n", tree.nodeCount(),
                tree.leafCount(), tree.featureCount(), modelFile);
        if (scores.correlation() < CostModelOracle.DEFAULT_MIN_MODEL_CORRELATION) {
            out.printf(Locale.ROOT, "warning: its cross-validated correlation %.3f is under %.2f, so the decision-tree"
                    + " oracle will not use it (it fits broadcast latency on-line instead) unless its"
                    + " minModelCorrelation is lowered%n", scores.correlation(),
                    CostModelOracle.DEFAULT_MIN_MODEL_CORRELATION);
        }
    }

    private static String value(String[] args, int i) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    private static int positive(String[] args, int i, int min) {
        String text = value(args, i);
        try {
            int n = Integer.parseInt(text);
            if (n >= min) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(args[i - 1] + " needs an integer of at least " + min + ", got '" + text
                + "'");
    }
}
