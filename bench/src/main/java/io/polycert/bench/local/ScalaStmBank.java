package io.polycert.bench.local;

import scala.concurrent.stm.Ref;
import scala.concurrent.stm.japi.STM;

/** ScalaSTM through its Java API: one {@code Ref} per account. */
final class ScalaStmBank implements Bank {
    private final Ref.View<Long>[] balance;

    @SuppressWarnings("unchecked")
    ScalaStmBank(int accounts, long initial) {
        balance = new Ref.View[accounts];
        for (int i = 0; i < accounts; i++) {
            balance[i] = STM.newRef(initial);
        }
    }

    @Override
    public String name() {
        return "ScalaSTM";
    }

    @Override
    public void transfer(int from, int to, long amount) {
        Ref.View<Long> a = balance[from];
        Ref.View<Long> b = balance[to];
        STM.atomic(() -> {
            a.set(a.get() - amount);
            b.set(b.get() + amount);
        });
    }

    @Override
    public long sum(int first, int count) {
        return STM.atomic(() -> {
            long s = 0;
            for (int i = 0; i < count; i++) {
                s += balance[(first + i) % balance.length].get();
            }
            return s;
        });
    }

    @Override
    public int accounts() {
        return balance.length;
    }
}
