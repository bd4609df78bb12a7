package io.polycert.bench.workload;

import io.polycert.core.Stm;
import io.polycert.core.VBox;
import io.polycert.core.codec.ValueCodec;
import io.polycert.kvstore.Replica;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The Bank (PolyCert's Fig. 2): each transaction reads {@code readSet} consecutive accounts from a random start
 * and moves 1 between two random accounts. Accounts are boxes listed in root arrays of at most {@link #CHUNK}
 * ({@link Ids#DENSE}), or named roots ({@link Ids#SCATTERED}).
 */
public final class BankWorkload implements Workload {
    /** Accounts per root array: creating one array stays well under the commit-message limit. */
    public static final int CHUNK = 20_000;
    /** Every account's opening balance. */
    public static final long INITIAL = 1_000;

    /** The codec the bank needs: arrays of boxes. */
    public static final ValueCodec CODEC = ValueCodec.builder().register(VBox[].class, 40,
            new BoxArraySerializer()).build();

    /** Which accounts a client touches. */
    public enum Conflicts {
        /** Any account: transfers conflict at random. */
        RANDOM,
        /** Each client thread of the run its own slice of the accounts: no conflicts at all. */
        DISJOINT;

        /** {@code random} or {@code disjoint}. */
        public static Conflicts fromName(String name) {
            return named(values(), name, "conflicts must be random or disjoint");
        }
    }

    /** Which ids the account boxes have: what a read-set costs NVC on the wire. */
    public enum Ids {
        /**
         * Boxes created in one go, with the STM's consecutive ids: R consecutive accounts are R ids one apart, which
         * NVC's sorted, delta-encoded read-set carries in about one byte each (the most compressible case).
         */
        DENSE,
        /**
         * Named roots, whose ids are hashed from their names as a {@code TxMap}'s keys are: the ids of R accounts are
         * scattered and cost NVC several bytes each (about 6.5 at R = 200), as in an application whose objects were
         * created at different times or are keyed by name.
         */
        SCATTERED;

        /** {@code dense} or {@code scattered}. */
        public static Ids fromName(String name) {
            return named(values(), name, "ids must be dense or scattered");
        }
    }

    /** The constant of {@code values} named {@code name}, in any case. */
    private static <E extends Enum<E>> E named(E[] values, String name, String expected) {
        for (E e : values) {
            if (e.name().equalsIgnoreCase(name)) {
                return e;
            }
        }
        throw new IllegalArgumentException(expected + ", was '" + name + "'");
    }

    /** Accounts per populating transaction when they are named roots (each write carries its id and value). */
    private static final int SCATTERED_CHUNK = 5_000;

    private final int accounts;
    private final int readSet;
    private final int writePercent;
    private final Conflicts conflicts;
    private final Ids ids;

    /** Every transaction a transfer, at random accounts. */
    public BankWorkload(int accounts, int readSet) {
        this(accounts, readSet, 100, Conflicts.RANDOM);
    }

    /**
     * @param accounts at least 2
     * @param readSet accounts each transaction reads, between 1 and {@code accounts}
     * @param writePercent transactions that transfer; the others are read-only sums of {@code readSet} accounts
     * @param conflicts which accounts clients touch
     */
    public BankWorkload(int accounts, int readSet, int writePercent, Conflicts conflicts) {
        this(accounts, readSet, writePercent, conflicts, Ids.DENSE);
    }

    /**
     * @param accounts at least 2
     * @param readSet accounts each transaction reads, between 1 and {@code accounts}
     * @param writePercent transactions that transfer; the others are read-only sums of {@code readSet} accounts
     * @param conflicts which accounts clients touch
     * @param ids how the accounts' box ids are laid out
     */
    public BankWorkload(int accounts, int readSet, int writePercent, Conflicts conflicts, Ids ids) {
        if (accounts < 2) {
            throw new IllegalArgumentException("the bank needs at least 2 accounts, was " + accounts);
        }
        if (readSet < 1 || readSet > accounts) {
            throw new IllegalArgumentException("readSet must be between 1 and the " + accounts + " accounts, was "
                    + readSet);
        }
        if (writePercent < 0 || writePercent > 100) {
            throw new IllegalArgumentException("writes must be a percentage from 0 to 100, was " + writePercent);
        }
        this.accounts = accounts;
        this.readSet = readSet;
        this.writePercent = writePercent;
        this.conflicts = java.util.Objects.requireNonNull(conflicts, "conflicts");
        this.ids = java.util.Objects.requireNonNull(ids, "ids");
    }

    @Override
    public String name() {
        return "bank";
    }

    @Override
    public Map<String, String> parameters() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("accounts", Integer.toString(accounts));
        p.put("readSet", Integer.toString(readSet));
        p.put("writes", Integer.toString(writePercent));
        p.put("conflicts", conflicts.name().toLowerCase(java.util.Locale.ROOT));
        p.put("ids", ids.name().toLowerCase(java.util.Locale.ROOT));
        return p;
    }

    @Override
    public ValueCodec codec() {
        return CODEC;
    }

    @Override
    public void populate(Replica replica) {
        Stm stm = replica.stm();
        if (ids == Ids.SCATTERED) {
            VBox<Long>[] all = roots(replica);
            for (int from = 0; from < accounts; from += SCATTERED_CHUNK) {
                int lo = from;
                int hi = Math.min(accounts, from + SCATTERED_CHUNK);
                stm.atomic(() -> {
                    for (int i = lo; i < hi; i++) {
                        all[i].put(INITIAL);
                    }
                });
            }
            return;
        }
        for (int c = 0; c < chunks(); c++) {
            int size = Math.min(CHUNK, accounts - c * CHUNK);
            VBox<VBox<Long>[]> root = replica.root("accounts-" + c);
            stm.atomic(() -> {
                @SuppressWarnings("unchecked")
                VBox<Long>[] boxes = new VBox[size];
                for (int i = 0; i < size; i++) {
                    boxes[i] = stm.newBox(INITIAL);
                }
                root.put(boxes);
            });
        }
    }

    private int chunks() {
        return (accounts + CHUNK - 1) / CHUNK;
    }

    /** The account boxes as seen at {@code replica} (once it applied what {@link #populate} committed). */
    public VBox<Long>[] accountsAt(Replica replica) {
        if (ids == Ids.SCATTERED) {
            VBox<Long>[] all = roots(replica);
            if (replica.stm().readOnly(() -> all[0].get() == null || all[accounts - 1].get() == null)) {
                throw new IllegalStateException("the accounts are not populated at " + replica.self());
            }
            return all;
        }
        @SuppressWarnings("unchecked")
        VBox<Long>[] all = new VBox[accounts];
        for (int c = 0; c < chunks(); c++) {
            VBox<VBox<Long>[]> root = replica.root("accounts-" + c);
            VBox<Long>[] part = replica.stm().readOnly(root::get);
            if (part == null) {
                throw new IllegalStateException("accounts-" + c + " is not populated at " + replica.self());
            }
            System.arraycopy(part, 0, all, c * CHUNK, part.length);
        }
        return all;
    }

    /** The accounts as named roots (scattered ids), the same boxes at every replica. */
    private VBox<Long>[] roots(Replica replica) {
        @SuppressWarnings("unchecked")
        VBox<Long>[] all = new VBox[accounts];
        for (int i = 0; i < accounts; i++) {
            all[i] = replica.root("bank-account-" + i);
        }
        return all;
    }

    @Override
    public Client client(Replica replica, long seed) {
        return client(replica, new Slot(0, 1, 0, 1, seed));
    }

    @Override
    public Client client(Replica replica, Slot slot) {
        VBox<Long>[] a = accountsAt(replica);
        Stm stm = replica.stm();
        SplittableRandom random = new SplittableRandom(slot.seed());
        int lo;
        int span;
        if (conflicts == Conflicts.DISJOINT) {
            span = accounts / slot.count();
            if (span < 2 || span < readSet) {
                throw new IllegalArgumentException(accounts + " accounts cannot give " + slot.count() + " clients"
                        + " disjoint slices of at least " + Math.max(2, readSet));
            }
            lo = slot.index() * span;
        } else {
            lo = 0;
            span = accounts;
        }
        return () -> {
            int start = random.nextInt(span);
            if (random.nextInt(100) >= writePercent) {
                stm.readOnly(() -> sum(a, lo, span, start));
                return "audit";
            }
            int from = lo + random.nextInt(span);
            int to = lo + random.nextInt(span);
            stm.atomic(() -> {
                if (sum(a, lo, span, start) < 0) {
                    throw new IllegalStateException("negative sum");
                }
                a[from].put(a[from].get() - 1);
                a[to].put(a[to].get() + 1);
            });
            return "transfer";
        };
    }

    /** The sum of {@code readSet} consecutive accounts of [lo, lo + span) from lo + start, wrapping. */
    private long sum(VBox<Long>[] a, int lo, int span, int start) {
        long sum = 0;
        for (int i = 0; i < readSet; i++) {
            sum += a[lo + (start + i) % span].get();
        }
        return sum;
    }

    @Override
    public long check(Replica replica) {
        VBox<Long>[] a = accountsAt(replica);
        long[] totalAndDigest = replica.stm().readOnly(() -> {
            long total = 0;
            long digest = 17;
            for (VBox<Long> b : a) {
                long v = b.get();
                total += v;
                digest = digest * 31 + v;
            }
            return new long[] {total, digest};
        });
        if (totalAndDigest[0] != INITIAL * accounts) {
            throw new IllegalStateException("the bank's total at " + replica.self() + " is " + totalAndDigest[0]
                    + ", not " + INITIAL * accounts);
        }
        return totalAndDigest[1];
    }
}
