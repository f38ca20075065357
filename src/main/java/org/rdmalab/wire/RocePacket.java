package org.rdmalab.wire;

import java.nio.ByteBuffer;

/**
 * A decoded RoCEv2 packet: the UDP payload {@code BTH | extension headers | payload | pad | ICRC}
 * (rocev2.md "Packet on the wire"). The payload is not copied: {@link #buffer()},
 * {@link #payloadOffset()} and {@link #payloadLength()} point into the caller's array, which must
 * not change while the packet is in use.
 *
 * <p>{@link #decode} makes a new packet. A receive path that must not allocate per packet keeps
 * one instance and decodes each datagram into it with {@link #decodeFrom}, which checks the
 * packet and reads the BTH's fields the data path needs ({@link #psn()}, {@link #destQp()},
 * {@link #ackRequest()}, ...) straight from the array, and so do the RETH's and AETH's
 * accessors ({@link #rethVirtualAddress()}, {@link #aethSyndrome()}, ...); the header records
 * ({@link #bth()}, {@link #reth()}, ...) are built only when asked for, once per decode.
 *
 * <p>Not thread-safe; a packet from {@link #decode} that nobody decodes into again may be handed to
 * another thread if the buffer is not reused.
 */
public final class RocePacket {

    private byte[] buffer;
    private int offset;
    private int length;
    private Opcode opcode;
    private int headersEnd;
    /** Where the RETH and the AETH start in {@link #buffer}, when the opcode has them. */
    private int rethAt;
    private int aethAt;
    private boolean hasImmDt;
    private int immDt;
    private int payloadOffset;
    private int payloadLength;
    private int icrc;
    /** Built on demand for this decode; null until asked for. */
    private Bth bth;
    private boolean extensionsParsed;
    private Deth deth;
    private Reth reth;
    private Aeth aeth;
    private AtomicEth atomicEth;
    private AtomicAckEth atomicAckEth;

    private RocePacket() {
    }

    /** An empty packet to {@link #decodeFrom} into. */
    public static RocePacket reusable() {
        return new RocePacket();
    }

    /**
     * Decodes {@code length} bytes at {@code offset}: a whole UDP payload, ICRC included. Checks
     * that the packet holds a BTH, the opcode's extension headers and the ICRC, that the opcode is
     * known and TVer is 0 (IBTA §9.2), that the pad count fits in what follows the headers, and
     * that opcodes without payload carry none. The ICRC itself is not checked here (it needs the IP
     * header); see {@link Icrc}.
     *
     * @throws MalformedPacketException with a one-line reason
     */
    public static RocePacket decode(byte[] buf, int offset, int length) throws MalformedPacketException {
        return new RocePacket().decodeFrom(buf, offset, length);
    }

    /**
     * {@link #decode} into this packet, which forgets what it held before; allocates nothing.
     *
     * @return this packet
     * @throws MalformedPacketException with a one-line reason (the packet then holds nothing useful)
     */
    public RocePacket decodeFrom(byte[] buf, int offset, int length) throws MalformedPacketException {
        if (buf == null || offset < 0 || length < 0 || offset + length > buf.length) {
            throw new IllegalArgumentException("decode range " + offset + "+" + length + " is outside the buffer");
        }
        int minimum = Bth.LENGTH + Icrc.LENGTH;
        if (length < minimum) {
            throw new MalformedPacketException("packet too short: " + length + " bytes, a BTH and an ICRC need "
                    + minimum);
        }
        Opcode op = Opcode.of(buf[offset] & 0xFF);
        if (!op.isKnown()) {
            throw new MalformedPacketException(String.format("unknown opcode 0x%02x", op.value()));
        }
        int flags = buf[offset + 1] & 0xFF;
        int transportVersion = flags & 0xF;
        if (transportVersion != 0) {
            throw new MalformedPacketException(op.name() + ": unsupported transport header version "
                    + transportVersion + " (only 0 is defined)");
        }
        int headers = Bth.LENGTH + op.extensionLength();
        if (length < headers + Icrc.LENGTH) {
            throw new MalformedPacketException(op.name() + " too short: " + length
                    + " bytes, its headers and ICRC need " + (headers + Icrc.LENGTH));
        }
        int afterHeaders = length - headers - Icrc.LENGTH;
        if (!op.hasPayload() && afterHeaders != 0) {
            throw new MalformedPacketException(op.name() + " carries no payload but " + afterHeaders
                    + " bytes follow its headers");
        }
        int pad = (flags >> 4) & 3;
        if (pad > afterHeaders) {
            throw new MalformedPacketException(op.name() + ": pad count " + pad + " exceeds the "
                    + afterHeaders + " bytes after the headers");
        }
        this.buffer = buf;
        this.offset = offset;
        this.length = length;
        this.opcode = op;
        this.headersEnd = offset + headers;
        // The extension headers follow the BTH in a fixed order: DETH, RETH, AETH, ...
        this.rethAt = offset + Bth.LENGTH + (op.hasDeth() ? Deth.LENGTH : 0);
        this.aethAt = rethAt + (op.hasReth() ? Reth.LENGTH : 0);
        // ImmDt is the last extension header whenever it is present.
        this.hasImmDt = op.hasImmDt();
        this.immDt = hasImmDt ? readInt(buf, headersEnd - ImmDt.LENGTH) : 0;
        this.payloadOffset = offset + headers;
        this.payloadLength = afterHeaders - pad;
        this.icrc = Icrc.read(buf, offset + length - Icrc.LENGTH);
        this.bth = null;
        this.extensionsParsed = false;
        this.deth = null;
        this.reth = null;
        this.aeth = null;
        this.atomicEth = null;
        this.atomicAckEth = null;
        return this;
    }

    private static int readInt(byte[] buf, int at) {
        return (buf[at] & 0xFF) << 24 | (buf[at + 1] & 0xFF) << 16 | (buf[at + 2] & 0xFF) << 8 | (buf[at + 3] & 0xFF);
    }

    private static int read24(byte[] buf, int at) {
        return (buf[at] & 0xFF) << 16 | (buf[at + 1] & 0xFF) << 8 | (buf[at + 2] & 0xFF);
    }

    /** The BTH's PSN, read without building the {@link Bth}. */
    public int psn() {
        return read24(buffer, offset + 9);
    }

    /** The BTH's destination QP. */
    public int destQp() {
        return read24(buffer, offset + 5);
    }

    /** The BTH's AckReq bit. */
    public boolean ackRequest() {
        return (buffer[offset + 8] & 0x80) != 0;
    }

    /** The BTH's SE (solicited event) bit. */
    public boolean solicitedEvent() {
        return (buffer[offset + 1] & 0x80) != 0;
    }

    /** The BTH's pad count. */
    public int padCount() {
        return (buffer[offset + 1] >> 4) & 3;
    }

    /** The RETH's virtual address, read without building the {@link Reth}; the opcode must have a RETH. */
    public long rethVirtualAddress() {
        requireHeader(opcode.hasReth(), "RETH");
        return readLong(buffer, rethAt);
    }

    /** The RETH's R_Key. */
    public int rethRkey() {
        requireHeader(opcode.hasReth(), "RETH");
        return readInt(buffer, rethAt + 8);
    }

    /** The RETH's DMA length, unsigned. */
    public long rethDmaLength() {
        requireHeader(opcode.hasReth(), "RETH");
        return Integer.toUnsignedLong(readInt(buffer, rethAt + 12));
    }

    /** The AETH's syndrome byte, read without building the {@link Aeth}; the opcode must have an AETH. */
    public int aethSyndrome() {
        requireHeader(opcode.hasAeth(), "AETH");
        return buffer[aethAt] & 0xFF;
    }

    /** The AETH's MSN. */
    public int aethMsn() {
        requireHeader(opcode.hasAeth(), "AETH");
        return read24(buffer, aethAt + 1);
    }

    private void requireHeader(boolean present, String name) {
        if (!present) {
            throw new IllegalStateException(opcode.name() + " has no " + name);
        }
    }

    private static long readLong(byte[] buf, int at) {
        return (long) readInt(buf, at) << 32 | Integer.toUnsignedLong(readInt(buf, at + 4));
    }

    private void parseExtensions() {
        if (extensionsParsed) {
            return;
        }
        ByteBuffer in = ByteBuffer.wrap(buffer, offset + Bth.LENGTH, headersEnd - offset - Bth.LENGTH);
        deth = opcode.hasDeth() ? Deth.read(in) : null;
        reth = opcode.hasReth() ? Reth.read(in) : null;
        aeth = opcode.hasAeth() ? Aeth.read(in) : null;
        atomicEth = opcode.hasAtomicEth() ? AtomicEth.read(in) : null;
        atomicAckEth = opcode.hasAtomicAckEth() ? AtomicAckEth.read(in) : null;
        extensionsParsed = true;
    }

    /** The BTH (built on the first call after a decode). */
    public Bth bth() {
        if (bth == null) {
            bth = Bth.read(ByteBuffer.wrap(buffer, offset, Bth.LENGTH));
        }
        return bth;
    }

    /** Shortcut for {@code bth().opcode()}, without building the BTH. */
    public Opcode opcode() {
        return opcode;
    }

    /** The DETH (UD packets), or null when the opcode has none. */
    public Deth deth() {
        parseExtensions();
        return deth;
    }

    /** The RETH, or null when the opcode has none. */
    public Reth reth() {
        parseExtensions();
        return reth;
    }

    /** The AETH, or null when the opcode has none. */
    public Aeth aeth() {
        parseExtensions();
        return aeth;
    }

    /** The AtomicETH, or null when the opcode has none. */
    public AtomicEth atomicEth() {
        parseExtensions();
        return atomicEth;
    }

    /** The AtomicAckETH, or null when the opcode has none. */
    public AtomicAckEth atomicAckEth() {
        parseExtensions();
        return atomicAckEth;
    }

    /** Whether the opcode carries an ImmDt. */
    public boolean hasImmDt() {
        return hasImmDt;
    }

    /** The immediate data; 0 when {@link #hasImmDt()} is false. */
    public int immDt() {
        return immDt;
    }

    /** The array the packet was decoded from (not a copy). */
    public byte[] buffer() {
        return buffer;
    }

    /** Where the packet (its BTH) starts in {@link #buffer()}. */
    public int offset() {
        return offset;
    }

    /** The whole packet's length, ICRC included. */
    public int length() {
        return length;
    }

    /** The length the ICRC covers from the BTH on: everything but the last 4 bytes. */
    public int lengthWithoutIcrc() {
        return length - Icrc.LENGTH;
    }

    /** Where the payload starts in {@link #buffer()} (an absolute index). */
    public int payloadOffset() {
        return payloadOffset;
    }

    /** Payload bytes, without the pad. */
    public int payloadLength() {
        return payloadLength;
    }

    /** The ICRC as read: the 4 trailing bytes taken least significant first, comparable to {@link Icrc}'s values. */
    public int icrc() {
        return icrc;
    }

    /**
     * One line: {@code RC_RDMA_WRITE_ONLY qp 0x000011 psn 0 ackreq RETH va 0x00007f1234567890 rkey
     * 0x00001234 len 11 payload 11}. BTH flags appear only when set (se, mig, fecn, becn), and pkey
     * only when not 0xFFFF.
     */
    public String summary() {
        Bth bth = bth();
        StringBuilder line = new StringBuilder(96);
        line.append(bth.opcode().name());
        line.append(String.format(" qp 0x%06x psn %d", bth.destQp(), bth.psn()));
        if (bth.ackRequest()) {
            line.append(" ackreq");
        }
        if (bth.solicitedEvent()) {
            line.append(" se");
        }
        if (bth.migReq()) {
            line.append(" mig");
        }
        if ((bth.resv8a() & Bth.FECN) != 0) {
            line.append(" fecn");
        }
        if ((bth.resv8a() & Bth.BECN) != 0) {
            line.append(" becn");
        }
        if (bth.pkey() != Bth.DEFAULT_PKEY) {
            line.append(String.format(" pkey 0x%04x", bth.pkey()));
        }
        String detail = detail();
        if (!detail.isEmpty()) {
            line.append(' ').append(detail);
        }
        return line.toString();
    }

    /**
     * The extension headers and payload size, as in {@link #summary()} after the BTH fields:
     * {@code RETH va 0x... rkey 0x... len 11 payload 11}; empty for a bare ACK-less BTH.
     */
    public String detail() {
        parseExtensions();
        StringBuilder line = new StringBuilder(64);
        if (deth != null) {
            append(line, deth.toString());
        }
        if (reth != null) {
            append(line, reth.toString());
        }
        if (aeth != null) {
            append(line, aeth.toString());
        }
        if (atomicEth != null) {
            append(line, atomicEth.toString());
        }
        if (atomicAckEth != null) {
            append(line, atomicAckEth.toString());
        }
        if (hasImmDt) {
            append(line, String.format("imm 0x%08x", immDt));
        }
        if (opcode.hasPayload()) {
            append(line, "payload " + payloadLength);
        }
        return line.toString();
    }

    private static void append(StringBuilder line, String part) {
        if (line.length() > 0) {
            line.append(' ');
        }
        line.append(part);
    }

    @Override
    public String toString() {
        return summary();
    }
}
