package org.rdmalab.app.ladder;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.rdmalab.verbs.FaultKind;
import org.rdmalab.verbs.PacketEvent;

/**
 * The live packets the Ladder tab heard but has not drawn yet: held until nothing earlier can
 * still arrive, put in time order, each arrival behind its send, and handed out within a time
 * budget per frame, so that a storm of packets is drawn over several frames instead of stopping
 * the window in one. The rest waits, in order, for the next call; nothing is lost or handed out
 * twice. No JavaFX; one thread (the JavaFX thread in the window).
 */
final class HeldPackets {

    /** A packet this much older than the newest one heard cannot be overtaken any more. */
    static final long SETTLED_NANOS = 5_000_000;
    /** How far ahead an arrival's send is looked for. */
    private static final int LOOK_AHEAD = 256;
    /** Packets handed out between two looks at the clock. */
    private static final int CLOCK_EVERY = 32;

    /** What {@link #drain} left behind. */
    enum Left {
        /** Nothing is held. */
        NOTHING,
        /** Packets that may still be overtaken wait for the next hold. */
        UNSETTLED,
        /** The budget ran out: settled packets wait for the next frame. */
        OUT_OF_TIME
    }

    /** The fields that make a send and its arrival the same packet. */
    private record Key(String source, String destination, String opcode, int destQp, int psn) {
        static Key of(PacketEvent packet) {
            return new Key(packet.source(), packet.destination(), packet.opcode(), packet.destQp(), packet.psn());
        }
    }

    private final LongSupplier clock;
    private final long budgetNanos;
    /** Held packets: from {@link #head} on, sorted up to {@link #sortedTo}; null where one was taken ahead. */
    private final List<PacketEvent> pending = new ArrayList<>();
    /** The first packet not handed out yet; what is before it is cleared now and then, not each drain. */
    private int head;
    private int sortedTo;
    private boolean arrivedSinceDrain;
    private long newest = Long.MIN_VALUE;
    /** Sends handed out whose arrival was not seen yet; bounded (a peer machine's arrivals are never seen). */
    private final Map<Key, Integer> awaiting = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Integer> eldest) {
            return size() > 65_536;
        }
    };

    /**
     * @param clock nanoseconds (System::nanoTime in the window)
     * @param budgetNanos how long one {@link #drain} may hand packets out
     */
    HeldPackets(LongSupplier clock, long budgetNanos) {
        this.clock = clock;
        this.budgetNanos = budgetNanos;
    }

    /** Holds {@code packet}. */
    void add(PacketEvent packet) {
        pending.add(packet);
        arrivedSinceDrain = true;
        newest = Math.max(newest, packet.timestampNanos());
    }

    /** Packets held. */
    int size() {
        int count = 0;
        for (int i = head; i < pending.size(); i++) {
            if (pending.get(i) != null) {
                count++;
            }
        }
        return count;
    }

    /** Forgets every held packet (new sessions). */
    void clear() {
        pending.clear();
        head = 0;
        sortedTo = 0;
        awaiting.clear();
        newest = Long.MIN_VALUE;
        arrivedSinceDrain = false;
    }

    /** The next {@link #drain} hands out everything held, settled or not (Save capture…). */
    void settleAll() {
        arrivedSinceDrain = false;
    }

    /**
     * Bounds what is held: when more than {@code limit} packets wait (a storm the window cannot draw
     * as fast as it comes), the oldest go to {@code shed} instead of being handed out, in time order,
     * until {@code limit} are left. Returns how many went.
     */
    int shedBeyond(int limit, Consumer<PacketEvent> shed) {
        skipTaken();
        if (pending.size() - head <= limit) {
            return 0; // nulls count as held here, so a shed never starts below the limit
        }
        sortNew();
        int over = size() - limit;
        int gone = 0;
        for (; head < pending.size() && gone < over; head++) {
            PacketEvent packet = pending.get(head);
            if (packet != null) {
                shed.accept(packet);
                pending.set(head, null);
                gone++;
            }
        }
        skipTaken();
        compactFront();
        return gone;
    }

    /**
     * Hands {@code sink} the held packets that can no longer be overtaken (all of them when
     * nothing arrived since the last drain), oldest first, a send before its arrival, until the
     * budget is spent; at least {@value #CLOCK_EVERY} go each time, so every call makes progress.
     */
    Left drain(Consumer<PacketEvent> sink) {
        skipTaken();
        if (head == pending.size()) {
            return Left.NOTHING;
        }
        sortNew();
        long settled = arrivedSinceDrain ? newest - SETTLED_NANOS : Long.MAX_VALUE;
        arrivedSinceDrain = false;
        long deadline = clock.getAsLong() + budgetNanos;
        int handed = 0;
        int nextLook = CLOCK_EVERY;
        boolean outOfTime = false;
        for (; head < pending.size(); head++) {
            PacketEvent packet = pending.get(head);
            if (packet == null) {
                continue; // a send taken ahead with its arrival
            }
            if (packet.timestampNanos() > settled) {
                break;
            }
            if (handed >= nextLook) {
                nextLook = handed + CLOCK_EVERY;
                if (clock.getAsLong() - deadline > 0) {
                    outOfTime = true;
                    break;
                }
            }
            if (packet.direction() != PacketEvent.Direction.SENT && !droppedByFault(packet)) {
                Key key = Key.of(packet);
                if (!awaiting.containsKey(key)) {
                    // The sender stamps a packet once the socket took it, so the receiver may stamp
                    // its arrival a little earlier: its send, found a little later, goes first.
                    for (int j = head + 1; j < Math.min(pending.size(), head + LOOK_AHEAD); j++) {
                        PacketEvent sent = pending.get(j);
                        if (sent != null && sent.direction() == PacketEvent.Direction.SENT && key.equals(Key.of(sent))) {
                            // Stamped when it left, at the latest when it arrived.
                            hand(new PacketEvent(packet.timestampNanos(), sent.direction(), sent.source(),
                                    sent.destination(), sent.opcode(), sent.destQp(), sent.psn(), sent.ackRequest(),
                                    sent.length(), sent.detail(), sent.faults(), sent.bytes()), sink);
                            handed++;
                            pending.set(j, null);
                            break;
                        }
                    }
                }
            }
            hand(packet, sink);
            handed++;
            pending.set(head, null);
        }
        skipTaken();
        compactFront();
        if (outOfTime) {
            // What is left was settled by this drain's measure; what arrives meanwhile is measured again.
            arrivedSinceDrain = settled != Long.MAX_VALUE;
            return Left.OUT_OF_TIME;
        }
        return head == pending.size() ? Left.NOTHING : Left.UNSETTLED;
    }

    /** Drops the handed-out front now and then, not each call: clearing it moves everything behind it. */
    private void compactFront() {
        if (head > 4096 && head > pending.size() / 2) {
            pending.subList(0, head).clear();
            sortedTo -= head;
            head = 0;
        }
    }

    private void skipTaken() {
        while (head < pending.size() && pending.get(head) == null) {
            head++;
        }
        if (head == pending.size()) {
            pending.clear();
            head = 0;
            sortedTo = 0;
        }
    }

    /** Time order, each send before an arrival stamped the same. */
    private static final Comparator<PacketEvent> ORDER = Comparator.comparingLong(PacketEvent::timestampNanos)
            .thenComparing(packet -> packet.direction() != PacketEvent.Direction.SENT);

    /**
     * Sorts the packets heard since the last drain and merges them into the sorted ones: only from
     * where the oldest new one belongs, which is near the end, so a long backlog is not sorted
     * again each frame. The sorted part holds no null before the end of the merge (taken packets
     * are nulled only just behind the head, which the merge never reaches back to when it holds
     * one: then it sorts from the head, leaving the nulls out).
     */
    private void sortNew() {
        int size = pending.size();
        if (sortedTo >= size) {
            return;
        }
        sortedTo = Math.max(sortedTo, head);
        pending.subList(sortedTo, size).sort(ORDER);
        PacketEvent oldestNew = pending.get(sortedTo);
        // The first sorted packet that goes after the oldest new one; searched from the end.
        int from = sortedTo;
        while (from > head) {
            PacketEvent before = pending.get(from - 1);
            if (before == null) {
                from = head; // a taken packet in the way: sort all that is held, without the taken ones
                pending.subList(head, size).removeIf(java.util.Objects::isNull);
                size = pending.size();
                break;
            }
            if (ORDER.compare(before, oldestNew) <= 0) {
                break;
            }
            from--;
        }
        if (from < sortedTo) {
            pending.subList(from, size).sort(ORDER); // two sorted runs: one merge
        }
        sortedTo = size;
    }

    private void hand(PacketEvent packet, Consumer<PacketEvent> sink) {
        if (packet.direction() == PacketEvent.Direction.SENT) {
            awaiting.merge(Key.of(packet), 1, Integer::sum);
        } else if (!droppedByFault(packet)) {
            awaiting.computeIfPresent(Key.of(packet), (key, count) -> count > 1 ? count - 1 : null);
        }
        sink.accept(packet);
    }

    static boolean droppedByFault(PacketEvent packet) {
        if (packet.faults().isEmpty()) {
            return false;
        }
        for (PacketEvent.Fault fault : packet.faults()) {
            if (fault.kind() == FaultKind.DROP) {
                return true;
            }
        }
        return false;
    }
}
