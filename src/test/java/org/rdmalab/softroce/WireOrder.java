package org.rdmalab.softroce;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.rdmalab.verbs.PacketEvent;

/**
 * The order of one direction's data packets (requests and READ responses, not ACKs) as the sender
 * handed them to its socket and as the receiver read them, from both devices' packet events. It
 * tells soft0's own ordering apart from the network's: a sender must hand over each new PSN right
 * after the one before it, and a packet the receiver reads after one that was sent later was
 * reordered on the way, which RC treats as a loss (the responder NAKs and the requester goes back).
 * Feed it from the two devices' listeners; the figures are read after both have stopped.
 */
final class WireOrder {

    private final List<Integer> sent = new ArrayList<>();
    private final List<Integer> received = new ArrayList<>();

    /** A packet event of the sending device: its SENT data packets count. */
    synchronized void sender(PacketEvent event) {
        if (event.direction() == PacketEvent.Direction.SENT && isData(event)) {
            sent.add(event.psn());
        }
    }

    /** A packet event of the receiving device: its RECEIVED data packets count. */
    synchronized void receiver(PacketEvent event) {
        if (event.direction() == PacketEvent.Direction.RECEIVED && isData(event)) {
            received.add(event.psn());
        }
    }

    private static boolean isData(PacketEvent event) {
        return !event.opcode().contains("ACKNOWLEDGE");
    }

    /**
     * New PSNs the sender handed over out of order: a first transmission (a PSN above every one
     * sent before) that is not the next PSN. A retransmission goes back and is not counted.
     */
    synchronized int sentOutOfOrder() {
        int wrong = 0;
        int highest = -1;
        for (int psn : sent) {
            // PSNs are 24-bit and wrap: "above" is ahead by less than half the space.
            int ahead = (psn - highest) & 0xffffff;
            if (highest < 0 || (ahead != 0 && ahead < 0x800000)) {
                if (highest >= 0 && ahead != 1) {
                    wrong++;
                }
                highest = psn;
            }
        }
        return wrong;
    }

    /**
     * Packets the receiver read after a packet that the sender had sent later: reordered by the
     * network. Each received packet is matched to the next unmatched send of its PSN.
     */
    synchronized int reorderedOnTheWay() {
        Map<Integer, ArrayDeque<Integer>> sends = new HashMap<>();
        for (int i = 0; i < sent.size(); i++) {
            sends.computeIfAbsent(sent.get(i), psn -> new ArrayDeque<>()).add(i);
        }
        int reordered = 0;
        int latest = -1;
        for (int psn : received) {
            ArrayDeque<Integer> indexes = sends.get(psn);
            if (indexes == null || indexes.isEmpty()) {
                continue;
            }
            int index = indexes.poll();
            if (index < latest) {
                reordered++;
            }
            latest = Math.max(latest, index);
        }
        return reordered;
    }

    /** Packets sent that the receiver never read. */
    synchronized int lost() {
        return Math.max(0, sent.size() - received.size());
    }
}
