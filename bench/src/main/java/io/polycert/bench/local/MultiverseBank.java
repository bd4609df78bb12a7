package io.polycert.bench.local;

import org.multiverse.api.GlobalStmInstance;
import org.multiverse.api.StmUtils;
import org.multiverse.api.TxnExecutor;
import org.multiverse.api.references.TxnLong;

/** Multiverse 0.7 (GammaStm): one {@code TxnLong} per account; sums run in a read-only executor. */
final class MultiverseBank implements Bank {
    private final TxnLong[] balance;
    private final TxnExecutor readOnly = GlobalStmInstance.getGlobalStmInstance().newTxnFactoryBuilder()
            .setReadonly(true).newTxnExecutor();

    MultiverseBank(int accounts, long initial) {
        balance = new TxnLong[accounts];
        for (int i = 0; i < accounts; i++) {
            balance[i] = StmUtils.newTxnLong(initial);
        }
    }

    @Override
    public String name() {
        return "Multiverse";
    }

    @Override
    public void transfer(int from, int to, long amount) {
        TxnLong a = balance[from];
        TxnLong b = balance[to];
        StmUtils.atomic(() -> {
            a.set(a.get() - amount);
            b.set(b.get() + amount);
        });
    }

    @Override
    public long sum(int first, int count) {
        return readOnly.execute((org.multiverse.api.callables.TxnLongCallable) txn -> {
            long s = 0;
            for (int i = 0; i < count; i++) {
                s += balance[(first + i) % balance.length].get(txn);
            }
            return s;
        });
    }

    @Override
    public int accounts() {
        return balance.length;
    }
}
