package org.rdmalab.softroce;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import org.rdmalab.softroce.net.EventLoop;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.wire.Icrc;
import org.rdmalab.wire.MalformedPacketException;
import org.rdmalab.wire.RocePacket;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.verbs.VerbsException;

/**
 * One context's packet engine on its event loop: encodes packets straight into one reused send
 * buffer, appends the ICRC over the canonical IPv4 header, passes them through the fault injector
 * and the capture tap to the fabric; on the way in it checks the ICRC, finds the QP and hands the
 * decoded packet to it. Everything here runs on the loop thread except {@link #start} and
 * {@link #close}.
 *
 * <p>Backpressure: a datagram the socket cannot take (its send buffer is full) is not lost. It
 * waits, with every datagram after it, in a short queue ({@link #BLOCKED_LIMIT}) until the fabric
 * reports room ({@link #onWritable}); meanwhile {@link #blocked()} is true and the requesters and
 * responders stop producing packets and wait here ({@link #awaitWritable}) to be resumed in
 * order. rxe does the same in its way: a packet {@code rxe_xmit_packet} could not send
 * ({@code -EAGAIN}) is rolled back and produced again later, and a requester with too many packets
 * in the kernel's queues waits until they drain.
 */
final class SoftTransport implements Fabric.Receiver {

    /**
     * At most this many datagrams wait for room in the socket. Producers stop once one waits, so
     * only packets that answer arriving ones (ACKs, NAKs) add to it; past the limit they are
     * dropped, as a full link drops them.
     */
    static final int BLOCKED_LIMIT = 256;

    private final SoftRoceContext context;
    private final int localIp;
    private final int peerPort;
    /** The faults in front of {@link #send}, while {@link #faulty}. */
    private final FaultyLink faultyLink;
    /**
     * True while the device injects faults ({@link FaultyLink#active()}): then every datagram takes
     * {@link #faultyLink}, otherwise {@link #send} or the fast path. Changed on the loop only
     * ({@link #faultsChanged}), and read there only.
     */
    private boolean faulty;
    private final Map<Integer, SoftQueuePair> queuePairs = new HashMap<>();
    /** Packets are encoded here, in native memory the socket sends from without another copy. */
    private final ByteBuffer txBuffer = ByteBuffer.allocateDirect(16384);
    /** A packet's copy for the slower paths: faults, a capture, listeners, a full socket. */
    private final byte[] tx = new byte[16384];
    private final byte[] scratch = new byte[8192];
    private final RocePacket received = RocePacket.reusable();
    private Fabric.Endpoint endpoint;
    private EventLoop loop;
    private CaptureTap capture;
    private int localPort;
    /**
     * One anchor for the whole process, so that devices sharing a capture stamp their packets on
     * the same time line (a loop's clock is System.nanoTime(), or virtual in simulations).
     */
    private static final long EPOCH_MINUS_NANO_TIME = System.currentTimeMillis() * 1_000_000L - System.nanoTime();
    /** Plain ACKs a busy poller's turn made, held back and coalesced (see {@link AckCoalescer}). */
    private final AckCoalescer acks = new AckCoalescer((ip, ttl, datagram, length) -> {
        count(Counter.SENT_PKTS);
        send(ip, 0, ttl, datagram, 0, length, null);
    });
    /** Datagrams the socket has not taken yet, oldest first. */
    private final java.util.ArrayDeque<Waiting> blockedDatagrams = new java.util.ArrayDeque<>();
    /** Queue pairs that stopped producing while blocked, in the order they stopped. */
    private final java.util.LinkedHashSet<SoftQueuePair> stalled = new java.util.LinkedHashSet<>();
    /** Loop time the queue last emptied; with {@link #everBlocked}, for retransmission timers. */
    private long unblockedAt;
    private boolean everBlocked;

    /**
     * Sends one datagram on ({@link #send}), or draws faults first ({@link FaultyLink}); on the loop.
     * {@code faults} are those that hit it already (null for none), for its packet event.
     */
    @FunctionalInterface
    interface Link {
        void send(int destinationIp, int tos, int ttl, byte[] buffer, int offset, int length,
                  java.util.List<PacketEvent.Fault> faults);
    }

    /** A datagram waiting for room in the socket, with the faults that hit it (null for none). */
    private record Waiting(int destinationIp, int tos, int ttl, byte[] datagram, java.util.List<PacketEvent.Fault> faults) {
    }

    private SoftTransport(SoftRoceContext context) {
        this.context = context;
        SoftRoceDevice device = context.softDevice();
        this.localIp = Fabric.toInt(device.profile().address());
        this.peerPort = device.profile().peerUdpPort();
        this.faultyLink = new FaultyLink(this::send, this);
        faultsChanged(); // no loop yet: nothing else touches the transport
    }

    /**
     * The context's faults changed (or the transport starts): the link takes the settings and the
     * armed one-shot faults, and datagrams take it from now on if it has something to do. On the
     * loop, or before the transport starts.
     */
    void faultsChanged() {
        context.faultsTo(faultyLink);
        boolean now = faultyLink.active();
        if (now && !faulty) {
            acks.releaseAll(); // with faults no ACK is held
        }
        faulty = now;
    }

    /** Binds the device's address and starts its loop; {@code verb} names the call that needed it. */
    static SoftTransport start(SoftRoceContext context, String verb) throws VerbsException {
        SoftTransport transport = new SoftTransport(context);
        SoftRoceDevice device = context.softDevice();
        String name = device.name() + "@" + device.profile().address().getHostAddress() + " transport";
        transport.endpoint = device.fabric().open(verb, name, device.profile().address(), device.profile().udpPort(),
                transport);
        transport.loop = transport.endpoint.loop();
        transport.localPort = transport.endpoint.localPort();
        try {
            transport.capture = CaptureTap.open(device.options().capture(), transport.localIp, transport.localPort);
        } catch (VerbsException e) {
            transport.endpoint.close();
            throw new VerbsException(verb, e.errnoValue(), e.detail(), e);
        }
        return transport;
    }

    EventLoop loop() {
        return loop;
    }

    SoftRoceContext context() {
        return context;
    }

    int localIp() {
        return localIp;
    }

    /** Registers a QP so packets reach it (loop thread). */
    void register(SoftQueuePair qp) {
        queuePairs.put(qp.qpNum(), qp);
    }

    /** Forgets a QP (loop thread). */
    void unregister(SoftQueuePair qp) {
        // The ACKs a busy poller's turn held leave now: the QP's peer may wait for one. The loop
        // thread's turn that runs a destroy has sent them already; a busy poller's turn (another
        // thread polling this device) that runs it has not.
        acks.releaseAll();
        queuePairs.remove(qp.qpNum(), qp);
        stalled.remove(qp);
    }

    void count(Counter counter) {
        context.count(counter);
    }

    /** A scratch array for gathering a packet's payload from several SGEs (loop thread). */
    byte[] scratch() {
        return scratch;
    }

    /** The send buffer, cleared; encode one packet into it, then call {@link #transmit}. */
    ByteBuffer packetBuffer() {
        txBuffer.clear();
        return txBuffer;
    }

    /**
     * Appends the ICRC to the packet encoded in the send buffer and sends it to {@code destinationIp}:
     * straight from that buffer to the socket when nothing else wants the datagram, otherwise as a
     * copy through the {@link Link} (faults, the blocked queue, the capture, packet listeners).
     */
    void transmit(int destinationIp, int tos, int ttl) {
        int length = Icrc.appendCanonicalIpv4(localIp, destinationIp, localPort, peerPort, txBuffer, 0);
        boolean plainAck = isPlainAck(length);
        if (plainAck && !faulty && endpoint != null && blockedDatagrams.isEmpty() && loop.holdingReplies()
                && acks.hold(txBuffer, length, destinationIp, ttl, loop.nanoTime())) {
            // A busy poller's turn made this ACK: it leaves after the poller's next packet (its
            // answer, most likely), or later and coalesced with newer ones for a peer that does not
            // wait for its ACKs, so neither the answer nor the poller waits behind its send.
            return;
        }
        if (!plainAck && isResponderOutput()) {
            acks.beforeResponderOutput();
        }
        count(Counter.SENT_PKTS);
        if (!faulty && capture == null && endpoint != null && blockedDatagrams.isEmpty()
                && !context.hasListeners()) {
            // The common path: straight from the encoding buffer to the socket.
            txBuffer.flip();
            Fabric.SendResult result = endpoint.send(destinationIp, peerPort, txBuffer);
            if (result == Fabric.SendResult.SENT) {
                acks.afterTransmit(loop.nanoTime());
                return;
            }
            if (result == Fabric.SendResult.FAILED) {
                count(Counter.SEND_ERR);
                return;
            }
            // BLOCKED: the datagram waits, as below.
        }
        txBuffer.get(0, tx, 0, length);
        if (faulty) {
            faultyLink.send(destinationIp, tos, ttl, tx, 0, length, null);
            if (!faultyLink.active()) {
                faulty = false; // the last one-shot fault fired
            }
        } else {
            send(destinationIp, tos, ttl, tx, 0, length, null);
        }
        acks.afterTransmit(loop.nanoTime()); // with faults no ACK is ever held, and this does nothing
    }

    /** An RC ACKNOWLEDGE whose AETH says ACK (not a NAK or an RNR NAK). */
    private boolean isPlainAck(int length) {
        return length == 20 && txBuffer.get(0) == (byte) 0x11 && (txBuffer.get(12) & 0x60) == 0;
    }

    /** ACKNOWLEDGE, ATOMIC_ACKNOWLEDGE or an RDMA READ response (opcodes 0x0D..0x12) in the send buffer. */
    private boolean isResponderOutput() {
        int opcode = txBuffer.get(0) & 0xff;
        return opcode >= 0x0d && opcode <= 0x12;
    }

    /**
     * A turn that is not a post begins: a busy poller's turn sends the held ACKs that are due, any
     * other turn all of them.
     */
    @Override
    public void onTurn() {
        if (acks.held() > 0) {
            acks.onTurn(loop.holdingReplies(), loop.nanoTime());
        }
    }

    @Override
    public boolean holdsReplies() {
        return acks.held() > 0;
    }

    /** What the ACK coalescer has learnt of a peer QP: "pipelines", "waits" or "unknown" (loop thread). */
    String ackPeerState(int peerIp, int peerQpn) {
        return acks.peerState(peerIp, peerQpn);
    }

    /** A request of the peer QP that {@code qp} talks to arrived: the coalescer learns whether that peer waits. */
    private void requestArrived(int sourceIp, SoftQueuePair qp, RocePacket packet) {
        if (acks.held() > 0 && packet.opcode().isRequest()) {
            acks.requestArrived(sourceIp, qp.peerQpn());
        }
    }

    private void send(int destinationIp, int tos, int ttl, byte[] buffer, int offset, int length,
                      java.util.List<PacketEvent.Fault> faults) {
        if (endpoint == null) {
            return;
        }
        if (blockedDatagrams.isEmpty() && offer(destinationIp, tos, ttl, buffer, offset, length, faults)) {
            return;
        }
        // The socket is full, or older datagrams wait for it: keep this one behind them.
        if (blockedDatagrams.size() >= BLOCKED_LIMIT) {
            count(Counter.SEND_ERR);
            event(PacketEvent.Direction.DROPPED, localIp, destinationIp, buffer, offset, length,
                    BLOCKED_LIMIT + " datagrams already wait for room in the socket's send buffer", faults);
            return;
        }
        if (blockedDatagrams.isEmpty()) {
            count(Counter.SEND_BLOCKED);
            everBlocked = true;
            endpoint.awaitWritable();
        }
        blockedDatagrams.add(new Waiting(destinationIp, tos, ttl,
                java.util.Arrays.copyOfRange(buffer, offset, offset + length), faults));
    }

    /** Hands one datagram to the fabric; false when the socket had no room and nothing was sent. */
    private boolean offer(int destinationIp, int tos, int ttl, byte[] buffer, int offset, int length,
                          java.util.List<PacketEvent.Fault> faults) {
        Fabric.SendResult result;
        if (capture != null) {
            // Written while the capture is held, and only when sent: once the datagram is out, the
            // peer's reply may reach a shared capture, and a request must never follow its response.
            result = capture.writeIfSent(epochNanos(), localIp, localPort, destinationIp, peerPort, endpoint.sentTos(tos),
                    endpoint.sentTtl(ttl), buffer,
                    offset, length, () -> endpoint.send(destinationIp, peerPort, buffer, offset, length));
        } else {
            result = endpoint.send(destinationIp, peerPort, buffer, offset, length);
        }
        switch (result) {
            case BLOCKED -> {
                return false;
            }
            case FAILED -> {
                count(Counter.SEND_ERR);
                event(PacketEvent.Direction.DROPPED, localIp, destinationIp, buffer, offset, length,
                        "the network refused the datagram", faults);
            }
            default -> event(PacketEvent.Direction.SENT, localIp, destinationIp, buffer, offset, length, null, faults);
        }
        return true;
    }

    /**
     * True while datagrams wait for room in the socket: a producer sends nothing new then, but
     * calls {@link #awaitWritable} and waits to be resumed (loop thread).
     */
    boolean blocked() {
        return !blockedDatagrams.isEmpty();
    }

    /** {@code qp} stopped producing because the transport is {@link #blocked()}; it is resumed in order. */
    void awaitWritable(SoftQueuePair qp) {
        stalled.add(qp);
    }

    /**
     * Whether the transport was blocked at any time from {@code sinceNanos} (loop time) until now:
     * a packet produced then may have left only when the socket took it, not when it was produced.
     */
    boolean blockedSince(long sinceNanos) {
        return blocked() || (everBlocked && unblockedAt - sinceNanos >= 0);
    }

    /** Loop time the waiting datagrams last all left (meaningful after {@link #blockedSince} said true). */
    long unblockedAt() {
        return unblockedAt;
    }

    /** The socket has room again: send what waits, in order, then resume the stalled producers in order. */
    @Override
    public void onWritable() {
        if (endpoint == null) {
            return;
        }
        while (!blockedDatagrams.isEmpty()) {
            Waiting next = blockedDatagrams.peek();
            if (!offer(next.destinationIp(), next.tos(), next.ttl(), next.datagram(), 0, next.datagram().length,
                    next.faults())) {
                endpoint.awaitWritable();
                return;
            }
            blockedDatagrams.poll();
        }
        unblockedAt = loop.nanoTime();
        java.util.Iterator<SoftQueuePair> next = stalled.iterator();
        while (next.hasNext() && !blocked()) {
            SoftQueuePair qp = next.next();
            next.remove();
            qp.resumeSending();
            // A QP that blocked again put itself back at the end; the ones after it wait their turn.
            next = stalled.iterator();
        }
    }

    private long epochNanos() {
        return loop.nanoTime() + EPOCH_MINUS_NANO_TIME;
    }

    @Override
    public void onDatagram(int sourceIp, int sourcePort, byte[] buffer, int offset, int length) {
        // The socket does not show the IPv4 ID: 0 from software devices (and any sender whose socket
        // is set like this one's), another value from kernel rxe and NICs, found from the ICRC
        // (Icrc.recoverIpv4Id; a 16-bit check remains). -1: no ID makes the ICRC match.
        int ipId = Icrc.verifyCanonicalIpv4(sourceIp, localIp, sourcePort, localPort, buffer, offset, length) ? 0
                : Icrc.recoverIpv4Id(sourceIp, localIp, sourcePort, localPort, buffer, offset, length);
        if (capture != null) {
            capture.write(epochNanos(), sourceIp, sourcePort, localIp, localPort, 0, 64, Math.max(ipId, 0), buffer,
                    offset, length, false);
        }
        RocePacket packet;
        try {
            // One instance for every datagram: nothing on the receive path keeps a packet.
            packet = received.decodeFrom(buffer, offset, length);
        } catch (MalformedPacketException e) {
            count(Counter.RCVD_MALFORMED);
            if (context.hasListeners()) {
                context.publish(new PacketEvent(loop.nanoTime(), PacketEvent.Direction.DROPPED, address(sourceIp, sourcePort),
                        address(localIp, localPort), "?", 0, 0, false, length, "malformed: " + e.getMessage(),
                        java.util.List.of(), java.util.Arrays.copyOfRange(buffer, offset, offset + length)));
            }
            return;
        }
        if (ipId < 0) {
            count(Counter.RCVD_ICRC_ERR);
            drop(packet, sourceIp, sourcePort, "ICRC mismatch", buffer, offset, length);
            return;
        }
        SoftQueuePair qp = queuePairs.get(packet.destQp());
        if (qp == null) {
            count(Counter.RCVD_UNKNOWN_QP);
            drop(packet, sourceIp, sourcePort, String.format("no QP 0x%x on this device", packet.destQp()), buffer, offset,
                    length);
            return;
        }
        String refusal = qp.accepts(packet, sourceIp);
        if (refusal != null) {
            drop(packet, sourceIp, sourcePort, refusal, buffer, offset, length);
            return;
        }
        count(Counter.RCVD_PKTS);
        requestArrived(sourceIp, qp, packet);
        if (context.hasListeners()) {
            context.publish(new PacketEvent(loop.nanoTime(), PacketEvent.Direction.RECEIVED, address(sourceIp, sourcePort),
                    address(localIp, localPort), packet.opcode().name(), packet.destQp(), packet.psn(),
                    packet.ackRequest(), length, packet.detail(), java.util.List.of(),
                    java.util.Arrays.copyOfRange(buffer, offset, offset + length)));
        }
        qp.receive(packet);
    }

    private void drop(RocePacket packet, int sourceIp, int sourcePort, String reason, byte[] buffer, int offset,
                      int length) {
        if (context.hasListeners()) {
            context.publish(new PacketEvent(loop.nanoTime(), PacketEvent.Direction.DROPPED, address(sourceIp, sourcePort),
                    address(localIp, localPort), packet.opcode().name(), packet.destQp(), packet.psn(),
                    packet.ackRequest(), packet.length(), reason + "; " + packet.detail(), java.util.List.of(),
                    java.util.Arrays.copyOfRange(buffer, offset, offset + length)));
        }
    }

    /**
     * A datagram for {@code destination} was lost on its way out, for {@code reason} (a fault in
     * {@code faults}): the listeners hear of it.
     */
    void dropped(int destination, byte[] buffer, int offset, int length, String reason,
                 java.util.List<PacketEvent.Fault> faults) {
        event(PacketEvent.Direction.DROPPED, localIp, destination, buffer, offset, length, reason, faults);
    }

    private void event(PacketEvent.Direction direction, int source, int destination, byte[] buffer, int offset,
                       int length, String reason, java.util.List<PacketEvent.Fault> faults) {
        if (!context.hasListeners()) {
            return;
        }
        String sourceText = address(source, localPort);
        String destinationText = address(destination, peerPort);
        byte[] bytes = java.util.Arrays.copyOfRange(buffer, offset, offset + length);
        try {
            RocePacket packet = RocePacket.decode(buffer, offset, length);
            String detail = reason == null ? packet.detail() : reason + "; " + packet.detail();
            context.publish(new PacketEvent(loop.nanoTime(), direction, sourceText, destinationText, packet.opcode().name(),
                    packet.destQp(), packet.psn(), packet.ackRequest(), length, detail, faults, bytes));
        } catch (MalformedPacketException e) {
            context.publish(new PacketEvent(loop.nanoTime(), direction, sourceText, destinationText, "?", 0, 0, false,
                    length, reason == null ? "corrupted" : reason, faults, bytes));
        }
    }

    static String address(int ip, int port) {
        return (ip >>> 24) + "." + ((ip >>> 16) & 0xff) + "." + ((ip >>> 8) & 0xff) + "." + (ip & 0xff) + ":" + port;
    }

    /** Stops the loop, unbinds the socket and releases the capture. Idempotent. */
    void close() {
        Fabric.Endpoint bound = endpoint;
        if (bound == null) {
            return;
        }
        if (loop.inLoop()) {
            queuePairs.clear();
        }
        bound.close();
        endpoint = null;
        blockedDatagrams.clear();
        stalled.clear();
        acks.discard();
        if (capture != null) {
            capture.close();
            capture = null;
        }
    }
}
