package io.polycert.bench.faults;

import java.util.concurrent.atomic.LongAdder;
import org.jgroups.Message;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.jgroups.util.MessageBatch;

/**
 * A JGroups layer that only counts the messages passing it, down and up. One above DISCARD and one below tell how
 * many messages DISCARD dropped, so a loss fault is shown to drop messages rather than assumed to (DISCARD keeps its
 * own counts in protected fields).
 */
final class LinkTap extends Protocol {
    private final LongAdder down = new LongAdder();
    private final LongAdder up = new LongAdder();

    /** Inserts a new one next to {@code neighbour} in its (running) stack and returns it. */
    static LinkTap insert(Protocol neighbour, ProtocolStack.Position position) {
        LinkTap tap = new LinkTap();
        ProtocolStack stack = neighbour.getProtocolStack();
        tap.setProtocolStack(stack);
        stack.insertProtocolInStack(tap, neighbour, position);
        return tap;
    }

    long down() {
        return down.sum();
    }

    long up() {
        return up.sum();
    }

    @Override
    public Object down(Message msg) {
        down.increment();
        return down_prot.down(msg);
    }

    @Override
    public Object up(Message msg) {
        up.increment();
        return up_prot.up(msg);
    }

    @Override
    public void up(MessageBatch batch) {
        up.add(batch.size());
        up_prot.up(batch);
    }
}
