package io.polycert.bench.gcs;

import io.polycert.core.group.GroupMember;
import io.polycert.gcs.GroupStack;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The network that in-JVM benchmark members pretend to be on: each member's outgoing link has this bandwidth, and
 * every message arrives this long after its last byte left ({@link EmulatedLink}). Members in one JVM otherwise
 * share a "network" with free bandwidth and no latency, which hides what each certification protocol pays for its
 * message size (NVC, BFC) and its extra communication step (VC).
 *
 * @param bitsPerSecond each member's outgoing bandwidth; 0 for {@link #NONE}
 * @param latency one-way propagation delay, added after the last byte of a message is sent
 */
public record EmulatedNetwork(long bitsPerSecond, Duration latency) {
    /** No emulation: the in-JVM stack as it is. */
    public static final EmulatedNetwork NONE = new EmulatedNetwork(0, Duration.ZERO);
    /**
     * The paper's platform: switched Gigabit Ethernet. 50 us one way is a typical kernel-to-kernel latency on such a
     * LAN (round trips of 100 to 150 us); JVM and JGroups time come on top of it here, as they did there.
     */
    public static final EmulatedNetwork GIGABIT = new EmulatedNetwork(1_000_000_000L, Duration.ofNanos(50_000));

    private static final Pattern SPEC = Pattern.compile("(\\d{1,7})mbit/(\\d{1,7})us");

    public EmulatedNetwork {
        if (bitsPerSecond < 0 || latency.isNegative()) {
            throw new IllegalArgumentException("negative bandwidth or latency: " + bitsPerSecond + ", " + latency);
        }
        if (bitsPerSecond == 0 && !latency.isZero()) {
            throw new IllegalArgumentException("a latency needs a bandwidth");
        }
    }

    public boolean isNone() {
        return bitsPerSecond == 0;
    }

    /** The stack a member of this network starts with: {@code base}, plus the layer its link goes above. */
    public GroupStack stackFor(GroupStack base) {
        return isNone() ? base : base.faultInjection();
    }

    /**
     * Inserts this network's link into {@code member} (started on {@link #stackFor}) and adds it to {@code links};
     * nothing when there is no network.
     */
    public void attach(GroupMember member, List<EmulatedLink> links) {
        if (!isNone()) {
            links.add(EmulatedLink.insertInto(member, this));
        }
    }

    /** {@code none}, {@code gigabit}, or {@code <megabits per second>mbit/<one-way microseconds>us}. */
    public static EmulatedNetwork parse(String spec) {
        String s = spec.trim().toLowerCase(Locale.ROOT);
        if (s.equals("none")) {
            return NONE;
        }
        if (s.equals("gigabit")) {
            return GIGABIT;
        }
        Matcher m = SPEC.matcher(s);
        if (!m.matches()) {
            throw new IllegalArgumentException("network must be none, gigabit or like 1000mbit/50us, was '" + spec
                    + "'");
        }
        long mbit = Long.parseLong(m.group(1));
        // Bounds that keep the group alive: the in-JVM stack excludes a member silent for 3 s, and heartbeats wait
        // behind data on the link (a 1 MB message takes 0.8 s at 10 Mbit/s).
        if (mbit < 10 || mbit > 1_000_000) {
            throw new IllegalArgumentException("network bandwidth must be 10 to 1,000,000 Mbit/s, was " + mbit);
        }
        long micros = Long.parseLong(m.group(2));
        if (micros > 100_000) {
            throw new IllegalArgumentException("network latency must be at most 100,000 us, was " + micros + " us");
        }
        return new EmulatedNetwork(mbit * 1_000_000L, Duration.ofNanos(micros * 1_000));
    }

    @Override
    public String toString() {
        return isNone() ? "none (in-JVM)" : String.format(Locale.ROOT, "%,d Mbit/s, %d us one way",
                bitsPerSecond / 1_000_000, latency.toNanos() / 1_000);
    }
}
