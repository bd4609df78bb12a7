package io.polycert.gcs;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;
import org.jgroups.JChannel;
import org.jgroups.protocols.AUTH;
import org.jgroups.protocols.DELAY;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.FD_ALL3;
import org.jgroups.protocols.FD_SOCK2;
import org.jgroups.protocols.FRAG4;
import org.jgroups.protocols.MERGE3;
import org.jgroups.protocols.PING;
import org.jgroups.protocols.SHARED_LOOPBACK;
import org.jgroups.protocols.SHARED_LOOPBACK_PING;
import org.jgroups.protocols.SYM_ENCRYPT;
import org.jgroups.protocols.TCPPING;
import org.jgroups.protocols.TP;
import org.jgroups.protocols.UDP;
import org.jgroups.protocols.UNICAST3;
import org.jgroups.protocols.VERIFY_SUSPECT2;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.jgroups.protocols.pbcast.STABLE;
import org.jgroups.stack.Protocol;

/**
 * The JGroups protocol stack a member runs. Three built-in kinds: {@link #embedded()} (members in one JVM, for
 * tests and the demo), {@link #tcp} and {@link #udp} (clusters across machines); or {@link #fromXml} for a stack
 * the application configures itself (see {@code polycert-tcp.xml} in this jar for a template). Options:
 * {@link #secured(byte[])} adds join authentication and encryption from a shared secret;
 * {@link #failureDetection(Duration)} sets how soon a silent member is excluded.
 *
 * <p>Immutable; every method returns a new stack description.
 */
public final class GroupStack {
    private enum Kind { EMBEDDED, TCP, UDP, XML }

    /** GMS's merge timeout (see where the stack is built). */
    private static final long MERGE_TIMEOUT_MS = 1000;
    /**
     * NAKACK2's max_xmit_req_size (JGroups: 1,024): how many sequence numbers past the last one delivered a
     * retransmission round looks at for gaps, per sender. See where the stack is built.
     */
    static final int MAX_XMIT_REQ_SIZE = 65_536;
    /** STABLE's mean interval between digests, in milliseconds (JGroups: 20,000). See where the stack is built. */
    static final long STABLE_GOSSIP_MS = 250;
    /** NAKACK2's retransmission round, in milliseconds (JGroups: 1,000). See where the stack is built. */
    static final long XMIT_INTERVAL_MS = 500;

    private final Kind kind;
    private final InetSocketAddress bind;
    private final List<InetSocketAddress> initialHosts;
    private final String mcastAddress;
    private final int mcastPort;
    private final String xml;
    private final byte[] secret;
    private final Duration failureTimeout;
    private final boolean faultInjection;
    private final boolean delay;

    private GroupStack(Kind kind, InetSocketAddress bind, List<InetSocketAddress> initialHosts, String mcastAddress,
            int mcastPort, String xml, byte[] secret, Duration failureTimeout, boolean faultInjection, boolean delay) {
        this.kind = kind;
        this.bind = bind;
        this.initialHosts = initialHosts;
        this.mcastAddress = mcastAddress;
        this.mcastPort = mcastPort;
        this.xml = xml;
        this.secret = secret;
        this.failureTimeout = failureTimeout;
        this.faultInjection = faultInjection;
        this.delay = delay;
    }

    /** Members in this JVM only (JGroups SHARED_LOOPBACK): no sockets. */
    public static GroupStack embedded() {
        return new GroupStack(Kind.EMBEDDED, null, List.of(), null, 0, null, null, Duration.ofSeconds(3), false,
                false);
    }

    /** TCP, listening on {@code bind}, discovering the other members among {@code initialHosts}. */
    public static GroupStack tcp(InetSocketAddress bind, List<InetSocketAddress> initialHosts) {
        Objects.requireNonNull(bind, "bind");
        if (initialHosts.isEmpty()) {
            throw new IllegalArgumentException("a TCP stack needs at least one initial host to discover members");
        }
        return new GroupStack(Kind.TCP, bind, List.copyOf(initialHosts), null, 0, null, null, Duration.ofSeconds(10),
                false, false);
    }

    /** UDP with IP multicast discovery and transport. */
    public static GroupStack udp(InetSocketAddress bind, String mcastAddress, int mcastPort) {
        Objects.requireNonNull(bind, "bind");
        Objects.requireNonNull(mcastAddress, "mcastAddress");
        return new GroupStack(Kind.UDP, bind, List.of(), mcastAddress, mcastPort, null, null, Duration.ofSeconds(10),
                false, false);
    }

    /**
     * A stack from a JGroups XML file or class-path resource, used as is. It must provide reliable FIFO
     * multicast and unicast (NAKACK2, UNICAST3) and membership (GMS); PolyCert adds nothing to it.
     */
    public static GroupStack fromXml(String fileOrResource) {
        return new GroupStack(Kind.XML, null, List.of(), null, 0, Objects.requireNonNull(fileOrResource), null, null,
                false, false);
    }

    /**
     * Joining requires the secret (JGroups AUTH with {@link SharedSecretToken}) and every message is encrypted
     * with a key derived from it (JGroups SYM_ENCRYPT); the secret itself never crosses the wire. Members with
     * another secret cannot join, and what they send cannot be decrypted, so it is dropped.
     */
    public GroupStack secured(byte[] sharedSecret) {
        if (kind == Kind.XML) {
            throw new IllegalStateException("configure security in the XML stack itself");
        }
        if (sharedSecret == null || sharedSecret.length < 16) {
            throw new IllegalArgumentException("the cluster secret must have at least 16 bytes");
        }
        return new GroupStack(kind, bind, initialHosts, mcastAddress, mcastPort, xml, sharedSecret.clone(),
                failureTimeout, faultInjection, delay);
    }

    /** The failure-detection timeout, or null for a stack from XML (whose own settings apply). */
    Duration failureTimeout() {
        return failureTimeout;
    }

    /** How long a member may stay silent before it is suspected and excluded. */
    public GroupStack failureDetection(Duration timeout) {
        if (timeout.toMillis() < 100) {
            throw new IllegalArgumentException("failure detection timeout below 100 ms: " + timeout);
        }
        return new GroupStack(kind, bind, initialHosts, mcastAddress, mcastPort, xml, secret, timeout, faultInjection,
                delay);
    }

    /** Adds JGroups' DISCARD layer above the transport, for fault-injection tests (loss, isolation). */
    public GroupStack faultInjection() {
        return new GroupStack(kind, bind, initialHosts, mcastAddress, mcastPort, xml, secret, failureTimeout, true,
                delay);
    }

    /**
     * Adds JGroups' DELAY layer above the transport, to make a member slow in tests. Test use only: in JGroups
     * 5.5.7 its handler thread busy-polls and survives the channel, burning a core until the JVM exits.
     */
    public GroupStack delayLayer() {
        return new GroupStack(kind, bind, initialHosts, mcastAddress, mcastPort, xml, secret, failureTimeout,
                faultInjection, true);
    }

    JChannel newChannel() throws Exception {
        if (kind == Kind.XML) {
            JChannel channel = new JChannel(xml);
            try {
                refuseUnsupportedLayers(channel, xml);
            } catch (IllegalArgumentException e) {
                channel.close();
                throw e;
            }
            return channel;
        }
        List<Protocol> stack = new ArrayList<>();
        TP transport = switch (kind) {
            // In one JVM a send is a method call, so bundling saves nothing and its thread hand-off costs latency
            // (measured: 75-80 vs 95-105 us per idle broadcast, and about 10% more small commits per second).
            // "direct": the sending thread also runs the receiver's stack, up to its engine loop, instead of handing
            // each message to a pool thread (about twice the small commits, CERTIFICATION.md). Safe because no
            // layer here blocks a receiving thread for long (refuseUnsupportedLayers) and the engine loop never
            // waits: a thread that finds a member's engine busy queues the event and returns.
            case EMBEDDED -> new SHARED_LOOPBACK().setValue("bundler_type", "no-bundler")
                    .setValue("message_processing_policy", "direct");
            // A peer that stops reading must not stall this member (MultiProcessTcpTest): see NonBlockingTcp.
            case TCP -> new NonBlockingTcp().setValue("tcp_nodelay", true);
            case UDP -> new UDP().setValue("mcast_group_addr", InetAddress.getByName(mcastAddress))
                    .setValue("mcast_port", mcastPort);
            default -> throw new AssertionError(kind);
        };
        if (bind != null) {
            transport.setBindAddress(bind.getAddress()).setBindPort(bind.getPort());
            transport.setValue("port_range", 0);
        }
        stack.add(transport);
        if (faultInjection) {
            stack.add(new DISCARD());
        }
        if (delay) {
            stack.add(new DELAY());
        }
        switch (kind) {
            case EMBEDDED -> stack.add(new SHARED_LOOPBACK_PING());
            case TCP -> stack.add(new TCPPING().setValue("initial_hosts_str", initialHosts.stream()
                    .map(a -> hostOf(a) + "[" + a.getPort() + "]").collect(Collectors.joining(",")))
                    .setValue("port_range", 0));
            case UDP -> stack.add(new PING());
            default -> throw new AssertionError(kind);
        }
        long timeout = failureTimeout.toMillis();
        stack.add(new MERGE3().setValue("min_interval", Math.max(500, timeout / 2))
                .setValue("max_interval", Math.max(1000, timeout)));
        if (kind != Kind.EMBEDDED) {
            stack.add(new FD_SOCK2());
        }
        stack.add(new FD_ALL3().setTimeout(timeout).setInterval(Math.max(100, timeout / 4)));
        stack.add(new VERIFY_SUSPECT2().setValue("timeout", Math.max(100, timeout / 4)));
        if (secret != null) {
            SYM_ENCRYPT encrypt = new SYM_ENCRYPT();
            encrypt.setSecretKey(derive(secret, "polycert-encrypt-v1", "AES", 16));
            stack.add(encrypt);
        }
        // A member back from loss or a stop catches up by retransmission, a round every xmit_interval. Each round
        // looks for gaps only within max_xmit_req_size sequence numbers past the last one delivered from each sender,
        // and asks only for those it already saw missing the round before (JGroups 5.5.7), so a lost message waits
        // one to two rounds and the window moves at most once every two: with 8,192 and JGroups' 1 s rounds a
        // backlog of tens of thousands of multicasts took 6 to 14 s to clear after 20% loss, with 65,536 1 to 6.5 s,
        // with 500 ms rounds too 0.5 to 1.8 s (RELIABILITY.md, bug 8). A request asks for the gaps only, so a member
        // that missed everything gets up to that many messages per sender at once.
        stack.add(new NAKACK2().setValue("use_mcast_xmit", false).setValue("max_xmit_req_size", MAX_XMIT_REQ_SIZE)
                .setValue("xmit_interval", XMIT_INTERVAL_MS));
        stack.add(new UNICAST3());
        // Purge delivered messages from retransmission buffers often: at high rates the defaults hold gigabytes. A
        // round every 250 ms on average, not every second: messages held a second outlived a young collection of the
        // small-transaction bank, were copied and then promoted, and old memory grew at every collection
        // (CERTIFICATION.md, "The write log in two rings"). max_bytes hardly matters: small commits take the timer.
        stack.add(new STABLE().setDesiredAverageGossip(STABLE_GOSSIP_MS).setMaxBytes(8_000_000));
        if (secret != null) {
            stack.add(new AUTH().setAuthToken(new SharedSecretToken(derive(secret, "polycert-auth-v1", "HmacSHA256", 32)
                    .getEncoded())));
        }
        // A merge's subgroup coordinators wait half the merge timeout for their members' digests. A member excluded
        // while stopped still lists in its view members that ignore it, so it always waits that long; meanwhile the
        // others go on multicasting, and all of it reaches the merged member only by retransmission (rounds of
        // xmit_interval, above) before anything of the new view. JGroups' 5 s made that 2.5 s of traffic.
        GMS gms = new GMS().setJoinTimeout(Math.max(500, timeout / 2)).setMergeTimeout(MERGE_TIMEOUT_MS)
                .printLocalAddress(false);
        if (kind == Kind.EMBEDDED) {
            // With direct processing the merge leader's thread runs each subgroup coordinator's installation of
            // the merge view, including its wait for view acknowledgements. A member the coordinator excluded
            // waits for members that ignore it, so it waits the whole timeout; JGroups' 2 s outlasted the leader's
            // own merge (cancelled after twice the merge timeout), the leader then discarded the view, and the
            // merge failed again and again (JGroupsGroupTest.aMemberExcludedByTheCoordinatorComesBackThroughAMerge).
            gms.setViewAckCollectionTimeout(MERGE_TIMEOUT_MS / 2);
        }
        stack.add(gms);
        // No UFC/MFC: PolyCert's own sender window (JGroupsGroup.Builder#maxOutstanding) is the flow control, and
        // credit-based layers would have to block JGroups' receiver threads, which the engine sends from.
        stack.add(new FRAG4());
        JChannel channel = new JChannel(stack);
        // A deeper sender queue than the default 16k: that one drops small messages under load, which then
        // wait a retransmission round (about a second) to arrive.
        if (transport.getBundler() instanceof org.jgroups.protocols.BaseBundler bundler) {
            bundler.setCapacity(65536);
        }
        return channel;
    }

    /**
     * PolyCert's engine sends from JGroups' receiver threads. Layers that make a send wait until other members
     * process something (credits, buffer space) would then wait on threads that are themselves waiting: the
     * group stalls. PolyCert bounds what each member has in flight itself (maxOutstanding, maxOutstandingBytes).
     * Also refused: JGroups' own total order (SEQUENCER), see below.
     */
    private static void refuseUnsupportedLayers(JChannel channel, String source) {
        for (Protocol p : channel.getProtocolStack().getProtocols()) {
            String name = p.getClass().getSimpleName();
            if (p instanceof org.jgroups.protocols.FlowControl || name.equals("NAKACK4") || name.equals("UNICAST4")) {
                throw new IllegalArgumentException("the JGroups stack " + source + " has " + name + ", which can block"
                        + " a send until other members catch up; PolyCert sends from JGroups' own threads and does its"
                        + " own flow control, so remove " + name + (name.endsWith("4") ? " (use NAKACK2 / UNICAST3)" : "")
                        + "; see polycert-tcp.xml for a template");
            }
            if (name.equals("SEQUENCER") || name.equals("SEQUENCER2")) {
                // Besides being redundant (PolyCert orders messages itself), it ignores DONT_LOOPBACK, with which
                // the transport sends its multicasts (it hands a member its own copy itself), so each would come twice.
                throw new IllegalArgumentException("the JGroups stack " + source + " has " + name + "; PolyCert orders"
                        + " messages itself and hands a member its own multicasts, so remove it; see polycert-tcp.xml"
                        + " for a template");
            }
        }
    }

    private static String hostOf(InetSocketAddress a) {
        return a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
    }

    private static SecretKey derive(byte[] secret, String label, String algorithm, int bytes) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(label.getBytes(StandardCharsets.UTF_8));
            sha.update(secret);
            byte[] key = java.util.Arrays.copyOf(sha.digest(), bytes);
            return new SecretKeySpec(key, algorithm);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    static InetSocketAddress loopback(int port) {
        try {
            return new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase() + (secret != null ? "+secured" : "") + (faultInjection ? "+faults" : "")
                + (delay ? "+delay" : "");
    }
}
