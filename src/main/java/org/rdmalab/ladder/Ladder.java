package org.rdmalab.ladder;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.rdmalab.wire.MalformedPacketException;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.RocePacket;

/**
 * The packets between QPs as a ladder: each packet an {@link Arrow} from one QP of a pair to the
 * other, grouped into QP pairs and {@link Message}s, requests linked to the ACK or NAK that
 * answered them, retransmissions naming the packet they repeat, and the waits before them
 * ({@link Gap}). Live, a {@link WorkRequestTracker} ties the lab's work requests and completions to
 * the messages; from a capture the messages are inferred from the opcodes and PSNs.
 *
 * <p>RC packets name only their destination QP, so a pair is found from both directions: a request
 * to (B, Y) and an ACK to (A, X) between the same hosts are one pair. Only RC packets join a pair;
 * UD, UC and CNP packets are counted and left out of the ladder.
 *
 * <p>Memory is bounded: a ladder keeps its newest {@code capacity} arrows (a view keeps a few
 * thousand, a capture all), and each flow its newest {@link Flow#REMEMBERED} PSNs.
 *
 * <p>Threads: one thread at a time (the window's JavaFX thread, or the command's).
 */
public final class Ladder {

    /**
     * In a capture, two packets with identical bytes this close, nothing between, are a network
     * duplicate. A device's own report names the duplicates it made (a {@code dup} fault), and its
     * clocks are stamped by two threads, so live packets are not guessed at.
     */
    static final long DUPLICATE_WINDOW_NANOS = 1_000_000;

    private final int capacity;
    private final ArrayDeque<Arrow> arrows = new ArrayDeque<>();
    private final ArrayDeque<Message> messages = new ArrayDeque<>();
    private final List<QpPair> pairs = new ArrayList<>();
    private final Map<String, QpPair> byEndpoint = new LinkedHashMap<>();
    /** Unmatched sent arrows per "source>destination opcode psn", oldest first, for the receiver's report. */
    private final Map<String, ArrayDeque<Arrow>> inFlight = new LinkedHashMap<>();
    private final TreeMap<String, Integer> naks = new TreeMap<>();
    private final RocePacket decoder = RocePacket.reusable();
    private long nextIndex = 1;
    private int nextMessage = 1;
    private long firstTime = Long.MIN_VALUE;
    private long packets;
    private long retransmissions;
    private long duplicates;
    private long reorders;
    private long icrcBad;
    private long dropped;
    private long unpaired;

    /** A ladder that keeps its newest {@code capacity} arrows. */
    public Ladder(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity + " is below 1");
        }
        this.capacity = capacity;
    }

    /** A ladder that keeps every arrow (a capture's). */
    public static Ladder unbounded() {
        return new Ladder(Integer.MAX_VALUE);
    }

    /**
     * Adds what was seen of a packet: a new arrow, or (for a device's report of a packet it
     * received or dropped on arrival) the arrival of an arrow its sender reported. Returns the
     * arrow, or null for a packet that is not RC or not RoCE at all.
     */
    public Arrow add(WirePacket packet) {
        RocePacket decoded = decodeRc(packet);
        if (decoded == null) {
            return null;
        }
        Arrow sent = arrivalOf(packet, decoded);
        if (sent != null) {
            return sent;
        }
        return addNew(packet, decoded);
    }

    /**
     * A device's report of a packet it received, which another device of the same lab sent: only
     * the arrival of the arrow that sender reported. Returns that arrow, or null when it is not in
     * the ladder (forgotten, or its send was never drawn); nothing new is added, so a packet is
     * never drawn twice.
     */
    public Arrow addArrival(WirePacket packet) {
        if (packet.seen() != WirePacket.Seen.RECEIVED) {
            throw new IllegalArgumentException("not an arrival: " + packet.seen());
        }
        RocePacket decoded = decodeRc(packet);
        return decoded == null ? null : arrivalOf(packet, decoded);
    }

    /** The packet decoded, or null (counted as unpaired) when it is not RoCE or not RC. */
    private RocePacket decodeRc(WirePacket packet) {
        RocePacket decoded;
        try {
            decoded = decoder.decodeFrom(packet.bytes(), 0, packet.bytes().length);
        } catch (MalformedPacketException e) {
            unpaired++;
            return null;
        }
        if (!decoded.opcode().isRc()) {
            unpaired++;
            return null;
        }
        return decoded;
    }

    /** For an arrival, the sent arrow it completes (updated), or null. */
    private Arrow arrivalOf(WirePacket packet, RocePacket decoded) {
        if (packet.seen() != WirePacket.Seen.RECEIVED && packet.seen() != WirePacket.Seen.DROPPED) {
            return null;
        }
        Arrow sent = takeInFlight(packet, decoded);
        if (sent != null) {
            if (packet.seen() == WirePacket.Seen.RECEIVED) {
                sent.arrivalNanos = packet.timeNanos();
            } else {
                sent.dropped = true;
                sent.dropReason = packet.dropReason();
                dropped++;
            }
        }
        return sent;
    }

    private Arrow addNew(WirePacket packet, RocePacket decoded) {
        Opcode opcode = decoded.opcode();
        if (firstTime == Long.MIN_VALUE) {
            firstTime = packet.timeNanos();
        }
        String sourceHost = WirePacket.host(packet.source());
        String destinationHost = WirePacket.host(packet.destination());
        boolean request = opcode.isRequest();
        QpPair pair = pairFor(request, sourceHost, destinationHost, decoded.destQp());
        boolean fromA = destinationIsB(pair, destinationHost, decoded.destQp());
        int syndrome = opcode.hasAeth() ? decoded.aethSyndrome() : -1;
        int msn = opcode.hasAeth() ? decoded.aethMsn() : -1;
        Arrow arrow = new Arrow(nextIndex++, packet, pair, fromA, opcode, decoded.destQp(), decoded.psn(),
                decoded.ackRequest(), decoded.payloadLength(), opcode.hasReth() ? decoded.reth() : null, syndrome, msn);
        packets++;
        pair.lastActive = arrow.index;
        if (!arrow.icrcOk) {
            icrcBad++;
        }
        if (packet.seen() == WirePacket.Seen.DROPPED) {
            arrow.dropped = true;
            arrow.dropReason = packet.dropReason();
            dropped++;
        }
        if (request) {
            request(arrow, fromA ? pair.fromA : pair.fromB, fromA ? pair.fromB : pair.fromA);
        } else {
            response(arrow, fromA ? pair.fromB : pair.fromA);
        }
        if (arrow.injectedDuplicate() && !arrow.duplicate) {
            arrow.duplicate = true;
            duplicates++;
        }
        if (packet.seen() == WirePacket.Seen.SENT) {
            inFlight.computeIfAbsent(flightKey(packet.source(), packet.destination(), opcode, decoded.psn()),
                    key -> new ArrayDeque<>()).add(arrow);
        }
        arrows.add(arrow);
        while (arrows.size() > capacity) {
            forget(arrows.poll());
        }
        return arrow;
    }

    private static boolean destinationIsB(QpPair pair, String destinationHost, int destQp) {
        if (pair.qpB == destQp && pair.hostB.equals(destinationHost)) {
            return true;
        }
        if (pair.qpA == destQp && pair.hostA.equals(destinationHost)) {
            return false;
        }
        return pair.hostB.equals(destinationHost);
    }

    private static String flightKey(String source, String destination, Opcode opcode, int psn) {
        return source + ">" + destination + " " + opcode.value() + " " + psn;
    }

    private Arrow takeInFlight(WirePacket packet, RocePacket decoded) {
        String key = flightKey(packet.source(), packet.destination(), decoded.opcode(), decoded.psn());
        ArrayDeque<Arrow> waiting = inFlight.get(key);
        if (waiting == null) {
            return null;
        }
        Arrow arrow = waiting.poll();
        if (waiting.isEmpty()) {
            inFlight.remove(key);
        }
        return arrow;
    }

    private void forget(Arrow arrow) {
        ArrayDeque<Arrow> waiting = inFlight.get(flightKey(arrow.source, arrow.destination, arrow.opcode, arrow.psn));
        if (waiting != null) {
            waiting.remove(arrow);
            if (waiting.isEmpty()) {
                inFlight.remove(flightKey(arrow.source, arrow.destination, arrow.opcode, arrow.psn));
            }
        }
        while (!messages.isEmpty() && messages.peek().lastIndex < firstIndex()) {
            messages.poll();
        }
    }

    /** The pair a packet belongs to, linking half-known pairs between the same two hosts. */
    private QpPair pairFor(boolean request, String sourceHost, String destinationHost, int destQp) {
        QpPair pair = byEndpoint.get(destinationHost + "/" + destQp);
        if (pair != null) {
            return pair;
        }
        // A pair whose side on the destination host is not known yet, and whose other side is on the source host.
        QpPair candidate = null;
        for (QpPair each : pairs) {
            boolean fits = each.hostA.equals(sourceHost) && each.qpA >= 0 && each.qpB < 0
                    && each.hostB.equals(destinationHost)
                    || each.hostB.equals(sourceHost) && each.qpB >= 0 && each.qpA < 0 && each.hostA.equals(destinationHost);
            if (fits && (candidate == null || each.lastActive > candidate.lastActive)) {
                candidate = each;
            }
        }
        if (candidate != null) {
            if (candidate.qpB < 0) {
                candidate.qpB = destQp;
            } else {
                candidate.qpA = destQp;
            }
            byEndpoint.put(destinationHost + "/" + destQp, candidate);
            return candidate;
        }
        pair = new QpPair(pairs.size() + 1, sourceHost, -1, destinationHost, destQp);
        pairs.add(pair);
        byEndpoint.put(destinationHost + "/" + destQp, pair);
        return pair;
    }

    private void request(Arrow arrow, Flow flow, Flow reverse) {
        long psn = flow.unwrap(arrow.psn);
        boolean seenBefore = flow.started() && psn <= flow.highest();
        Message reading = flow.started() ? flow.messageAt(psn) : null;
        if (!seenBefore && reading != null && isReReadOf(arrow, reading, psn)) {
            arrow.repeats = reading.firstIndex;
            retransmissions++;
            arrow.gap = gapBefore(arrow, flow, find(reading.firstIndex), true);
            arrow.message = reading;
            reading.packets++;
            reading.lastIndex = arrow.index;
            flow.sentPsn(psn);
            flow.lastRequestIndex = arrow.index;
            flow.lastRequestWasRetransmission = true;
            return;
        }
        if (seenBefore) {
            Long original = flow.sent.get(psn);
            Message earlier = flow.messageAt(psn);
            if (original != null) {
                Arrow first = find(original);
                arrow.repeats = original;
                if (first != null && isDuplicateOf(arrow, first, flow)) {
                    arrow.duplicate = true;
                    duplicates++;
                } else {
                    retransmissions++;
                    arrow.gap = gapBefore(arrow, flow, first, false);
                }
                arrow.message = earlier;
            } else if (earlier != null && isReReadOf(arrow, earlier, psn)) {
                arrow.repeats = earlier.firstIndex;
                retransmissions++;
                arrow.gap = gapBefore(arrow, flow, find(earlier.firstIndex), true);
                arrow.message = earlier;
            } else {
                arrow.reordered = true;
                reorders++;
                flow.sent.put(psn, arrow.index);
                if (arrow.opcode.startsMessage()) {
                    // A message of its own that came late: it starts where its PSN says.
                    Message late = new Message(nextMessage++, arrow.pair, arrow.fromA, arrow.opcode, psn, arrow.index);
                    late.complete = arrow.opcode.endsMessage();
                    flow.addMessage(late);
                    messages.add(late);
                    late.packets = 0;
                    earlier = late;
                }
                arrow.message = earlier;
            }
            if (arrow.message != null) {
                arrow.message.packets++;
                arrow.message.lastIndex = arrow.index;
            }
            flow.lastRequestIndex = arrow.index;
            flow.lastRequestWasRetransmission = arrow.repeats >= 0;
            return;
        }
        flow.sentPsn(psn);
        flow.sent.put(psn, arrow.index);
        Message message = flow.open;
        if (arrow.opcode.startsMessage() || message == null) {
            message = new Message(nextMessage++, arrow.pair, arrow.fromA, arrow.opcode, psn, arrow.index);
            flow.addMessage(message);
            messages.add(message);
        }
        message.lastPsn = psn;
        message.packets++;
        message.lastIndex = arrow.index;
        arrow.message = message;
        if (arrow.opcode.isReadRequest()) {
            flow.open = null; // its responses complete it
        } else if (arrow.opcode.endsMessage()) {
            message.complete = true;
            flow.open = null;
        } else {
            flow.open = message;
        }
        flow.lastRequestIndex = arrow.index;
        flow.lastRequestWasRetransmission = false;
    }

    /**
     * A READ request that asks again for the rest of an earlier READ: a later PSN of it, the same
     * rkey, and a virtual address inside the earlier one's range (IBA 9.7.4.1.5).
     */
    private boolean isReReadOf(Arrow arrow, Message earlier, long psn) {
        if (!arrow.opcode.isReadRequest() || !earlier.firstOpcode().isReadRequest() || arrow.reth == null
                || psn <= earlier.firstPsnUnwrapped()) {
            return false;
        }
        Arrow original = find(earlier.firstIndex);
        if (original == null || original.reth == null || original.reth.rkey() != arrow.reth.rkey()) {
            return false;
        }
        long start = original.reth.virtualAddress();
        long va = arrow.reth.virtualAddress();
        return va > start && va - start < original.reth.dmaLengthUnsigned();
    }

    /**
     * Live: the device says it made a copy. Captured: identical bytes right after the original,
     * nothing between them in the pair, within the window.
     */
    private boolean isDuplicateOf(Arrow arrow, Arrow original, Flow flow) {
        if (!arrow.captured) {
            return arrow.injectedDuplicate();
        }
        return original.index == arrow.index - 1 && flow.lastRequestIndex == original.index
                && arrow.timeNanos - original.timeNanos <= DUPLICATE_WINDOW_NANOS
                && java.util.Arrays.equals(arrow.bytes, original.bytes);
    }

    /** The wait before a retransmission, or null when it follows another retransmission at once. */
    private Gap gapBefore(Arrow arrow, Flow flow, Arrow original, boolean readReRequest) {
        Arrow previous = previousInPair(arrow.pair);
        if (previous == null) {
            return null;
        }
        if (flow.lastRequestWasRetransmission && flow.lastRequestIndex == previous.index) {
            return null; // the rest of a go-back-N burst
        }
        long from = previous.index;
        long duration = arrow.timeNanos - previous.timeNanos;
        Gap.Kind kind;
        if (readReRequest) {
            kind = Gap.Kind.READ_REREQUEST;
        } else if (!previous.fromA == arrow.fromA && previous.hasAeth() && previous.isNak()
                && org.rdmalab.wire.Aeth.isRnrNak(previous.aethSyndrome)) {
            kind = Gap.Kind.RNR_WAIT;
        } else if (previous.fromA != arrow.fromA && previous.isNak()) {
            kind = Gap.Kind.AFTER_NAK;
        } else {
            kind = Gap.Kind.RETRANSMIT_TIMEOUT;
        }
        return new Gap(kind, duration, from);
    }

    private Arrow previousInPair(QpPair pair) {
        Iterator<Arrow> back = arrows.descendingIterator();
        int looked = 0;
        while (back.hasNext() && looked++ < 4096) {
            Arrow each = back.next();
            if (each.pair == pair) {
                return each;
            }
        }
        return null;
    }

    private void response(Arrow arrow, Flow requests) {
        long psn = requests.unwrap(arrow.psn);
        Message message = requests.messageAt(psn);
        arrow.message = message;
        if (arrow.hasAeth() && arrow.opcode.isAcknowledge()) {
            if (Syndrome.isNak(arrow.aethSyndrome)) {
                naks.merge(Syndrome.kind(arrow.aethSyndrome), 1, Integer::sum);
            }
        }
        if (message == null) {
            return;
        }
        if (arrow.opcode.isReadResponse()) {
            if (psn > message.lastPsn) {
                message.lastPsn = psn;
            }
            requests.sentPsn(psn); // a READ's responses use up its PSNs
            message.packets++;
            message.lastIndex = arrow.index;
            if (arrow.opcode.endsMessage()) {
                message.complete = true;
                answered(message, arrow);
            }
        } else if (arrow.opcode.isAcknowledge()) {
            answered(message, arrow);
            if (arrow.hasAeth() && org.rdmalab.wire.Aeth.isAck(arrow.aethSyndrome)) {
                // A coalesced ACK acknowledges every message up to its PSN.
                for (Message earlier : requests.messages.headMap(psn, true).descendingMap().values()) {
                    if (earlier != message && earlier.answerIndex >= 0) {
                        break;
                    }
                    if (earlier != message) {
                        answered(earlier, arrow);
                    }
                }
            }
        }
    }

    private void answered(Message message, Arrow arrow) {
        boolean ack = !arrow.hasAeth() || org.rdmalab.wire.Aeth.isAck(arrow.aethSyndrome);
        if (message.answerIndex < 0 || !ack || message.answerSyndrome >= 0 && !org.rdmalab.wire.Aeth.isAck(message.answerSyndrome)) {
            message.answerIndex = arrow.index;
            message.answerSyndrome = arrow.aethSyndrome;
        }
    }

    /** The arrow with ladder index {@code index}, or null when it was forgotten. */
    public Arrow find(long index) {
        if (arrows.isEmpty() || index < firstIndex() || index >= nextIndex) {
            return null;
        }
        // Indices are contiguous in the deque: step from the nearer end.
        long offset = index - firstIndex();
        if (offset < arrows.size() / 2) {
            Iterator<Arrow> it = arrows.iterator();
            for (long i = 0; i < offset; i++) {
                it.next();
            }
            return it.next();
        }
        Iterator<Arrow> it = arrows.descendingIterator();
        for (long i = arrows.size() - 1; i > offset; i--) {
            it.next();
        }
        return it.next();
    }

    /** The arrows kept whose index is above {@code index}, oldest first (the newest few cost only their number). */
    public List<Arrow> arrowsAfter(long index) {
        ArrayList<Arrow> after = new ArrayList<>();
        for (Iterator<Arrow> back = arrows.descendingIterator(); back.hasNext(); ) {
            Arrow arrow = back.next();
            if (arrow.index <= index) {
                break;
            }
            after.add(arrow);
        }
        Collections.reverse(after);
        return after;
    }

    /** Ladder index of the oldest arrow kept (1 until one was forgotten). */
    public long firstIndex() {
        return arrows.isEmpty() ? nextIndex : arrows.peek().index;
    }

    /** The arrows kept, oldest first. */
    public List<Arrow> arrows() {
        return Collections.unmodifiableList(new ArrayList<>(arrows));
    }

    /** How many arrows are kept. */
    public int size() {
        return arrows.size();
    }

    /** The messages of the arrows kept, in the order their first packets came. */
    public List<Message> messages() {
        return List.copyOf(messages);
    }

    /** Every QP pair seen. */
    public List<QpPair> pairs() {
        return List.copyOf(pairs);
    }

    /** When the first packet was seen (the ladder's time zero), or {@link Long#MIN_VALUE}. */
    public long firstTimeNanos() {
        return firstTime;
    }

    /** What the ladder counted so far (every packet seen, not only those kept). */
    public Summary summary() {
        int total = nextMessage - 1;
        boolean inferred = messages.stream().allMatch(Message::inferred);
        return new Summary(packets, total, inferred, retransmissions, duplicates, reorders, icrcBad, dropped,
                new TreeMap<>(naks), pairs.size(), unpaired);
    }
}
