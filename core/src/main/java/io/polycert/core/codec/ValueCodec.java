package io.polycert.core.codec;

import io.polycert.core.VBox;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Encodes the values that cross the wire, with an allow-list of types: null, the primitive wrappers,
 * {@code String}, {@code byte[]}, {@code int[]}, {@code long[]}, {@code double[]}, references to {@link VBox}es,
 * and the application types registered with {@link Builder#register}. Anything else is refused with
 * {@link UnregisteredTypeException} before a byte is written, and decoding never instantiates a class by name, so
 * no deserialization gadget can be reached.
 *
 * <p>Immutable and thread-safe. Every replica of a cluster must register the same types with the same tags.
 */
public final class ValueCodec {
    /** Tags below this are the codec's own; application types use this and above. */
    public static final int FIRST_USER_TAG = 32;
    /** Highest tag an application type may use. */
    public static final int MAX_USER_TAG = 1 << 16;
    static final int MAX_DEPTH = 64;

    private static final int NULL = 0;
    private static final int BOOLEAN = 1;
    private static final int BYTE = 2;
    private static final int SHORT = 3;
    private static final int CHAR = 4;
    private static final int INT = 5;
    private static final int LONG = 6;
    private static final int FLOAT = 7;
    private static final int DOUBLE = 8;
    private static final int STRING = 9;
    private static final int BYTES = 10;
    private static final int INTS = 11;
    private static final int LONGS = 12;
    private static final int DOUBLES = 13;
    private static final int BOX = 14;

    private static final Map<Class<?>, Integer> BUILT_IN = Map.ofEntries(
            Map.entry(Boolean.class, BOOLEAN), Map.entry(Byte.class, BYTE), Map.entry(Short.class, SHORT),
            Map.entry(Character.class, CHAR), Map.entry(Integer.class, INT), Map.entry(Long.class, LONG),
            Map.entry(Float.class, FLOAT), Map.entry(Double.class, DOUBLE), Map.entry(String.class, STRING),
            Map.entry(byte[].class, BYTES), Map.entry(int[].class, INTS), Map.entry(long[].class, LONGS),
            Map.entry(double[].class, DOUBLES), Map.entry(VBox.class, BOX));

    private static final ValueCodec STANDARD = new ValueCodec(Map.of(), Map.of());

    private final Map<Class<?>, Registration<?>> byClass;
    private final Map<Integer, Registration<?>> byTag;

    private ValueCodec(Map<Class<?>, Registration<?>> byClass, Map<Integer, Registration<?>> byTag) {
        this.byClass = byClass;
        this.byTag = byTag;
    }

    /** The built-in types only. */
    public static ValueCodec standard() {
        return STANDARD;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Whether values of exactly this class can be encoded (subclasses must be registered themselves). */
    public boolean isAllowed(Class<?> type) {
        return BUILT_IN.containsKey(type) || byClass.containsKey(type);
    }

    /**
     * Checks the value's own type against the allow-list (the types of its fields are checked when it is
     * encoded).
     *
     * @throws UnregisteredTypeException naming the type and how to register it
     */
    public void checkEncodable(Object value) {
        if (value != null && !isAllowed(typeOf(value))) {
            throw new UnregisteredTypeException(typeOf(value));
        }
    }

    /**
     * The application types registered, by tag: class names, in tag order. Replicas compare them when one joins
     * (it must register at least the tags its group does), and error messages show them.
     */
    public java.util.SortedMap<Integer, String> registrations() {
        java.util.TreeMap<Integer, String> out = new java.util.TreeMap<>();
        byTag.forEach((tag, r) -> out.put(tag, r.type.getName()));
        return java.util.Collections.unmodifiableSortedMap(out);
    }

    /** Encodes one value into a new array. */
    public byte[] toBytes(Object value) {
        ValueOutput out = new ValueOutput(this);
        out.writeValue(value);
        return out.toByteArray();
    }

    /** Decodes one value that must take up all of {@code bytes}. */
    public Object fromBytes(byte[] bytes, BoxResolver boxes) {
        ValueInput in = new ValueInput(this, bytes, boxes);
        Object value = in.readValue();
        in.expectEnd();
        return value;
    }

    @SuppressWarnings("unchecked")
    void encode(Object value, ValueOutput out) {
        if (value == null) {
            out.writeVarInt(NULL);
            return;
        }
        Class<?> type = typeOf(value);
        Integer builtIn = BUILT_IN.get(type);
        if (builtIn == null) {
            Registration<Object> reg = (Registration<Object>) byClass.get(type);
            if (reg == null) {
                throw new UnregisteredTypeException(type);
            }
            out.writeVarInt(reg.tag);
            reg.serializer.write(value, out);
            return;
        }
        out.writeVarInt(builtIn);
        switch (builtIn) {
            case BOOLEAN -> out.writeBoolean((Boolean) value);
            case BYTE -> out.writeByte((Byte) value);
            case SHORT -> out.writeShort((Short) value);
            case CHAR -> out.writeChar((Character) value);
            case INT -> out.writeInt((Integer) value);
            case LONG -> out.writeLong((Long) value);
            case FLOAT -> out.writeFloat((Float) value);
            case DOUBLE -> out.writeDouble((Double) value);
            case STRING -> out.writeString((String) value);
            case BYTES -> out.writeBytes((byte[]) value);
            case INTS -> {
                int[] a = (int[]) value;
                out.writeVarInt(a.length);
                for (int x : a) {
                    out.writeInt(x);
                }
            }
            case LONGS -> {
                long[] a = (long[]) value;
                out.writeVarInt(a.length);
                for (long x : a) {
                    out.writeLong(x);
                }
            }
            case DOUBLES -> {
                double[] a = (double[]) value;
                out.writeVarInt(a.length);
                for (double x : a) {
                    out.writeDouble(x);
                }
            }
            case BOX -> out.writeBox((VBox<?>) value);
            default -> throw new AssertionError(builtIn);
        }
    }

    Object decode(ValueInput in) {
        int tag = in.readVarInt();
        switch (tag) {
            case NULL:
                return null;
            case BOOLEAN:
                return in.readBoolean();
            case BYTE:
                return in.readByte();
            case SHORT:
                return in.readShort();
            case CHAR:
                return in.readChar();
            case INT:
                return in.readInt();
            case LONG:
                return in.readLong();
            case FLOAT:
                return in.readFloat();
            case DOUBLE:
                return in.readDouble();
            case STRING:
                return in.readString();
            case BYTES:
                return in.readBytes();
            case INTS: {
                int[] a = new int[in.readLength(4)];
                for (int i = 0; i < a.length; i++) {
                    a[i] = in.readInt();
                }
                return a;
            }
            case LONGS: {
                long[] a = new long[in.readLength(8)];
                for (int i = 0; i < a.length; i++) {
                    a[i] = in.readLong();
                }
                return a;
            }
            case DOUBLES: {
                double[] a = new double[in.readLength(8)];
                for (int i = 0; i < a.length; i++) {
                    a[i] = in.readDouble();
                }
                return a;
            }
            case BOX:
                return in.readBox();
            default:
                Registration<?> reg = byTag.get(tag);
                if (reg == null) {
                    throw new CodecException("unknown type tag " + tag
                            + " (is the type registered with the same tag on every replica?)");
                }
                Object value = reg.serializer.read(in);
                if (value != null && typeOf(value) != reg.type) {
                    throw new CodecException("serializer for tag " + tag + " returned a " + typeOf(value).getName()
                            + ", not a " + reg.type.getName());
                }
                return value;
        }
    }

    /** The class a value is registered under: an enum constant with a body counts as its enum. */
    private static Class<?> typeOf(Object value) {
        return value instanceof Enum<?> e ? e.getDeclaringClass() : value.getClass();
    }

    private record Registration<T>(Class<T> type, int tag, ValueSerializer<T> serializer) {
    }

    /** Registers application types; each needs a tag that is the same on every replica. */
    public static final class Builder {
        private final Map<Class<?>, Registration<?>> byClass = new HashMap<>();
        private final Map<Integer, Registration<?>> byTag = new HashMap<>();

        private Builder() {
        }

        /**
         * Allows values of exactly {@code type}, written and read by {@code serializer}.
         *
         * @param tag between {@link #FIRST_USER_TAG} and {@link #MAX_USER_TAG}, unique in this codec
         */
        public <T> Builder register(Class<T> type, int tag, ValueSerializer<T> serializer) {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(serializer, "serializer");
            if (tag < FIRST_USER_TAG || tag > MAX_USER_TAG) {
                throw new IllegalArgumentException("tag for " + type.getName() + " must be between "
                        + FIRST_USER_TAG + " and " + MAX_USER_TAG + ", was " + tag);
            }
            if (BUILT_IN.containsKey(type)) {
                throw new IllegalArgumentException(type.getName() + " is built in; it needs no registration");
            }
            if (!type.isArray() && (type.isInterface() || java.lang.reflect.Modifier.isAbstract(type.getModifiers()))) {
                throw new IllegalArgumentException(type.getName() + " is abstract; register the concrete classes"
                        + " whose instances are stored (the codec matches exact classes)");
            }
            Registration<?> previous = byTag.get(tag);
            if (previous != null) {
                throw new IllegalArgumentException("tag " + tag + " is already used by " + previous.type.getName());
            }
            if (byClass.containsKey(type)) {
                throw new IllegalArgumentException(type.getName() + " is already registered");
            }
            Registration<T> reg = new Registration<>(type, tag, serializer);
            byClass.put(type, reg);
            byTag.put(tag, reg);
            return this;
        }

        /** Allows an enum, encoded by constant name (robust to reordering the constants). */
        public <E extends Enum<E>> Builder registerEnum(Class<E> type, int tag) {
            return register(type, tag, new ValueSerializer<>() {
                @Override
                public void write(E value, ValueOutput out) {
                    out.writeString(value.name());
                }

                @Override
                public E read(ValueInput in) {
                    String name = in.readString();
                    try {
                        return Enum.valueOf(type, name);
                    } catch (IllegalArgumentException e) {
                        throw new CodecException("no constant " + name + " in " + type.getName(), e);
                    }
                }
            });
        }

        public ValueCodec build() {
            return new ValueCodec(Map.copyOf(byClass), Map.copyOf(byTag));
        }
    }
}
