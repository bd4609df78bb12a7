package io.polycert.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.oracle.Protocol;
import io.polycert.oracle.ProtocolOracle;
import io.polycert.oracle.TransactionProfile;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SwitchableOracleTest {
    /** A hook the switch forgot would reach the oracle's default (DistUCB's outcomes were lost so, once). */
    @Test
    void forwardsEveryMethodOfTheSpi() {
        List<String> missing = new ArrayList<>();
        for (Method m : ProtocolOracle.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            try { // declared by the interface: its default, not a forward
                Method own = SwitchableOracle.class.getMethod(m.getName(), m.getParameterTypes());
                if (own.getDeclaringClass().isInterface()) {
                    missing.add(m.getName());
                }
            } catch (NoSuchMethodException e) {
                missing.add(m.getName());
            }
        }
        assertTrue(missing.isEmpty(), "not forwarded: " + missing);
    }

    @Test
    void forwardsToTheOracleInUse() {
        List<String> heard = new ArrayList<>();
        SwitchableOracle switchable = new SwitchableOracle();
        switchable.use(new ProtocolOracle() {
            @Override
            public Protocol choose(TransactionProfile profile) {
                return Protocol.VC;
            }

            @Override
            public void record(Protocol protocol, TransactionProfile profile, long latencyNanos,
                    io.polycert.oracle.Outcome outcome) {
            }

            @Override
            public void commitDecided(long tag, Protocol protocol, boolean committed) {
                heard.add(tag + " " + protocol + " " + committed);
            }
        });
        assertEquals(Protocol.VC, switchable.choose(new TransactionProfile(1, 1, 8)));
        switchable.commitDecided(7, Protocol.BFC, false);
        assertEquals(List.of("7 BFC false"), heard);
    }
}
