package io.polycert.gcs;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The undelivered messages of the total-order multicast, in timestamp order, and which of them may be delivered: a
 * final message that no undelivered message before it conflicts with. Two messages conflict when they share a
 * conflict key; a message without keys conflicts with every message.
 *
 * <p>Indexed by key, so that a message becoming final or being delivered costs work in proportion to its keys and
 * the messages that share them, not to everything undelivered. (It replaced a pass over the whole queue on every
 * final timestamp, which was bounded at 1,024 messages and then held back messages it had not looked at.)
 * Messages without keys are rare (membership changes, failure resolution) and cost a pass over the queue.
 */
final class ConflictQueue<E extends ConflictQueue.Entry> {

    /** A queued message: its timestamp may rise, and it is final, only through {@link #makeFinal}. */
    abstract static class Entry {
        /** Sorted; null: conflicts with every message. */
        final long[] keys;
        long ts;
        boolean isFinal;
        /** While queued and keyed: the index's list for each of {@link #keys}, so the hot path looks up no key. */
        List<Entry>[] sharing;

        Entry(long[] keys) {
            this.keys = keys;
        }
    }

    private final Comparator<? super E> order;
    private final TreeSet<E> queue;
    /** The keyed messages in {@link #queue} by each of their keys, in no particular order (lists stay short). */
    private final Map<Long, List<Entry>> byKey = new HashMap<>();
    /** The messages in {@link #queue} without keys. */
    private final TreeSet<E> unkeyed;
    /** Reused by {@link #makeFinal} (the engine thread is the only caller). */
    private final ArrayDeque<E> candidates = new ArrayDeque<>();

    /** {@code order} sorts by timestamp first; it breaks ties alike at every member. */
    ConflictQueue(Comparator<? super E> order) {
        this.order = order;
        this.queue = new TreeSet<>(order);
        this.unkeyed = new TreeSet<>(order);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    void add(E e) {
        if (!queue.add(e)) {
            throw new IllegalStateException("already queued: " + e);
        }
        if (e.keys == null) {
            unkeyed.add(e);
            return;
        }
        e.sharing = new List[e.keys.length];
        for (int i = 0; i < e.keys.length; i++) {
            List<Entry> list = byKey.computeIfAbsent(e.keys[i], x -> new ArrayList<>(2));
            list.add(e); // twice if a key repeats (data from the wire): unindex removes it as often
            e.sharing[i] = list;
        }
    }

    /**
     * Makes {@code e}'s timestamp final at {@code ts} and takes out every message that may be delivered now, in
     * timestamp order: {@code e} itself if nothing before it conflicts with it, and messages it held back (its
     * timestamp may rise, moving it back past others). {@code e} must be queued; it may be final already (a
     * resolution decides a message again).
     */
    List<E> makeFinal(E e, long ts) {
        if (!queue.remove(e)) {
            throw new IllegalStateException("not queued: " + e);
        }
        if (e.keys == null) {
            unkeyed.remove(e);
        }
        e.ts = ts;
        e.isFinal = true;
        queue.add(e);
        if (e.keys == null) {
            unkeyed.add(e);
            return takeAllReady(); // it held back every message between its old place and its new one
        }
        List<E> ready = null;
        candidates.clear();
        candidates.add(e);
        addFirstsOfKeys(e.sharing, e); // moving back, e may have let the first message of one of its keys go
        while (!candidates.isEmpty()) {
            E c = candidates.poll();
            List<Entry>[] lists = c.sharing;
            if (lists != null && mayDeliver(c)) { // null once taken out
                unindex(c);
                queue.remove(c);
                if (ready == null) {
                    ready = new ArrayList<>(2);
                }
                ready.add(c);
                addFirstsOfKeys(lists, c);
            }
        }
        if (!unkeyed.isEmpty() && unkeyed.first().isFinal && queue.first() == unkeyed.first()) {
            List<E> more = takeAllReady(); // deliveries left a final message without keys at the head
            if (ready == null) {
                return more;
            }
            ready.addAll(more);
        }
        if (ready == null) {
            return List.of();
        }
        ready.sort(order);
        return ready;
    }

    /** Takes out every message that may be delivered, in timestamp order (a pass over the whole queue). */
    List<E> takeAllReady() {
        List<E> ready = new ArrayList<>();
        // One pass suffices: taking a message out never frees one before it.
        for (java.util.Iterator<E> it = queue.iterator(); it.hasNext(); ) {
            E c = it.next();
            if (c.isFinal && mayDeliver(c)) {
                it.remove();
                unindex(c);
                ready.add(c);
            } else if (c.keys == null) {
                break; // it holds back everything after it
            }
        }
        return ready;
    }

    /** Whether no undelivered message before {@code c} conflicts with it. */
    private boolean mayDeliver(E c) {
        if (c.keys == null) {
            return queue.first() == c;
        }
        if (!unkeyed.isEmpty() && order.compare(unkeyed.first(), c) < 0) {
            return false;
        }
        for (List<Entry> list : c.sharing) {
            if (first(list) != c) {
                return false;
            }
        }
        return true;
    }

    /**
     * The first message of each of {@code e}'s keys ({@code lists}), when final: only a key's first message can be
     * free, so these are the ones {@code e} (delivered, or moved back) may have let go.
     */
    private void addFirstsOfKeys(List<Entry>[] lists, E e) {
        for (List<Entry> list : lists) {
            E f = first(list);
            if (f != null && f != e && f.isFinal) {
                candidates.add(f);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private E first(List<Entry> list) {
        E first = null;
        for (Entry x : list) {
            if (first == null || order.compare((E) x, first) < 0) {
                first = (E) x;
            }
        }
        return first;
    }

    private void unindex(E e) {
        if (e.keys == null) {
            unkeyed.remove(e);
            return;
        }
        for (int i = 0; i < e.keys.length; i++) {
            List<Entry> list = e.sharing[i];
            list.remove(e);
            if (list.isEmpty()) {
                byKey.remove(e.keys[i]);
            }
        }
        e.sharing = null;
    }

    /** Drops the messages {@code drop} matches; then call {@link #takeAllReady}, as they may have held others back. */
    void removeIf(Predicate<? super E> drop) {
        List<E> dropped = new ArrayList<>();
        queue.removeIf(e -> drop.test(e) && dropped.add(e));
        dropped.forEach(this::unindex);
    }

    void clear() {
        for (E e : queue) {
            e.sharing = null;
        }
        queue.clear();
        byKey.clear();
        unkeyed.clear();
    }

    int size() {
        return queue.size();
    }

    /** Distinct keys indexed (for tests: the index holds nothing once the queue is empty). */
    int indexedKeys() {
        return byKey.size();
    }
}
