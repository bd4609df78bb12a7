package io.polycert.bench.stmbench7;

import io.polycert.bench.stmbench7.Model.AtomicPart;
import io.polycert.bench.stmbench7.Model.AtomicState;
import io.polycert.bench.stmbench7.Model.BaseAssembly;
import io.polycert.bench.stmbench7.Model.ComplexAssembly;
import io.polycert.bench.stmbench7.Model.CompositePart;
import io.polycert.bench.stmbench7.Model.Document;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.ToIntFunction;

/**
 * The bodies of STMBench7's operations, run inside a transaction (read-only or read-write, as {@link Sb7Op}
 * says) by one client thread: an instance is not thread-safe (it keeps scratch buffers).
 *
 * <p>Where the original opens a design object for reading ({@code rd_ptr}, or calls {@code nullOperation}), this
 * reads the object's own box (an atomic part's state, an assembly's or composite part's build date), so an
 * operation conflicts with the same writers as in the original's object-granular STMs.
 *
 * <p>When the original's operation fails ({@code OperationFailedException}: an id that is not in use, a base
 * assembly without components, an exhausted id pool), the operation here returns 0 without writing anything:
 * the client still counts it as run.
 */
final class Operations {
    /** Atomic parts OP1, OP9 and OP15 look up (the original's {@code QUERY1_ITER}). */
    static final int QUERY1_ITER = 10;
    /** Documents ST4 looks up (the original's {@code QUERY4_ITER}). */
    static final int QUERY4_ITER = 100;

    private final Structure s;
    private final Sb7Parameters p;
    private final SplittableRandom random;
    // scratch, reused by every graph traversal of this client
    private final boolean[] visited;
    private final int[] stack;
    private final boolean[] visitedBase;
    private final boolean[] visitedComplex;
    /** Build-date moves of the running operation, applied to the index when its body is done. */
    private final Structure.DateMoves dateMoves;

    Operations(Structure s, SplittableRandom random) {
        this.s = s;
        this.p = s.p;
        this.random = random;
        this.visited = new boolean[p.numAtomicPerComp()];
        this.stack = new int[p.numAtomicPerComp() * (p.numConnPerAtomic() + 1) + 1];
        this.visitedBase = new boolean[s.baseById.length];
        this.visitedComplex = new boolean[s.complexById.length];
        this.dateMoves = new Structure.DateMoves(p.maxAtomicParts());
    }

    /** What an atomic-part traversal does to each part it visits. */
    private enum AtomicAction {
        /** nullOperation (T1, ST9). */
        READ,
        /** swapXY on the first part visited (the root part), read the others (T2a). */
        SWAP_ROOT,
        /** swapXY on every part (T2b, ST10). */
        SWAP,
        /** swapXY four times on every part (T2c). */
        SWAP4,
        /** updateBuildDate on the root part, read the others (T3a). */
        DATE_ROOT,
        /** updateBuildDate on every part (T3b). */
        DATE,
        /** updateBuildDate four times on every part (T3c). */
        DATE4
    }

    /** Runs {@code op}'s body in the caller's transaction; returns what the original returns (a count). */
    int run(Sb7Op op) {
        dateMoves.clear(); // an attempt before this one may have aborted with moves pending
        int result = body(op);
        dateMoves.apply(s);
        return result;
    }

    private int body(Sb7Op op) {
        return switch (op) {
            case T1 -> traverseGraphs(AtomicAction.READ);
            case T2A -> traverseGraphs(AtomicAction.SWAP_ROOT);
            case T2B -> traverseGraphs(AtomicAction.SWAP);
            case T2C -> traverseGraphs(AtomicAction.SWAP4);
            case T3A -> traverseGraphs(AtomicAction.DATE_ROOT);
            case T3B -> traverseGraphs(AtomicAction.DATE);
            case T3C -> traverseGraphs(AtomicAction.DATE4);
            case T4 -> traverseAssemblies(c -> {
                readComposite(c);
                return searchText(c.document, 'I');
            });
            case T5 -> traverseAssemblies(c -> {
                readComposite(c);
                return toggleDocument(c.document);
            });
            case T6 -> traverseAssemblies(c -> {
                readComposite(c);
                readAtomic(c.rootPart());
                return 1;
            });
            case Q6 -> query6(s.designRoot());
            case Q7 -> query7();
            case ST1 -> shortTraversal1(false);
            case ST2 -> shortTraversal2(false);
            case ST3 -> shortTraversal3(false);
            case ST4 -> query4();
            case ST5 -> query5();
            case ST6 -> shortTraversal1(true);
            case ST7 -> shortTraversal2(true);
            case ST8 -> shortTraversal3(true);
            case ST9 -> shortTraversal9(AtomicAction.READ);
            case ST10 -> shortTraversal9(AtomicAction.SWAP);
            case OP1 -> query1(AtomicAction.READ);
            case OP2 -> query2(1, false);
            case OP3 -> query2(10, false);
            case OP4 -> countOccurrences(s.manualText.get(), 'I');
            case OP5 -> checkFirstLastCharTheSame(s.manualText.get());
            case OP6 -> operation6(false);
            case OP7 -> operation7(false);
            case OP8 -> operation8(false);
            case OP9 -> query1(AtomicAction.SWAP);
            case OP10 -> query2(1, true);
            case OP11 -> operation11();
            case OP12 -> operation6(true);
            case OP13 -> operation7(true);
            case OP14 -> operation8(true);
            case OP15 -> query1(AtomicAction.DATE);
            case SM1 -> createCompositePart();
            case SM2 -> deleteCompositePart();
            case SM3 -> createLink();
            case SM4 -> deleteLink();
            case SM5 -> createBaseAssembly();
            case SM6 -> deleteBaseAssembly();
            case SM7 -> createSubAssembly();
            case SM8 -> deleteComplexAssembly();
        };
    }

    // ---- opening objects ---------------------------------------------------------------------------------

    private static void readComplex(ComplexAssembly c) {
        c.buildDate.get();
    }

    private static void readBase(BaseAssembly b) {
        b.buildDate.get();
    }

    private static void readComposite(CompositePart c) {
        c.buildDate.get();
    }

    private static AtomicState readAtomic(AtomicPart a) {
        return a.state.get();
    }

    private static void updateBuildDate(ComplexAssembly c) {
        c.buildDate.put(Structure.nextBuildDate(c.buildDate.get()));
    }

    private static void updateBuildDate(BaseAssembly b) {
        b.buildDate.put(Structure.nextBuildDate(b.buildDate.get()));
    }

    private static void updateBuildDate(CompositePart c) {
        c.buildDate.put(Structure.nextBuildDate(c.buildDate.get()));
    }

    private int visitAtomic(AtomicPart a, AtomicAction action, boolean first) {
        switch (action) {
            case READ -> {
                readAtomic(a);
                return 1;
            }
            case SWAP_ROOT -> {
                if (first) {
                    Structure.swapXY(a);
                } else {
                    readAtomic(a);
                }
                return 1;
            }
            case SWAP -> {
                Structure.swapXY(a);
                return 1;
            }
            case SWAP4 -> {
                for (int i = 0; i < 4; i++) {
                    Structure.swapXY(a);
                }
                return 4;
            }
            case DATE_ROOT -> {
                if (first) {
                    s.updateBuildDate(a, dateMoves);
                } else {
                    readAtomic(a);
                }
                return 1;
            }
            case DATE -> {
                s.updateBuildDate(a, dateMoves);
                return 1;
            }
            case DATE4 -> {
                for (int i = 0; i < 4; i++) {
                    s.updateBuildDate(a, dateMoves);
                }
                return 4;
            }
            default -> throw new AssertionError(action);
        }
    }

    // ---- documents and the manual ------------------------------------------------------------------------

    private static int countOccurrences(String text, char ch) {
        int n = 0;
        for (int i = 0, len = text.length(); i < len; i++) {
            if (text.charAt(i) == ch) {
                n++;
            }
        }
        return n;
    }

    /** The original's {@code Document.searchText}. */
    private static int searchText(Document d, char ch) {
        return countOccurrences(d.head.get(), ch) + countOccurrences(d.tail.get(), ch);
    }

    /**
     * T5's and ST7's change: a text beginning with "I am" begins with "This is" afterwards, and the other way
     * round (only the head box, which holds the first words, changes).
     */
    private static int toggleDocument(Document d) {
        String head = d.head.get();
        String replaced;
        if (head.startsWith(Structure.DOC_START_1)) {
            replaced = Structure.DOC_START_2 + head.substring(Structure.DOC_START_1.length());
        } else if (head.startsWith(Structure.DOC_START_2)) {
            replaced = Structure.DOC_START_1 + head.substring(Structure.DOC_START_2.length());
        } else {
            throw new IllegalStateException("document " + d.title + " begins neither with \"" + Structure.DOC_START_1
                    + "\" nor with \"" + Structure.DOC_START_2 + "\": " + head);
        }
        d.head.put(replaced);
        return 1;
    }

    private static int checkFirstLastCharTheSame(String text) {
        return !text.isEmpty() && text.charAt(0) == text.charAt(text.length() - 1) ? 1 : 0;
    }

    /** OP11: replaces every 'I' of the manual with 'i' if it begins with 'I', else every 'i' with 'I'. */
    private int operation11() {
        String text = s.manualText.get();
        char from;
        char to;
        if (text.startsWith("I")) {
            from = 'I';
            to = 'i';
        } else if (text.startsWith("i")) {
            from = 'i';
            to = 'I';
        } else {
            throw new IllegalStateException("OP11: the manual begins with neither 'I' nor 'i'");
        }
        int n = countOccurrences(text, from);
        s.manualText.put(text.replace(from, to));
        return n;
    }

    // ---- long traversals ---------------------------------------------------------------------------------

    /** Visits every composite part of every base assembly (once per use), from the design root down. */
    private int traverseAssemblies(ToIntFunction<CompositePart> onComposite) {
        return traverseComplex(s.designRoot(), onComposite);
    }

    private int traverseComplex(ComplexAssembly c, ToIntFunction<CompositePart> onComposite) {
        readComplex(c);
        int n = 0;
        for (int child : c.subAssemblies.get()) {
            if (c.childrenAreBase()) {
                BaseAssembly b = s.requireBase(child, "complex assembly", c.id);
                readBase(b);
                for (int compositeId : b.components.get()) {
                    n += onComposite.applyAsInt(s.requireComposite(compositeId, "base assembly", b.id));
                }
            } else {
                n += traverseComplex(s.requireComplex(child, "complex assembly", c.id), onComposite);
            }
        }
        return n;
    }

    /** T1, T2*, T3*: a depth-first traversal of each composite part's graph, from its root part. */
    private int traverseGraphs(AtomicAction action) {
        return traverseAssemblies(c -> {
            readComposite(c);
            return traverseGraph(c, action);
        });
    }

    /** Depth-first from the root part along outgoing connections, each part once (the original's visited set). */
    private int traverseGraph(CompositePart c, AtomicAction action) {
        Arrays.fill(visited, false);
        int sp = 0;
        stack[sp++] = 0;
        int n = 0;
        boolean first = true;
        while (sp > 0) {
            int i = stack[--sp];
            if (visited[i]) {
                continue;
            }
            visited[i] = true;
            n += visitAtomic(c.parts[i], action, first);
            first = false;
            // pushed in reverse, so parts are visited in the order of the recursive original
            for (int e = c.connStart[i + 1] - 1; e >= c.connStart[i]; e--) {
                int target = c.connTarget[e];
                if (!visited[target]) {
                    stack[sp++] = target;
                }
            }
        }
        return n;
    }

    /** Q6: the complex assemblies above a base assembly that uses a composite part younger than itself. */
    private int query6(ComplexAssembly c) {
        int n = 0;
        for (int child : c.subAssemblies.get()) {
            n += c.childrenAreBase() ? checkBaseAssembly(s.requireBase(child, "complex assembly", c.id))
                    : query6(s.requireComplex(child, "complex assembly", c.id));
        }
        if (n > 0) {
            readComplex(c);
            n++;
        }
        return n;
    }

    /** Q5's test: 1 if the base assembly uses a composite part built after it. */
    private int checkBaseAssembly(BaseAssembly b) {
        int date = b.buildDate.get();
        for (int compositeId : b.components.get()) {
            if (s.requireComposite(compositeId, "base assembly", b.id).buildDate.get() > date) {
                return 1;
            }
        }
        return 0;
    }

    /** Q7: every atomic part, through the id index. */
    private int query7() {
        int n = 0;
        for (int id = 1; id < s.atomicById.length; id++) {
            AtomicPart a = s.atomicById[id].get();
            if (a != null) {
                readAtomic(a);
                n++;
            }
        }
        return n;
    }

    // ---- short traversals --------------------------------------------------------------------------------

    /** ST1's path: a random child at each level, a random component of the base assembly; null if it has none. */
    private CompositePart randomComposite() {
        ComplexAssembly c = s.designRoot();
        for (;;) {
            readComplex(c);
            int[] children = c.subAssemblies.get();
            if (children.length == 0) {
                return null;
            }
            int child = children[random.nextInt(children.length)];
            if (c.childrenAreBase()) {
                BaseAssembly b = s.requireBase(child, "complex assembly", c.id);
                readBase(b);
                int[] components = b.components.get();
                if (components.length == 0) {
                    return null; // the original fails: "no components in base assembly"
                }
                CompositePart part = s.requireComposite(components[random.nextInt(components.length)],
                        "base assembly", b.id);
                readComposite(part);
                return part;
            }
            c = s.requireComplex(child, "complex assembly", c.id);
        }
    }

    /** ST1 (ST6 swaps x and y first): x + y of a random atomic part of a random composite part. */
    private int shortTraversal1(boolean swap) {
        CompositePart c = randomComposite();
        if (c == null) {
            return 0;
        }
        AtomicPart a = c.parts[random.nextInt(c.parts.length)];
        if (swap) {
            Structure.swapXY(a);
        }
        AtomicState state = readAtomic(a);
        return state.x() + state.y();
    }

    /** ST2 (ST7 changes the text's beginning instead): counts 'I' in a random composite part's document. */
    private int shortTraversal2(boolean change) {
        CompositePart c = randomComposite();
        if (c == null) {
            return 0;
        }
        return change ? toggleDocument(c.document) : searchText(c.document, 'I');
    }

    /** ST9 (ST10 swaps x and y of every part): traverses a random composite part's graph. */
    private int shortTraversal9(AtomicAction action) {
        CompositePart c = randomComposite();
        return c == null ? 0 : traverseGraph(c, action);
    }

    /**
     * ST3 (the original's T7; ST8 updates build dates): from a random atomic part (by id) up through its
     * composite part, every base assembly using it, and their ancestors, each assembly once.
     */
    private int shortTraversal3(boolean update) {
        AtomicPart a = s.atomic(random.nextInt(p.maxAtomicParts()) + 1);
        if (a == null) {
            return 0; // the original fails: no such atomic part
        }
        readAtomic(a);
        CompositePart c = s.requireComposite(a.compositeId, "atomic part", a.id);
        Arrays.fill(visitedBase, false);
        Arrays.fill(visitedComplex, false);
        int n = 0;
        for (int baseId : c.usedIn.get()) {
            if (visitedBase[baseId]) {
                continue;
            }
            visitedBase[baseId] = true;
            BaseAssembly b = s.requireBase(baseId, "composite part", c.id);
            if (update) {
                updateBuildDate(b);
            } else {
                readBase(b);
            }
            n++;
            int up = b.parentId;
            while (up != 0 && !visitedComplex[up]) {
                visitedComplex[up] = true;
                ComplexAssembly ca = s.requireComplex(up, "assembly", baseId);
                if (update) {
                    updateBuildDate(ca);
                } else {
                    readComplex(ca);
                }
                n++;
                up = ca.parentId;
            }
        }
        return n;
    }

    /** ST4 (the original's Q4): documents by title, then the base assemblies using their composite parts. */
    private int query4() {
        int n = 0;
        for (int i = 0; i < QUERY4_ITER; i++) {
            int compositeId = random.nextInt(p.maxCompParts()) + 1;
            Document d = s.documentByTitle(Structure.documentTitle(compositeId));
            if (d != null) {
                CompositePart c = s.requireComposite(d.compositeId, "document", d.id);
                for (int baseId : c.usedIn.get()) {
                    readBase(s.requireBase(baseId, "composite part", c.id));
                    n++;
                }
            }
        }
        return n;
    }

    /** ST5 (the original's Q5): base assemblies that use a composite part built after them. */
    private int query5() {
        int n = 0;
        for (int id = 1; id < s.baseById.length; id++) {
            BaseAssembly b = s.baseById[id].get();
            if (b != null) {
                n += checkBaseAssembly(b);
            }
        }
        return n;
    }

    // ---- operations --------------------------------------------------------------------------------------

    /** OP1 (the original's Q1), OP9 (swaps x and y), OP15 (updates build dates): random atomic parts by id. */
    private int query1(AtomicAction action) {
        int n = 0;
        for (int i = 0; i < QUERY1_ITER; i++) {
            AtomicPart a = s.atomic(random.nextInt(p.maxAtomicParts()) + 1);
            if (a != null) {
                visitAtomic(a, action, true);
                n++;
            }
        }
        return n;
    }

    /**
     * OP2 and OP3 (the original's Q2 and Q3), OP10 (swaps x and y): the atomic parts built in the last 1% (10%)
     * of the atomic build-date range, through the build-date index.
     */
    private int query2(int percent, boolean swap) {
        int max = Sb7Parameters.MAX_ATOMIC_DATE;
        int min = max - percent * (Sb7Parameters.MAX_ATOMIC_DATE - Sb7Parameters.MIN_ATOMIC_DATE) / 100;
        int n = 0;
        for (int date = min; date <= max; date++) {
            for (int id : s.dateSet(date).get()) {
                AtomicPart a = s.requireAtomic(id, "build date", date);
                if (swap) {
                    Structure.swapXY(a);
                } else {
                    readAtomic(a);
                }
                n++;
            }
        }
        return n;
    }

    /** OP6 (OP12 updates build dates): a random complex assembly and its siblings (the root alone). */
    private int operation6(boolean update) {
        ComplexAssembly c = s.complex(random.nextInt(p.maxComplexAssemblies()) + 1);
        if (c == null) {
            return 0;
        }
        if (c.parentId == 0) {
            if (update) {
                updateBuildDate(c);
            } else {
                readComplex(c);
            }
            return 1;
        }
        ComplexAssembly parent = s.requireComplex(c.parentId, "complex assembly", c.id);
        int n = 0;
        for (int sibling : parent.subAssemblies.get()) {
            ComplexAssembly sib = s.requireComplex(sibling, "complex assembly", parent.id);
            if (update) {
                updateBuildDate(sib);
            } else {
                readComplex(sib);
            }
            n++;
        }
        return n;
    }

    /** OP7 (OP13 updates build dates): a random base assembly and its siblings. */
    private int operation7(boolean update) {
        BaseAssembly b = s.base(random.nextInt(p.maxBaseAssemblies()) + 1);
        if (b == null) {
            return 0;
        }
        ComplexAssembly parent = s.requireComplex(b.parentId, "base assembly", b.id);
        int n = 0;
        for (int sibling : parent.subAssemblies.get()) {
            BaseAssembly sib = s.requireBase(sibling, "complex assembly", parent.id);
            if (update) {
                updateBuildDate(sib);
            } else {
                readBase(sib);
            }
            n++;
        }
        return n;
    }

    /** OP8 (OP14 updates build dates): the components of a random base assembly. */
    private int operation8(boolean update) {
        BaseAssembly b = s.base(random.nextInt(p.maxBaseAssemblies()) + 1);
        if (b == null) {
            return 0;
        }
        readBase(b);
        int n = 0;
        for (int compositeId : b.components.get()) {
            CompositePart c = s.requireComposite(compositeId, "base assembly", b.id);
            if (update) {
                updateBuildDate(c);
            } else {
                readComposite(c);
            }
            n++;
        }
        return n;
    }

    // ---- structure modifications -------------------------------------------------------------------------

    private static int assemblyType(SplittableRandom r) {
        return r.nextInt(Sb7Parameters.NUM_TYPES);
    }

    private static int assemblyDate(SplittableRandom r) {
        return Structure.between(r, Sb7Parameters.MIN_ASSM_DATE, Sb7Parameters.MAX_ASSM_DATE);
    }

    /** SM1: a new composite part, used by no base assembly (nothing if the id pool is exhausted). */
    private int createCompositePart() {
        if (s.freeCompositeIds.get().length == 0) {
            return 0;
        }
        Structure.CompositeBlueprint bp = Structure.CompositeBlueprint.random(p, random);
        s.createCompositePart(Structure.takeId(s.freeCompositeIds), bp);
        return 1;
    }

    /** SM2: deletes a random composite part (not below the floor). */
    private int deleteCompositePart() {
        CompositePart c = s.composite(random.nextInt(p.maxCompParts()) + 1);
        if (c == null || Structure.live(s.freeCompositeIds, p.maxCompParts()) <= p.minCompParts()) {
            return 0;
        }
        s.deleteCompositePart(c);
        return 1;
    }

    /** SM3: links a random composite part to a random base assembly (not beyond the bound on components). */
    private int createLink() {
        CompositePart c = s.composite(random.nextInt(p.maxCompParts()) + 1);
        BaseAssembly b = s.base(random.nextInt(p.maxBaseAssemblies()) + 1);
        if (c == null || b == null || b.components.get().length >= p.maxComponentsPerBase()) {
            return 0;
        }
        Structure.link(b, c);
        return 1;
    }

    /** SM4: removes a random link of a random base assembly. */
    private int deleteLink() {
        BaseAssembly b = s.base(random.nextInt(p.maxBaseAssemblies()) + 1);
        if (b == null) {
            return 0;
        }
        int[] components = b.components.get();
        if (components.length == 0) {
            return 0;
        }
        int at = random.nextInt(components.length);
        CompositePart c = s.requireComposite(components[at], "base assembly", b.id);
        b.components.put(Structure.removeAt(components, at));
        c.usedIn.put(Structure.removeFirst(c.usedIn.get(), b.id));
        return 1;
    }

    /** SM5: a new sibling of a random base assembly (without components, as in the original). */
    private int createBaseAssembly() {
        BaseAssembly b = s.base(random.nextInt(p.maxBaseAssemblies()) + 1);
        if (b == null) {
            return 0;
        }
        int id = Structure.takeId(s.freeBaseIds);
        if (id < 0) {
            return 0;
        }
        s.createBaseAssembly(id, s.requireComplex(b.parentId, "base assembly", b.id), assemblyType(random),
                assemblyDate(random));
        return 1;
    }

    /** SM6: deletes a random base assembly unless it is its parent's only child (or at the floor). */
    private int deleteBaseAssembly() {
        BaseAssembly b = s.base(random.nextInt(p.maxBaseAssemblies()) + 1);
        if (b == null) {
            return 0;
        }
        ComplexAssembly parent = s.requireComplex(b.parentId, "base assembly", b.id);
        if (parent.subAssemblies.get().length == 1
                || Structure.live(s.freeBaseIds, p.maxBaseAssemblies()) <= p.minBaseAssemblies()) {
            return 0;
        }
        s.deleteBaseAssembly(b);
        return 1;
    }

    /**
     * SM7: a new child of a random complex assembly: a base assembly at level 2, else a full complex subtree
     * (nothing if the id pools cannot supply the whole subtree; the original would fail half-way and roll back).
     */
    private int createSubAssembly() {
        ComplexAssembly c = s.complex(random.nextInt(p.maxComplexAssemblies()) + 1);
        if (c == null) {
            return 0;
        }
        if (c.childrenAreBase()) {
            int id = Structure.takeId(s.freeBaseIds);
            if (id < 0) {
                return 0;
            }
            s.createBaseAssembly(id, c, assemblyType(random), assemblyDate(random));
            return 1;
        }
        int level = c.level - 1;
        if (s.freeComplexIds.get().length < p.complexAssembliesAtLevel(level)
                || s.freeBaseIds.get().length < p.baseAssembliesAtLevel(level)) {
            return 0;
        }
        createComplexSubtree(c);
        return 1;
    }

    private void createComplexSubtree(ComplexAssembly parent) {
        ComplexAssembly c = s.createComplexAssembly(Structure.takeId(s.freeComplexIds), parent,
                assemblyType(random), assemblyDate(random));
        for (int i = 0; i < p.numAssmPerAssm(); i++) {
            if (c.childrenAreBase()) {
                s.createBaseAssembly(Structure.takeId(s.freeBaseIds), c, assemblyType(random),
                        assemblyDate(random));
            } else {
                createComplexSubtree(c);
            }
        }
    }

    /**
     * SM8: deletes a random complex assembly with its subtree, unless it is the root, its parent's only child,
     * or the deletion would go below the floors.
     */
    private int deleteComplexAssembly() {
        ComplexAssembly c = s.complex(random.nextInt(p.maxComplexAssemblies()) + 1);
        if (c == null || c.parentId == 0) {
            return 0;
        }
        ComplexAssembly parent = s.requireComplex(c.parentId, "complex assembly", c.id);
        if (parent.subAssemblies.get().length == 1) {
            return 0;
        }
        int[] size = s.subtreeSize(c);
        if (Structure.live(s.freeComplexIds, p.maxComplexAssemblies()) - size[0] < p.minComplexAssemblies()
                || Structure.live(s.freeBaseIds, p.maxBaseAssemblies()) - size[1] < p.minBaseAssemblies()) {
            return 0;
        }
        s.deleteComplexAssembly(c);
        return 1;
    }
}
