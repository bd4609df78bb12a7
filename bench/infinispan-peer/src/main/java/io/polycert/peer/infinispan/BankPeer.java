package io.polycert.peer.infinispan;

import jakarta.transaction.TransactionManager;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;
import org.HdrHistogram.Recorder;
import org.infinispan.Cache;
import org.infinispan.configuration.cache.CacheMode;
import org.infinispan.configuration.cache.ConfigurationBuilder;
import org.infinispan.configuration.global.GlobalConfigurationBuilder;
import org.infinispan.manager.DefaultCacheManager;
import org.infinispan.transaction.LockingMode;
import org.infinispan.transaction.TransactionMode;
import org.infinispan.transaction.lookup.EmbeddedTransactionManagerLookup;
import org.infinispan.util.concurrent.IsolationLevel;

/**
 * The bank PolyCert's replicated bank is compared with, on Infinispan embedded: {@code members} cache managers in
 * this JVM, clustered over JGroups' shared loopback (as PolyCert's in-JVM replicas are), a replicated,
 * transactional, optimistic, repeatable-read cache (Infinispan then checks write skew, so no transfer is lost),
 * one client thread per member moving 1 between two distinct random accounts.
 *
 * <p>Driven over standard input and output, one command per line, so that a benchmark in another JVM (with another
 * JGroups) can interleave its turns with PolyCert's:
 * <pre>
 *   (started)                     -> ready members=3 accounts=1000 version=15.2.6.Final
 *   run WARMUP_SECONDS SECONDS    -> result commits=N aborts=N seconds=S p50us=X p90us=X p99us=X
 *   check                         -> total T expected E
 *   quit                          -> (exits)
 * </pre>
 * Anything else is answered with {@code error ...}.
 */
public final class BankPeer {
    private static final long INITIAL_BALANCE = 1_000;

    private final List<DefaultCacheManager> managers = new ArrayList<>();
    private final List<Cache<Integer, Long>> caches = new ArrayList<>();
    private final int accounts;
    private long seed = 1;

    private BankPeer(int members, int accounts) {
        this.accounts = accounts;
        for (int i = 0; i < members; i++) {
            GlobalConfigurationBuilder global = GlobalConfigurationBuilder.defaultClusteredBuilder();
            global.defaultCacheName("bank");
            global.transport().clusterName("bank").nodeName("member-" + i)
                    .addProperty("configurationFile", "peer-loopback.xml");
            ConfigurationBuilder cache = new ConfigurationBuilder();
            cache.clustering().cacheMode(CacheMode.REPL_SYNC)
                    .transaction().transactionMode(TransactionMode.TRANSACTIONAL).lockingMode(LockingMode.OPTIMISTIC)
                    .transactionManagerLookup(new EmbeddedTransactionManagerLookup())
                    .locking().isolationLevel(IsolationLevel.REPEATABLE_READ);
            DefaultCacheManager manager = new DefaultCacheManager(global.build(), cache.build());
            managers.add(manager);
            caches.add(manager.getCache());
        }
        Cache<Integer, Long> first = caches.get(0);
        for (int i = 0; i < accounts; i++) {
            first.put(i, INITIAL_BALANCE);
        }
    }

    public static void main(String[] args) throws Exception {
        quietLogging();
        int members = 3;
        int accounts = 1000;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--members" -> members = Integer.parseInt(args[i + 1]);
                case "--accounts" -> accounts = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (options: --members N --accounts N)");
            }
        }
        if (members < 1 || accounts < 2) {
            throw new IllegalArgumentException("need at least 1 member and 2 accounts");
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BankPeer peer = new BankPeer(members, accounts);
        out.printf(Locale.ROOT, "ready members=%d accounts=%d version=%s%n", members, accounts,
                org.infinispan.commons.util.Version.getVersion());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            for (String line; (line = in.readLine()) != null; ) {
                String[] words = line.trim().split("\\s+");
                switch (words[0]) {
                    case "run" -> {
                        if (words.length != 3) {
                            out.println("error usage: run WARMUP_SECONDS SECONDS");
                            continue;
                        }
                        out.println(peer.run(Double.parseDouble(words[1]), Double.parseDouble(words[2])));
                    }
                    case "check" -> out.printf(Locale.ROOT, "total %d expected %d%n", peer.total(),
                            INITIAL_BALANCE * accounts);
                    case "quit" -> {
                        return;
                    }
                    default -> out.println("error unknown command '" + line + "'");
                }
            }
        } finally {
            peer.close();
        }
    }

    /**
     * Infinispan logs through JUL here: start-up lines at INFO, and every write-skew rollback (an expected outcome
     * in this benchmark) as an ERROR with its stack trace, which would cost it CPU in the measured window.
     */
    private static final Logger INFINISPAN_LOG = Logger.getLogger("org.infinispan");

    private static void quietLogging() {
        LogManager.getLogManager().reset();
        Logger root = Logger.getLogger("");
        root.setLevel(Level.WARNING);
        java.util.logging.ConsoleHandler handler = new java.util.logging.ConsoleHandler();
        handler.setLevel(Level.WARNING);
        root.addHandler(handler);
        INFINISPAN_LOG.setLevel(Level.OFF);
    }

    /** One turn: every member's client transfers for {@code warmup} then {@code seconds} measured seconds. */
    private String run(double warmup, double seconds) throws InterruptedException {
        AtomicLong commits = new AtomicLong();
        AtomicLong aborts = new AtomicLong();
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        Recorder latencies = new Recorder(3);
        List<Thread> clients = new ArrayList<>();
        for (Cache<Integer, Long> cache : caches) {
            TransactionManager tm = cache.getAdvancedCache().getTransactionManager();
            SplittableRandom random = new SplittableRandom(seed++);
            Thread client = new Thread(() -> {
                while (!stop.get()) {
                    int from = random.nextInt(accounts);
                    int to = random.nextInt(accounts - 1);
                    if (to >= from) {
                        to++; // two distinct accounts
                    }
                    long start = System.nanoTime();
                    boolean committed = transfer(tm, cache, from, to);
                    if (measuring.get()) {
                        if (committed) {
                            commits.incrementAndGet();
                            latencies.recordValue(Math.max(1, (System.nanoTime() - start) / 1000));
                        } else {
                            aborts.incrementAndGet();
                        }
                    }
                }
            }, "bank-client-" + clients.size());
            clients.add(client);
            client.start();
        }
        Thread.sleep((long) (warmup * 1000));
        latencies.reset();
        measuring.set(true);
        long begin = System.nanoTime();
        Thread.sleep((long) (seconds * 1000));
        measuring.set(false);
        double elapsed = (System.nanoTime() - begin) / 1e9;
        stop.set(true);
        for (Thread client : clients) {
            client.join();
        }
        org.HdrHistogram.Histogram h = latencies.getIntervalHistogram();
        return String.format(Locale.ROOT, "result commits=%d aborts=%d seconds=%.3f p50us=%d p90us=%d p99us=%d",
                commits.get(), aborts.get(), elapsed, h.getValueAtPercentile(50), h.getValueAtPercentile(90),
                h.getValueAtPercentile(99));
    }

    /** Moves 1 from one account to another; false if the transaction rolled back (a write-skew conflict). */
    private static boolean transfer(TransactionManager tm, Cache<Integer, Long> cache, int from, int to) {
        try {
            tm.begin();
            long a = cache.get(from);
            long b = cache.get(to);
            cache.put(from, a - 1);
            cache.put(to, b + 1);
            tm.commit();
            return true;
        } catch (Exception e) {
            try {
                if (tm.getTransaction() != null) {
                    tm.rollback();
                }
            } catch (Exception ignored) {
                // already rolled back by the failed commit
            }
            return false;
        }
    }

    private long total() {
        Cache<Integer, Long> last = caches.get(caches.size() - 1);
        long sum = 0;
        for (int i = 0; i < accounts; i++) {
            sum += last.get(i);
        }
        return sum;
    }

    private void close() {
        for (DefaultCacheManager m : managers) {
            m.stop();
        }
    }
}
