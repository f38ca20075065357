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
    private final List<PacketEvent> pending = new ArrayList<>();
    private boolean unsorted;
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
        unsorted = true;
        arrivedSinceDrain = true;
        newest = Math.max(newest, packet.timestampNanos());
    }

    /** Packets held. */
    int size() {
        return pending.size();
    }

    /** Forgets every held packet (new sessions). */
    void clear() {
        pending.clear();
        awaiting.clear();
        newest = Long.MIN_VALUE;
        unsorted = false;
        arrivedSinceDrain = false;
    }

    /** The next {@link #drain} hands out everything held, settled or not (Save capture…). */
    void settleAll() {
        arrivedSinceDrain = false;
    }

    /**
     * Hands {@code sink} the held packets that can no longer be overtaken (all of them when
     * nothing arrived since the last drain), oldest first, a send before its arrival, until the
     * budget is spent; at least {@value #CLOCK_EVERY} go each time, so every call makes progress.
     */
    Left drain(Consumer<PacketEvent> sink) {
        if (pending.isEmpty()) {
            return Left.NOTHING;
        }
        if (unsorted) {
            pending.sort(Comparator.comparingLong(PacketEvent::timestampNanos)
                    .thenComparing(packet -> packet.direction() != PacketEvent.Direction.SENT));
            unsorted = false;
        }
        long settled = arrivedSinceDrain ? newest - SETTLED_NANOS : Long.MAX_VALUE;
        arrivedSinceDrain = false;
        long deadline = clock.getAsLong() + budgetNanos;
        boolean[] done = new boolean[pending.size()];
        int handed = 0;
        int nextLook = CLOCK_EVERY;
        boolean outOfTime = false;
        for (int i = 0; i < pending.size(); i++) {
            if (done[i]) {
                continue;
            }
            PacketEvent packet = pending.get(i);
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
                    for (int j = i + 1; j < Math.min(pending.size(), i + LOOK_AHEAD); j++) {
                        PacketEvent sent = pending.get(j);
                        if (!done[j] && sent.direction() == PacketEvent.Direction.SENT && key.equals(Key.of(sent))) {
                            // Stamped when it left, at the latest when it arrived.
                            hand(new PacketEvent(packet.timestampNanos(), sent.direction(), sent.source(),
                                    sent.destination(), sent.opcode(), sent.destQp(), sent.psn(), sent.ackRequest(),
                                    sent.length(), sent.detail(), sent.faults(), sent.bytes()), sink);
                            handed++;
                            done[j] = true;
                            break;
                        }
                    }
                }
            }
            hand(packet, sink);
            handed++;
            done[i] = true;
        }
        int kept = 0;
        for (int i = 0; i < pending.size(); i++) {
            if (!done[i]) {
                pending.set(kept++, pending.get(i));
            }
        }
        pending.subList(kept, pending.size()).clear();
        if (outOfTime) {
            // What is left was settled by this drain's measure; what arrives meanwhile is measured again.
            arrivedSinceDrain = settled != Long.MAX_VALUE || arrivedSinceDrain;
            return Left.OUT_OF_TIME;
        }
        return pending.isEmpty() ? Left.NOTHING : Left.UNSETTLED;
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
