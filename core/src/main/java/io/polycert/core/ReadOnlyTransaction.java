package io.polycert.core;

/** Reads one snapshot; keeps no read-set, takes no lock, cannot abort. */
final class ReadOnlyTransaction extends Transaction {

    ReadOnlyTransaction(Stm stm, Stm.Slot slot, long snapshotVersion) {
        super(stm, slot, snapshotVersion);
    }

    @Override
    public boolean isReadOnly() {
        return true;
    }

    @Override
    public long commitVersion() {
        return snapshotVersion;
    }

    @Override
    Object readChecked(VBox<?> box) {
        return readSnapshot(box);
    }

    @Override
    void writeChecked(VBox<?> box, Object value) {
        throw new ReadOnlyTransactionException("cannot write " + box + " in a read-only transaction;"
                + " run code that writes with stm.atomic(...) or stm.begin()");
    }

    @Override
    void create(VBox<?> box, Object initial) {
        throw new ReadOnlyTransactionException("cannot create a box in a read-only transaction;"
                + " run code that creates boxes with stm.atomic(...) or stm.begin()");
    }

    @Override
    void commitNow() {
        checkActive();
        end(Status.COMMITTED);
    }
}
