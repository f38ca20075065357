package org.rdmalab.softroce;

import java.util.Arrays;
import org.rdmalab.softroce.net.EventLoop;

/**
 * The {@link FaultInjector}'s faults in front of a device's link: a datagram is drawn lost,
 * corrupted, duplicated, held back behind the next one (reordered) or delayed, in that order, then
 * handed to the link it wraps, which sends it through the capture and the socket (or keeps it
 * while the socket is full). A device without a fault spec has no {@code FaultyLink}, and its
 * datagrams go to the link directly.
 *
 * <p>Threads: the transport loop only, as the injector's random draws.
 */
final class FaultyLink implements SoftTransport.Link {

    /** How long a reordered datagram waits for a successor before it is sent anyway. */
    static final long REORDER_HOLD_NANOS = 1_000_000;

    private final FaultInjector faults;
    private final SoftTransport.Link link;
    private final SoftTransport transport;
    private byte[] heldDatagram;
    private int heldDestination;
    private int heldTos;
    private int heldTtl;
    private EventLoop.Timer heldTimer;

    /**
     * Faults drawn from {@code faults} in front of {@code link}; {@code transport} counts them, says
     * which datagrams were lost and lends its loop for delays.
     */
    FaultyLink(FaultInjector faults, SoftTransport.Link link, SoftTransport transport) {
        this.faults = faults;
        this.link = link;
        this.transport = transport;
    }

    /** Draws the datagram's faults; a corruption flips its bit in {@code buffer} itself. */
    @Override
    public void send(int destinationIp, int tos, int ttl, byte[] buffer, int offset, int length) {
        if (faults.drawDrop()) {
            transport.count(Counter.FAULT_DROPPED);
            transport.dropped(destinationIp, buffer, offset, length, "fault injector: dropped");
            return;
        }
        int bit = faults.drawCorruptBit(length);
        if (bit >= 0) {
            buffer[offset + (bit >>> 3)] ^= (byte) (1 << (bit & 7));
            transport.count(Counter.FAULT_CORRUPTED);
        }
        boolean duplicate = faults.drawDuplicate();
        boolean reorder = faults.drawReorder() && heldDatagram == null;
        if (reorder) {
            transport.count(Counter.FAULT_REORDERED);
            heldDatagram = Arrays.copyOfRange(buffer, offset, offset + length);
            heldDestination = destinationIp;
            heldTos = tos;
            heldTtl = ttl;
            heldTimer = transport.loop().schedule(REORDER_HOLD_NANOS, this::releaseHeld);
            if (duplicate) {
                transport.count(Counter.FAULT_DUPLICATED);
                delayed(destinationIp, tos, ttl, buffer, offset, length);
            }
            return;
        }
        delayed(destinationIp, tos, ttl, buffer, offset, length);
        if (duplicate) {
            transport.count(Counter.FAULT_DUPLICATED);
            delayed(destinationIp, tos, ttl, buffer, offset, length);
        }
        releaseHeld();
    }

    /** The datagram held back for reordering goes now, behind the one that followed it (or after the hold). */
    private void releaseHeld() {
        if (heldDatagram == null) {
            return;
        }
        byte[] datagram = heldDatagram;
        heldDatagram = null;
        heldTimer.cancel();
        delayed(heldDestination, heldTos, heldTtl, datagram, 0, datagram.length);
    }

    private void delayed(int destinationIp, int tos, int ttl, byte[] buffer, int offset, int length) {
        long delay = faults.delayNanos();
        if (delay <= 0) {
            link.send(destinationIp, tos, ttl, buffer, offset, length);
            return;
        }
        byte[] copy = Arrays.copyOfRange(buffer, offset, offset + length);
        transport.loop().schedule(delay, () -> link.send(destinationIp, tos, ttl, copy, 0, copy.length));
    }
}
