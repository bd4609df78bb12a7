package io.polycert.kvstore.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.AbortCause;
import io.polycert.core.CommitOutcomeUnknownException;
import io.polycert.core.StmClosedException;
import io.polycert.core.Transaction;
import io.polycert.core.TransactionAbortedException;
import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import io.polycert.core.codec.ValueInput;
import io.polycert.core.codec.ValueOutput;
import io.polycert.core.codec.ValueSerializer;
import io.polycert.core.testing.Await;
import io.polycert.gcs.GroupStack;
import io.polycert.gcs.JGroupsGroup;
import io.polycert.kvstore.Replica;
import io.polycert.kvstore.TxMap;
import io.polycert.kvstore.hostile.HostileHarness.Node;
import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jgroups.protocols.DISCARD;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Misuse of a replica's API (issue 8): each gets a clear exception and changes nothing, at the replica misused or
 * at the others. Covered elsewhere, and not repeated here: writes and new boxes in read-only transactions
 * ({@code StmTest.writingInReadOnlyTransactionIsAClearError}; on a replica's map,
 * {@code ReplicatedTxMapTest.writesNeedAReadWriteTransactionAndNonNullArguments}); a closed local STM
 * ({@code StmTest.closedStmRefusesWork}); a box of another STM read through {@code Transaction.read}
 * ({@code StmTest.twoStmsInOneJvmAreIndependent}); unregistered values at the top level
 * ({@code ReplicatedStmTest.boxesOutsideTransactionsAreRefusedAndBadValuesAbortCleanly},
 * {@code ReplicatedTxMapTest.unencodableKeysAndValuesAreRefusedAndNothingIsWritten},
 * {@code ValueCodecTest.strictCodecAbortsTheCommitAndChangesNothing}); the group refusing a broadcast in a minority
 * ({@code JGroupsGroupTest.minorityRefusesAndCatchesUpAfterThePartitionHeals}). These are the replicated cases.
 */
class ApiMisuseTest {
    private final String cluster = "misuse-" + UUID.randomUUID();
    private final List<Replica> replicas = new ArrayList<>();

    @AfterEach
    void tearDown() {
        for (int i = replicas.size() - 1; i >= 0; i--) {
            try {
                replicas.get(i).close();
            } catch (RuntimeException ignored) {
                // closed by the test
            }
        }
    }

    private Replica start(String name, ValueCodec codec, GroupStack stack, Protocol protocol) {
        Replica r = Replica.builder(cluster).memberName(name).codec(codec).stack(stack)
                .oracle(ProtocolOracle.always(protocol)).start();
        replicas.add(r);
        return r;
    }

    private Replica start(String name, Protocol protocol) {
        return start(name, HostileHarness.CODEC, GroupStack.embedded().failureDetection(Duration.ofSeconds(2))
                .faultInjection(), protocol);
    }

    private static void awaitSameVersion(List<Replica> rs) {
        Await.until("replicas at the same version", () -> rs.stream().mapToLong(r -> r.stm().latestVersion())
                .distinct().count() == 1);
    }

    private static DISCARD discard(Replica r) {
        return ((JGroupsGroup) r.group()).discard();
    }

    private static org.jgroups.Address address(Replica r) {
        return new org.jgroups.util.UUID(r.self().high(), r.self().low());
    }

    /**
     * Two replicas in one JVM have boxes with the same ids (every root, for a start), but each belongs to its own
     * STM: B's transaction refuses A's box, to read or to write, and nothing commits anywhere.
     */
    @Test
    void aBoxOfAnotherReplicaIsRefusedByATransaction() {
        Replica a = start("A", Protocol.NVC);
        Replica b = start("B", Protocol.NVC);
        VBox<Long> xAtA = a.root("x");
        a.stm().atomic(() -> xAtA.put(1L));
        awaitSameVersion(List.of(a, b));
        VBox<Long> xAtB = b.root("x");
        assertEquals(xAtA.id(), xAtB.id(), "roots share their ids across replicas");
        long version = a.stm().latestVersion();
        String digest = HostileHarness.digest(a);

        IllegalArgumentException write = assertThrows(IllegalArgumentException.class,
                () -> b.stm().atomic(() -> b.stm().currentTransaction().write(xAtA, 2L)));
        assertTrue(write.getMessage().contains("belongs to"), write.getMessage());
        IllegalArgumentException read = assertThrows(IllegalArgumentException.class,
                () -> b.stm().atomic(() -> xAtB.put(b.stm().currentTransaction().read(xAtA) + 1)));
        assertTrue(read.getMessage().contains("belongs to"), read.getMessage());
        Transaction tx = b.stm().begin(); // demarcated by hand: the refusal leaves it usable
        assertThrows(IllegalArgumentException.class, () -> tx.write(xAtA, 3L));
        tx.write(xAtB, 4L);
        tx.abort();

        for (Replica r : List.of(a, b)) {
            assertEquals(version, r.stm().latestVersion(), r + " committed something");
            assertEquals(digest, HostileHarness.digest(r));
        }
    }

    /**
     * The same through {@code VBox.get} and {@code VBox.put}, the way application code uses boxes: A's box, used
     * inside B's transaction, is read and written by A's STM as if no transaction ran (a put even commits a
     * replicated transaction of A's on its own), outside B's transaction and its atomicity. So the core STM refuses
     * a box of another STM while a transaction of that other STM, and none of the box's own, runs on the thread.
     */
    @Test
    void aBoxOfAnotherReplicaUsedThroughGetAndPutIsRefusedToo() {
        Replica a = start("A", Protocol.NVC);
        Replica b = start("B", Protocol.NVC);
        VBox<Long> xAtA = a.root("x");
        a.stm().atomic(() -> xAtA.put(1L));
        awaitSameVersion(List.of(a, b));
        VBox<Long> yAtB = b.root("y");
        long version = a.stm().latestVersion();
        assertThrows(IllegalArgumentException.class, () -> b.stm().atomic(() -> xAtA.put(2L)));
        assertThrows(IllegalArgumentException.class, () -> b.stm().atomic(() -> yAtB.put(xAtA.get())));
        awaitSameVersion(List.of(a, b));
        assertEquals(version, a.stm().latestVersion(), "B's transaction committed a write on A");
    }

    /**
     * After {@code close()} every way in is refused with {@link StmClosedException} (a transaction begun before is
     * refused at commit), and the others neither see anything of it nor stop.
     */
    @Test
    void aClosedReplicaRefusesTransactionsAndTheOthersGoOn() {
        Replica a = start("A", Protocol.NVC);
        Replica b = start("B", Protocol.VC);
        Replica c = start("C", Protocol.BFC);
        VBox<Long> x = a.root("x");
        TxMap<String, Long> m = a.map("m");
        a.stm().atomic(() -> {
            x.put(1L);
            m.put("k", 1L);
        });
        awaitSameVersion(List.of(a, b, c));
        Transaction open = a.stm().begin();
        x.put(2L);
        open.commit(); // nothing in flight yet: fine
        Transaction running = a.stm().begin();
        x.put(3L);
        a.close();
        assertThrows(StmClosedException.class, running::commit);
        assertEquals(Transaction.Status.ABORTED, running.status());
        assertThrows(StmClosedException.class, () -> a.stm().atomic(() -> x.put(4L)));
        assertThrows(StmClosedException.class, () -> a.stm().atomic(() -> m.put("k", 4L)));
        assertThrows(StmClosedException.class, () -> a.stm().begin());
        assertThrows(StmClosedException.class, () -> a.stm().readOnly(() -> x.get()));
        a.close(); // closing again is harmless

        Await.until("B and C without A", () -> b.view().size() == 2 && c.view().size() == 2);
        // Waiting for the value, not only for equal versions, which hold before either installs A's last commit.
        Await.until("B and C hold A's last commit", () -> b.stm().readOnly(() -> b.<Long>root("x").get()) == 2L
                && c.stm().readOnly(() -> c.<Long>root("x").get()) == 2L);
        awaitSameVersion(List.of(b, c));
        assertEquals(2L, (long) b.stm().readOnly(() -> b.<Long>root("x").get()), "B has what A committed, only");
        b.stm().atomic(() -> b.<Long>root("x").put(5L)); // and they go on
        awaitSameVersion(List.of(b, c));
        assertEquals(5L, (long) c.stm().readOnly(() -> c.<Long>root("x").get()));
    }

    /**
     * A commit waiting for its outcome when its replica is closed ends with CommitOutcomeUnknownException (the group
     * could still have committed it; here nothing of it left A, so it is applied nowhere).
     */
    @Test
    void aCommitInFlightWhenItsReplicaClosesFailsAndIsAppliedNowhere() throws Exception {
        Replica a = start("A", Protocol.NVC);
        Replica b = start("B", Protocol.NVC);
        Replica c = start("C", Protocol.NVC);
        VBox<Long> x = a.root("x");
        a.stm().atomic(() -> x.put(1L));
        awaitSameVersion(List.of(a, b, c));
        long version = b.stm().latestVersion();
        discard(a).discardAll(true); // what A sends goes nowhere: its commit waits
        CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> a.stm().atomic(() -> x.put(2L)));
        Thread.sleep(300);
        assertFalse(commit.isDone(), "the commit cannot have an outcome yet");
        a.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> commit.get(30, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof CommitOutcomeUnknownException, String.valueOf(e.getCause()));
        Await.until("B and C without A", () -> b.view().size() == 2 && c.view().size() == 2);
        for (Replica r : List.of(b, c)) {
            assertEquals(version, r.stm().latestVersion());
            assertEquals(1L, (long) r.stm().readOnly(() -> r.<Long>root("x").get()));
        }
    }

    /** A type the codec does not know, hidden inside one it knows, or a serializer that fails: nothing commits. */
    @Test
    void valuesThatCannotBeEncodedAbortTheCommitAndChangeNothingAnywhere() {
        record Faulty(int n) {
        }
        ValueCodec codec = ValueCodec.builder()
                .register(Node.class, HostileHarness.NODE_TAG, new ValueSerializer<>() {
                    @Override
                    public void write(Node value, ValueOutput out) {
                        out.writeValue(value.head()).writeValue(value.tail());
                    }

                    @Override
                    public Node read(ValueInput in) {
                        return new Node(in.readValue(), in.readValue());
                    }
                })
                .register(Faulty.class, 50, new ValueSerializer<>() {
                    @Override
                    public void write(Faulty value, ValueOutput out) {
                        throw new IllegalStateException("this serializer is broken");
                    }

                    @Override
                    public Faulty read(ValueInput in) {
                        return new Faulty(in.readInt());
                    }
                }).build();
        GroupStack stack = GroupStack.embedded().failureDetection(Duration.ofSeconds(2));
        Replica a = start("A", codec, stack, Protocol.NVC);
        Replica b = start("B", codec, stack, Protocol.NVC);
        VBox<Object> x = a.root("x");
        VBox<Object> y = a.root("y");
        a.stm().atomic(() -> x.put("before"));
        awaitSameVersion(List.of(a, b));
        long version = a.stm().latestVersion();

        TransactionAbortedException nested = assertThrows(TransactionAbortedException.class, () -> a.stm().atomic(
                () -> {
                    y.put("fine");
                    x.put(new Node(1L, new Node(new StringBuilder("not on the allow-list"), null)));
                }));
        assertEquals(AbortCause.BAD_VALUE, nested.abortCause());
        assertTrue(nested.getMessage().contains("java.lang.StringBuilder"), nested.getMessage());
        // a serializer's own failure comes out as it is
        IllegalStateException broken = assertThrows(IllegalStateException.class, () -> a.stm().atomic(() -> {
            y.put("fine");
            x.put(new Faulty(1));
        }));
        assertEquals("this serializer is broken", broken.getMessage());

        awaitSameVersion(List.of(a, b));
        for (Replica r : List.of(a, b)) {
            assertEquals(version, r.stm().latestVersion(), r + " committed something");
            assertEquals("before", r.stm().readOnly(() -> r.root("x").get()));
            assertNull(r.stm().readOnly(() -> r.root("y").get()));
        }
        a.stm().atomic(() -> x.put(new Node("after", 2L))); // the replica goes on
        Await.until("B has it", () -> b.stm().readOnly(() -> b.root("x").get()) instanceof Node);
    }

    /**
     * A replica cut off into a minority refuses to commit (NOT_IN_MAJORITY) and changes nothing, while the majority
     * goes on. (Merging back, once healed, is MinorityRejoinTest's; partial replication's refusal is
     * PartitionedStoreTest's.)
     */
    @Test
    void aCommitInAMinorityPartitionIsRefusedAndChangesNothing() {
        Replica a = start("A", Protocol.NVC);
        Replica b = start("B", Protocol.BFC);
        Replica c = start("C", Protocol.VC);
        VBox<Long> x = a.root("x");
        a.stm().atomic(() -> x.put(1L));
        awaitSameVersion(List.of(a, b, c));
        long version = a.stm().latestVersion();
        String digest = HostileHarness.digest(c);

        discard(c).addIgnoreMember(address(a)).addIgnoreMember(address(b));
        discard(a).addIgnoreMember(address(c));
        discard(b).addIgnoreMember(address(c));
        Await.until("C in a minority, A and B without it", () -> !c.view().primary() && a.view().size() == 2
                && b.view().size() == 2 && a.view().primary());
        VBox<Long> xAtC = c.root("x");
        TransactionAbortedException refused = assertThrows(TransactionAbortedException.class,
                () -> c.stm().atomic(() -> xAtC.put(xAtC.get() + 10)));
        assertEquals(AbortCause.NOT_IN_MAJORITY, refused.abortCause());
        assertEquals(version, c.stm().latestVersion());
        assertEquals(digest, HostileHarness.digest(c), "the minority changed state");
        assertEquals(1L, (long) c.stm().readOnly(xAtC::get), "reads still work, on the last state it had");

        a.stm().atomic(() -> x.put(x.get() + 1)); // the majority goes on
        awaitSameVersion(List.of(a, b));
        assertEquals(2L, (long) b.stm().readOnly(() -> b.<Long>root("x").get()));
        assertEquals(version, c.stm().latestVersion(), "the minority saw nothing of it");
    }

    /**
     * A thread interrupted while its commit waits for the outcome gets an exception at once (the transaction may
     * still commit), and the transaction is decided all the same: by voting (VC) too, where only the originator
     * can decide it. Before the fix, the originator had forgotten the transaction when it was delivered, so no one
     * voted on it, and it held up every replica's certification queue for as long as the originator stayed.
     */
    @Test
    void aCommitWhoseThreadIsInterruptedIsStillDecidedEverywhere() throws Exception {
        Replica a = start("A", Protocol.NVC);
        Replica b = start("B", Protocol.VC);
        VBox<Long> x = a.root("x");
        a.stm().atomic(() -> x.put(1L));
        awaitSameVersion(List.of(a, b));
        VBox<Long> xAtB = b.root("x");
        // B hears nothing from A meanwhile, so the commit must wait for its outcome. (Unhindered, in one JVM the
        // committing thread itself runs the other member's stack and the whole commit, and never waits.)
        discard(b).addIgnoreMember(address(a));
        Throwable caught;
        try {
            caught = CompletableFuture.supplyAsync(() -> {
                Thread.currentThread().interrupt(); // the commit will find its thread interrupted when it waits
                try {
                    b.stm().atomic(() -> xAtB.put(xAtB.get() + 1));
                    return (Throwable) null;
                } catch (RuntimeException e) {
                    return e;
                } finally {
                    Thread.interrupted();
                }
            }).get(30, TimeUnit.SECONDS);
        } finally {
            discard(b).removeIgnoredMember(address(a));
        }
        // Not an abort, which would say nothing was written: it may still commit.
        assertTrue(caught instanceof CommitOutcomeUnknownException && caught.getMessage().contains("interrupted"),
                "the commit must stop waiting: " + caught);
        // Whatever became of it, the group must still decide what comes next, from either replica.
        CompletableFuture<Void> next = CompletableFuture.runAsync(() -> a.stm().atomic(() -> x.put(x.get() + 10)));
        next.get(30, TimeUnit.SECONDS);
        CompletableFuture<Void> nextAtB = CompletableFuture.runAsync(() -> b.stm().atomic(
                () -> xAtB.put(xAtB.get() + 100)));
        nextAtB.get(30, TimeUnit.SECONDS);
        awaitSameVersion(List.of(a, b));
        assertEquals(HostileHarness.digest(a), HostileHarness.digest(b));
    }
}
