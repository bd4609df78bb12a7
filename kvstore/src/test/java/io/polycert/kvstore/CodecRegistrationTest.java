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
}
