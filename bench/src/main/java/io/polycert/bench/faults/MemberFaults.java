package io.polycert.bench.faults;

import io.polycert.core.group.GroupMember;
import io.polycert.core.group.MemberId;
import io.polycert.core.group.View;
import io.polycert.gcs.JGroupsGroup;
import io.polycert.kvstore.PartitionedStore;
import io.polycert.kvstore.Replica;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jgroups.protocols.DISCARD;

/**
 * The fault-injection controls of one member process (its replica's or partitioned store's stack built with
 * {@code GroupStack.faultInjection()}): JGroups' DISCARD for loss and partitions, a {@link SlowLink} for delay,
 * and a tracker of the views the replica installs. Driven by {@code fault ...} commands of the member-process
 * protocol:
 *
 * <ul>
 *   <li>{@code fault id}: result {@code HIGH:LOW}, this incarnation's member id (its JGroups address)</li>
 *   <li>{@code fault ignore HIGH:LOW ...}: drop every message from those members (a partition when both sides
 *       ignore each other)</li>
 *   <li>{@code fault isolate}: drop every message in and out</li>
 *   <li>{@code fault loss UP DOWN}: drop received / sent messages at these rates (0 to 1)</li>
 *   <li>{@code fault delay MS JITTER}: delay sent messages</li>
 *   <li>{@code fault heal}: all of the above off</li>
 *   <li>{@code fault views [reset]}: result {@code CHANGES NONPRIMARY MINSIZE SIZE PRIMARY EPOCH}: views installed
 *       since the last reset, how many of them were not primary, the smallest, and the current view</li>
 *   <li>{@code fault counters}: result {@code DROPPED_SENT DROPPED_RECEIVED DELAYED}: since the start, the
 *       messages DISCARD dropped of those sent and of those received, and the messages the slow link held back</li>
 * </ul>
 */
public final class MemberFaults implements AutoCloseable {
    private final GroupMember group;
    private final DISCARD discard;
    private final SlowLink link;
    private final Thread tracker;
    private volatile boolean closed;
    private final Object lock = new Object();
    private View last;
    private int changes;
    private int nonPrimary;
    private int minSize = Integer.MAX_VALUE;

    private MemberFaults(GroupMember group) {
        this.group = group;
        if (!(group instanceof JGroupsGroup)) {
            throw new IllegalStateException("fault injection needs a JGroups group member");
        }
        this.discard = ((JGroupsGroup) group).discard();
        this.link = SlowLink.insertAbove(discard);
        this.last = group.view();
        this.tracker = new Thread(this::track, "view-tracker");
        this.tracker.setDaemon(true);
        this.tracker.start();
    }

    /**
     * Starts tracking views and inserts a {@link SlowLink}.
     *
     * @throws IllegalStateException if the replica's stack has no DISCARD layer
     */
    public static MemberFaults attach(Replica replica) {
        return new MemberFaults(replica.group());
    }

    /** {@link #attach(Replica)} for a member of partial replication. */
    public static MemberFaults attach(PartitionedStore store) {
        return new MemberFaults(store.group());
    }

    private void track() {
        while (!closed) {
            View v = group.view();
            synchronized (lock) {
                if (v != null && v != last) {
                    last = v;
                    changes++;
                    if (!v.primary()) {
                        nonPrimary++;
                    }
                    minSize = Math.min(minSize, v.size());
                }
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The JGroups address of a member id. */
    static org.jgroups.Address address(String highLow) {
        int colon = highLow.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("a member id is HIGH:LOW, was '" + highLow + "'");
        }
        return new org.jgroups.util.UUID(Long.parseLong(highLow.substring(0, colon)),
                Long.parseLong(highLow.substring(colon + 1)));
    }

    /** Runs one {@code fault} command (the words after {@code fault}). */
    public String command(String[] args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: fault id|ignore|isolate|loss|delay|heal|views|counters ...");
        }
        switch (args[0].toLowerCase(Locale.ROOT)) {
            case "id": {
                MemberId self = group.self();
                return self.high() + ":" + self.low();
            }
            case "ignore":
                for (int i = 1; i < args.length; i++) {
                    discard.addIgnoreMember(address(args[i]));
                }
                return discard.getIgnoredMembers();
            case "isolate":
                discard.discardAll(true);
                return "";
            case "loss":
                if (args.length != 3) {
                    throw new IllegalArgumentException("usage: fault loss UP DOWN");
                }
                discard.setUpDiscardRate(rate(args[1]));
                discard.setDownDiscardRate(rate(args[2]));
                return "";
            case "delay":
                if (args.length != 3) {
                    throw new IllegalArgumentException("usage: fault delay MS JITTER");
                }
                link.delay(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
                return "";
            case "heal":
                discard.resetIgnoredMembers();
                discard.discardAll(false);
                discard.setUpDiscardRate(0);
                discard.setDownDiscardRate(0);
                link.delay(0, 0);
                return "";
            case "counters":
                // DISCARD's own counts (its managed attributes, through JGroups' stats API), then the slow link's.
                return dropped("dropped_down_messages") + " " + dropped("dropped_up_messages") + " "
                        + link.delayed();
            case "views": {
                synchronized (lock) {
                    View v = group.view();
                    String result = changes + " " + nonPrimary + " " + (minSize == Integer.MAX_VALUE ? v.size()
                            : minSize) + " " + v.size() + " " + v.primary() + " " + v.epoch();
                    if (args.length > 1 && args[1].equals("reset")) {
                        changes = 0;
                        nonPrimary = 0;
                        minSize = Integer.MAX_VALUE;
                    }
                    return result;
                }
            }
            default:
                throw new IllegalArgumentException("unknown fault command '" + args[0]
                        + "' (known: id, ignore, isolate, loss, delay, heal, views, counters)");
        }
    }

    /** One of DISCARD's counts of dropped messages, as its stats report it. */
    private long dropped(String attribute) {
        return count(attribute, discard.getProtocolStack().dumpStats(discard.getName(), List.of(attribute))
                .getOrDefault(discard.getName(), Map.of()).get(attribute));
    }

    /** A count JGroups reports: a number, or text grouped by the locale ("5,314"; a campaign met it at 1,000). */
    static long count(String attribute, Object reported) {
        if (reported instanceof Number n) {
            return n.longValue();
        }
        try {
            return Long.parseLong(String.valueOf(reported).replaceAll("[^0-9]", ""));
        } catch (NumberFormatException e) {
            throw new IllegalStateException("DISCARD reports no count " + attribute + " (JGroups changed?): "
                    + reported);
        }
    }

    private static double rate(String s) {
        double r = Double.parseDouble(s);
        if (r < 0 || r > 1) {
            throw new IllegalArgumentException("a loss rate is between 0 and 1, was " + s);
        }
        return r;
    }

    @Override
    public void close() {
        closed = true;
        tracker.interrupt();
        link.delay(0, 0);
    }
}
