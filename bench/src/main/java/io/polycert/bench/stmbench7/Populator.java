package io.polycert.bench.stmbench7;

import io.polycert.bench.stmbench7.Model.BaseAssembly;
import io.polycert.bench.stmbench7.Model.ComplexAssembly;
import io.polycert.bench.stmbench7.Model.CompositePart;
import io.polycert.bench.stmbench7.Model.Root;
import io.polycert.core.Stm;
import io.polycert.core.VBox;
import io.polycert.kvstore.Replica;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Builds the initial structure at one replica, in many transactions (each commit message is bounded), the way the
 * original's {@code DataHolder.initTx} does: the composite parts first (one per transaction, with their documents,
 * atomic parts and connections), then the module and its manual, then the assembly tree with the links from base
 * assemblies to composite parts. Every random choice comes from one generator seeded with
 * {@link Sb7Parameters#seed()} and is drawn outside the transactions, so the same seed gives the same structure.
 * The root box is written last: a replica that sees it sees everything. Until then, what populate created is
 * linked from a scaffold root, in the transaction that creates it: a box that no replicated state reaches exists
 * elsewhere only weakly (see {@code ObjectRegistry}), and another replica may collect it before the root commit
 * names it.
 */
final class Populator {
    /** Boxes per index chunk (one chunk per transaction). */
    static final int INDEX_CHUNK = 16_384;
    /** Assemblies created per transaction. */
    static final int ASSEMBLIES_PER_COMMIT = 2_000;

    /** Root that holds, while populate runs, the boxes it created that the structure's root does not reach yet. */
    static final String SCAFFOLD_NAME = "stmbench7.populating";

    private final Replica replica;
    private final Sb7Parameters p;
    private final Stm stm;
    private final VBox<VBox<?>[]> scaffold;

    private Populator(Replica replica, Sb7Parameters p) {
        this.replica = replica;
        this.p = p;
        this.stm = replica.stm();
        this.scaffold = replica.root(SCAFFOLD_NAME);
    }

    /** Links {@code box} (just created, in the running transaction) from the scaffold root; returns it. */
    private <B extends VBox<?>> B scaffolded(B box) {
        VBox<?>[] held = scaffold.get();
        VBox<?>[] more = held == null ? new VBox<?>[1] : java.util.Arrays.copyOf(held, held.length + 1);
        more[more.length - 1] = box;
        scaffold.put(more);
        return box;
    }

    static void populate(Replica replica, Sb7Parameters p) {
        new Populator(replica, p).run();
    }

    /** An index as populate creates it: the flat array of boxes, and the boxes that hold its chunks. */
    private record Index(VBox<?>[] boxes, VBox<?>[] chunks) {
    }

    private void run() {
        VBox<Root> rootBox = replica.root(Structure.ROOT_NAME);
        if (stm.readOnly(rootBox::get) != null) {
            throw new IllegalStateException("STMBench7 is already populated at " + replica);
        }
        SplittableRandom random = new SplittableRandom(p.seed());
        Index complexIndex = createIndex(Structure.complexIndexSize(p), null);
        Index baseIndex = createIndex(Structure.baseIndexSize(p), null);
        Index compositeIndex = createIndex(Structure.compositeIndexSize(p), null);
        Index atomicIndex = createIndex(Structure.atomicIndexSize(p), null);
        Index titleIndex = createIndex(Structure.titleBucketCount(p), Model.NO_DOCUMENTS);
        Index dateIndex = createIndex(Structure.dateIndexSize(), Model.NO_IDS);

        int complexCount = p.initialComplexAssemblies();
        int baseCount = p.initialBaseAssemblies();
        int compositeCount = p.numCompParts();
        // Populate uses ids 1..initial of each kind; the pools start with the rest.
        VBox<?>[] pools = stm.atomic(() -> new VBox<?>[] {
            scaffolded(stm.newBox(range(complexCount + 1, p.maxComplexAssemblies()))),
            scaffolded(stm.newBox(range(baseCount + 1, p.maxBaseAssemblies()))),
            scaffolded(stm.newBox(range(compositeCount + 1, p.maxCompParts())))});

        // The module and its manual: drawn here, created after the composite parts, as in the original.
        int moduleId = 1;
        int manualId = 1;
        int designRootId = 1;
        Structure.CompositeBlueprint[] blueprints = new Structure.CompositeBlueprint[compositeCount + 1];
        for (int id = 1; id <= compositeCount; id++) {
            blueprints[id] = Structure.CompositeBlueprint.random(p, random);
        }
        int moduleType = random.nextInt(Sb7Parameters.NUM_TYPES);
        int moduleBuildDate = Structure.between(random, Sb7Parameters.MIN_MODULE_DATE, Sb7Parameters.MAX_MODULE_DATE);
        List<Planned> plan = new ArrayList<>();
        planComplex(plan, random, new int[] {0, 0}, 0, p.numAssmLevels());
        // The original links each base assembly (in id order) to NumCompPerAssm random composite parts.
        int[][] components = new int[baseCount + 1][];
        for (int b = 1; b <= baseCount; b++) {
            components[b] = new int[p.numCompPerAssm()];
            for (int k = 0; k < components[b].length; k++) {
                components[b][k] = random.nextInt(compositeCount) + 1;
            }
        }

        String manualText = Structure.createText(p.manualSize(), "I am the manual for module #" + moduleId + "\n");
        VBox<String> manual = stm.atomic(() -> scaffolded(stm.newBox(manualText)));
        @SuppressWarnings("unchecked")
        Root root = new Root(p.fingerprint(), moduleId, moduleType, moduleBuildDate, designRootId, manualId,
                "Manual for module #" + moduleId, manual, Structure.dateIndexBase(), complexIndex.chunks,
                baseIndex.chunks, compositeIndex.chunks, atomicIndex.chunks, titleIndex.chunks, dateIndex.chunks,
                (VBox<int[]>) pools[0], (VBox<int[]>) pools[1], (VBox<int[]>) pools[2]);
        Structure s = new Structure(p, stm, root, complexIndex.boxes, baseIndex.boxes, compositeIndex.boxes,
                atomicIndex.boxes, titleIndex.boxes, dateIndex.boxes);

        for (int id = 1; id <= compositeCount; id++) {
            int cid = id;
            stm.atomic(() -> {
                s.createCompositePart(cid, blueprints[cid]);
            });
        }
        for (int from = 0; from < plan.size(); from += ASSEMBLIES_PER_COMMIT) {
            List<Planned> batch = plan.subList(from, Math.min(plan.size(), from + ASSEMBLIES_PER_COMMIT));
            stm.atomic(() -> {
                for (Planned a : batch) {
                    create(s, a, components);
                }
            });
        }
        stm.atomic(() -> {
            rootBox.put(root);
            scaffold.put(null); // the root reaches everything now
        });
    }

    /** One assembly of the initial tree, in creation order (depth first, parents before children). */
    private record Planned(boolean base, int id, int type, int buildDate, int level, int parentId, int[] children) {
    }

    /**
     * Plans the complex assembly at {@code level} under {@code parentId} and its subtree, as the original's
     * recursive {@code createComplexAssembly}; ids are handed out in creation order. Returns its id.
     */
    private int planComplex(List<Planned> plan, SplittableRandom random, int[] lastIds, int parentId, int level) {
        int id = ++lastIds[0];
        int type = random.nextInt(Sb7Parameters.NUM_TYPES);
        int date = Structure.between(random, Sb7Parameters.MIN_ASSM_DATE, Sb7Parameters.MAX_ASSM_DATE);
        int at = plan.size();
        plan.add(null);
        int[] children = new int[p.numAssmPerAssm()];
        for (int i = 0; i < children.length; i++) {
            if (level == 2) {
                int baseId = ++lastIds[1];
                int baseType = random.nextInt(Sb7Parameters.NUM_TYPES);
                int baseDate = Structure.between(random, Sb7Parameters.MIN_ASSM_DATE, Sb7Parameters.MAX_ASSM_DATE);
                plan.add(new Planned(true, baseId, baseType, baseDate, 1, id, null));
                children[i] = baseId;
            } else {
                children[i] = planComplex(plan, random, lastIds, id, level - 1);
            }
        }
        plan.set(at, new Planned(false, id, type, date, level, parentId, children));
        return id;
    }

    private void create(Structure s, Planned a, int[][] components) {
        if (a.base) {
            BaseAssembly b = new BaseAssembly(a.id, a.type, a.parentId, stm.newBox(a.buildDate),
                    stm.newBox(components[a.id].clone()));
            s.baseById[a.id].put(b);
            for (int compositeId : components[a.id]) {
                CompositePart c = s.requireComposite(compositeId, "base assembly", a.id);
                c.usedIn.put(Structure.append(c.usedIn.get(), a.id));
            }
        } else {
            ComplexAssembly c = new ComplexAssembly(a.id, a.type, a.level, a.parentId, stm.newBox(a.buildDate),
                    stm.newBox(a.children.clone()));
            s.complexById[a.id].put(c);
        }
    }

    /** Creates {@code size} boxes holding {@code initial}, in chunks of {@link #INDEX_CHUNK}, one per commit. */
    private Index createIndex(int size, Object initial) {
        VBox<?>[] boxes = new VBox<?>[size];
        List<VBox<?>> chunks = new ArrayList<>();
        for (int from = 0; from < size; from += INDEX_CHUNK) {
            int start = from;
            int end = Math.min(size, from + INDEX_CHUNK);
            chunks.add(stm.atomic(() -> {
                VBox<?>[] chunk = new VBox<?>[end - start];
                for (int i = 0; i < chunk.length; i++) {
                    chunk[i] = stm.newBox(initial);
                }
                System.arraycopy(chunk, 0, boxes, start, chunk.length);
                return scaffolded(stm.newBox(chunk));
            }));
        }
        return new Index(boxes, chunks.toArray(new VBox<?>[0]));
    }

    /** The ids {@code from..to} (empty if {@code from > to}). */
    private static int[] range(int from, int to) {
        int[] ids = new int[Math.max(0, to - from + 1)];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = from + i;
        }
        return ids;
    }
}
