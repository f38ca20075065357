package org.rdmalab.softroce.wire;

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
        if ((destQp & ~Psn.MASK) != 0) {
            throw new IllegalArgumentException("destination QP " + destQp + " is outside 24 bits");
        }
        Psn.check(psn);
        int start = out.position();
        check(out, opcode, reth, aeth, atomic, atomicAck, payloadLength);
        Bth.write(out, opcode.value(), solicited, migReq, padCount(payloadLength), 0, pkey, resv8a, destQp, ackReq,
                psn);
        writeExtensions(out, opcode, reth, aeth, atomic, atomicAck, immDt);
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
        if (!opcode.isRc() && !opcode.isUc()) {
            throw new IllegalArgumentException("cannot encode " + opcode.name() + ": the encoder writes RC and UC"
                    + " packets");
        }
        header(opcode, "RETH", opcode.hasReth(), reth);
        header(opcode, "AETH", opcode.hasAeth(), aeth);
        header(opcode, "AtomicETH", opcode.hasAtomicEth(), atomic);
        header(opcode, "AtomicAckETH", opcode.hasAtomicAckEth(), atomicAck);
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
