package io.polycert.bench.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * One randomized fault schedule, generated from a seed alone (with the member count, the fault types and
 * workloads to pick from, the length and the failure-detection timeout): the same inputs give the same schedule.
 * A schedule runs one workload over one kind of replication and injects faults of one type, one after the other,
 * each healed before the next.
 *
 * @param seed the schedule's seed (also the clients' seed)
 * @param members member processes
 * @param workload {@code list-append} or {@code bank-audit}
 * @param replication full or partial replication
 * @param type the fault injected
 * @param seconds how long the load runs before the final heal and check
 * @param events the faults, in order
 */
public record FaultSchedule(long seed, int members, String workload, Replication replication, Type type, int seconds,
        List<Event> events) {

    /** Kinds of fault. */
    public enum Type {
        /** SIGKILL a member, then start a fresh process that joins by state transfer. */
        KILL,
        /** SIGSTOP a member, then SIGCONT (sometimes shorter, sometimes longer than failure detection). */
        PAUSE,
        /** Cut a minority of members off from the others (JGroups DISCARD on both sides), then heal. */
        PARTITION,
        /** Drop a fraction of the messages received and sent, at every member or at one. */
        LOSS,
        /** Delay what one member (or every member) sends. */
        DELAY,
        /** A member leaves gracefully, and a fresh process joins the group under load. */
        JOIN;

        public static Type fromName(String name) {
            for (Type t : values()) {
                if (t.name().equalsIgnoreCase(name.trim())) {
                    return t;
                }
            }
            throw new IllegalArgumentException("unknown fault type '" + name + "' (known: kill, pause, partition,"
                    + " loss, delay, join)");
        }

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One fault.
     *
     * @param atMs when to inject it, after the load started (later if the previous fault took longer)
     * @param holdMs how long it lasts before it is healed (for KILL and JOIN: how long the member stays away)
     * @param targets the members it hits (PARTITION: the minority; LOSS, DELAY: where it is set)
     * @param lossUp loss rate of received messages (LOSS)
     * @param lossDown loss rate of sent messages (LOSS)
     * @param delayMs delay of sent messages (DELAY)
     * @param jitterMs extra random delay up to this (DELAY)
     */
    public record Event(Type type, long atMs, long holdMs, List<Integer> targets, double lossUp, double lossDown,
            int delayMs, int jitterMs) {
        public Event {
            targets = List.copyOf(targets);
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder(type.label()).append(" r").append(targets.size() == 1
                    ? targets.get(0).toString() : targets.toString()).append(" at ").append(atMs).append(" ms for ")
                    .append(holdMs).append(" ms");
            if (type == Type.LOSS) {
                sb.append(String.format(Locale.ROOT, " (loss in %.2f, out %.2f)", lossUp, lossDown));
            } else if (type == Type.DELAY) {
                sb.append(" (").append(delayMs).append(" ms + up to ").append(jitterMs).append(")");
            }
            return sb.toString();
        }
    }

    public FaultSchedule {
        events = List.copyOf(events);
    }

    /** {@link #generate(long, int, List, List, List, int, long)} over full replication. */
    public static FaultSchedule generate(long seed, int members, List<Type> types, List<String> workloads,
            int seconds, long failureDetectionMs) {
        return generate(seed, members, types, workloads, List.of(Replication.FULL), seconds, failureDetectionMs);
    }

    /**
     * Generates the schedule of {@code seed}: its fault type, workload and replication are picked from
     * {@code types}, {@code workloads} and {@code replications} by the seed.
     *
     * @param members member processes, 3 to 5 (0: 3 to 5 by the seed)
     * @param failureDetectionMs the members' failure-detection timeout (pauses and partitions are sized by it)
     */
    public static FaultSchedule generate(long seed, int members, List<Type> types, List<String> workloads,
            List<Replication> replications, int seconds, long failureDetectionMs) {
        SplittableRandom r = new SplittableRandom(seed);
        Type type = types.get(r.nextInt(types.size()));
        String workload = workloads.get(r.nextInt(workloads.size()));
        int n = members > 0 ? members : 3 + r.nextInt(3);
        // A stream of its own, so that a seed's faults, workload and members are the same whatever the replication.
        Replication replication = replications.get(new SplittableRandom(seed ^ 0x5851F42D4C957F2DL)
                .nextInt(replications.size()));
        return generate(seed, n, type, workload, replication, seconds, failureDetectionMs);
    }

    /** {@link #generate(long, int, Type, String, Replication, int, long)} over full replication. */
    public static FaultSchedule generate(long seed, int members, Type type, String workload, int seconds,
            long failureDetectionMs) {
        return generate(seed, members, type, workload, Replication.FULL, seconds, failureDetectionMs);
    }

    /** The schedule of {@code seed} for a given fault type, workload and replication. */
    public static FaultSchedule generate(long seed, int members, Type type, String workload, Replication replication,
            int seconds, long failureDetectionMs) {
        if (members < 3 || members > 9) {
            throw new IllegalArgumentException("a fault schedule needs 3 to 9 members, was " + members);
        }
        if (seconds < 5) {
            throw new IllegalArgumentException("a fault schedule runs at least 5 s, was " + seconds);
        }
        SplittableRandom r = new SplittableRandom(seed ^ 0x9E3779B97F4A7C15L);
        long fd = failureDetectionMs;
        List<Event> events = new ArrayList<>();
        long at = 2000 + r.nextInt(2000);
        long end = seconds * 1000L;
        do {
            int target = r.nextInt(members);
            long hold;
            List<Integer> targets = List.of(target);
            double up = 0;
            double down = 0;
            int delay = 0;
            int jitter = 0;
            switch (type) {
                case KILL:
                case JOIN:
                    hold = 500 + r.nextInt(2500);
                    break;
                case PAUSE:
                    hold = r.nextBoolean() ? 300 + r.nextLong(Math.max(1, fd / 2)) : fd + 1000 + r.nextInt(3000);
                    break;
                case PARTITION: {
                    int minority = (members - 1) / 2 > 1 && r.nextBoolean() ? 2 : 1;
                    List<Integer> cut = new ArrayList<>();
                    cut.add(target);
                    while (cut.size() < minority) {
                        int other = r.nextInt(members);
                        if (!cut.contains(other)) {
                            cut.add(other);
                        }
                    }
                    targets = cut;
                    hold = 1000 + r.nextInt(3000); // counted from the minority view being seen
                    break;
                }
                case LOSS: {
                    if (r.nextBoolean()) {
                        List<Integer> all = new ArrayList<>();
                        for (int i = 0; i < members; i++) {
                            all.add(i);
                        }
                        targets = all;
                    }
                    up = 0.05 + r.nextDouble() * 0.25;
                    down = 0.05 + r.nextDouble() * 0.25;
                    hold = 3000 + r.nextInt(5000);
                    break;
                }
                case DELAY: {
                    if (r.nextInt(3) == 0) {
                        List<Integer> all = new ArrayList<>();
                        for (int i = 0; i < members; i++) {
                            all.add(i);
                        }
                        targets = all;
                    }
                    delay = 20 + r.nextInt(150);
                    jitter = r.nextInt(50);
                    hold = 3000 + r.nextInt(5000);
                    break;
                }
                default:
                    throw new AssertionError(type);
            }
            events.add(new Event(type, at, hold, targets, up, down, delay, jitter));
            at += hold + expectedRecoveryMs(type, fd) + 2000 + r.nextInt(3000);
        } while (at + 2000 < end);
        return new FaultSchedule(seed, members, workload, replication, type, seconds, events);
    }

    /** A rough guess of how long a fault of this type takes to show and to heal, to space the events. */
    private static long expectedRecoveryMs(Type type, long fd) {
        switch (type) {
            case KILL:
            case JOIN:
                return fd + 6000; // exclusion, then a JVM start and a state transfer
            case PAUSE:
            case PARTITION:
                return 2 * fd + 3000;
            default:
                return 1000;
        }
    }

    @Override
    public String toString() {
        return "schedule " + seed + ": " + members + " members, " + workload + ", " + replication.label()
                + " replication, " + type.label() + ", " + seconds
                + " s, events " + events;
    }
}
