package io.polycert.bench.local;

import io.polycert.core.Stm;
import io.polycert.core.VBox;

/** PolyCert's STM: one box per account. */
final class PolyCertBank implements Bank {
    private final Stm stm = Stm.create();
    private final VBox<Long>[] balance;

    @SuppressWarnings("unchecked")
    PolyCertBank(int accounts, long initial) {
        balance = new VBox[accounts];
        for (int i = 0; i < accounts; i++) {
            balance[i] = stm.newBox(initial);
        }
    }

    @Override
    public String name() {
        return "PolyCert";
    }

    @Override
    public void transfer(int from, int to, long amount) {
        VBox<Long> a = balance[from];
        VBox<Long> b = balance[to];
        stm.atomic(() -> {
            a.put(a.get() - amount);
            b.put(b.get() + amount);
        });
    }

    @Override
    public long sum(int first, int count) {
        return stm.readOnly(() -> {
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
