package io.polycert.bench.stmbench7;

import io.polycert.core.VBox;
import io.polycert.core.codec.CodecException;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.codec.ValueSerializer;

/**
 * The STMBench7 design objects as replicated values: immutable shells (ids, types, and the boxes that hold their
 * mutable state) registered in the workload's codec.
 *
 * <p>A shell crosses the wire by value, so a replica that decodes it gets its own copy: shells never refer to
 * each other directly (that would copy the referenced object into every referrer) but by id, resolved through
 * the id indexes ({@link Structure}). The only nesting is a composite part carrying its document and its atomic
 * parts, which live and die with it. Two copies of a shell are the same object when their ids are equal; their
 * boxes are the same boxes (a box crosses the wire as its id).
 */
final class Model {
    private Model() {
    }

    static final int TAG_ROOT = ValueCodec.FIRST_USER_TAG;
    static final int TAG_COMPLEX = ValueCodec.FIRST_USER_TAG + 1;
    static final int TAG_BASE = ValueCodec.FIRST_USER_TAG + 2;
    static final int TAG_COMPOSITE = ValueCodec.FIRST_USER_TAG + 3;
    static final int TAG_ATOMIC = ValueCodec.FIRST_USER_TAG + 4;
    static final int TAG_ATOMIC_STATE = ValueCodec.FIRST_USER_TAG + 5;
    static final int TAG_DOCUMENTS = ValueCodec.FIRST_USER_TAG + 6;
    static final int TAG_BOXES = ValueCodec.FIRST_USER_TAG + 7;

    static final int[] NO_IDS = new int[0];
    static final Document[] NO_DOCUMENTS = new Document[0];

    /** The state of an atomic part that operations change: build date and position (one box: one object). */
    record AtomicState(int buildDate, int x, int y) {
        AtomicState swapXY() {
            return new AtomicState(buildDate, y, x);
        }

        AtomicState withBuildDate(int date) {
            return new AtomicState(date, x, y);
        }
    }

    /** An atomic part: a node of its composite part's graph. Its connections are kept by the composite part. */
    static final class AtomicPart {
        final int id;
        final int type;
        final int compositeId;
        /** Its place in the composite part's {@link CompositePart#parts}. */
        final int index;
        final VBox<AtomicState> state;

        AtomicPart(int id, int type, int compositeId, int index, VBox<AtomicState> state) {
            this.id = id;
            this.type = type;
            this.compositeId = compositeId;
            this.index = index;
            this.state = state;
        }
    }

    /**
     * A composite part's documentation. Its text is {@code head + tail}: the operations that change it (T5, ST7)
     * only ever replace its first words ("I am" and "This is"), so only the head is rewritten, and a traversal
     * changing every document stays far under the commit-message limit.
     */
    static final class Document {
        final int id;
        final String title;
        final int compositeId;
        final VBox<String> head;
        final VBox<String> tail;

        Document(int id, String title, int compositeId, VBox<String> head, VBox<String> tail) {
            this.id = id;
            this.title = title;
            this.compositeId = compositeId;
            this.head = head;
            this.tail = tail;
        }
    }

    /**
     * A composite part with its document and its graph of atomic parts. The graph never changes while the part
     * lives, so its connections are immutable arrays: the outgoing connections of part {@code i} are
     * {@code connStart[i] .. connStart[i + 1] - 1}, each with a target part index, a length and a type.
     */
    static final class CompositePart {
        final int id;
        final int type;
        final VBox<Integer> buildDate;
        /** The base assemblies that use it: a bag of ids (one per link). */
        final VBox<int[]> usedIn;
        final Document document;
        /** Its atomic parts; {@code parts[0]} is the root part. */
        final AtomicPart[] parts;
        final int[] connStart;
        final int[] connTarget;
        final int[] connLength;
        final int[] connType;

        CompositePart(int id, int type, VBox<Integer> buildDate, VBox<int[]> usedIn, Document document,
                AtomicPart[] parts, int[] connStart, int[] connTarget, int[] connLength, int[] connType) {
            this.id = id;
            this.type = type;
            this.buildDate = buildDate;
            this.usedIn = usedIn;
            this.document = document;
            this.parts = parts;
            this.connStart = connStart;
            this.connTarget = connTarget;
            this.connLength = connLength;
            this.connType = connType;
        }

        AtomicPart rootPart() {
            return parts[0];
        }
    }

    /** A leaf of the assembly tree. Assemblies never move, so the parent is a final id. */
    static final class BaseAssembly {
        final int id;
        final int type;
        final int parentId;
        final VBox<Integer> buildDate;
        /** The composite parts it uses: a bag of ids. */
        final VBox<int[]> components;

        BaseAssembly(int id, int type, int parentId, VBox<Integer> buildDate, VBox<int[]> components) {
            this.id = id;
            this.type = type;
            this.parentId = parentId;
            this.buildDate = buildDate;
            this.components = components;
        }
    }

    /** An inner node of the assembly tree; its children are base assemblies at level 2, else complex ones. */
    static final class ComplexAssembly {
        final int id;
        final int type;
        final int level;
        /** 0 for the design root. */
        final int parentId;
        final VBox<Integer> buildDate;
        final VBox<int[]> subAssemblies;

        ComplexAssembly(int id, int type, int level, int parentId, VBox<Integer> buildDate,
                VBox<int[]> subAssemblies) {
            this.id = id;
            this.type = type;
            this.level = level;
            this.parentId = parentId;
            this.buildDate = buildDate;
            this.subAssemblies = subAssemblies;
        }

        boolean childrenAreBase() {
            return level == 2;
        }
    }

    /**
     * What the root box holds once populate is done: the module (with its manual), the design root's id, the id
     * indexes (each as boxes holding chunks of its boxes, so no commit carries a huge array) and the id pools.
     */
    static final class Root {
        final long[] fingerprint;
        final int moduleId;
        final int moduleType;
        final int moduleBuildDate;
        final int designRootId;
        final int manualId;
        final String manualTitle;
        final VBox<String> manualText;
        /** Build date of the first box of {@link #dateIndex}. */
        final int dateBase;
        final VBox<?>[] complexIndex;
        final VBox<?>[] baseIndex;
        final VBox<?>[] compositeIndex;
        final VBox<?>[] atomicIndex;
        final VBox<?>[] titleIndex;
        final VBox<?>[] dateIndex;
        final VBox<int[]> freeComplexIds;
        final VBox<int[]> freeBaseIds;
        final VBox<int[]> freeCompositeIds;

        Root(long[] fingerprint, int moduleId, int moduleType, int moduleBuildDate, int designRootId, int manualId,
                String manualTitle, VBox<String> manualText, int dateBase, VBox<?>[] complexIndex,
                VBox<?>[] baseIndex, VBox<?>[] compositeIndex, VBox<?>[] atomicIndex, VBox<?>[] titleIndex,
                VBox<?>[] dateIndex, VBox<int[]> freeComplexIds, VBox<int[]> freeBaseIds,
                VBox<int[]> freeCompositeIds) {
            this.fingerprint = fingerprint;
            this.moduleId = moduleId;
            this.moduleType = moduleType;
            this.moduleBuildDate = moduleBuildDate;
            this.designRootId = designRootId;
            this.manualId = manualId;
            this.manualTitle = manualTitle;
            this.manualText = manualText;
            this.dateBase = dateBase;
            this.complexIndex = complexIndex;
            this.baseIndex = baseIndex;
            this.compositeIndex = compositeIndex;
            this.atomicIndex = atomicIndex;
            this.titleIndex = titleIndex;
            this.dateIndex = dateIndex;
            this.freeComplexIds = freeComplexIds;
            this.freeBaseIds = freeBaseIds;
            this.freeCompositeIds = freeCompositeIds;
        }
    }

    // ---- the codec ---------------------------------------------------------------------------------------

    /** The codec every replica of an STMBench7 run is built with. */
    static ValueCodec codec() {
        return ValueCodec.builder()
                .register(Root.class, TAG_ROOT, new RootSerializer())
                .register(ComplexAssembly.class, TAG_COMPLEX, new ComplexSerializer())
                .register(BaseAssembly.class, TAG_BASE, new BaseSerializer())
                .register(CompositePart.class, TAG_COMPOSITE, new CompositeSerializer())
                .register(AtomicPart.class, TAG_ATOMIC, new AtomicSerializer())
                .register(AtomicState.class, TAG_ATOMIC_STATE, new AtomicStateSerializer())
                .register(Document[].class, TAG_DOCUMENTS, new DocumentsSerializer())
                .register(VBox[].class, TAG_BOXES, new io.polycert.bench.workload.BoxArraySerializer())
                .build();
    }

    /** Zig-zag varints: small numbers of either sign take one or two bytes. */
    static void writeSigned(ValueOutput out, int v) {
        out.writeVarInt((v << 1) ^ (v >> 31));
    }

    static int readSigned(ValueInput in) {
        int n = in.readVarInt();
        return (n >>> 1) ^ -(n & 1);
    }

    static void writeInts(ValueOutput out, int[] a) {
        out.writeVarInt(a.length);
        for (int v : a) {
            writeSigned(out, v);
        }
    }

    static int[] readInts(ValueInput in) {
        int[] a = new int[in.readLength(1)];
        for (int i = 0; i < a.length; i++) {
            a[i] = readSigned(in);
        }
        return a;
    }

    static void writeBoxes(ValueOutput out, VBox<?>[] boxes) {
        out.writeVarInt(boxes.length);
        for (VBox<?> b : boxes) {
            out.writeBox(b);
        }
    }

    static VBox<?>[] readBoxes(ValueInput in) {
        VBox<?>[] boxes = new VBox<?>[in.readLength(1)];
        for (int i = 0; i < boxes.length; i++) {
            boxes[i] = in.readBox();
        }
        return boxes;
    }

    @SuppressWarnings("unchecked")
    static <T> VBox<T> readTypedBox(ValueInput in) {
        return (VBox<T>) in.readBox();
    }

    private static void writeAtomic(ValueOutput out, AtomicPart a) {
        out.writeVarInt(a.id);
        out.writeVarInt(a.type);
        out.writeVarInt(a.compositeId);
        out.writeVarInt(a.index);
        out.writeBox(a.state);
    }

    private static AtomicPart readAtomic(ValueInput in) {
        return new AtomicPart(in.readVarInt(), in.readVarInt(), in.readVarInt(), in.readVarInt(), readTypedBox(in));
    }

    private static void writeDocument(ValueOutput out, Document d) {
        out.writeVarInt(d.id);
        out.writeString(d.title);
        out.writeVarInt(d.compositeId);
        out.writeBox(d.head);
        out.writeBox(d.tail);
    }

    private static Document readDocument(ValueInput in) {
        return new Document(in.readVarInt(), in.readString(), in.readVarInt(), readTypedBox(in), readTypedBox(in));
    }

    private static final class RootSerializer implements ValueSerializer<Root> {
        @Override
        public void write(Root r, ValueOutput out) {
            out.writeVarInt(r.fingerprint.length);
            for (long v : r.fingerprint) {
                out.writeLong(v);
            }
            out.writeVarInt(r.moduleId);
            out.writeVarInt(r.moduleType);
            writeSigned(out, r.moduleBuildDate);
            out.writeVarInt(r.designRootId);
            out.writeVarInt(r.manualId);
            out.writeString(r.manualTitle);
            out.writeBox(r.manualText);
            writeSigned(out, r.dateBase);
            writeBoxes(out, r.complexIndex);
            writeBoxes(out, r.baseIndex);
            writeBoxes(out, r.compositeIndex);
            writeBoxes(out, r.atomicIndex);
            writeBoxes(out, r.titleIndex);
            writeBoxes(out, r.dateIndex);
            out.writeBox(r.freeComplexIds);
            out.writeBox(r.freeBaseIds);
            out.writeBox(r.freeCompositeIds);
        }

        @Override
        public Root read(ValueInput in) {
            long[] fingerprint = new long[in.readLength(8)];
            for (int i = 0; i < fingerprint.length; i++) {
                fingerprint[i] = in.readLong();
            }
            return new Root(fingerprint, in.readVarInt(), in.readVarInt(), readSigned(in), in.readVarInt(),
                    in.readVarInt(), in.readString(), readTypedBox(in), readSigned(in), readBoxes(in), readBoxes(in),
                    readBoxes(in), readBoxes(in), readBoxes(in), readBoxes(in), readTypedBox(in), readTypedBox(in),
                    readTypedBox(in));
        }
    }

    private static final class ComplexSerializer implements ValueSerializer<ComplexAssembly> {
        @Override
        public void write(ComplexAssembly c, ValueOutput out) {
            out.writeVarInt(c.id);
            out.writeVarInt(c.type);
            out.writeVarInt(c.level);
            out.writeVarInt(c.parentId);
            out.writeBox(c.buildDate);
            out.writeBox(c.subAssemblies);
        }

        @Override
        public ComplexAssembly read(ValueInput in) {
            return new ComplexAssembly(in.readVarInt(), in.readVarInt(), in.readVarInt(), in.readVarInt(),
                    readTypedBox(in), readTypedBox(in));
        }
    }

    private static final class BaseSerializer implements ValueSerializer<BaseAssembly> {
        @Override
        public void write(BaseAssembly b, ValueOutput out) {
            out.writeVarInt(b.id);
            out.writeVarInt(b.type);
            out.writeVarInt(b.parentId);
            out.writeBox(b.buildDate);
            out.writeBox(b.components);
        }

        @Override
        public BaseAssembly read(ValueInput in) {
            return new BaseAssembly(in.readVarInt(), in.readVarInt(), in.readVarInt(), readTypedBox(in),
                    readTypedBox(in));
        }
    }

    private static final class CompositeSerializer implements ValueSerializer<CompositePart> {
        @Override
        public void write(CompositePart c, ValueOutput out) {
            out.writeVarInt(c.id);
            out.writeVarInt(c.type);
            out.writeBox(c.buildDate);
            out.writeBox(c.usedIn);
            writeDocument(out, c.document);
            out.writeVarInt(c.parts.length);
            for (AtomicPart a : c.parts) {
                writeAtomic(out, a);
            }
            writeInts(out, c.connStart);
            writeInts(out, c.connTarget);
            writeInts(out, c.connLength);
            writeInts(out, c.connType);
        }

        @Override
        public CompositePart read(ValueInput in) {
            int id = in.readVarInt();
            int type = in.readVarInt();
            VBox<Integer> buildDate = readTypedBox(in);
            VBox<int[]> usedIn = readTypedBox(in);
            Document doc = readDocument(in);
            AtomicPart[] parts = new AtomicPart[in.readLength(5)];
            for (int i = 0; i < parts.length; i++) {
                parts[i] = readAtomic(in);
            }
            int[] connStart = readInts(in);
            int[] connTarget = readInts(in);
            int[] connLength = readInts(in);
            int[] connType = readInts(in);
            if (connStart.length != parts.length + 1 || connTarget.length != connLength.length
                    || connTarget.length != connType.length) {
                throw new CodecException("malformed composite part " + id + ": connection arrays do not match its "
                        + parts.length + " parts");
            }
            return new CompositePart(id, type, buildDate, usedIn, doc, parts, connStart, connTarget, connLength,
                    connType);
        }
    }

    private static final class AtomicSerializer implements ValueSerializer<AtomicPart> {
        @Override
        public void write(AtomicPart a, ValueOutput out) {
            writeAtomic(out, a);
        }

        @Override
        public AtomicPart read(ValueInput in) {
            return readAtomic(in);
        }
    }

    private static final class AtomicStateSerializer implements ValueSerializer<AtomicState> {
        @Override
        public void write(AtomicState s, ValueOutput out) {
            writeSigned(out, s.buildDate());
            writeSigned(out, s.x());
            writeSigned(out, s.y());
        }

        @Override
        public AtomicState read(ValueInput in) {
            return new AtomicState(readSigned(in), readSigned(in), readSigned(in));
        }
    }

    private static final class DocumentsSerializer implements ValueSerializer<Document[]> {
        @Override
        public void write(Document[] docs, ValueOutput out) {
            out.writeVarInt(docs.length);
            for (Document d : docs) {
                writeDocument(out, d);
            }
        }

        @Override
        public Document[] read(ValueInput in) {
            Document[] docs = new Document[in.readLength(5)];
            for (int i = 0; i < docs.length; i++) {
                docs[i] = readDocument(in);
            }
            return docs;
        }
    }
}
