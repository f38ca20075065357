package org.rdmalab.softroce.wire;

import java.nio.ByteBuffer;

/**
 * A decoded RoCEv2 packet: the UDP payload {@code BTH | extension headers | payload | pad | ICRC}
 * (rocev2.md "Packet on the wire"). The payload is not copied: {@link #buffer()},
 * {@link #payloadOffset()} and {@link #payloadLength()} point into the caller's array, which must
 * not change while the packet is in use. Decoding allocates this object and one small record per
 * header present; no payload copies.
 *
 * <p>Immutable once decoded; safe to hand to another thread if the buffer is not reused.
 */
public final class RocePacket {

    private final byte[] buffer;
    private final int offset;
    private final int length;
    private final Bth bth;
    private final Deth deth;
    private final Reth reth;
    private final Aeth aeth;
    private final AtomicEth atomicEth;
    private final AtomicAckEth atomicAckEth;
    private final boolean hasImmDt;
    private final int immDt;
    private final int payloadOffset;
    private final int payloadLength;
    private final int icrc;

    private RocePacket(byte[] buffer, int offset, int length, Bth bth, Deth deth, Reth reth, Aeth aeth, AtomicEth atomicEth,
                       AtomicAckEth atomicAckEth, boolean hasImmDt, int immDt, int payloadOffset, int payloadLength,
                       int icrc) {
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        this.bth = bth;
        this.deth = deth;
        this.reth = reth;
        this.aeth = aeth;
        this.atomicEth = atomicEth;
        this.atomicAckEth = atomicAckEth;
        this.hasImmDt = hasImmDt;
        this.immDt = immDt;
        this.payloadOffset = payloadOffset;
        this.payloadLength = payloadLength;
        this.icrc = icrc;
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
        if (buf == null || offset < 0 || length < 0 || offset + length > buf.length) {
            throw new IllegalArgumentException("decode range " + offset + "+" + length + " is outside the buffer");
        }
        int minimum = Bth.LENGTH + Icrc.LENGTH;
        if (length < minimum) {
            throw new MalformedPacketException("packet too short: " + length + " bytes, a BTH and an ICRC need "
                    + minimum);
        }
        Opcode opcode = Opcode.of(buf[offset] & 0xFF);
        if (!opcode.isKnown()) {
            throw new MalformedPacketException(String.format("unknown opcode 0x%02x", opcode.value()));
        }
        ByteBuffer in = ByteBuffer.wrap(buf, offset, length);
        Bth bth = Bth.read(in);
        if (bth.transportVersion() != 0) {
            throw new MalformedPacketException(opcode.name() + ": unsupported transport header version "
                    + bth.transportVersion() + " (only 0 is defined)");
        }
        int headers = Bth.LENGTH + opcode.extensionLength();
        if (length < headers + Icrc.LENGTH) {
            throw new MalformedPacketException(opcode.name() + " too short: " + length
                    + " bytes, its headers and ICRC need " + (headers + Icrc.LENGTH));
        }
        Deth deth = opcode.hasDeth() ? Deth.read(in) : null;
        Reth reth = opcode.hasReth() ? Reth.read(in) : null;
        Aeth aeth = opcode.hasAeth() ? Aeth.read(in) : null;
        AtomicEth atomicEth = opcode.hasAtomicEth() ? AtomicEth.read(in) : null;
        AtomicAckEth atomicAckEth = opcode.hasAtomicAckEth() ? AtomicAckEth.read(in) : null;
        int immDt = opcode.hasImmDt() ? ImmDt.read(in) : 0;
        int afterHeaders = length - headers - Icrc.LENGTH;
        if (!opcode.hasPayload() && afterHeaders != 0) {
            throw new MalformedPacketException(opcode.name() + " carries no payload but " + afterHeaders
                    + " bytes follow its headers");
        }
        if (bth.padCount() > afterHeaders) {
            throw new MalformedPacketException(opcode.name() + ": pad count " + bth.padCount() + " exceeds the "
                    + afterHeaders + " bytes after the headers");
        }
        int icrcAt = offset + length - Icrc.LENGTH;
        return new RocePacket(buf, offset, length, bth, deth, reth, aeth, atomicEth, atomicAckEth, opcode.hasImmDt(),
                immDt, offset + headers, afterHeaders - bth.padCount(), Icrc.read(buf, icrcAt));
    }

    /** The BTH. */
    public Bth bth() {
        return bth;
    }

    /** Shortcut for {@code bth().opcode()}. */
    public Opcode opcode() {
        return bth.opcode();
    }

    /** The DETH (UD packets), or null when the opcode has none. */
    public Deth deth() {
        return deth;
    }

    /** The RETH, or null when the opcode has none. */
    public Reth reth() {
        return reth;
    }

    /** The AETH, or null when the opcode has none. */
    public Aeth aeth() {
        return aeth;
    }

    /** The AtomicETH, or null when the opcode has none. */
    public AtomicEth atomicEth() {
        return atomicEth;
    }

    /** The AtomicAckETH, or null when the opcode has none. */
    public AtomicAckEth atomicAckEth() {
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
        if (bth.opcode().hasPayload()) {
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
