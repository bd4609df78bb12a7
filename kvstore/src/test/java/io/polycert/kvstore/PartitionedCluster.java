package io.polycert.kvstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.polycert.gcs.JGroupsGroup;
import io.polycert.certification.partial.CommitProtocol;
import io.polycert.certification.partial.ConsistencyLevel;
import io.polycert.core.testing.Await;
import io.polycert.gcs.GroupStack;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/** Test helper: members of one partially replicated store in this JVM. */
final class PartitionedCluster implements AutoCloseable {
    final String name = "partial-" + UUID.randomUUID();
    final List<PartitionedStore> members = new ArrayList<>();
    /** How long the owners must go on agreeing for {@link #awaitSettledAgreement}. */
    private static final Duration AGREEMENT_HELD = Duration.ofMillis(300);
    private final Consumer<PartitionedStore.Builder> settings;

    PartitionedCluster(Consumer<PartitionedStore.Builder> settings) {
        this.settings = settings;
    }

    static PartitionedCluster of(ConsistencyLevel level, CommitProtocol protocol) {
        return new PartitionedCluster(b -> b.consistency(level).protocol(protocol).replicationDegree(2));
    }

    /** Starts n members together (the group is founded once all are there) and waits for one placement. */
    PartitionedCluster start(int n) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<PartitionedStore>> started = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String member = "M" + (members.size() + i);
                started.add(pool.submit(() -> builder(member).minimumMembers(n).start()));
            }
            for (Future<PartitionedStore> f : started) {
                members.add(f.get());
            }
        } finally {
            pool.shutdown();
        }
        awaitSettled();
        return this;
    }

    /** Adds one member to the running group. */
    PartitionedStore join() {
        PartitionedStore s = builder("M" + members.size()).start();
        members.add(s);
        return s;
    }

    private PartitionedStore.Builder builder(String member) {
        PartitionedStore.Builder b = PartitionedStore.builder(name).memberName(member)
                .stack(GroupStack.embedded().failureDetection(Duration.ofMillis(1500)).faultInjection());
        settings.accept(b);
        return b;
    }

    /** Writes k0..k(n-1) of map "m", each its own index as a Long, in one transaction at member 0. */
    void writeIndexedKeys(int n) {
        PartitionedStore first = members.get(0);
        TxMap<String, Long> map = first.map("m");
        first.atomic(() -> {
            for (int i = 0; i < n; i++) {
                map.put("k" + i, (long) i);
            }
        });
    }

    /** What {@link #writeIndexedKeys} writes: k0..k(n-1) of map "m", each its own index. */
    static Map<String, Long> indexedValues(int n) {
        Map<String, Long> values = new java.util.HashMap<>();
        for (int i = 0; i < n; i++) {
            values.put("k" + i, (long) i);
        }
        return values;
    }

    /** Makes a member fall silent (as if its process died), then closes it. */
    void crash(PartitionedStore s) {
        ((JGroupsGroup) s.group()).discard().discardAll(true);
        members.remove(s);
        s.close();
    }

    /** Waits until every member has the same view, placement and no rebalance under way. */
    void awaitSettled() {
        try {
            awaitSettledOrFail();
        } catch (AssertionError e) {
            StringBuilder sb = new StringBuilder(e.getMessage());
            for (PartitionedStore s : members) {
                sb.append("\n  ").append(s.self().name()).append(" view ").append(s.view()).append(" ready ")
                        .append(s.isReady()).append(" placement ").append(s.placementEpoch()).append("\n  ")
                        .append(s.describeState());
            }
            throw new AssertionError(sb.toString(), e);
        }
    }

    private void awaitSettledOrFail() {
        Await.until("one placement on " + members.size() + " members", () -> {
            long epoch = members.get(0).placementEpoch();
            for (PartitionedStore s : members) {
                if (!s.isReady() || s.placementEpoch() != epoch || s.view().size() != members.size()
                        || s.view().epoch() != epoch) {
                    return false;
                }
            }
            return true;
        });
    }

    /**
     * Waits until the owners of each key hold the value the test expects there (null: absent), and fails naming
     * every key whose owners still disagree or agree on something else after the deadline. Agreement alone does not
     * show that a write landed: a commit returns once decided, the owners not needed to decide it apply it about a
     * message delay later, and until then the owners of a key may all still hold the value from before it.
     */
    void awaitValues(String map, Map<?, ?> expected, int degree) {
        try {
            Await.until(expected.size() + " keys of " + map + " at the values the acknowledged transactions left",
                    () -> differences(map, expected, degree).isEmpty());
        } catch (AssertionError timedOut) {
            assertEquals("", differences(map, expected, degree),
                    "owners of " + map + " do not hold what the acknowledged transactions wrote");
        }
    }

    /**
     * {@link #awaitValues} where some transactions' outcomes are unknown: waits until the owners hold one of the
     * {@code candidates} (one per combination of those outcomes), and fails naming what differs from the first.
     */
    void awaitValuesAmong(String map, List<? extends Map<?, ?>> candidates, int degree) {
        try {
            Await.until("the keys of " + map + " at the values of one of " + candidates.size() + " possible outcomes",
                    () -> candidates.stream().anyMatch(c -> differences(map, c, degree).isEmpty()));
        } catch (AssertionError timedOut) {
            assertEquals("", differences(map, candidates.get(0), degree),
                    "owners of " + map + " hold none of the " + candidates.size() + " possible outcomes; against the first");
        }
    }

    private String differences(String map, Map<?, ?> expected, int degree) {
        StringBuilder sb = new StringBuilder();
        expected.forEach((key, value) -> {
            try {
                Object agreed = agreement(map, key, degree).value();
                if (!Objects.equals(value, agreed)) {
                    sb.append(" key ").append(key).append(": ").append(agreed).append(" expected ").append(value)
                            .append(';');
                }
            } catch (AssertionError e) {
                sb.append(' ').append(e.getMessage()).append(';');
            }
        });
        return sb.toString();
    }

    /**
     * Waits until the key's {@code min(degree, members)} owners hold one value and version, and returns that value
     * (from the same look); fails naming what differs after the deadline. Right after a commit returns, that may
     * be the value from before it: its owners apply it up to a message delay later, so they can all still agree on
     * the old value. To check that a write landed, use {@link #awaitValues}; where the final values are unknown,
     * {@link #awaitSettledAgreement} first.
     */
    Object agreedValue(String map, Object key, int degree) {
        Object[] agreed = new Object[1];
        try {
            Await.until("owners of " + map + "/" + key + " agree", () -> {
                try {
                    agreed[0] = agreement(map, key, degree).value();
                    return true;
                } catch (AssertionError e) {
                    return false;
                }
            });
        } catch (AssertionError timedOut) {
            return agreement(map, key, degree).value(); // fails, naming what differs
        }
        return agreed[0];
    }

    /**
     * Waits until the owners of every key agree, and go on agreeing on the same values and versions for
     * {@link #AGREEMENT_HELD}: for the end of a load whose last values are unknown, when the owners not needed to
     * decide the last commits may still be applying them. A lasting disagreement fails after the deadline.
     */
    void awaitSettledAgreement(String map, List<?> keys, int degree) {
        long[] heldSince = {0};
        List<Agreement> seen = new ArrayList<>();
        Await.until("owners of " + keys.size() + " keys of " + map + " agree for " + AGREEMENT_HELD, () -> {
            List<Agreement> now = new ArrayList<>();
            try {
                for (Object key : keys) {
                    now.add(agreement(map, key, degree));
                }
            } catch (AssertionError e) {
                seen.clear();
                return false;
            }
            if (!now.equals(seen)) {
                seen.clear();
                seen.addAll(now);
                heldSince[0] = System.nanoTime();
            }
            return System.nanoTime() - heldSince[0] >= AGREEMENT_HELD.toNanos();
        });
    }

    /** What the owners of a key hold alike. */
    private record Agreement(Object value, long version) {
    }

    /** The owners' common value and version; fails if they differ or are not as many as expected. */
    private Agreement agreement(String map, Object key, int degree) {
        List<Object> values = new ArrayList<>();
        List<Long> versions = new ArrayList<>();
        int owners = 0;
        for (PartitionedStore s : members) {
            if (s.owners(map, key).contains(s.self())) {
                owners++;
                values.add(s.ownedValue(map, key));
                versions.add(s.ownedVersion(map, key));
            }
        }
        assertEquals(Math.min(degree, members.size()), owners, "owners of " + key);
        for (int i = 1; i < values.size(); i++) {
            assertTrue(Objects.equals(values.get(0), values.get(i)) && versions.get(0).equals(versions.get(i)),
                    "owners of " + map + "/" + key + " disagree: " + values + " at versions " + versions);
        }
        return new Agreement(values.get(0), versions.get(0));
    }

    @Override
    public void close() {
        for (PartitionedStore s : members) {
            s.close();
        }
    }
}
