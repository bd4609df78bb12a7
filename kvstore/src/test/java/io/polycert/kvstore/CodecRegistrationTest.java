package io.polycert.kvstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import io.polycert.gcs.GroupJoinException;
import io.polycert.gcs.GroupStack;
import io.polycert.oracle.ProtocolOracle;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A replica that lacks a codec registration of its group is refused when it joins, with the reason. It was admitted
 * to a view before it saw the state, so its leaving counts like a member that failed: two replicas stay, so the
 * group keeps its majority.
 */
class CodecRegistrationTest {

    @Test
    void aReplicaMissingARegistrationCannotJoinAndTheGroupGoesOn() {
        try (ReplicaCluster cluster = new ReplicaCluster()) {
            Replica first = cluster.start("a", ProtocolOracle.distUcb());
            cluster.start("b", ProtocolOracle.distUcb());
            VBox<String> greeting = first.root("greeting");
            first.stm().atomic(() -> greeting.put("hello"));

            GroupJoinException e = assertThrows(GroupJoinException.class, () -> Replica.builder(cluster.name)
                    .memberName("x").codec(ValueCodec.standard())
                    .stack(GroupStack.embedded().failureDetection(Duration.ofMillis(1500)))
                    .joinTimeout(Duration.ofSeconds(60)).start());
            assertTrue(e.getMessage().contains("does not register codec types its group does (40=[Lio.polycert.core"
                    + ".VBox;)"), e.getMessage());

            first.stm().atomic(() -> greeting.put("still here"));
            Replica second = cluster.start("c", ProtocolOracle.distUcb());
            VBox<String> seen = second.root("greeting");
            assertEquals("still here", second.stm().readOnly(seen::get));
        }
    }

    /**
     * Two replicas that found the group together receive no state, so they compare registrations by announcing
     * them in the total order: the one lacking the other's tag fails to start, naming it. Before, both started and
     * the one lacking the tag dropped every commit that used it.
     */
    @Test
    void aFounderMissingARegistrationOfAnotherFounderFailsToStart() throws Exception {
        String cluster = "founders-" + java.util.UUID.randomUUID();
        java.util.function.Function<ValueCodec, java.util.concurrent.Callable<Replica>> founder = codec -> () ->
                Replica.builder(cluster).memberName(codec == ValueCodec.standard() ? "lacking" : "complete")
                        .codec(codec).minimumMembers(2)
                        .stack(GroupStack.embedded().failureDetection(Duration.ofMillis(1500)))
                        .joinTimeout(Duration.ofSeconds(60)).start();
        java.util.concurrent.ExecutorService starter = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            java.util.concurrent.Future<Replica> complete = starter.submit(founder.apply(ReplicaCluster.CODEC));
            java.util.concurrent.Future<Replica> lacking = starter.submit(founder.apply(ValueCodec.standard()));
            java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> lacking.get(90, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof GroupJoinException, e.getCause().toString());
            assertTrue(e.getCause().getMessage().contains("cannot found the group: other founders register codec"
                    + " types it does not (complete"), e.getCause().getMessage());
            assertTrue(e.getCause().getMessage().contains("registers 40=[Lio.polycert.core.VBox;"),
                    e.getCause().getMessage());
            complete.get(90, java.util.concurrent.TimeUnit.SECONDS).close();
        } finally {
            starter.shutdownNow();
        }
    }
}
