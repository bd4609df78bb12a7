package io.polycert.core;

/**
 * Reads from a snapshot while recording the read-set, buffers writes, and at commit hands both to the
 * {@link CommitHandler}.
 */
final class ReadWriteTransaction extends Transaction implements CommitRequest {
    private final ReadSet reads = new ReadSet();
    private final WriteSet writes = new WriteSet();
    /** Depth of {@link Stm#readOnly} blocks nested (flat) inside this transaction: writes are refused there. */
    private int readOnlyDepth;
    private long commitVersion = -1;
    private final long startNanos;

    ReadWriteTransaction(Stm stm, Stm.Slot slot, long snapshotVersion, long startNanos) {
        super(stm, slot, snapshotVersion);
        this.startNanos = startNanos;
    }

    @Override
    public long startNanos() {
        return startNanos;
    }

    @Override
    public boolean isReadOnly() {
        return false;
    }

    @Override
    public long commitVersion() {
        return commitVersion >= 0 ? commitVersion : snapshotVersion;
    }

    @Override
    Object readChecked(VBox<?> box) {
        if (writes.size() > 0) {
            int i = writes.indexOf(box);
            if (i >= 0) {
                return writes.value(i);
            }
        }
        Object value = readSnapshot(box);
        reads.add(box);
        return value;
    }

    @Override
    void writeChecked(VBox<?> box, Object value) {
        if (readOnlyDepth > 0) {
            throw new ReadOnlyTransactionException("cannot write " + box + " inside stm.readOnly(...)");
        }
        writes.put(box, value);
    }

    @Override
    void create(VBox<?> box, Object initial) {
        if (readOnlyDepth > 0) {
            throw new ReadOnlyTransactionException("cannot create a box inside stm.readOnly(...)");
        }
        writes.put(box, initial);
    }

    void enterReadOnly() {
        readOnlyDepth++;
    }

    void exitReadOnly() {
        readOnlyDepth--;
    }

    @Override
    void commitNow() {
        checkActive();
        if (writes.size() == 0) {
            // Nothing written: the transaction serializes at its snapshot, which was consistent.
            end(Status.COMMITTED);
            return;
        }
        try {
            stm.checkEncodable(this);
            commitVersion = stm.handler().commit(this);
        } catch (CommitOutcomeUnknownException e) {
            end(Status.OUTCOME_UNKNOWN); // not ABORTED: it may commit
            throw e;
        } catch (RuntimeException | Error e) {
            end(Status.ABORTED);
            throw e;
        }
        end(Status.COMMITTED);
    }

    // ---- CommitRequest ----------------------------------------------------------------------------------

    @Override
    public int readSetSize() {
        return reads.size();
    }

    @Override
    public VBox<?> readBox(int i) {
        return reads.get(i);
    }

    @Override
    public int writeSetSize() {
        return writes.size();
    }

    @Override
    public VBox<?> writtenBox(int i) {
        return writes.box(i);
    }

    @Override
    public Object writtenValue(int i) {
        return writes.value(i);
    }

    /** The write-set itself, not a copy: for the commit and install paths of this transaction's STM. */
    WriteSet writeSet() {
        return writes;
    }
}
