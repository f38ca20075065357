package org.rdmalab.softroce.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Properties of the wire formats (jqwik): every header reads back what was written, whole packets
 * of every RC and UC opcode decode to what was encoded, the primitive encoders write the general
 * form's bytes, and the ICRC catches a flipped bit everywhere it covers and nowhere it masks.
 */
class WirePropertiesTest {

    private static final int SRC = 0x0A000001;
    private static final int DST = 0x0A000002;
    private static final int SRC_PORT = 0xC123;

    /** Every opcode the encoder writes (RC and UC). */
    private static final List<Opcode> ENCODABLE = IntStream.range(0, 0x40).mapToObj(Opcode::of)
            .filter(op -> op.isRc() || op.isUc()).toList();

    @Provide
    Arbitrary<Opcode> encodable() {
        return Arbitraries.of(ENCODABLE);
    }

    @Provide
    Arbitrary<Bth> bths() {
        Arbitrary<Opcode> opcodes = Arbitraries.integers().between(0, 255).map(Opcode::of);
        Arbitrary<Boolean> bits = Arbitraries.of(true, false);
        Arbitrary<Integer> u24 = Arbitraries.integers().between(0, Psn.MASK);
        return Combinators.combine(opcodes, bits, bits, Arbitraries.integers().between(0, 3),
                        Arbitraries.integers().between(0, 15), Arbitraries.integers().between(0, 0xFFFF),
                        Arbitraries.integers().between(0, 0xFF), u24)
                .flatAs((op, se, mig, pad, tver, pkey, resv, qp) -> Combinators.combine(bits, u24)
                        .as((ack, psn) -> new Bth(op, se, mig, pad, tver, pkey, resv, qp, ack, psn)));
    }

    @Property
    void bthReadsBackEveryField(@ForAll("bths") Bth bth) {
        ByteBuffer out = ByteBuffer.allocate(Bth.LENGTH);
        bth.write(out);
        assertEquals(Bth.LENGTH, out.position());
        byte[] bytes = out.array();
        assertEquals(bth, Bth.read(ByteBuffer.wrap(bytes)));
        assertEquals(bth.opcode().value(), Bth.opcodeAt(bytes, 0));
        assertEquals(bth.destQp(), Bth.destQpAt(bytes, 0));
        assertEquals(bth.psn(), Bth.psnAt(bytes, 0));
    }

    @Property
    void extensionHeadersReadBack(@ForAll long va, @ForAll int rkey, @ForAll int length, @ForAll long swap,
                                  @ForAll long compare, @ForAll @IntRange(min = 0, max = 0xFF) int syndrome,
                                  @ForAll @IntRange(min = 0, max = Psn.MASK) int msn, @ForAll int qkey) {
        ByteBuffer out = ByteBuffer.allocate(Reth.LENGTH + Aeth.LENGTH + AtomicEth.LENGTH + AtomicAckEth.LENGTH
                + Deth.LENGTH + ImmDt.LENGTH);
        Reth reth = new Reth(va, rkey, length);
        Aeth aeth = new Aeth(syndrome, msn);
        AtomicEth atomic = new AtomicEth(va, rkey, swap, compare);
        AtomicAckEth atomicAck = new AtomicAckEth(swap);
        Deth deth = new Deth(qkey, msn);
        reth.write(out);
        aeth.write(out);
        atomic.write(out);
        atomicAck.write(out);
        deth.write(out);
        ImmDt.write(out, rkey);
        assertEquals(out.capacity(), out.position());
        out.flip();
        assertEquals(reth, Reth.read(out));
        assertEquals(Integer.toUnsignedLong(length), reth.dmaLengthUnsigned());
        assertEquals(aeth, Aeth.read(out));
        assertEquals(atomic, AtomicEth.read(out));
        assertEquals(atomicAck, AtomicAckEth.read(out));
        assertEquals(deth, Deth.read(out));
        assertEquals(rkey, ImmDt.read(out));
    }

    @Property
    void aethSyndromeTypesPartitionTheByte(@ForAll @IntRange(min = 0, max = 0x1F) int code,
                                           @ForAll @IntRange(min = 0, max = Psn.MASK) int msn) {
        Aeth nak = Aeth.nak(code, msn);
        Aeth rnr = Aeth.rnrNak(code, msn);
        Aeth ack = new Aeth(code, msn);
        assertTrue(nak.isNak() && !nak.isAck() && !nak.isRnrNak());
        assertTrue(rnr.isRnrNak() && !rnr.isAck() && !rnr.isNak());
        assertTrue(ack.isAck() && !ack.isNak() && !ack.isRnrNak());
        assertEquals(code, nak.code());
        assertEquals(code, rnr.code());
        assertEquals(code, ack.code());
        assertEquals(0x60 | code, nak.syndrome());
        assertEquals(0x20 | code, rnr.syndrome());
    }

    /** A packet of any encodable opcode decodes to the fields, headers and payload it was written with. */
    @Property(tries = 400)
    void everyOpcodeRoundTrips(@ForAll("encodable") Opcode opcode, @ForAll @IntRange(min = 0, max = 4096) int size,
                               @ForAll @IntRange(min = 0, max = Psn.MASK) int destQp,
                               @ForAll @IntRange(min = 0, max = Psn.MASK) int psn, @ForAll boolean ackReq,
                               @ForAll boolean solicited, @ForAll int imm, @ForAll long va, @ForAll int rkey,
                               @ForAll @IntRange(min = 0, max = Psn.MASK) int msn) throws Exception {
        int payloadLength = opcode.hasPayload() ? size : 0;
        byte[] payload = new byte[payloadLength];
        for (int i = 0; i < payloadLength; i++) {
            payload[i] = (byte) (i * 31 + psn);
        }
        Reth reth = opcode.hasReth() ? new Reth(va, rkey, size) : null;
        Aeth aeth = opcode.hasAeth() ? Aeth.ack(msn) : null;
        AtomicEth atomic = opcode.hasAtomicEth() ? new AtomicEth(va, rkey, imm, ~imm) : null;
        AtomicAckEth atomicAck = opcode.hasAtomicAckEth() ? new AtomicAckEth(va) : null;
        ByteBuffer out = ByteBuffer.allocate(payloadLength + 128);
        out.position(3); // not at the array's start
        int length = RocePacketEncoder.encode(out, opcode, destQp, psn, ackReq, solicited, reth, aeth, atomic,
                atomicAck, imm, payload, 0, payloadLength);
        assertEquals(RocePacketEncoder.lengthWithoutIcrc(opcode, payloadLength), length);
        assertEquals(0, length % 4, "a packet is padded to 4 bytes");
        int pad = RocePacketEncoder.padCount(payloadLength);
        assertEquals(Bth.LENGTH + opcode.extensionLength() + payloadLength + pad, length);
        assertEquals(3 + length, out.position());
        for (int i = 1; i <= pad; i++) {
            assertEquals(0, out.get(out.position() - i), "pad bytes are zero");
        }
        assertEquals(length + Icrc.LENGTH, Icrc.appendCanonicalIpv4(SRC, DST, SRC_PORT, UdpPorts.ROCE_V2, out, 3));

        RocePacket packet = RocePacket.decode(out.array(), 3, length + Icrc.LENGTH);
        assertSame(opcode, packet.opcode());
        assertEquals(destQp, packet.destQp());
        assertEquals(psn, packet.psn());
        assertEquals(ackReq, packet.ackRequest());
        assertEquals(solicited, packet.solicitedEvent());
        assertEquals(pad, packet.padCount());
        assertEquals(new Bth(opcode, solicited, false, pad, 0, Bth.DEFAULT_PKEY, 0, destQp, ackReq, psn),
                packet.bth());
        assertEquals(reth, packet.reth());
        assertEquals(aeth, packet.aeth());
        assertEquals(atomic, packet.atomicEth());
        assertEquals(atomicAck, packet.atomicAckEth());
        assertNull(packet.deth());
        assertEquals(opcode.hasImmDt(), packet.hasImmDt());
        assertEquals(opcode.hasImmDt() ? imm : 0, packet.immDt());
        if (reth != null) {
            assertEquals(va, packet.rethVirtualAddress());
            assertEquals(rkey, packet.rethRkey());
            assertEquals(size, packet.rethDmaLength());
        }
        if (aeth != null) {
            assertEquals(aeth.syndrome(), packet.aethSyndrome());
            assertEquals(msn, packet.aethMsn());
        }
        assertEquals(3 + Bth.LENGTH + opcode.extensionLength(), packet.payloadOffset());
        assertEquals(payloadLength, packet.payloadLength());
        assertArrayEquals(payload, Arrays.copyOfRange(out.array(), packet.payloadOffset(),
                packet.payloadOffset() + payloadLength));
        assertEquals(length + Icrc.LENGTH, packet.length());
        assertEquals(length, packet.lengthWithoutIcrc());
        assertEquals(Icrc.read(out.array(), 3 + length), packet.icrc());
        assertTrue(Icrc.verifyCanonicalIpv4(SRC, DST, SRC_PORT, UdpPorts.ROCE_V2, out.array(), 3,
                length + Icrc.LENGTH));
    }

    /** The allocation-free request and response encoders write exactly what the general form writes. */
    @Property(tries = 300)
    void primitiveEncodersMatchTheGeneralForm(@ForAll("encodable") Opcode opcode,
                                              @ForAll @IntRange(min = 0, max = 4096) int size,
                                              @ForAll @IntRange(min = 0, max = Psn.MASK) int psn,
                                              @ForAll boolean ackReq, @ForAll int imm, @ForAll long va,
                                              @ForAll int rkey, @ForAll @IntRange(min = 0, max = 0xFF) int syndrome,
                                              @ForAll @IntRange(min = 0, max = Psn.MASK) int msn) {
        int payloadLength = opcode.hasPayload() ? size : 0;
        byte[] payload = new byte[payloadLength + 2];
        Arrays.fill(payload, (byte) 0x5A);
        payload[1] = 7;
        ByteBuffer general = ByteBuffer.allocate(payloadLength + 128);
        ByteBuffer primitive = ByteBuffer.allocate(payloadLength + 128);
        int written;
        if (opcode.hasAtomicEth() || opcode.hasAtomicAckEth()) {
            return; // no primitive form
        } else if (opcode.hasAeth()) {
            written = RocePacketEncoder.encodeResponse(primitive, opcode, 0x1234, psn, syndrome, msn, payload, 1,
                    payloadLength);
            RocePacketEncoder.encode(general, opcode, 0x1234, psn, false, false, null, new Aeth(syndrome, msn),
                    null, null, 0, payload, 1, payloadLength);
        } else {
            written = RocePacketEncoder.encodeRequest(primitive, opcode, 0x1234, psn, ackReq, false, va, rkey,
                    size, imm, payload, 1, payloadLength);
            RocePacketEncoder.encode(general, opcode, 0x1234, psn, ackReq, false,
                    opcode.hasReth() ? new Reth(va, rkey, size) : null, null, null, null, imm, payload, 1,
                    payloadLength);
        }
        assertEquals(general.position(), written);
        assertArrayEquals(general.array(), primitive.array());
        // The ByteBuffer payload form writes the same bytes too.
        if (!opcode.hasAeth()) {
            ByteBuffer fromBuffer = ByteBuffer.allocate(payloadLength + 128);
            ByteBuffer source = ByteBuffer.wrap(payload, 1, payloadLength);
            RocePacketEncoder.encode(fromBuffer, opcode, 0x1234, psn, ackReq, false,
                    opcode.hasReth() ? new Reth(va, rkey, size) : null, null, null, null, imm, source);
            assertEquals(1, source.position(), "the payload's position does not move");
            assertArrayEquals(general.array(), fromBuffer.array());
        }
    }

    /**
     * The ICRC covers every bit from the BTH to the pad except BTH byte 4 (FECN, BECN, reserved):
     * flipping any covered bit fails the check, flipping a bit of byte 4 does not.
     */
    @Property(tries = 300)
    void icrcCatchesEveryCoveredBitAndIgnoresByte4(@ForAll("encodable") Opcode opcode,
                                                   @ForAll @IntRange(min = 0, max = 300) int size,
                                                   @ForAll @IntRange(min = 0, max = 10_000) int where,
                                                   @ForAll @IntRange(min = 0, max = 7) int bit) {
        int payloadLength = opcode.hasPayload() ? size : 0;
        ByteBuffer out = ByteBuffer.allocate(payloadLength + 128);
        RocePacketEncoder.encode(out, opcode, 0x11, 77, true, false,
                opcode.hasReth() ? new Reth(0x1000, 0x22, payloadLength) : null,
                opcode.hasAeth() ? Aeth.ack(3) : null,
                opcode.hasAtomicEth() ? new AtomicEth(0x1000, 0x22, 1, 2) : null,
                opcode.hasAtomicAckEth() ? new AtomicAckEth(9) : null, 5, new byte[payloadLength], 0,
                payloadLength);
        int length = Icrc.appendCanonicalIpv4(SRC, DST, SRC_PORT, UdpPorts.ROCE_V2, out, 0);
        byte[] packet = Arrays.copyOf(out.array(), length);
        int index = where % length;
        packet[index] ^= (byte) (1 << bit);
        boolean valid = Icrc.verifyCanonicalIpv4(SRC, DST, SRC_PORT, UdpPorts.ROCE_V2, packet, 0, length);
        assertEquals(index == 4, valid, "bit " + bit + " of byte " + index + " of " + length);
    }

    /** The direct-buffer path of the ICRC gives the heap path's value, and both the general form's. */
    @Property(tries = 200)
    void icrcIsTheSameOverHeapDirectAndExplicitHeaders(@ForAll @IntRange(min = 0, max = 2048) int size,
                                                       @ForAll int src, @ForAll int dst,
                                                       @ForAll @IntRange(min = 0, max = 0xFFFF) int srcPort,
                                                       @ForAll @IntRange(min = 0, max = 0xFF) int tos,
                                                       @ForAll @IntRange(min = 1, max = 0xFF) int ttl) {
        byte[] payload = new byte[size];
        Arrays.fill(payload, (byte) size);
        ByteBuffer heap = ByteBuffer.allocate(size + 64);
        ByteBuffer direct = ByteBuffer.allocateDirect(size + 64);
        RocePacketEncoder.encode(heap, Opcode.RC_SEND_ONLY, 1, 2, true, false, null, null, null, null, 0,
                payload, 0, size);
        RocePacketEncoder.encode(direct, Opcode.RC_SEND_ONLY, 1, 2, true, false, null, null, null, null, 0,
                payload, 0, size);
        int length = Icrc.appendCanonicalIpv4(src, dst, srcPort, UdpPorts.ROCE_V2, heap, 0);
        assertEquals(length, Icrc.appendCanonicalIpv4(src, dst, srcPort, UdpPorts.ROCE_V2, direct, 0));
        assertEquals(length, direct.position());
        byte[] fromDirect = new byte[length];
        direct.get(0, fromDirect);
        byte[] fromHeap = Arrays.copyOf(heap.array(), length);
        assertArrayEquals(fromHeap, fromDirect);

        byte[] ip = new byte[Ipv4Header.LENGTH];
        Ipv4Header.write(ByteBuffer.wrap(ip), src, dst, 8 + length, tos, ttl);
        byte[] udp = ByteBuffer.allocate(8).putShort((short) srcPort).putShort((short) UdpPorts.ROCE_V2)
                .putShort((short) (8 + length)).putShort((short) 0x1234).array();
        assertEquals(Icrc.read(fromHeap, length - Icrc.LENGTH),
                Icrc.compute(ip, 0, Ipv4Header.LENGTH, udp, 0, fromHeap, 0, length - Icrc.LENGTH));
        assertTrue(Icrc.verify(ip, 0, Ipv4Header.LENGTH, udp, 0, fromHeap, 0, length));
    }

    /** Whatever IPv4 identification a packet travelled with, the receiver recovers it from the ICRC. */
    @Property(tries = 300)
    void theIpv4IdComesBackFromTheIcrc(@ForAll @IntRange(min = 0, max = 0xFFFF) int id,
                                       @ForAll @IntRange(min = 0, max = 1500) int size) {
        byte[] payload = new byte[size];
        Arrays.fill(payload, (byte) id);
        ByteBuffer out = ByteBuffer.allocate(size + 64);
        int length = RocePacketEncoder.encode(out, Opcode.RC_SEND_ONLY, 0x11, id, true, false, null, null, null,
                null, 0, payload, 0, size);
        byte[] roce = Arrays.copyOf(out.array(), length + Icrc.LENGTH);
        byte[] ip = new byte[Ipv4Header.LENGTH];
        Ipv4Header.write(ByteBuffer.wrap(ip), SRC, DST, 8 + roce.length, 0, 64, id);
        byte[] udp = ByteBuffer.allocate(8).putShort((short) SRC_PORT).putShort((short) UdpPorts.ROCE_V2)
                .putShort((short) (8 + roce.length)).putShort((short) 0).array();
        Icrc.append(ip, 0, Ipv4Header.LENGTH, udp, 0, roce, 0, length);
        assertEquals(id, Icrc.recoverIpv4Id(SRC, DST, SRC_PORT, UdpPorts.ROCE_V2, roce, 0, roce.length));
        assertEquals(id == 0, Icrc.verifyCanonicalIpv4(SRC, DST, SRC_PORT, UdpPorts.ROCE_V2, roce, 0,
                roce.length));
    }

    /** A packet cut anywhere before its headers and ICRC end is refused, never read past its end. */
    @Property(tries = 200)
    void aTruncatedPacketIsRefused(@ForAll("encodable") Opcode opcode, @ForAll @IntRange(min = 0, max = 80) int cut) {
        ByteBuffer out = ByteBuffer.allocate(256);
        RocePacketEncoder.encode(out, opcode, 1, 1, false, false,
                opcode.hasReth() ? new Reth(1, 1, 0) : null, opcode.hasAeth() ? Aeth.ack(1) : null,
                opcode.hasAtomicEth() ? new AtomicEth(1, 1, 1, 1) : null,
                opcode.hasAtomicAckEth() ? new AtomicAckEth(1) : null, 0, null, 0, 0);
        int full = Icrc.appendCanonicalIpv4(SRC, DST, SRC_PORT, UdpPorts.ROCE_V2, out, 0);
        int length = Math.min(cut, full);
        boolean refused;
        try {
            RocePacket.decode(Arrays.copyOf(out.array(), length), 0, length);
            refused = false;
        } catch (MalformedPacketException e) {
            refused = true;
        }
        assertEquals(length < full, refused, opcode + " cut to " + length + " of " + full);
        assertFalse(length == full && refused);
    }
}
