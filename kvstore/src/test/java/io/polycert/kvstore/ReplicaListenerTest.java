package io.polycert.kvstore;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.certification.PolymorphicReplicationManager;
import io.polycert.core.group.GroupListener;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The replica hands the group layer a listener of its own, which passes each callback on to the replication
 * manager. {@link GroupListener}'s optional callbacks have empty defaults, so a callback the listener forgot would
 * be dropped without a sound: {@code heldFromDeparted}, say, is seen only when a VC originator leaves, and without it
 * a departed originator's delivered vote could be resolved as an abort.
 */
class ReplicaListenerTest {

    @Test
    void theReplicasListenerPassesOnEveryCallbackTheManagerHandles() throws Exception {
        Class<?> listener = Class.forName(Replica.class.getName() + "$IdAssigningListener");
        assertTrue(GroupListener.class.isAssignableFrom(listener), listener + " is a group listener");
        List<String> dropped = new ArrayList<>();
        for (Method callback : GroupListener.class.getMethods()) {
            Class<?> handler = PolymorphicReplicationManager.class
                    .getMethod(callback.getName(), callback.getParameterTypes()).getDeclaringClass();
            Class<?> forwarder = listener.getMethod(callback.getName(), callback.getParameterTypes())
                    .getDeclaringClass();
            if (handler == PolymorphicReplicationManager.class && forwarder != listener) {
                dropped.add(callback.getName());
            }
        }
        assertTrue(dropped.isEmpty(), "the manager handles, and the replica's listener does not pass on: " + dropped);
    }
}
