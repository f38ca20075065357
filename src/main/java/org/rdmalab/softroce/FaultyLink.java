package org.rdmalab.softroce;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.rdmalab.softroce.net.EventLoop;
import org.rdmalab.verbs.FaultKind;
import org.rdmalab.verbs.FaultSettings;
import org.rdmalab.verbs.OneShotFault;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.wire.Opcode;

/**
 * Faults in front of a device's link. First the one-shot faults armed for the next matching packet
 * ({@link OneShotFault}: drop it, or flip bit 0 of its last byte before the pad and the ICRC); then the
 * {@link FaultInjector}'s random draws: a datagram is drawn lost, corrupted, duplicated, held back
 * behind the next one (reordered) or delayed, in that order, then handed to the link it wraps,
 * which sends it through the capture and the socket (or keeps it while the socket is full). Each
 * fault that fires goes with the datagram as a {@link PacketEvent.Fault}, so the event of the
 * packet it hit names it.
 *
 * <p>The transport sends through it only while it has something to do ({@link #active()}); a
 * device without faults sends straight to its link. Its settings change while the device runs
 * ({@link #settings}, {@link #arm}).
 *
 * <p>Threads: the transport loop only, as the injector's random draws.
 */
final class FaultyLink implements SoftTransport.Link {

    /** How long a reordered datagram waits for a successor before it is sent anyway. */
    static final long REORDER_HOLD_NANOS = 1_000_000;

    private final SoftTransport.Link link;
    private final SoftTransport transport;
    /** The random faults, or null for none. */
    private FaultInjector faults;
    /** The settings' version at the context when they were taken: a new version starts the draws over. */
    private long version = -1;
    /** One-shot faults waiting for their packet, oldest first. */
    private final List<OneShotFault> shots = new ArrayList<>();
    private byte[] heldDatagram;
    private int heldDestination;
    private int heldTos;
    private int heldTtl;
    private List<PacketEvent.Fault> heldFaults;
    private EventLoop.Timer heldTimer;

    /**
     * Faults in front of {@code link}; {@code transport} counts them, says which datagrams were lost
     * and lends its loop for delays.
     */
    FaultyLink(SoftTransport.Link link, SoftTransport transport) {
        this.link = link;
        this.transport = transport;
    }

    /** Takes {@code settings} as version {@code newVersion}; another version than the last starts the draws over. */
    void settings(FaultSettings settings, long newVersion) {
        if (newVersion == version) {
            return;
        }
        version = newVersion;
        faults = settings.none() ? null : new FaultInjector(settings);
    }

    /** Waits for {@code shot}'s packet too (once, however often it is armed). */
    void arm(OneShotFault shot) {
        if (shot.waiting() && !shots.contains(shot)) {
            shots.add(shot);
        }
    }

    /** True while datagrams must take this link: random faults are on or a one-shot fault waits. */
    boolean active() {
        shots.removeIf(shot -> !shot.waiting());
        return faults != null || !shots.isEmpty();
    }

    /** Applies the faults; a corruption flips its bit in {@code buffer} itself. */
    @Override
    public void send(int destinationIp, int tos, int ttl, byte[] buffer, int offset, int length,
                     List<PacketEvent.Fault> already) {
        List<PacketEvent.Fault> hits = already == null ? null : new ArrayList<>(already);
        OneShotFault shot = shots.isEmpty() ? null : claimShot(buffer[offset] & 0xff);
        if (shot != null) {
            if (shot.kind().fault() == FaultKind.DROP) {
                transport.count(Counter.FAULT_DROPPED);
                transport.dropped(destinationIp, buffer, offset, length, "fault injector: dropped (one-shot)",
                        add(hits, new PacketEvent.Fault(FaultKind.DROP, true, oneShotName(shot))));
                return;
            }
            // The last byte before the pad and the ICRC: a WRITE's last payload byte, an ACK's MSN.
            int pad = (buffer[offset + 1] >>> 4) & 3;
            int at = Math.max(0, length - 5 - pad);
            buffer[offset + at] ^= 1;
            transport.count(Counter.FAULT_CORRUPTED);
            hits = add(hits, new PacketEvent.Fault(FaultKind.CORRUPT, true, "bit 0 of byte " + at + " flipped"));
        }
        FaultInjector random = faults;
        if (random == null) {
            delayed(destinationIp, tos, ttl, buffer, offset, length, hits);
            releaseHeld();
            return;
        }
        if (random.drawDrop()) {
            transport.count(Counter.FAULT_DROPPED);
            transport.dropped(destinationIp, buffer, offset, length, "fault injector: dropped",
                    add(hits, new PacketEvent.Fault(FaultKind.DROP, false, "")));
            return;
        }
        int bit = random.drawCorruptBit(length);
        if (bit >= 0) {
            buffer[offset + (bit >>> 3)] ^= (byte) (1 << (bit & 7));
            transport.count(Counter.FAULT_CORRUPTED);
            hits = add(hits, new PacketEvent.Fault(FaultKind.CORRUPT, false,
                    "bit " + (bit & 7) + " of byte " + (bit >>> 3) + " flipped"));
        }
        boolean duplicate = random.drawDuplicate();
        boolean reorder = random.drawReorder() && heldDatagram == null;
        if (reorder) {
            transport.count(Counter.FAULT_REORDERED);
            heldDatagram = Arrays.copyOfRange(buffer, offset, offset + length);
            heldDestination = destinationIp;
            heldTos = tos;
            heldTtl = ttl;
            heldFaults = add(hits == null ? null : new ArrayList<>(hits),
                    new PacketEvent.Fault(FaultKind.REORDER, false, "held back behind the next packet"));
            heldTimer = transport.loop().schedule(REORDER_HOLD_NANOS, this::releaseHeld);
            if (duplicate) {
                transport.count(Counter.FAULT_DUPLICATED);
                delayed(destinationIp, tos, ttl, buffer, offset, length,
                        add(hits, new PacketEvent.Fault(FaultKind.DUPLICATE, false, "")));
            }
            return;
        }
        delayed(destinationIp, tos, ttl, buffer, offset, length, hits);
        if (duplicate) {
            transport.count(Counter.FAULT_DUPLICATED);
            delayed(destinationIp, tos, ttl, buffer, offset, length,
                    add(hits == null ? null : new ArrayList<>(hits), new PacketEvent.Fault(FaultKind.DUPLICATE, false, "")));
        }
        releaseHeld();
    }

    /** The first waiting one-shot fault that matches a packet with {@code opcode}, claimed; or null. */
    private OneShotFault claimShot(int opcode) {
        Opcode op = Opcode.of(opcode);
        boolean request = op.isRequest();
        boolean acknowledge = op.isAcknowledge();
        for (Iterator<OneShotFault> each = shots.iterator(); each.hasNext(); ) {
            OneShotFault shot = each.next();
            if (!shot.waiting()) {
                each.remove(); // fired on another device, or cancelled
            } else if (shot.matches(request, acknowledge) && shot.claim()) {
                each.remove();
                return shot;
            }
        }
        return null;
    }

    private static String oneShotName(OneShotFault shot) {
        return shot.kind() == OneShotFault.Kind.DROP_NEXT_ACK ? "the next ACK" : "the next packet";
    }

    private static List<PacketEvent.Fault> add(List<PacketEvent.Fault> hits, PacketEvent.Fault fault) {
        List<PacketEvent.Fault> list = hits == null ? new ArrayList<>(2) : hits;
        list.add(fault);
        return list;
    }

    /** The datagram held back for reordering goes now, behind the one that followed it (or after the hold). */
    private void releaseHeld() {
        if (heldDatagram == null) {
            return;
        }
        byte[] datagram = heldDatagram;
        List<PacketEvent.Fault> hits = heldFaults;
        heldDatagram = null;
        heldFaults = null;
        heldTimer.cancel();
        delayed(heldDestination, heldTos, heldTtl, datagram, 0, datagram.length, hits);
    }

    private void delayed(int destinationIp, int tos, int ttl, byte[] buffer, int offset, int length,
                         List<PacketEvent.Fault> hits) {
        long delay = faults == null ? 0 : faults.delayNanos();
        if (delay <= 0) {
            link.send(destinationIp, tos, ttl, buffer, offset, length, hits);
            return;
        }
        byte[] copy = Arrays.copyOfRange(buffer, offset, offset + length);
        List<PacketEvent.Fault> delayedHits = add(hits == null ? null : new ArrayList<>(hits),
                new PacketEvent.Fault(FaultKind.DELAY, false, FaultSettings.formatDelay(delay)));
        transport.loop().schedule(delay, () -> link.send(destinationIp, tos, ttl, copy, 0, copy.length, delayedHits));
    }
}
