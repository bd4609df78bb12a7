package io.polycert.certification;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.group.MemberId;
import io.polycert.oracle.Protocol;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Hostile input to state transfer (issue 8): a joiner handed a truncated, bit-flipped, overwritten or padded copy
 * of a real state must refuse it with an exception (the group layer then logs it and the member leaves the group)
 * and install nothing of it (the state ends in a checksum), never throw an Error or allocate much more than the
 * state's size; the state as sent installs. Seeded; rerun another seed with {@code -Dpolycert.fuzz.seed=N}.
 */
class CorruptStateTest {
    private static final long SEED = Long.getLong("polycert.fuzz.seed", 0x57A7EL);
    private static final MemberId A = new MemberId(1, 1, "A");
    private static final MemberId B = new MemberId(2, 2, "B");
    private static final ValueCodec CODEC = ValueCodec.standard();

    /** A's state after a few commits: boxes with strings and longs, a write log, decided transactions. */
    private static byte[] realState() throws Exception {
        HandFedReplica a = new HandFedReplica(A, List.of(A, B), CODEC, Protocol.NVC);
        for (int i = 0; i < 20; i++) {
            VBox<Object> box = a.stm.root(1_000 + i % 7, null);
            Object value = i % 2 == 0 ? "value-" + i : Long.valueOf(i);
            CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> a.stm.atomic(() -> box.put(value)));
            a.manager.deliverOrdered(A, i + 1, a.awaitSent(HandFedReplica.Kind.ORDERED, i + 1).payload());
            commit.get(10, TimeUnit.SECONDS);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        a.manager.writeState(out);
        return out.toByteArray();
    }

    private static long allocatedByThisThread() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getCurrentThreadAllocatedBytes();
    }

    @Test
    void aCorruptStateFailsWithAnExceptionAndNeverAnError() throws Exception {
        byte[] state = realState();
        HandFedReplica control = new HandFedReplica(B, List.of(A, B), CODEC, Protocol.NVC);
        control.manager.readState(new ByteArrayInputStream(state));
        assertEquals(20, control.stm.latestVersion(), "the state as sent installs");

        SplittableRandom random = new SplittableRandom(SEED);
        List<String> errors = new ArrayList<>();
        int cases = 0;
        java.util.Map<String, Integer> messages = new java.util.TreeMap<>();
        for (int n = 0; cases < 1000; n++) {
            byte[] bad = corrupt(state, random, n % 4);
            if (Arrays.equals(bad, state)) {
                continue; // random bytes written over it happened to be the same
            }
            cases++;
            HandFedReplica joiner = new HandFedReplica(B, List.of(A, B), CODEC, Protocol.NVC);
            long before = allocatedByThisThread();
            try {
                joiner.manager.readState(new ByteArrayInputStream(bad));
                errors.add("case " + n + " (" + bad.length + " bytes) was installed");
            } catch (Exception e) {
                String m = String.valueOf(e.getMessage());
                messages.merge(m.contains("checksum") ? "checksum" : m.contains("format") ? "format" : m, 1,
                        Integer::sum);
            } catch (Throwable t) {
                errors.add("case " + n + " (" + bad.length + " bytes): " + t);
            }
            long used = allocatedByThisThread() - before;
            if (used > 64L * bad.length + (16 << 20)) {
                errors.add("case " + n + " (" + bad.length + " bytes) allocated " + used + " bytes");
            }
            if (joiner.stm.latestVersion() != 0 || joiner.box(1_000) != null) {
                errors.add("case " + n + " (" + bad.length + " bytes) installed part of the state");
            }
        }
        assertTrue(errors.isEmpty(), () -> errors.size() + " cases failed, first: " + errors.get(0));
        System.out.println("CorruptStateTest: seed " + SEED + ", " + state.length + "-byte state, all " + cases
                + " corrupt copies refused, installing nothing: " + messages);
    }

    private static byte[] corrupt(byte[] state, SplittableRandom random, int kind) {
        switch (kind) {
            case 0: // cut short
                return Arrays.copyOf(state, random.nextInt(state.length));
            case 1: { // bits flipped
                byte[] b = state.clone();
                for (int k = 1 + random.nextInt(4); k > 0; k--) {
                    b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
                }
                return b;
            }
            case 2: { // a run of random bytes written over it (lengths that lie, among others)
                byte[] b = state.clone();
                int at = random.nextInt(b.length);
                for (int k = at; k < Math.min(b.length, at + 1 + random.nextInt(16)); k++) {
                    b[k] = (byte) random.nextInt(256);
                }
                return b;
            }
            default: { // random bytes after it
                byte[] b = Arrays.copyOf(state, state.length + 1 + random.nextInt(64));
                for (int k = state.length; k < b.length; k++) {
                    b[k] = (byte) random.nextInt(256);
                }
                return b;
            }
        }
    }
}
