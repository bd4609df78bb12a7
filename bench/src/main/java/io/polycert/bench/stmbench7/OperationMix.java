package io.polycert.bench.stmbench7;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * How a client picks its next operation, with the original's weights ({@code Operations.generateCdf}): a
 * category's ratio (long traversals 5, short traversals 40, operations 45, structure modifications 10; 0 when
 * switched off) is normalized by {@code T + ST + OP + SM * update}, then split between the category's read-only
 * operations ({@code readOnly} share of the mix) and its update operations (the rest), evenly among the
 * operations of each kind. Structure modifications are update operations only.
 */
final class OperationMix {
    private final Sb7Op[] ops;
    private final double[] cdf;
    private final Map<Sb7Op, Double> probability = new EnumMap<>(Sb7Op.class);

    OperationMix(Sb7Mix mix, boolean longTraversals, boolean structureModifications) {
        double readOnly = mix.readOnlyPercent() / 100.0;
        double update = 1 - readOnly;
        Map<Sb7Op.Category, Double> ratio = new EnumMap<>(Sb7Op.Category.class);
        for (Sb7Op.Category c : Sb7Op.Category.values()) {
            boolean on = switch (c) {
                case LONG_TRAVERSAL -> longTraversals;
                case STRUCTURE_MODIFICATION -> structureModifications;
                default -> true;
            };
            ratio.put(c, on ? c.ratio / 100.0 : 0.0);
        }
        double sum = ratio.get(Sb7Op.Category.LONG_TRAVERSAL) + ratio.get(Sb7Op.Category.SHORT_TRAVERSAL)
                + ratio.get(Sb7Op.Category.OPERATION) + ratio.get(Sb7Op.Category.STRUCTURE_MODIFICATION) * update;
        List<Sb7Op> chosen = new ArrayList<>();
        List<Double> weights = new ArrayList<>();
        for (Sb7Op op : Sb7Op.values()) {
            int alike = 0;
            for (Sb7Op other : Sb7Op.values()) {
                if (other.category == op.category && other.readOnly == op.readOnly) {
                    alike++;
                }
            }
            double p = ratio.get(op.category) / sum * (op.readOnly ? readOnly : update) / alike;
            probability.put(op, p);
            if (p > 0) {
                chosen.add(op);
                weights.add(p);
            }
        }
        ops = chosen.toArray(new Sb7Op[0]);
        cdf = new double[ops.length];
        double total = 0;
        for (int i = 0; i < ops.length; i++) {
            total += weights.get(i);
            cdf[i] = total;
        }
        cdf[ops.length - 1] = 1.0; // as the original: rounding never leaves a gap at the end
    }

    Sb7Op choose(SplittableRandom random) {
        double r = random.nextDouble();
        int lo = 0;
        int hi = cdf.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cdf[mid] > r) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return ops[lo];
    }

    /** The chance that {@link #choose} picks {@code op} (0 if its category is off). */
    double probability(Sb7Op op) {
        return probability.get(op);
    }
}
