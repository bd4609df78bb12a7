package io.polycert.certification.hostile;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.certification.HandFedReplica;
import io.polycert.core.codec.BoxResolver;
import io.polycert.core.codec.CodecException;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.codec.ValueSerializer;
import io.polycert.core.group.MemberId;
import io.polycert.oracle.Protocol;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Known deserialization gadgets, on the decoding side (issue 8). {@code ValueCodecTest} shows that no gadget is
 * ever written (encoding refuses types off the allow-list); this shows that nothing naming a type off the
 * allow-list is ever read: not a Java serialization stream (the form gadget chains travel in), not a tag only the
 * sender registered, whether decoded by the codec directly or as the values of a commit message a replica
 * certified. Decoding must refuse before any class is loaded by name or any object built.
 */
class GadgetDecodingTest {
    /** Set by {@link Canary}'s static initializer: when anything loads the class. */
    static final AtomicBoolean CANARY_LOADED = new AtomicBoolean();
    /** Set when a Canary is deserialized (its readObject ran): the gadget "fired". */
    static final AtomicBoolean CANARY_FIRED = new AtomicBoolean();

    /** Serialized once in this JVM: the stream the test sends is made from it (Canary itself is never loaded). */
    static final class Decoy1 implements Serializable {
        private static final long serialVersionUID = 1L;
        int payload = 7;
    }

    /** A stand-in for a gadget class: its name in a stream must never get it loaded, let alone run. */
    static final class Canary implements Serializable {
        private static final long serialVersionUID = 1L;

        static {
            CANARY_LOADED.set(true);
        }

        int payload;

        private void readObject(ObjectInputStream in) throws java.io.IOException, ClassNotFoundException {
            in.defaultReadObject();
            CANARY_FIRED.set(true);
        }
    }

    /** A Java serialization stream of a Canary, made without loading Canary: a Decoy1's, renamed. */
    private static byte[] canaryStream() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(new Decoy1());
        }
        byte[] stream = bytes.toByteArray();
        byte[] from = Decoy1.class.getName().getBytes(StandardCharsets.UTF_8);
        byte[] to = from.clone();
        byte[] canary = "Canary".getBytes(StandardCharsets.UTF_8);
        System.arraycopy(canary, 0, to, to.length - canary.length, canary.length);
        int at = indexOf(stream, from);
        assertTrue(at > 0, "class name in the stream");
        System.arraycopy(to, 0, stream, at, to.length);
        return stream;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** Counts what the receiving codec's serializers build. */
    private static final AtomicInteger BUILT = new AtomicInteger();

    record Known(int n) {
    }

    record OnlyTheSenderKnows(String command) {
    }

    private static ValueSerializer<Known> knownSerializer() {
        return new ValueSerializer<>() {
            @Override
            public void write(Known value, ValueOutput out) {
                out.writeInt(value.n());
            }

            @Override
            public Known read(ValueInput in) {
                BUILT.incrementAndGet();
                return new Known(in.readInt());
            }
        };
    }

    private static final ValueCodec RECEIVER = ValueCodec.builder().register(Known.class, 40, knownSerializer())
            .build();
    private static final ValueCodec SENDER = ValueCodec.builder().register(Known.class, 40, knownSerializer())
            .register(OnlyTheSenderKnows.class, 41, new ValueSerializer<>() {
                @Override
                public void write(OnlyTheSenderKnows value, ValueOutput out) {
                    out.writeString(value.command());
                }

                @Override
                public OnlyTheSenderKnows read(ValueInput in) {
                    throw new AssertionError("the receiver has no such type");
                }
            }).build();

    @Test
    void nothingOffTheAllowListIsEverDecoded() throws Exception {
        byte[] gadget = canaryStream();
        assertFalse(CANARY_LOADED.get(), "making the stream loaded Canary");

        // 1. The codec on its own: a serialization stream is not a value; nor is a type only the sender knows.
        assertThrows(CodecException.class, () -> RECEIVER.fromBytes(gadget, BoxResolver.none()));
        byte[] unknownToReceiver = SENDER.toBytes(new OnlyTheSenderKnows("rm -rf /"));
        CodecException unknown = assertThrows(CodecException.class,
                () -> RECEIVER.fromBytes(unknownToReceiver, BoxResolver.none()));
        assertTrue(unknown.getMessage().contains("unknown type tag 41"), unknown.getMessage());
        // inside a known type's fields too: the outer value is never built
        ValueCodec nestingSender = ValueCodec.builder().register(OnlyTheSenderKnows.class, 41, new ValueSerializer<>() {
            @Override
            public void write(OnlyTheSenderKnows value, ValueOutput out) {
                out.writeString(value.command());
            }

            @Override
            public OnlyTheSenderKnows read(ValueInput in) {
                throw new AssertionError();
            }
        }).build();
        ValueOutput nested = new ValueOutput(nestingSender);
        nested.writeValue(new long[] {1}); // a known value first
        nested.writeValue(new OnlyTheSenderKnows("x"));
        byte[] twoValues = nested.toByteArray();
        ValueInput in = new ValueInput(RECEIVER, twoValues, BoxResolver.none());
        in.readValue();
        assertThrows(CodecException.class, in::readValue);
        ValueOutput withGadget = new ValueOutput(RECEIVER);
        withGadget.writeValue(new Known(1));
        withGadget.writeRaw(gadget, 0, gadget.length);
        byte[] knownThenGadget = withGadget.toByteArray();
        BUILT.set(0);
        ValueInput in2 = new ValueInput(RECEIVER, knownThenGadget, BoxResolver.none());
        assertEquals(new Known(1), in2.readValue());
        assertThrows(CodecException.class, in2::readValue);
        assertEquals(1, BUILT.get(), "only the known value was built");

        // 2. The same as the values of a commit a replica certifies: dropped, nothing applied, nothing built.
        HandFedReplica replica = new HandFedReplica(SELF, List.of(SELF, OTHER), RECEIVER, Protocol.NVC);
        BUILT.set(0);
        long txIds = 0;
        for (byte[] values : List.of(gadget, unknownToReceiver, knownThenGadget)) {
            long before = replica.stm.latestVersion();
            long txId = ++txIds;
            byte[] commit = commit(txId, replica.stm.latestVersion(), values);
            assertDoesNotThrow(() -> replica.manager.deliverOrdered(OTHER, txId, commit));
            assertEquals(before, replica.stm.latestVersion(), "a commit with undecodable values was applied");
        }
        assertTrue(BUILT.get() <= 1, "built " + BUILT.get());
        // and the replica still applies a good one
        replica.manager.deliverOrdered(OTHER, 99, commit(++txIds, replica.stm.latestVersion(),
                RECEIVER.toBytes(new Known(5))));
        assertEquals(1, replica.stm.latestVersion());
        assertEquals(new Known(5), replica.stm.readOnly(() -> replica.box(WRITTEN).get()));

        assertFalse(CANARY_LOADED.get(), "decoding loaded the gadget class");
        assertFalse(CANARY_FIRED.get());
        // The stream was a live one: Java deserialization does load and run it.
        try (ObjectInputStream ois = new ObjectInputStream(new ByteArrayInputStream(gadget))) {
            ois.readObject();
        }
        assertTrue(CANARY_LOADED.get() && CANARY_FIRED.get(), "the test's gadget stream is not a working one");
    }

    private static final long WRITTEN = 1234;
    private static final MemberId SELF = new MemberId(1, 1, "self");
    private static final MemberId OTHER = new MemberId(2, 2, "other");

    /** An NVC commit from the other member writing one new box with the given encoded value. */
    private static byte[] commit(long txId, long snapshot, byte[] values) {
        ValueOutput out = new ValueOutput(RECEIVER, 64 + values.length);
        out.writeByte(1).writeByte(Protocol.NVC.ordinal()).writeVarLong(txId).writeVarLong(snapshot);
        out.writeBytes(new byte[0]); // no oracle statistics
        out.writeVarLong(0); // no oracle tag
        out.writeVarInt(1).writeLong(WRITTEN).writeBoolean(true);
        out.writeVarInt(0); // reads nothing
        out.writeRaw(values, 0, values.length);
        return out.toByteArray();
    }
}
