package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.codec.ValueSerializer;
import io.polycert.core.group.MemberId;
import io.polycert.oracle.Protocol;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A replica that joins must register every codec tag its group does: one that lacks a tag would drop the commits
 * that use it, and differ from the others from then on. It is refused at the state's first bytes instead.
 */
class JoinerRegistrationsTest {
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");

    record Point(int x, int y) {
    }

    record Renamed(int x, int y) {
    }

    static <T> ValueSerializer<T> unused() {
        return new ValueSerializer<>() {
            @Override
            public void write(T value, ValueOutput out) {
                throw new AssertionError("no value of this type is written here");
            }

            @Override
            public T read(ValueInput in) {
                throw new AssertionError("no value of this type is read here");
            }
        };
    }

    private static final ValueCodec GROUP = ValueCodec.builder().register(Point.class, 40, unused()).build();

    private static byte[] stateOfAGroupWith(ValueCodec codec) throws Exception {
        HandFedReplica provider = new HandFedReplica(A, List.of(A, B), codec, Protocol.NVC);
        VBox<String> root = provider.stm.root(1_000, null);
        CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> provider.stm.atomic(() -> root.put("hello")));
        provider.manager.deliverOrdered(A, 1, provider.awaitSent(HandFedReplica.Kind.ORDERED, 1).payload());
        commit.get(10, TimeUnit.SECONDS);
        ByteArrayOutputStream state = new ByteArrayOutputStream();
        provider.manager.writeState(state);
        return state.toByteArray();
    }

    private static HandFedReplica joinerWith(ValueCodec codec) {
        return new HandFedReplica(B, List.of(A, B), codec, Protocol.NVC);
    }

    /**
     * The state's format number covers every message of full replication: a joiner of another build is refused
     * at the first byte, both formats named, rather than misreading commits later.
     */
    @Test
    void aStateOfAnotherFormatIsRefusedNamingBoth() throws Exception {
        byte[] state = stateOfAGroupWith(GROUP);
        int ours = state[0];
        state[0] = (byte) (ours + 1);
        IOException e = assertThrows(IOException.class,
                () -> joinerWith(GROUP).manager.readState(new ByteArrayInputStream(state)));
        assertTrue(e.getMessage().contains("unknown state format " + (ours + 1) + " (this replica reads " + ours),
                e.getMessage());
    }

    @Test
    void aJoinerMissingATagIsRefusedBeforeItInstallsAnything() throws Exception {
        byte[] state = stateOfAGroupWith(GROUP);
        HandFedReplica joiner = joinerWith(ValueCodec.standard());
        IOException e = assertThrows(IOException.class,
                () -> joiner.manager.readState(new ByteArrayInputStream(state)));
        assertTrue(e.getMessage().contains("does not register codec types its group does (40="
                + Point.class.getName() + ")"), e.getMessage());
        assertEquals(0, joiner.stm.latestVersion(), "nothing installed");
    }

    @Test
    void aJoinerWithTheSameOrMoreRegistrationsTakesTheState() throws Exception {
        byte[] state = stateOfAGroupWith(GROUP);
        ValueCodec more = ValueCodec.builder().register(Point.class, 40, unused())
                .register(Renamed.class, 41, unused()).build();
        for (ValueCodec codec : List.of(GROUP, more)) {
            HandFedReplica joiner = joinerWith(codec);
            joiner.manager.readState(new ByteArrayInputStream(state));
            assertEquals(1, joiner.stm.latestVersion());
            assertEquals("hello", joiner.stm.readOnly(() -> joiner.box(1_000).get()));
        }
    }

    /** Tags are the wire format: a class renamed between versions keeps its tag, and the joiner is let in. */
    @Test
    void aTagNamingAnotherClassIsAllowedAsARename() throws Exception {
        byte[] state = stateOfAGroupWith(GROUP);
        HandFedReplica joiner = joinerWith(ValueCodec.builder().register(Renamed.class, 40, unused()).build());
        joiner.manager.readState(new ByteArrayInputStream(state));
        assertEquals(1, joiner.stm.latestVersion());
    }
}
