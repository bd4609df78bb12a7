package io.polycert.bench.stmbench7;

/**
 * The size of the STMBench7 structure and the seed it is populated from (same parameters, same structure).
 * Names follow STMBench7 v1.2's parameters: {@code NumAssmLevels}, {@code NumAssmPerAssm}, {@code NumCompPerAssm},
 * {@code NumCompPerModule} (one module), {@code NumAtomicPerComp}, {@code NumConnPerAtomic}, {@code DocumentSize},
 * {@code ManualSize}. The other constants of the original (date ranges, number of types, x/y range, the 5% of
 * head room for structure modifications) are fixed.
 *
 * @param numAssmLevels levels of the assembly tree, the base assemblies included (at least 2)
 * @param numAssmPerAssm children of each complex assembly
 * @param numCompPerAssm composite parts each base assembly uses at first
 * @param numCompParts composite parts in the design library (the module)
 * @param numAtomicPerComp atomic parts in each composite part
 * @param numConnPerAtomic random outgoing connections of each atomic part, besides the ring connection
 * @param documentSize characters of each composite part's document
 * @param manualSize characters of the module's manual
 * @param seed the seed populate draws the structure from
 */
public record Sb7Parameters(int numAssmLevels, int numAssmPerAssm, int numCompPerAssm, int numCompParts,
        int numAtomicPerComp, int numConnPerAtomic, int documentSize, int manualSize, long seed) {

    /** The seed of both presets. */
    public static final long DEFAULT_SEED = 7;

    // ---- STMBench7 v1.2's fixed constants ----------------------------------------------------------------
    static final int MIN_MODULE_DATE = 1000;
    static final int MAX_MODULE_DATE = 1999;
    static final int MIN_ASSM_DATE = 1000;
    static final int MAX_ASSM_DATE = 1999;
    static final int MIN_ATOMIC_DATE = 1000;
    static final int MAX_ATOMIC_DATE = 1999;
    static final int MIN_OLD_COMP_DATE = 0;
    static final int MAX_OLD_COMP_DATE = 999;
    static final int MIN_YOUNG_COMP_DATE = 2000;
    static final int MAX_YOUNG_COMP_DATE = 2999;
    /** Percentage of composite parts created "young". */
    static final int YOUNG_COMP_FRAC = 10;
    static final int NUM_TYPES = 10;
    static final int XY_RANGE = 100_000;
    /** Maximum number of objects of a kind relative to the initial number (the original's 1.05). */
    static final double MAX_TO_INITIAL_RATIO = 1.05;
    /** Not in the original: structure modifications never delete below this fraction of the initial number. */
    static final double MIN_TO_INITIAL_RATIO = 0.90;
    /** Not in the original: SM3 links no more components to a base assembly than this many times NumCompPerAssm. */
    static final int MAX_COMPONENTS_FACTOR = 2;

    // ---- limits that keep every commit message well under the 4 MiB limit --------------------------------
    static final int MAX_LEVELS = 20;
    static final long MAX_BASE_ASSEMBLIES = 1_000_000;
    static final long MAX_ATOMIC_PARTS = 20_000_000;
    static final int MAX_ATOMIC_PER_COMP = 10_000;
    static final int MAX_CONN_PER_ATOMIC = 100;
    static final int MAX_CONNECTIONS_PER_COMP = 200_000;
    static final int MAX_DOCUMENT_SIZE = 1_000_000;
    static final int MAX_MANUAL_SIZE = 2_000_000;

    public Sb7Parameters {
        if (numAssmLevels < 2 || numAssmLevels > MAX_LEVELS) {
            throw new IllegalArgumentException("numAssmLevels must be between 2 (a root complex assembly over base"
                    + " assemblies) and " + MAX_LEVELS + ", was " + numAssmLevels);
        }
        if (numAssmPerAssm < 1) {
            throw new IllegalArgumentException("numAssmPerAssm must be at least 1, was " + numAssmPerAssm);
        }
        if (numCompPerAssm < 1) {
            throw new IllegalArgumentException("numCompPerAssm must be at least 1, was " + numCompPerAssm);
        }
        if (numCompParts < 1) {
            throw new IllegalArgumentException("numCompParts must be at least 1, was " + numCompParts);
        }
        if (numAtomicPerComp < 1 || numAtomicPerComp > MAX_ATOMIC_PER_COMP) {
            throw new IllegalArgumentException("numAtomicPerComp must be between 1 and " + MAX_ATOMIC_PER_COMP
                    + ", was " + numAtomicPerComp);
        }
        if (numConnPerAtomic < 0 || numConnPerAtomic > MAX_CONN_PER_ATOMIC) {
            throw new IllegalArgumentException("numConnPerAtomic must be between 0 and " + MAX_CONN_PER_ATOMIC
                    + ", was " + numConnPerAtomic);
        }
        if ((long) numAtomicPerComp * (numConnPerAtomic + 1) > MAX_CONNECTIONS_PER_COMP) {
            throw new IllegalArgumentException("numAtomicPerComp * (numConnPerAtomic + 1) must be at most "
                    + MAX_CONNECTIONS_PER_COMP + " (one composite part is created in one commit), was "
                    + (long) numAtomicPerComp * (numConnPerAtomic + 1));
        }
        if (documentSize < 1 || documentSize > MAX_DOCUMENT_SIZE) {
            throw new IllegalArgumentException("documentSize must be between 1 and " + MAX_DOCUMENT_SIZE + ", was "
                    + documentSize);
        }
        if (manualSize < 1 || manualSize > MAX_MANUAL_SIZE) {
            throw new IllegalArgumentException("manualSize must be between 1 and " + MAX_MANUAL_SIZE
                    + " (OP11 rewrites the whole manual in one commit), was " + manualSize);
        }
        long base = 1;
        for (int i = 1; i < numAssmLevels; i++) {
            base *= numAssmPerAssm;
            if (base > MAX_BASE_ASSEMBLIES) {
                throw new IllegalArgumentException("numAssmPerAssm^(numAssmLevels - 1) base assemblies must be at"
                        + " most " + MAX_BASE_ASSEMBLIES + "; " + numAssmPerAssm + "^" + (numAssmLevels - 1)
                        + " is more");
            }
        }
        long atomic = (long) (numCompParts * MAX_TO_INITIAL_RATIO) * numAtomicPerComp;
        if (atomic > MAX_ATOMIC_PARTS) {
            throw new IllegalArgumentException("numCompParts * 1.05 * numAtomicPerComp (the most atomic parts) must be"
                    + " at most " + MAX_ATOMIC_PARTS + ", was " + atomic);
        }
    }

    /** STMBench7's default structure: 7 levels of 3, 500 composite parts of 200 atomic parts with 6 connections. */
    public static Sb7Parameters full() {
        return new Sb7Parameters(7, 3, 3, 500, 200, 6, 20_000, 1_000_000, DEFAULT_SEED);
    }

    /** A small structure for smoke tests: 4 levels of 3, 30 composite parts of 20 atomic parts with 3 connections. */
    public static Sb7Parameters small() {
        return new Sb7Parameters(4, 3, 3, 30, 20, 3, 1_000, 10_000, DEFAULT_SEED);
    }

    /** The preset called {@code name}: {@code full} or {@code small}. */
    public static Sb7Parameters preset(String name) {
        if ("full".equals(name)) {
            return full();
        }
        if ("small".equals(name)) {
            return small();
        }
        throw new IllegalArgumentException("unknown STMBench7 preset '" + name + "' (valid: full, small)");
    }

    /** The same structure from another seed. */
    public Sb7Parameters withSeed(long newSeed) {
        return new Sb7Parameters(numAssmLevels, numAssmPerAssm, numCompPerAssm, numCompParts, numAtomicPerComp,
                numConnPerAtomic, documentSize, manualSize, newSeed);
    }

    /** {@code full} or {@code small} if the sizes are a preset's (whatever the seed), else {@code custom}. */
    public String presetName() {
        if (withSeed(DEFAULT_SEED).equals(full())) {
            return "full";
        }
        if (withSeed(DEFAULT_SEED).equals(small())) {
            return "small";
        }
        return "custom";
    }

    // ---- derived sizes (as the original computes them) ---------------------------------------------------

    int initialBaseAssemblies() {
        int base = 1;
        for (int i = 1; i < numAssmLevels; i++) {
            base *= numAssmPerAssm;
        }
        return base;
    }

    int initialComplexAssemblies() {
        return complexAssembliesAtLevel(numAssmLevels);
    }

    /** Complex assemblies in a full subtree rooted at a complex assembly of {@code level} (at least 2). */
    int complexAssembliesAtLevel(int level) {
        int n = 0;
        int width = 1;
        for (int l = level; l >= 2; l--) {
            n += width;
            width *= numAssmPerAssm;
        }
        return n;
    }

    /** Base assemblies in a full subtree rooted at a complex assembly of {@code level} (at least 2). */
    int baseAssembliesAtLevel(int level) {
        int n = 1;
        for (int l = level; l >= 2; l--) {
            n *= numAssmPerAssm;
        }
        return n;
    }

    int maxCompParts() {
        return (int) (numCompParts * MAX_TO_INITIAL_RATIO);
    }

    int maxAtomicParts() {
        return maxCompParts() * numAtomicPerComp;
    }

    int maxBaseAssemblies() {
        return (int) (initialBaseAssemblies() * MAX_TO_INITIAL_RATIO);
    }

    int maxComplexAssemblies() {
        return (int) (initialComplexAssemblies() * MAX_TO_INITIAL_RATIO);
    }

    int minCompParts() {
        return Math.max(1, (int) (numCompParts * MIN_TO_INITIAL_RATIO));
    }

    int minBaseAssemblies() {
        return Math.max(1, (int) (initialBaseAssemblies() * MIN_TO_INITIAL_RATIO));
    }

    int minComplexAssemblies() {
        return Math.max(1, (int) (initialComplexAssemblies() * MIN_TO_INITIAL_RATIO));
    }

    int maxComponentsPerBase() {
        return MAX_COMPONENTS_FACTOR * numCompPerAssm;
    }

    /** Composite part {@code compositeId}'s atomic parts have the ids {@code first .. first + numAtomicPerComp - 1}. */
    int firstAtomicId(int compositeId) {
        return (compositeId - 1) * numAtomicPerComp + 1;
    }

    /** The composite part atomic part {@code atomicId} belongs to (whether it exists or not). */
    int compositeOfAtomic(int atomicId) {
        return (atomicId - 1) / numAtomicPerComp + 1;
    }

    /** What populate records in the root, so clients can refuse a structure built with other parameters. */
    long[] fingerprint() {
        return new long[] {numAssmLevels, numAssmPerAssm, numCompPerAssm, numCompParts, numAtomicPerComp,
            numConnPerAtomic, documentSize, manualSize, seed};
    }
}
