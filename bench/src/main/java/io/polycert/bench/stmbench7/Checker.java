package io.polycert.bench.stmbench7;

import io.polycert.bench.stmbench7.Model.AtomicPart;
import io.polycert.bench.stmbench7.Model.AtomicState;
import io.polycert.bench.stmbench7.Model.BaseAssembly;
import io.polycert.bench.stmbench7.Model.ComplexAssembly;
import io.polycert.bench.stmbench7.Model.CompositePart;
import io.polycert.bench.stmbench7.Model.Document;
import io.polycert.core.VBox;
import java.util.HashMap;
import java.util.Map;

/**
 * Verifies the structure's invariants in the caller's (read-only) transaction and digests its whole state in id
 * order: the assembly tree (ids, types, levels, parents, build dates, children in order), the links between base
 * assemblies and composite parts (bags, in order), every composite part with its document text, atomic parts
 * (type, build date, x, y) and connections, the indexes and id pools, and the manual's text.
 */
final class Checker {
    private final Structure s;
    private final Sb7Parameters p;
    private final Digest digest = new Digest();

    private Checker(Structure s) {
        this.s = s;
        this.p = s.p;
    }

    /** @throws IllegalStateException naming the first broken invariant */
    static long check(Structure s) {
        return new Checker(s).run();
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("STMBench7 invariant broken: " + what);
        }
    }

    private long run() {
        digest.add(s.moduleId).add(s.moduleType).add(s.moduleBuildDate).add(s.designRootId);
        int complexCount = checkComplexAssemblies();
        int baseCount = checkBaseAssemblies();
        int compositeCount = checkCompositeParts();
        checkAtomicIndex(compositeCount);
        checkBuildDateIndex(compositeCount);
        checkTitleIndex(compositeCount);
        checkPool("complex assembly", s.freeComplexIds.get(), s.complexById, complexCount);
        checkPool("base assembly", s.freeBaseIds.get(), s.baseById, baseCount);
        checkPool("composite part", s.freeCompositeIds.get(), s.compositeById, compositeCount);
        require(complexCount >= p.minComplexAssemblies() && baseCount >= p.minBaseAssemblies()
                && compositeCount >= p.minCompParts(), "fewer objects than the floors: " + complexCount
                + " complex assemblies, " + baseCount + " base assemblies, " + compositeCount + " composite parts");
        String manual = s.manualText.get();
        require(manual.length() >= p.manualSize(), "the manual has " + manual.length() + " characters, fewer than "
                + p.manualSize());
        require(manual.charAt(0) == 'I' || manual.charAt(0) == 'i', "the manual begins with '" + manual.charAt(0)
                + "'");
        digest.add(s.manualId).add(s.manualTitle).add(manual);
        return digest.value();
    }

    private int checkComplexAssemblies() {
        ComplexAssembly root = s.complex(s.designRootId);
        require(root != null, "the design root " + s.designRootId + " does not exist");
        require(root.parentId == 0 && root.level == p.numAssmLevels(), "the design root has parent "
                + root.parentId + " and level " + root.level);
        boolean[] listed = new boolean[s.complexById.length];
        int count = 0;
        for (int id = 1; id < s.complexById.length; id++) {
            ComplexAssembly c = s.complexById[id].get();
            digest.add(c == null ? 0 : 1);
            if (c == null) {
                continue;
            }
            count++;
            require(c.id == id, "complex assembly index entry " + id + " holds complex assembly " + c.id);
            require(c.level >= 2 && c.level <= p.numAssmLevels(), "complex assembly " + id + " is at level "
                    + c.level);
            require(c.parentId != 0 || id == s.designRootId, "complex assembly " + id + " has no parent but is not"
                    + " the design root");
            int[] children = c.subAssemblies.get();
            require(children.length >= 1, "complex assembly " + id + " has no sub-assemblies");
            digest.add(c.type).add(c.level).add(c.parentId).add(c.buildDate.get()).add(children);
            for (int child : children) {
                if (c.childrenAreBase()) {
                    BaseAssembly b = s.base(child);
                    require(b != null && b.parentId == id, "complex assembly " + id + " lists base assembly "
                            + child + ", which " + (b == null ? "does not exist" : "has parent " + b.parentId));
                } else {
                    ComplexAssembly sub = s.complex(child);
                    require(sub != null && sub.parentId == id && sub.level == c.level - 1, "complex assembly " + id
                            + " lists complex assembly " + child + ", which does not exist or is not its child one"
                            + " level below");
                    require(!listed[child], "complex assembly " + child + " is listed twice");
                    listed[child] = true;
                }
            }
        }
        // Every complex assembly but the root is listed by its parent exactly once: with levels decreasing by
        // one from the root, the tree is connected.
        for (int id = 1; id < s.complexById.length; id++) {
            ComplexAssembly c = s.complexById[id].get();
            require(c == null || c.parentId == 0 || listed[id], "complex assembly " + id
                    + " is not listed by its parent " + (c == null ? 0 : c.parentId));
        }
        return count;
    }

    private int checkBaseAssemblies() {
        Map<Long, Integer> links = new HashMap<>();
        int count = 0;
        for (int id = 1; id < s.baseById.length; id++) {
            BaseAssembly b = s.baseById[id].get();
            digest.add(b == null ? 0 : 1);
            if (b == null) {
                continue;
            }
            count++;
            require(b.id == id, "base assembly index entry " + id + " holds base assembly " + b.id);
            ComplexAssembly parent = s.complex(b.parentId);
            require(parent != null && parent.childrenAreBase(), "base assembly " + id + " has parent " + b.parentId
                    + ", which does not exist or is not at level 2");
            int[] siblings = parent.subAssemblies.get();
            int listed = 0;
            for (int sib : siblings) {
                if (sib == id) {
                    listed++;
                }
            }
            require(listed == 1, "base assembly " + id + " is listed " + listed + " times by its parent "
                    + b.parentId);
            int[] components = b.components.get();
            require(components.length <= p.maxComponentsPerBase(), "base assembly "
                    + id + " uses " + components.length + " composite parts, more than the bound");
            digest.add(b.type).add(b.parentId).add(b.buildDate.get()).add(components);
            for (int c : components) {
                require(s.composite(c) != null, "base assembly " + id + " uses composite part " + c
                        + ", which does not exist");
                links.merge(((long) id << 32) | c, 1, Integer::sum);
            }
        }
        // the composite parts' usedIn bags must hold exactly the same links
        for (int id = 1; id < s.compositeById.length; id++) {
            CompositePart c = s.compositeById[id].get();
            if (c == null) {
                continue;
            }
            for (int baseId : c.usedIn.get()) {
                long key = ((long) baseId << 32) | id;
                Integer n = links.get(key);
                require(n != null, "composite part " + id + " is used in base assembly " + baseId
                        + ", which does not use it (as often)");
                if (n == 1) {
                    links.remove(key);
                } else {
                    links.put(key, n - 1);
                }
            }
        }
        require(links.isEmpty(), "base assemblies use composite parts that do not list them in usedIn: "
                + links.keySet().stream().limit(5).map(k -> (k >>> 32) + "->" + (k & 0xffffffffL)).toList());
        return count;
    }

    private int checkCompositeParts() {
        int n = p.numAtomicPerComp();
        int count = 0;
        for (int id = 1; id < s.compositeById.length; id++) {
            CompositePart c = s.compositeById[id].get();
            digest.add(c == null ? 0 : 1);
            if (c == null) {
                continue;
            }
            count++;
            require(c.id == id, "composite part index entry " + id + " holds composite part " + c.id);
            digest.add(c.type).add(c.buildDate.get()).add(c.usedIn.get());
            Document d = c.document;
            require(d.id == id && d.compositeId == id && d.title.equals(Structure.documentTitle(id)),
                    "composite part " + id + " has document " + d.id + " titled '" + d.title + "' of part "
                    + d.compositeId);
            String head = d.head.get();
            require(head.startsWith(Structure.DOC_START_1) || head.startsWith(Structure.DOC_START_2),
                    "the document of composite part " + id + " begins with '" + head + "'");
            String tail = d.tail.get();
            require(head.length() + tail.length() >= p.documentSize(), "the document of composite part " + id
                    + " is shorter than " + p.documentSize());
            digest.add(d.id).add(d.title).add(head).add(tail);
            require(c.parts.length == n, "composite part " + id + " has " + c.parts.length + " atomic parts, not "
                    + n);
            require(c.connStart.length == n + 1 && c.connStart[0] == 0 && c.connStart[n] == c.connTarget.length,
                    "composite part " + id + " has malformed connections");
            int first = p.firstAtomicId(id);
            for (int i = 0; i < n; i++) {
                AtomicPart a = c.parts[i];
                require(a.id == first + i && a.compositeId == id && a.index == i, "composite part " + id
                        + " holds atomic part " + a.id + " (of part " + a.compositeId + ", at " + a.index
                        + ") at " + i);
                AtomicPart indexed = s.atomic(a.id);
                require(indexed != null && indexed.compositeId == id && indexed.index == i
                        && indexed.state.id() == a.state.id(), "the atomic part index does not hold atomic part "
                        + a.id + " of composite part " + id);
                AtomicState st = a.state.get();
                require(st.buildDate() >= Sb7Parameters.MIN_ATOMIC_DATE - 1
                        && st.buildDate() <= Sb7Parameters.MAX_ATOMIC_DATE + 1, "atomic part " + a.id
                        + " has build date " + st.buildDate());
                require(st.x() >= 0 && st.x() < Sb7Parameters.XY_RANGE && st.y() >= 0
                        && st.y() < Sb7Parameters.XY_RANGE, "atomic part " + a.id + " is at " + st.x() + ","
                        + st.y());
                int out = c.connStart[i + 1] - c.connStart[i];
                require(out == p.numConnPerAtomic() + 1, "atomic part " + a.id + " has " + out
                        + " outgoing connections, not " + (p.numConnPerAtomic() + 1) + " (ring + "
                        + p.numConnPerAtomic() + ")");
                digest.add(a.id).add(a.type).add(st.buildDate()).add(st.x()).add(st.y());
                for (int e = c.connStart[i]; e < c.connStart[i + 1]; e++) {
                    require(c.connTarget[e] >= 0 && c.connTarget[e] < n, "atomic part " + a.id
                            + " connects to part index " + c.connTarget[e]);
                    digest.add(c.connTarget[e]).add(c.connLength[e]).add(c.connType[e]);
                }
            }
            require(reachable(c) == n, "the graph of composite part " + id + " is not connected from its root"
                    + " part");
        }
        return count;
    }

    private static int reachable(CompositePart c) {
        boolean[] seen = new boolean[c.parts.length];
        int[] stack = new int[c.connTarget.length + 1];
        int sp = 0;
        stack[sp++] = 0;
        seen[0] = true;
        int n = 0;
        while (sp > 0) {
            int i = stack[--sp];
            n++;
            for (int e = c.connStart[i]; e < c.connStart[i + 1]; e++) {
                int t = c.connTarget[e];
                if (!seen[t]) {
                    seen[t] = true;
                    stack[sp++] = t;
                }
            }
        }
        return n;
    }

    private void checkAtomicIndex(int compositeCount) {
        int count = 0;
        for (int id = 1; id < s.atomicById.length; id++) {
            AtomicPart a = s.atomicById[id].get();
            if (a != null) {
                count++;
                require(a.id == id && a.compositeId == p.compositeOfAtomic(id) && s.composite(a.compositeId) != null,
                        "atomic part index entry " + id + " holds atomic part " + a.id + " of composite part "
                        + a.compositeId);
            }
        }
        require(count == compositeCount * p.numAtomicPerComp(), "the atomic part index holds " + count
                + " parts, not " + compositeCount * p.numAtomicPerComp());
    }

    private void checkBuildDateIndex(int compositeCount) {
        boolean[] seen = new boolean[s.atomicById.length];
        int count = 0;
        for (int i = 0; i < s.dateIndex.length; i++) {
            int date = s.dateBase + i;
            int[] ids = s.dateIndex[i].get();
            digest.add(ids);
            for (int id : ids) {
                AtomicPart a = s.atomic(id);
                require(a != null, "the build-date index lists atomic part " + id + " at " + date
                        + ", which does not exist");
                require(!seen[id], "the build-date index lists atomic part " + id + " twice");
                seen[id] = true;
                int actual = a.state.get().buildDate();
                require(actual == date, "the build-date index lists atomic part " + id + " at " + date
                        + ", but it was built at " + actual);
                count++;
            }
        }
        require(count == compositeCount * p.numAtomicPerComp(), "the build-date index holds " + count
                + " parts, not " + compositeCount * p.numAtomicPerComp());
    }

    private void checkTitleIndex(int compositeCount) {
        int count = 0;
        for (int bucket = 0; bucket < s.titleBuckets.length; bucket++) {
            for (Document d : s.titleBuckets[bucket].get()) {
                count++;
                require(s.titleBucket(d.title) == bucket, "document '" + d.title + "' is in the wrong title bucket");
                CompositePart c = s.composite(d.compositeId);
                require(c != null && c.document.id == d.id && c.document.title.equals(d.title)
                        && c.document.head.id() == d.head.id(), "the title index lists document '" + d.title
                        + "', which is not the document of a composite part");
                require(s.documentByTitle(d.title) == d, "the title index lists '" + d.title + "' twice");
                digest.add(d.title);
            }
        }
        require(count == compositeCount, "the title index holds " + count + " documents, not " + compositeCount);
    }

    private void checkPool(String kind, int[] free, VBox<?>[] index, int live) {
        int max = index.length - 1;
        require(free.length + live == max, "the " + kind + " id pool holds " + free.length + " ids, but "
                + live + " are in use of " + max);
        int previous = 0;
        for (int id : free) {
            require(id > previous && id <= max, "the " + kind + " id pool is not sorted within 1.." + max);
            require(index[id].get() == null, "the " + kind + " id pool holds id " + id + ", which is in use");
            previous = id;
        }
        digest.add(free);
    }

    /** A 64-bit digest of a sequence of values (order matters). */
    static final class Digest {
        private long h = 0x243F6A8885A308D3L;

        Digest add(long v) {
            h = Long.rotateLeft((h ^ v) * 0x9E3779B97F4A7C15L, 29) + 0x632BE59BD9B4E019L;
            return this;
        }

        Digest add(int[] a) {
            add(a.length);
            for (int v : a) {
                add(v);
            }
            return this;
        }

        Digest add(String text) {
            add(text.length());
            long block = 0;
            int i = 0;
            for (int len = text.length(); i < len; i++) {
                block = (block << 16) | text.charAt(i);
                if ((i & 3) == 3) {
                    add(block);
                    block = 0;
                }
            }
            return add(block);
        }

        long value() {
            long z = h;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }
    }
}
