package org.rdmalab.wire;

import java.nio.ByteBuffer;

/**
 * Writes RoCEv2 packets (rocev2.md "Packet on the wire"): BTH, the opcode's extension headers in
 * the IBTA order (RETH, AETH, AtomicETH, AtomicAckETH, ImmDt), payload and pad, into a caller's
 * {@link ByteBuffer} at its position. PadCnt is computed as {@code (-payloadLength) & 3} and the pad
 * bytes are zero. The ICRC is not written: it covers the IP and UDP headers, so the caller appends
 * it with {@link Icrc#appendCanonicalIpv4}.
 *
 * <p>RC and UC opcodes only (UD and CNP are decoded for inspection, not sent). Headers the opcode
 * carries must be given and headers it lacks must be null, otherwise
 * {@link IllegalArgumentException}: a mismatch is a bug in the caller, not a wire condition.
 * Nothing is allocated. Stateless and thread-safe; the buffer is the caller's.
 */
public final class RocePacketEncoder {

    private RocePacketEncoder() {
    }

    /** The bytes a packet takes before the ICRC: BTH, extension headers, payload and pad. */
    public static int lengthWithoutIcrc(Opcode opcode, int payloadLength) {
        return Bth.LENGTH + opcode.extensionLength() + payloadLength + padCount(payloadLength);
    }

    /** {@code (-payloadLength) & 3}. */
    public static int padCount(int payloadLength) {
        return (-payloadLength) & 3;
    }

    /**
     * Writes a packet as the software device sends it (P_Key 0xFFFF, TVer 0, MigReq clear, byte 4
     * zero).
     *
     * @param out where to write, from its position; the position ends after the pad
     * @param immDt ignored unless the opcode has an ImmDt
     * @param payload may be null when {@code payloadLength} is 0
     * @return the bytes written, which is where the ICRC goes relative to the start
     */
    public static int encode(ByteBuffer out, Opcode opcode, int destQp, int psn, boolean ackReq, boolean solicited,
                             Reth reth, Aeth aeth, AtomicEth atomic, AtomicAckEth atomicAck, int immDt,
                             byte[] payload, int payloadOffset, int payloadLength) {
        checkPayloadRange(payload, payloadOffset, payloadLength);
        int start = begin(out, opcode, destQp, psn, ackReq, solicited, false, Bth.DEFAULT_PKEY, 0,
                reth, aeth, atomic, atomicAck, immDt, payloadLength);
        if (payloadLength > 0) {
            out.put(payload, payloadOffset, payloadLength);
        }
        return finish(out, start, payloadLength);
    }

    /**
     * Same as the array form with the payload taken from {@code payload}'s position to its limit;
     * {@code payload}'s position does not move (suits memory regions held in ByteBuffers).
     */
    public static int encode(ByteBuffer out, Opcode opcode, int destQp, int psn, boolean ackReq, boolean solicited,
                             Reth reth, Aeth aeth, AtomicEth atomic, AtomicAckEth atomicAck, int immDt,
                             ByteBuffer payload) {
        int payloadLength = payload == null ? 0 : payload.remaining();
        int start = begin(out, opcode, destQp, psn, ackReq, solicited, false, Bth.DEFAULT_PKEY, 0,
                reth, aeth, atomic, atomicAck, immDt, payloadLength);
        if (payloadLength > 0) {
            out.put(out.position(), payload, payload.position(), payloadLength);
            out.position(out.position() + payloadLength);
        }
        return finish(out, start, payloadLength);
    }

    /**
     * Writes a packet with every BTH field taken from {@code bth} except PadCnt, which is computed
     * (for tests, fault injection and captures of unusual packets). TVer is written as given.
     */
    public static int encode(ByteBuffer out, Bth bth, Reth reth, Aeth aeth, AtomicEth atomic, AtomicAckEth atomicAck,
                             int immDt, byte[] payload, int payloadOffset, int payloadLength) {
        checkPayloadRange(payload, payloadOffset, payloadLength);
        int start = out.position();
        check(out, bth.opcode(), reth, aeth, atomic, atomicAck, payloadLength);
        Bth.write(out, bth.opcode().value(), bth.solicitedEvent(), bth.migReq(), padCount(payloadLength),
                bth.transportVersion(), bth.pkey(), bth.resv8a(), bth.destQp(), bth.ackRequest(), bth.psn());
        writeExtensions(out, bth.opcode(), reth, aeth, atomic, atomicAck, immDt);
        if (payloadLength > 0) {
            out.put(payload, payloadOffset, payloadLength);
        }
        return finish(out, start, payloadLength);
    }

    private static int begin(ByteBuffer out, Opcode opcode, int destQp, int psn, boolean ackReq, boolean solicited,
                             boolean migReq, int pkey, int resv8a, Reth reth, Aeth aeth, AtomicEth atomic,
                             AtomicAckEth atomicAck, int immDt, int payloadLength) {
        int start = beginBth(out, opcode, destQp, psn, ackReq, solicited, migReq, pkey, resv8a, payloadLength,
                true, reth, aeth, atomic, atomicAck);
        writeExtensions(out, opcode, reth, aeth, atomic, atomicAck, immDt);
        return start;
    }

    /**
     * A request as the requester sends it, with the RETH given as its three fields rather than a
     * {@link Reth}, so that sending a packet builds no header object (the data path allocates
     * nothing per packet). The RETH fields are written when the opcode carries a RETH and ignored
     * otherwise; {@code immDt} likewise. Byte for byte what {@link #encode(ByteBuffer, Opcode, int,
     * int, boolean, boolean, Reth, Aeth, AtomicEth, AtomicAckEth, int, byte[], int, int)} writes.
     *
     * @throws IllegalArgumentException for an opcode with an AETH, AtomicETH or AtomicAckETH, and as
     *     the general form does
     */
    public static int encodeRequest(ByteBuffer out, Opcode opcode, int destQp, int psn, boolean ackReq,
                                    boolean solicited, long rethAddress, int rethRkey, int rethDmaLength, int immDt,
                                    byte[] payload, int payloadOffset, int payloadLength) {
        if (opcode.hasAeth() || opcode.hasAtomicEth() || opcode.hasAtomicAckEth()) {
            throw new IllegalArgumentException("encodeRequest writes BTH, RETH and ImmDt; " + opcode.name()
                    + " needs other headers");
        }
        checkPayloadRange(payload, payloadOffset, payloadLength);
        int start = beginBth(out, opcode, destQp, psn, ackReq, solicited, false, Bth.DEFAULT_PKEY, 0, payloadLength,
                false, null, null, null, null);
        if (opcode.hasReth()) {
            Reth.put(out, rethAddress, rethRkey, rethDmaLength);
        }
        if (opcode.hasImmDt()) {
            ImmDt.write(out, immDt);
        }
        if (payloadLength > 0) {
            out.put(payload, payloadOffset, payloadLength);
        }
        return finish(out, start, payloadLength);
    }

    /**
     * A response as the responder sends it (an ACKNOWLEDGE or an RDMA READ response), with the
     * AETH given as its syndrome and MSN rather than an {@link Aeth}, so that answering builds no
     * header object. The AETH is written when the opcode carries one and ignored otherwise. Byte
     * for byte what the general form writes.
     *
     * @throws IllegalArgumentException for an opcode with a RETH, AtomicETH, AtomicAckETH or ImmDt,
     *     for a syndrome that is not a byte or an MSN outside 24 bits, and as the general form does
     */
    public static int encodeResponse(ByteBuffer out, Opcode opcode, int destQp, int psn, int aethSyndrome,
                                     int aethMsn, byte[] payload, int payloadOffset, int payloadLength) {
        if (opcode.hasReth() || opcode.hasAtomicEth() || opcode.hasAtomicAckEth() || opcode.hasImmDt()) {
            throw new IllegalArgumentException("encodeResponse writes BTH and AETH; " + opcode.name()
                    + " needs other headers");
        }
        checkPayloadRange(payload, payloadOffset, payloadLength);
        int start = beginBth(out, opcode, destQp, psn, false, false, false, Bth.DEFAULT_PKEY, 0, payloadLength,
                false, null, null, null, null);
        if (opcode.hasAeth()) {
            Aeth.put(out, aethSyndrome, aethMsn);
        }
        if (payloadLength > 0) {
            out.put(payload, payloadOffset, payloadLength);
        }
        return finish(out, start, payloadLength);
    }

    /**
     * Checks the packet, the header records too when {@code records} (the primitive forms pass none
     * and write what the opcode needs), then writes the BTH; returns where the packet starts.
     */
    private static int beginBth(ByteBuffer out, Opcode opcode, int destQp, int psn, boolean ackReq, boolean solicited,
                                boolean migReq, int pkey, int resv8a, int payloadLength, boolean records, Reth reth,
                                Aeth aeth, AtomicEth atomic, AtomicAckEth atomicAck) {
        if ((destQp & ~Psn.MASK) != 0) {
            throw new IllegalArgumentException("destination QP " + destQp + " is outside 24 bits");
        }
        Psn.check(psn);
        int start = out.position();
        checkTransport(opcode);
        if (records) {
            checkHeaders(opcode, reth, aeth, atomic, atomicAck);
        }
        checkRoom(out, opcode, payloadLength);
        Bth.write(out, opcode.value(), solicited, migReq, padCount(payloadLength), 0, pkey, resv8a, destQp, ackReq,
                psn);
        return start;
    }

    private static void writeExtensions(ByteBuffer out, Opcode opcode, Reth reth, Aeth aeth, AtomicEth atomic,
                                        AtomicAckEth atomicAck, int immDt) {
        if (reth != null) {
            reth.write(out);
        }
        if (aeth != null) {
            aeth.write(out);
        }
        if (atomic != null) {
            atomic.write(out);
        }
        if (atomicAck != null) {
            atomicAck.write(out);
        }
        if (opcode.hasImmDt()) {
            ImmDt.write(out, immDt);
        }
    }

    private static int finish(ByteBuffer out, int start, int payloadLength) {
        for (int pad = padCount(payloadLength); pad > 0; pad--) {
            out.put((byte) 0);
        }
        return out.position() - start;
    }

    private static void check(ByteBuffer out, Opcode opcode, Reth reth, Aeth aeth, AtomicEth atomic,
                              AtomicAckEth atomicAck, int payloadLength) {
        checkTransport(opcode);
        checkHeaders(opcode, reth, aeth, atomic, atomicAck);
        checkRoom(out, opcode, payloadLength);
    }

    private static void checkHeaders(Opcode opcode, Reth reth, Aeth aeth, AtomicEth atomic, AtomicAckEth atomicAck) {
        header(opcode, "RETH", opcode.hasReth(), reth);
        header(opcode, "AETH", opcode.hasAeth(), aeth);
        header(opcode, "AtomicETH", opcode.hasAtomicEth(), atomic);
        header(opcode, "AtomicAckETH", opcode.hasAtomicAckEth(), atomicAck);
    }

    private static void checkTransport(Opcode opcode) {
        if (!opcode.isRc() && !opcode.isUc()) {
            throw new IllegalArgumentException("cannot encode " + opcode.name() + ": the encoder writes RC and UC"
                    + " packets");
        }
    }

    private static void checkRoom(ByteBuffer out, Opcode opcode, int payloadLength) {
        if (payloadLength > 0 && !opcode.hasPayload()) {
            throw new IllegalArgumentException(opcode.name() + " carries no payload, got " + payloadLength + " bytes");
        }
        int needed = lengthWithoutIcrc(opcode, payloadLength);
        if (out.remaining() < needed) {
            throw new IllegalArgumentException(opcode.name() + " needs " + needed + " bytes (ICRC not counted), the"
                    + " buffer has " + out.remaining());
        }
    }

    private static void header(Opcode opcode, String name, boolean expected, Object header) {
        if (expected && header == null) {
            throw new IllegalArgumentException(opcode.name() + " needs a " + name);
        }
        if (!expected && header != null) {
            throw new IllegalArgumentException(opcode.name() + " has no " + name);
        }
    }

    private static void checkPayloadRange(byte[] payload, int offset, int length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative payload length " + length);
        }
        if (length > 0 && (payload == null || offset < 0 || offset + length > payload.length)) {
            throw new IllegalArgumentException("payload range " + offset + "+" + length + " is outside the array");
        }
    }
}
