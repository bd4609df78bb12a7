package io.polycert.core.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.AbortCause;
import io.polycert.core.Stm;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.VBox;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class ValueCodecTest {

    record Point(int x, int y) {
    }

    enum Colour { RED, GREEN { } }

    static final ValueSerializer<Point> POINT = new ValueSerializer<>() {
        @Override
        public void write(Point p, ValueOutput out) {
            out.writeInt(p.x()).writeInt(p.y());
        }

        @Override
        public Point read(ValueInput in) {
            return new Point(in.readInt(), in.readInt());
        }
    };

    private final ValueCodec codec = ValueCodec.builder()
            .register(Point.class, 40, POINT)
            .registerEnum(Colour.class, 41)
            .build();

    private Object roundTrip(Object value) {
        return codec.fromBytes(codec.toBytes(value), BoxResolver.none());
    }

    @Test
    void builtInsAndRegisteredTypesRoundTrip() {
        for (Object v : List.of(true, (byte) -3, (short) 300, 'x', 42, -7L, 1.5f, Math.PI, "héllo", new Point(1, -2),
                Colour.RED, Colour.GREEN)) {
            assertEquals(v, roundTrip(v));
        }
        assertEquals(null, roundTrip(null));
        assertArrayEquals(new byte[] {1, 2, 3}, (byte[]) roundTrip(new byte[] {1, 2, 3}));
        assertArrayEquals(new int[] {1, -2}, (int[]) roundTrip(new int[] {1, -2}));
        assertArrayEquals(new long[] {Long.MIN_VALUE}, (long[]) roundTrip(new long[] {Long.MIN_VALUE}));
        assertArrayEquals(new double[] {0.5}, (double[]) roundTrip(new double[] {0.5}));
    }

    @Test
    void boxReferencesResolveThroughTheResolver() {
        Stm stm = Stm.create();
        VBox<String> box = stm.newBox("x");
        byte[] bytes = codec.toBytes(box);
        assertSame(box, codec.fromBytes(bytes, id -> {
            assertEquals(box.id(), id);
            return box;
        }));
        assertThrows(CodecException.class, () -> codec.fromBytes(bytes, BoxResolver.none()));
    }

    @Test
    void unregisteredTypeIsRefusedWithAnExplanation() {
        UnregisteredTypeException e = assertThrows(UnregisteredTypeException.class,
                () -> codec.toBytes(new HashMap<String, String>()));
        assertEquals(HashMap.class, e.type());
        assertTrue(e.getMessage().contains("java.util.HashMap"), e.getMessage());
        assertTrue(e.getMessage().contains("ValueCodec.builder().register(HashMap.class"), e.getMessage());
    }

    @Test
    void knownDeserializationGadgetsAreRefusedBeforeAnythingIsWritten() throws Exception {
        // Classes used in gadget chains; none is on the allow-list, so none is ever written or instantiated.
        for (Object gadget : List.of(new java.util.PriorityQueue<>(), new java.util.concurrent.ConcurrentHashMap<>(),
                new javax.management.BadAttributeValueExpException(null), new java.net.URL("http", "h", 1, "/"))) {
            ValueOutput out = new ValueOutput(codec);
            assertThrows(UnregisteredTypeException.class, () -> out.writeValue(gadget));
            assertEquals(0, out.size(), "nothing written for " + gadget.getClass().getName());
        }
    }

    @Test
    void registrationMistakesAreClear() {
        var b = ValueCodec.builder().register(Point.class, 40, POINT);
        assertThrows(IllegalArgumentException.class, () -> b.register(Point.class, 50, POINT));
        IllegalArgumentException dupTag = assertThrows(IllegalArgumentException.class,
                () -> b.registerEnum(Colour.class, 40));
        assertTrue(dupTag.getMessage().contains("already used by"), dupTag.getMessage());
        assertThrows(IllegalArgumentException.class, () -> b.register(Point.class, 3, POINT));
        assertThrows(IllegalArgumentException.class, () -> ValueCodec.builder().register(String.class, 40,
                new ValueSerializer<>() {
                    @Override
                    public void write(String value, ValueOutput out) {
                    }

                    @Override
                    public String read(ValueInput in) {
                        return "";
                    }
                }));
    }

    @Test
    void truncatedAndHostileInputIsRejected() {
        byte[] point = codec.toBytes(new Point(1, 2));
        for (int len = 0; len < point.length; len++) {
            byte[] cut = java.util.Arrays.copyOf(point, len);
            assertThrows(CodecException.class, () -> codec.fromBytes(cut, BoxResolver.none()));
        }
        // a string claiming 2^31-1 bytes must not allocate them
        ValueOutput out = new ValueOutput(codec);
        out.writeVarInt(9).writeVarInt(Integer.MAX_VALUE);
        CodecException e = assertThrows(CodecException.class, () -> codec.fromBytes(out.toByteArray(),
                BoxResolver.none()));
        assertTrue(e.getMessage().contains("exceeds"), e.getMessage());
        assertThrows(CodecException.class, () -> codec.fromBytes(new byte[] {99}, BoxResolver.none()));
        byte[] trailing = java.util.Arrays.copyOf(codec.toBytes(5), 6);
        assertThrows(CodecException.class, () -> codec.fromBytes(trailing, BoxResolver.none()));
    }

    @Property(tries = 2000)
    void randomBytesNeverEscapeAsAnythingButCodecException(@ForAll byte[] garbage) {
        try {
            Object v = codec.fromBytes(garbage, BoxResolver.none());
            assertTrue(v == null || codec.isAllowed(v instanceof Enum<?> en ? en.getDeclaringClass() : v.getClass()));
        } catch (CodecException expected) {
            Objects.requireNonNull(expected.getMessage());
        }
    }

    @Test
    void strictCodecAbortsTheCommitAndChangesNothing() {
        Stm stm = Stm.builder().strictCodec(codec).build();
        VBox<Object> a = stm.newBox(new Point(0, 0));
        VBox<Object> b = stm.newBox("fine");
        TransactionAbortedException e = assertThrows(TransactionAbortedException.class, () -> stm.atomic(() -> {
            b.put("changed");
            a.put(new StringBuilder("not allowed"));
        }));
        assertEquals(AbortCause.BAD_VALUE, e.abortCause());
        assertTrue(e.getMessage().contains("java.lang.StringBuilder"), e.getMessage());
        assertTrue(e.getMessage().contains("register"), e.getMessage());
        assertEquals(1, e.attempts(), "a bad value is not retried");
        assertEquals("fine", b.get());
        assertEquals(new Point(0, 0), a.get());
        assertEquals(0, stm.latestVersion());
        stm.atomic(() -> a.put(new Point(1, 1)));
        assertEquals(new Point(1, 1), a.get());
    }

    @Test
    void registrationsListTheApplicationTypesByTag() {
        ValueCodec reversed = ValueCodec.builder().registerEnum(Colour.class, 41).register(Point.class, 40, POINT)
                .build();
        assertTrue(ValueCodec.standard().registrations().isEmpty());
        assertEquals(java.util.Map.of(40, Point.class.getName(), 41, Colour.class.getName()), codec.registrations());
        assertEquals(List.of(40, 41), List.copyOf(reversed.registrations().keySet()), "in tag order");
        assertThrows(UnsupportedOperationException.class, () -> codec.registrations().put(42, "x"));
    }
}
