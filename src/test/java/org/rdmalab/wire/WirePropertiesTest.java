package org.rdmalab.wire;

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
import org.junit.jupiter.api.Test;
import org.rdmalab.testing.Draws;

/**
 * Properties of the wire formats, each checked over seeded draws ({@link Draws}; 1000 tries unless
 * a test says fewer): every header reads back what was written, whole packets of every RC and UC
 * opcode decode to what was encoded, the primitive encoders write the general form's bytes, and the
 * ICRC catches a flipped bit everywhere it covers and nowhere it masks.
 */
class WirePropertiesTest {

    private static final int SRC = 0x0A000001;
    private static final int DST = 0x0A000002;
    private static final int SRC_PORT = 0xC123;

    /** Every opcode the encoder writes (RC and UC). */
    private static final List<Opcode> ENCODABLE = IntStream.range(0, 0x40).mapToObj(Opcode::of)
            .filter(op -> op.isRc() || op.isUc()).toList();

    private static final int TRIES = 1000;

    /** A BTH with every field drawn over its whole width, the opcode over the whole byte. */
    private static Bth bth(Draws d) {
        Opcode op = Opcode.of(d.ints("opcode", 0, 255));
        boolean se = d.booleans("se");
        boolean mig = d.booleans("mig");
        int pad = d.ints("pad", 0, 3);
        int tver = d.ints("tver", 0, 15);
        int pkey = d.ints("pkey", 0, 0xFFFF);
        int resv = d.ints("resv", 0, 0xFF);
        int qp = d.ints("qp", 0, Psn.MASK);
        boolean ack = d.booleans("ack");
        int psn = d.ints("psn", 0, Psn.MASK);
        return new Bth(op, se, mig, pad, tver, pkey, resv, qp, ack, psn);
    }

    @Test
    void bthReadsBackEveryField() {
        Draws.forAll(0x3E0001L, TRIES, d -> {
            Bth bth = bth(d);
            ByteBuffer out = ByteBuffer.allocate(Bth.LENGTH);
            bth.write(out);
            assertEquals(Bth.LENGTH, out.position());
            byte[] bytes = out.array();
            assertEquals(bth, Bth.read(ByteBuffer.wrap(bytes)));
            assertEquals(bth.opcode().value(), Bth.opcodeAt(bytes, 0));
            assertEquals(bth.destQp(), Bth.destQpAt(bytes, 0));
            assertEquals(bth.psn(), Bth.psnAt(bytes, 0));
        });
    }

    @Test
    void extensionHeadersReadBack() {
        Draws.forAll(0x3E0002L, TRIES, d -> {
            long va = d.longs("va");
            int rkey = d.ints("rkey");
            int length = d.ints("length");
            long swap = d.longs("swap");
            long compare = d.longs("compare");
            int syndrome = d.ints("syndrome", 0, 0xFF);
            int msn = d.ints("msn", 0, Psn.MASK);
            int qkey = d.ints("qkey");
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
        });
    }

    @Test
    void aethSyndromeTypesPartitionTheByte() {
        Draws.forAll(0x3E0003L, TRIES, d -> {
            int code = d.ints("code", 0, 0x1F);
            int msn = d.ints("msn", 0, Psn.MASK);
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
        });
    }

    /** A packet of any encodable opcode decodes to the fields, headers and payload it was written with. */
    @Test
    void everyOpcodeRoundTrips() {
        Draws.forAll(0x3E0004L, 400, d -> {
            Opcode opcode = d.oneOf("opcode", ENCODABLE);
            int size = d.ints("size", 0, 4096);
            int destQp = d.ints("destQp", 0, Psn.MASK);
            int psn = d.ints("psn", 0, Psn.MASK);
            boolean ackReq = d.booleans("ackReq");
            boolean solicited = d.booleans("solicited");
            int imm = d.ints("imm");
            long va = d.longs("va");
            int rkey = d.ints("rkey");
            int msn = d.ints("msn", 0, Psn.MASK);
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
        });
    }

    /** The allocation-free request and response encoders write exactly what the general form writes. */
    @Test
    void primitiveEncodersMatchTheGeneralForm() {
        Draws.forAll(0x3E0005L, 300, d -> {
            Opcode opcode = d.oneOf("opcode", ENCODABLE);
            int size = d.ints("size", 0, 4096);
            int psn = d.ints("psn", 0, Psn.MASK);
            boolean ackReq = d.booleans("ackReq");
            int imm = d.ints("imm");
            long va = d.longs("va");
            int rkey = d.ints("rkey");
            int syndrome = d.ints("syndrome", 0, 0xFF);
            int msn = d.ints("msn", 0, Psn.MASK);
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
        });
    }

    /**
     * The ICRC covers every bit from the BTH to the pad except BTH byte 4 (FECN, BECN, reserved):
     * flipping any covered bit fails the check, flipping a bit of byte 4 does not.
     */
    @Test
    void icrcCatchesEveryCoveredBitAndIgnoresByte4() {
        Draws.forAll(0x3E0006L, 300, d -> {
            Opcode opcode = d.oneOf("opcode", ENCODABLE);
            int size = d.ints("size", 0, 300);
            int where = d.ints("where", 0, 10_000);
            int bit = d.ints("bit", 0, 7);
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
        });
    }

    /** The direct-buffer path of the ICRC gives the heap path's value, and both the general form's. */
    @Test
    void icrcIsTheSameOverHeapDirectAndExplicitHeaders() {
        Draws.forAll(0x3E0007L, 200, d -> {
            int size = d.ints("size", 0, 2048);
            int src = d.ints("src");
            int dst = d.ints("dst");
            int srcPort = d.ints("srcPort", 0, 0xFFFF);
            int tos = d.ints("tos", 0, 0xFF);
            int ttl = d.ints("ttl", 1, 0xFF);
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
        });
    }

    /** Whatever IPv4 identification a packet travelled with, the receiver recovers it from the ICRC. */
    @Test
    void theIpv4IdComesBackFromTheIcrc() {
        Draws.forAll(0x3E0008L, 300, d -> {
            int id = d.ints("id", 0, 0xFFFF);
            int size = d.ints("size", 0, 1500);
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
        });
    }

    /** A packet cut anywhere before its headers and ICRC end is refused, never read past its end. */
    @Test
    void aTruncatedPacketIsRefused() {
        Draws.forAll(0x3E0009L, 200, d -> {
            Opcode opcode = d.oneOf("opcode", ENCODABLE);
            int cut = d.ints("cut", 0, 80);
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
        });
    }
}
