package io.polycert.bench.stmbench7;

import io.polycert.bench.stmbench7.Model.AtomicPart;
import io.polycert.bench.stmbench7.Model.AtomicState;
import io.polycert.bench.stmbench7.Model.BaseAssembly;
import io.polycert.bench.stmbench7.Model.ComplexAssembly;
import io.polycert.bench.stmbench7.Model.CompositePart;
import io.polycert.bench.stmbench7.Model.Document;
import io.polycert.bench.stmbench7.Model.Root;
import io.polycert.core.Stm;
import io.polycert.core.VBox;
import io.polycert.kvstore.Replica;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The STMBench7 structure as one replica sees it: the id indexes resolved to flat arrays of boxes (they never
 * change after populate, so they are read once), plus the routines that keep the indexes in step with the
 * structure. Everything here except {@link #attach} runs inside a transaction of {@link #stm}.
 *
 * <p>The indexes of the original are maps; here ids are dense ({@code 1..max}), so an index is an array with a
 * box per id, holding the object or null: looking up or changing one object touches only its own box, and only
 * structure modifications write index boxes. The document title index hashes titles into buckets (a box each,
 * holding a small array); the atomic part build-date index has a box per build date holding the ids of the parts
 * with that date. The id pools (one box per kind, holding the sorted free ids) are written by every structure
 * modification that creates or deletes, like the original's id pools.
 */
final class Structure {
    static final String ROOT_NAME = "stmbench7";

    final Sb7Parameters p;
    final Stm stm;
    final int moduleId;
    final int moduleType;
    final int moduleBuildDate;
    final int designRootId;
    final int manualId;
    final String manualTitle;
    final VBox<String> manualText;
    final int dateBase;
    final VBox<ComplexAssembly>[] complexById;
    final VBox<BaseAssembly>[] baseById;
    final VBox<CompositePart>[] compositeById;
    final VBox<AtomicPart>[] atomicById;
    final VBox<Document[]>[] titleBuckets;
    final VBox<int[]>[] dateIndex;
    final VBox<int[]> freeComplexIds;
    final VBox<int[]> freeBaseIds;
    final VBox<int[]> freeCompositeIds;

    @SuppressWarnings("unchecked")
    Structure(Sb7Parameters p, Stm stm, Root root, VBox<?>[] complexById, VBox<?>[] baseById,
            VBox<?>[] compositeById, VBox<?>[] atomicById, VBox<?>[] titleBuckets, VBox<?>[] dateIndex) {
        this.p = p;
        this.stm = stm;
        this.moduleId = root.moduleId;
        this.moduleType = root.moduleType;
        this.moduleBuildDate = root.moduleBuildDate;
        this.designRootId = root.designRootId;
        this.manualId = root.manualId;
        this.manualTitle = root.manualTitle;
        this.manualText = root.manualText;
        this.dateBase = root.dateBase;
        this.complexById = (VBox<ComplexAssembly>[]) complexById;
        this.baseById = (VBox<BaseAssembly>[]) baseById;
        this.compositeById = (VBox<CompositePart>[]) compositeById;
        this.atomicById = (VBox<AtomicPart>[]) atomicById;
        this.titleBuckets = (VBox<Document[]>[]) titleBuckets;
        this.dateIndex = (VBox<int[]>[]) dateIndex;
        this.freeComplexIds = root.freeComplexIds;
        this.freeBaseIds = root.freeBaseIds;
        this.freeCompositeIds = root.freeCompositeIds;
    }

    /** Index sizes (id 0 unused). */
    static int complexIndexSize(Sb7Parameters p) {
        return p.maxComplexAssemblies() + 1;
    }

    static int baseIndexSize(Sb7Parameters p) {
        return p.maxBaseAssemblies() + 1;
    }

    static int compositeIndexSize(Sb7Parameters p) {
        return p.maxCompParts() + 1;
    }

    static int atomicIndexSize(Sb7Parameters p) {
        return p.maxAtomicParts() + 1;
    }

    static int titleBucketCount(Sb7Parameters p) {
        return p.maxCompParts();
    }

    /** Atomic build dates stay within one of the original range: updateBuildDate moves them by one. */
    static int dateIndexBase() {
        return Sb7Parameters.MIN_ATOMIC_DATE - 1;
    }

    static int dateIndexSize() {
        return Sb7Parameters.MAX_ATOMIC_DATE - Sb7Parameters.MIN_ATOMIC_DATE + 3;
    }

    /**
     * The structure populate committed, as {@code replica} has applied it.
     *
     * @throws IllegalStateException if nothing was populated yet, or with other parameters
     */
    static Structure attach(Replica replica, Sb7Parameters p) {
        VBox<Root> rootBox = replica.root(ROOT_NAME);
        Stm stm = replica.stm();
        return stm.readOnly(() -> {
            Root root = rootBox.get();
            if (root == null) {
                throw new IllegalStateException("STMBench7 is not populated at " + replica
                        + " (run populate at one replica, and wait until this one applied it)");
            }
            if (!Arrays.equals(root.fingerprint, p.fingerprint())) {
                throw new IllegalStateException("STMBench7 at " + replica + " was populated with parameters "
                        + Arrays.toString(root.fingerprint) + ", not " + Arrays.toString(p.fingerprint())
                        + " (levels, assemblies per assembly, components per assembly, composite parts, atomic parts,"
                        + " connections, document size, manual size, seed)");
            }
            return new Structure(p, stm, root, flatten(root.complexIndex, complexIndexSize(p)),
                    flatten(root.baseIndex, baseIndexSize(p)), flatten(root.compositeIndex, compositeIndexSize(p)),
                    flatten(root.atomicIndex, atomicIndexSize(p)), flatten(root.titleIndex, titleBucketCount(p)),
                    flatten(root.dateIndex, dateIndexSize()));
        });
    }

    /** Joins an index's chunks (each chunk box holds an array of boxes). */
    private static VBox<?>[] flatten(VBox<?>[] chunkBoxes, int size) {
        VBox<?>[] all = new VBox<?>[size];
        int at = 0;
        for (VBox<?> chunkBox : chunkBoxes) {
            VBox<?>[] chunk = (VBox<?>[]) chunkBox.get();
            if (at + chunk.length > size) {
                throw new IllegalStateException("an index holds more than the " + size + " boxes expected");
            }
            System.arraycopy(chunk, 0, all, at, chunk.length);
            at += chunk.length;
        }
        if (at != size) {
            throw new IllegalStateException("an index holds " + at + " boxes, not the " + size + " expected");
        }
        return all;
    }

    // ---- lookups -----------------------------------------------------------------------------------------

    /** The complex assembly with this id, or null (also for ids out of range). */
    ComplexAssembly complex(int id) {
        return id >= 1 && id < complexById.length ? complexById[id].get() : null;
    }

    BaseAssembly base(int id) {
        return id >= 1 && id < baseById.length ? baseById[id].get() : null;
    }

    CompositePart composite(int id) {
        return id >= 1 && id < compositeById.length ? compositeById[id].get() : null;
    }

    AtomicPart atomic(int id) {
        return id >= 1 && id < atomicById.length ? atomicById[id].get() : null;
    }

    /** Like {@link #complex} for an id the structure refers to: its absence means the structure is broken. */
    ComplexAssembly requireComplex(int id, String referrerKind, int referrerId) {
        ComplexAssembly c = complex(id);
        if (c == null) {
            throw missing("complex assembly", id, referrerKind, referrerId);
        }
        return c;
    }

    BaseAssembly requireBase(int id, String referrerKind, int referrerId) {
        BaseAssembly b = base(id);
        if (b == null) {
            throw missing("base assembly", id, referrerKind, referrerId);
        }
        return b;
    }

    CompositePart requireComposite(int id, String referrerKind, int referrerId) {
        CompositePart c = composite(id);
        if (c == null) {
            throw missing("composite part", id, referrerKind, referrerId);
        }
        return c;
    }

    AtomicPart requireAtomic(int id, String referrerKind, int referrerId) {
        AtomicPart a = atomic(id);
        if (a == null) {
            throw missing("atomic part", id, referrerKind, referrerId);
        }
        return a;
    }

    private static IllegalStateException missing(String kind, int id, String referrerKind, int referrerId) {
        return new IllegalStateException(referrerKind + " " + referrerId + " refers to " + kind + " " + id
                + ", which does not exist");
    }

    ComplexAssembly designRoot() {
        return requireComplex(designRootId, "module", moduleId);
    }

    static String documentTitle(int compositeId) {
        return "Composite Part #" + compositeId;
    }

    int titleBucket(String title) {
        return Math.floorMod(title.hashCode(), titleBuckets.length);
    }

    /** The document titled {@code title}, through the title index, or null. */
    Document documentByTitle(String title) {
        for (Document d : titleBuckets[titleBucket(title)].get()) {
            if (d.title.equals(title)) {
                return d;
            }
        }
        return null;
    }

    VBox<int[]> dateSet(int date) {
        int i = date - dateBase;
        if (i < 0 || i >= dateIndex.length) {
            throw new IllegalStateException("build date " + date + " is outside the build-date index ["
                    + dateBase + ", " + (dateBase + dateIndex.length - 1) + "]");
        }
        return dateIndex[i];
    }

    /** Live objects of a kind: the most there may be, less the free ids. */
    static int live(VBox<int[]> freeIds, int max) {
        return max - freeIds.get().length;
    }

    // ---- small copy-on-write helpers ---------------------------------------------------------------------

    static int[] append(int[] a, int v) {
        int[] b = Arrays.copyOf(a, a.length + 1);
        b[a.length] = v;
        return b;
    }

    static int[] removeAt(int[] a, int i) {
        int[] b = new int[a.length - 1];
        System.arraycopy(a, 0, b, 0, i);
        System.arraycopy(a, i + 1, b, i, a.length - i - 1);
        return b;
    }

    static int indexOf(int[] a, int v) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == v) {
                return i;
            }
        }
        return -1;
    }

    /** {@code a} without its first {@code v} ({@code a} itself if there is none). */
    static int[] removeFirst(int[] a, int v) {
        int i = indexOf(a, v);
        return i < 0 ? a : removeAt(a, i);
    }

    /** {@code a} without any {@code v}. */
    static int[] removeAll(int[] a, int v) {
        int n = 0;
        for (int x : a) {
            if (x != v) {
                n++;
            }
        }
        if (n == a.length) {
            return a;
        }
        int[] b = new int[n];
        int j = 0;
        for (int x : a) {
            if (x != v) {
                b[j++] = x;
            }
        }
        return b;
    }

    /** The distinct values of {@code a}, in first-occurrence order. */
    static int[] distinct(int[] a) {
        int[] out = new int[a.length];
        int n = 0;
        for (int x : a) {
            boolean seen = false;
            for (int i = 0; i < n && !seen; i++) {
                seen = out[i] == x;
            }
            if (!seen) {
                out[n++] = x;
            }
        }
        return Arrays.copyOf(out, n);
    }

    /** Takes the smallest free id of a pool, or returns -1 if it is empty (the original's pool is exhausted). */
    static int takeId(VBox<int[]> pool) {
        int[] free = pool.get();
        if (free.length == 0) {
            return -1;
        }
        pool.put(Arrays.copyOfRange(free, 1, free.length));
        return free[0];
    }

    /** Takes the {@code n} smallest free ids, or returns null (taking none) if there are fewer. */
    static int[] takeIds(VBox<int[]> pool, int n) {
        int[] free = pool.get();
        if (free.length < n) {
            return null;
        }
        pool.put(Arrays.copyOfRange(free, n, free.length));
        return Arrays.copyOf(free, n);
    }

    static void returnId(VBox<int[]> pool, int id) {
        int[] free = pool.get();
        int at = Arrays.binarySearch(free, id);
        if (at >= 0) {
            throw new IllegalStateException("id " + id + " returned to its pool twice");
        }
        at = -at - 1;
        int[] b = new int[free.length + 1];
        System.arraycopy(free, 0, b, 0, at);
        b[at] = id;
        System.arraycopy(free, at, b, at + 1, free.length - at);
        pool.put(b);
    }

    // ---- atomic parts ------------------------------------------------------------------------------------

    void addToDateIndex(int atomicId, int date) {
        VBox<int[]> set = dateSet(date);
        set.put(append(set.get(), atomicId));
    }

    void removeFromDateIndex(int atomicId, int date) {
        VBox<int[]> set = dateSet(date);
        int[] ids = set.get();
        int[] without = removeFirst(ids, atomicId);
        if (without == ids) {
            throw new IllegalStateException("atomic part " + atomicId + " is missing from the build-date index at "
                    + date);
        }
        set.put(without);
    }

    /** The original's {@code DesignObj.updateBuildDate}: an even date goes down by one, an odd one up. */
    static int nextBuildDate(int date) {
        return date % 2 == 0 ? date - 1 : date + 1;
    }

    /** Swaps an atomic part's x and y (the original's {@code swapXY}). */
    static void swapXY(AtomicPart a) {
        a.state.put(a.state.get().swapXY());
    }

    /**
     * Updates an atomic part's build date; its move in the build-date index waits in {@code moves} until the
     * operation {@linkplain DateMoves#apply applies} them.
     */
    void updateBuildDate(AtomicPart a, DateMoves moves) {
        AtomicState s = a.state.get();
        int date = nextBuildDate(s.buildDate());
        a.state.put(s.withBuildDate(date));
        moves.moved(a.id, s.buildDate(), date);
    }

    /**
     * The build-date moves of one operation, applied to the index together at its end. Moving each part at once,
     * as the original does, rewrote a date's array of about 100 ids twice per part: a long traversal that updates
     * every part's date (T3b, T3c) copied some 10^8 ints and spent most of its time there, where the original's
     * index (a tree set per date) costs a few boxes per move. At the end, each date touched is rewritten once, and a
     * part moved back to where it started (T3c moves each four times) is not moved at all. The index holds the
     * same ids per date either way; only their order within a date differs, which no operation reads (the checker's
     * digest does, alike at every replica: they apply the same write-sets). One per client: not thread-safe.
     */
    static final class DateMoves {
        /** Per atomic id, its date before the operation's first move (valid while {@link #touched}). */
        private final int[] firstFrom;
        private final int[] latestTo;
        private final boolean[] touched;
        private int[] ids = new int[64];
        private int count;

        DateMoves(int maxAtomicId) {
            firstFrom = new int[maxAtomicId + 1];
            latestTo = new int[maxAtomicId + 1];
            touched = new boolean[maxAtomicId + 1];
        }

        void moved(int id, int from, int to) {
            if (!touched[id]) {
                touched[id] = true;
                firstFrom[id] = from;
                if (count == ids.length) {
                    ids = Arrays.copyOf(ids, 2 * count);
                }
                ids[count++] = id;
            }
            latestTo[id] = to;
        }

        /** Forgets the moves (a new attempt of the operation starts from the committed index). */
        void clear() {
            for (int i = 0; i < count; i++) {
                touched[ids[i]] = false;
            }
            count = 0;
        }

        /** Applies the net moves to {@code s}'s index, one rewrite per date touched, and forgets them. */
        void apply(Structure s) {
            try {
                if (count > 0) {
                    rewrite(s);
                }
            } finally {
                clear();
            }
        }

        private void rewrite(Structure s) {
            int dates = s.dateIndex.length;
            int[] leaving = new int[dates];
            int[] arrivingEnd = new int[dates + 1];
            int moving = 0;
            for (int i = 0; i < count; i++) {
                int id = ids[i];
                if (firstFrom[id] != latestTo[id]) {
                    s.dateSet(firstFrom[id]); // bounds: a clear exception for a date outside the index
                    s.dateSet(latestTo[id]);
                    leaving[firstFrom[id] - s.dateBase]++;
                    arrivingEnd[latestTo[id] - s.dateBase + 1]++;
                    moving++;
                }
            }
            if (moving == 0) {
                return;
            }
            for (int d = 0; d < dates; d++) {
                arrivingEnd[d + 1] += arrivingEnd[d]; // a counting sort by date: date d's arrivals end here
            }
            int[] arriving = new int[moving];
            int[] next = Arrays.copyOf(arrivingEnd, dates); // where date d's next arrival goes: its start at first
            for (int i = 0; i < count; i++) {
                int id = ids[i];
                if (firstFrom[id] != latestTo[id]) {
                    arriving[next[latestTo[id] - s.dateBase]++] = id;
                }
            }
            for (int d = 0; d < dates; d++) {
                int arrivals = arrivingEnd[d + 1] - arrivingEnd[d];
                if (leaving[d] == 0 && arrivals == 0) {
                    continue;
                }
                int date = s.dateBase + d;
                VBox<int[]> set = s.dateIndex[d];
                int[] before = set.get();
                int[] after = new int[Math.max(0, before.length - leaving[d]) + arrivals];
                int n = 0;
                int found = 0;
                for (int id : before) {
                    if (id > 0 && id < touched.length && touched[id] && firstFrom[id] == date
                            && latestTo[id] != date) {
                        found++;
                    } else if (n < after.length - arrivals) {
                        after[n++] = id;
                    }
                }
                if (found != leaving[d]) {
                    throw new IllegalStateException((leaving[d] - found) + " atomic part(s) moving from build date "
                            + date + " are missing from its index entry");
                }
                System.arraycopy(arriving, arrivingEnd[d], after, n, arrivals);
                set.put(after);
            }
        }
    }

    // ---- composite parts ---------------------------------------------------------------------------------

    /** The random content of a composite part, drawn outside the transaction that creates it. */
    record CompositeBlueprint(int type, int buildDate, int[] atomicType, int[] atomicDate, int[] x, int[] y,
            int[] connStart, int[] connTarget, int[] connLength, int[] connType) {

        /** As the original's {@code createCompositePart}: a ring through all parts, then random connections. */
        static CompositeBlueprint random(Sb7Parameters p, SplittableRandom r) {
            int type = r.nextInt(Sb7Parameters.NUM_TYPES);
            boolean young = r.nextInt(100) < Sb7Parameters.YOUNG_COMP_FRAC;
            int buildDate = young
                    ? between(r, Sb7Parameters.MIN_YOUNG_COMP_DATE, Sb7Parameters.MAX_YOUNG_COMP_DATE)
                    : between(r, Sb7Parameters.MIN_OLD_COMP_DATE, Sb7Parameters.MAX_OLD_COMP_DATE);
            int n = p.numAtomicPerComp();
            int[] atomicType = new int[n];
            int[] atomicDate = new int[n];
            int[] x = new int[n];
            int[] y = new int[n];
            for (int i = 0; i < n; i++) {
                atomicType[i] = r.nextInt(Sb7Parameters.NUM_TYPES);
                atomicDate[i] = between(r, Sb7Parameters.MIN_ATOMIC_DATE, Sb7Parameters.MAX_ATOMIC_DATE);
                x[i] = r.nextInt(Sb7Parameters.XY_RANGE);
                y[i] = r.nextInt(Sb7Parameters.XY_RANGE);
            }
            int perPart = p.numConnPerAtomic() + 1;
            int[] connStart = new int[n + 1];
            int[] connTarget = new int[n * perPart];
            int[] connLength = new int[n * perPart];
            int[] connType = new int[n * perPart];
            for (int i = 0; i <= n; i++) {
                connStart[i] = i * perPart;
            }
            // The ring makes the graph connected; the original creates it first, then the random connections.
            for (int i = 0; i < n; i++) {
                int e = connStart[i];
                connTarget[e] = (i + 1) % n;
                connType[e] = r.nextInt(Sb7Parameters.NUM_TYPES);
                connLength[e] = r.nextInt(Sb7Parameters.XY_RANGE) + 1;
            }
            for (int i = 0; i < n; i++) {
                for (int j = 1; j < perPart; j++) {
                    int e = connStart[i] + j;
                    connTarget[e] = r.nextInt(n);
                    connType[e] = r.nextInt(Sb7Parameters.NUM_TYPES);
                    connLength[e] = r.nextInt(Sb7Parameters.XY_RANGE) + 1;
                }
            }
            return new CompositeBlueprint(type, buildDate, atomicType, atomicDate, x, y, connStart, connTarget,
                    connLength, connType);
        }
    }

    static int between(SplittableRandom r, int min, int max) {
        return min + r.nextInt(max - min + 1);
    }

    /** The original's {@code createText}: {@code line} repeated until the text has at least {@code size} chars. */
    static String createText(int size, String line) {
        StringBuilder sb = new StringBuilder(size + line.length());
        while (sb.length() < size) {
            sb.append(line);
        }
        return sb.toString();
    }

    static final String DOC_START_1 = "I am";
    static final String DOC_START_2 = "This is";

    /**
     * Creates composite part {@code id} (its id already taken from the pool) with its document and atomic parts,
     * and enters them in the indexes. It is used by no base assembly yet.
     */
    CompositePart createCompositePart(int id, CompositeBlueprint bp) {
        int n = p.numAtomicPerComp();
        String text = createText(p.documentSize(), DOC_START_1 + " the documentation for composite part #" + id
                + "\n");
        Document doc = new Document(id, documentTitle(id), id, stm.newBox(DOC_START_1),
                stm.newBox(text.substring(DOC_START_1.length())));
        AtomicPart[] parts = new AtomicPart[n];
        int first = p.firstAtomicId(id);
        for (int i = 0; i < n; i++) {
            parts[i] = new AtomicPart(first + i, bp.atomicType()[i], id, i,
                    stm.newBox(new AtomicState(bp.atomicDate()[i], bp.x()[i], bp.y()[i])));
        }
        CompositePart c = new CompositePart(id, bp.type(), stm.newBox(bp.buildDate()), stm.newBox(Model.NO_IDS), doc,
                parts, bp.connStart(), bp.connTarget(), bp.connLength(), bp.connType());
        if (compositeById[id].get() != null) {
            throw new IllegalStateException("composite part " + id + " already exists");
        }
        compositeById[id].put(c);
        for (AtomicPart a : parts) {
            atomicById[a.id].put(a);
            addToDateIndex(a.id, bp.atomicDate()[a.index]);
        }
        VBox<Document[]> bucket = titleBuckets[titleBucket(doc.title)];
        Document[] docs = bucket.get();
        Document[] more = Arrays.copyOf(docs, docs.length + 1);
        more[docs.length] = doc;
        bucket.put(more);
        return c;
    }

    /**
     * Deletes a composite part: from the indexes (itself, its document, its atomic parts), from every base
     * assembly that uses it, and returns its id to the pool.
     */
    void deleteCompositePart(CompositePart c) {
        compositeById[c.id].put(null);
        VBox<Document[]> bucket = titleBuckets[titleBucket(c.document.title)];
        Document[] docs = bucket.get();
        Document[] fewer = new Document[docs.length - 1];
        int j = 0;
        for (Document d : docs) {
            if (d.id != c.document.id) {
                if (j == fewer.length) {
                    throw new IllegalStateException("document " + c.document.title + " is missing from the title"
                            + " index");
                }
                fewer[j++] = d;
            }
        }
        bucket.put(fewer);
        for (AtomicPart a : c.parts) {
            removeFromDateIndex(a.id, a.state.get().buildDate());
            atomicById[a.id].put(null);
        }
        for (int baseId : distinct(c.usedIn.get())) {
            BaseAssembly b = requireBase(baseId, "composite part", c.id);
            b.components.put(removeAll(b.components.get(), c.id));
        }
        returnId(freeCompositeIds, c.id);
    }

    /** The original's {@code BaseAssembly.addComponent}: a link in both directions. */
    static void link(BaseAssembly b, CompositePart c) {
        b.components.put(append(b.components.get(), c.id));
        c.usedIn.put(append(c.usedIn.get(), b.id));
    }

    // ---- assemblies --------------------------------------------------------------------------------------

    /** Creates a base assembly (its id already taken) under {@code parent}, and adds it to the parent. */
    BaseAssembly createBaseAssembly(int id, ComplexAssembly parent, int type, int buildDate) {
        BaseAssembly b = new BaseAssembly(id, type, parent.id, stm.newBox(buildDate), stm.newBox(Model.NO_IDS));
        if (baseById[id].get() != null) {
            throw new IllegalStateException("base assembly " + id + " already exists");
        }
        baseById[id].put(b);
        parent.subAssemblies.put(append(parent.subAssemblies.get(), id));
        return b;
    }

    /** Creates a complex assembly (its id already taken) under {@code parent}, and adds it to the parent. */
    ComplexAssembly createComplexAssembly(int id, ComplexAssembly parent, int type, int buildDate) {
        ComplexAssembly c = new ComplexAssembly(id, type, parent.level - 1, parent.id, stm.newBox(buildDate),
                stm.newBox(Model.NO_IDS));
        if (complexById[id].get() != null) {
            throw new IllegalStateException("complex assembly " + id + " already exists");
        }
        complexById[id].put(c);
        parent.subAssemblies.put(append(parent.subAssemblies.get(), id));
        return c;
    }

    /** Deletes a base assembly: from the index, its parent, the composite parts it uses; returns its id. */
    void deleteBaseAssembly(BaseAssembly b) {
        baseById[b.id].put(null);
        ComplexAssembly parent = requireComplex(b.parentId, "base assembly", b.id);
        parent.subAssemblies.put(removeFirst(parent.subAssemblies.get(), b.id));
        for (int compositeId : distinct(b.components.get())) {
            CompositePart c = requireComposite(compositeId, "base assembly", b.id);
            c.usedIn.put(removeAll(c.usedIn.get(), b.id));
        }
        returnId(freeBaseIds, b.id);
    }

    /** Deletes a complex assembly and its whole subtree (never the design root). */
    void deleteComplexAssembly(ComplexAssembly c) {
        if (c.parentId == 0) {
            throw new IllegalStateException("the design root cannot be deleted");
        }
        complexById[c.id].put(null);
        ComplexAssembly parent = requireComplex(c.parentId, "complex assembly", c.id);
        parent.subAssemblies.put(removeFirst(parent.subAssemblies.get(), c.id));
        deleteSubtreeOf(c);
        returnId(freeComplexIds, c.id);
    }

    private void deleteSubtreeOf(ComplexAssembly c) {
        for (int child : c.subAssemblies.get()) {
            if (c.childrenAreBase()) {
                BaseAssembly b = requireBase(child, "complex assembly", c.id);
                baseById[b.id].put(null);
                for (int compositeId : distinct(b.components.get())) {
                    CompositePart cp = requireComposite(compositeId, "base assembly", b.id);
                    cp.usedIn.put(removeAll(cp.usedIn.get(), b.id));
                }
                returnId(freeBaseIds, b.id);
            } else {
                ComplexAssembly sub = requireComplex(child, "complex assembly", c.id);
                complexById[sub.id].put(null);
                deleteSubtreeOf(sub);
                returnId(freeComplexIds, sub.id);
            }
        }
    }

    /** Complex and base assemblies in the subtree rooted at {@code c}, {@code c} included: {complex, base}. */
    int[] subtreeSize(ComplexAssembly c) {
        int[] sizes = {1, 0};
        int[] children = c.subAssemblies.get();
        if (c.childrenAreBase()) {
            sizes[1] += children.length;
        } else {
            for (int child : children) {
                int[] s = subtreeSize(requireComplex(child, "complex assembly", c.id));
                sizes[0] += s[0];
                sizes[1] += s[1];
            }
        }
        return sizes;
    }
}
