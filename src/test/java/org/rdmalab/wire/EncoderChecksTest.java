package org.rdmalab.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The encoder's refusals, each on both sides of its boundary: a caller's mistake (a missing or
 * extra header, a payload range outside its array, a buffer one byte short, an opcode the form does
 * not write) is an IllegalArgumentException, and the case just inside is written.
 */
class EncoderChecksTest {

    private static final Reth RETH = new Reth(0x1000, 0x22, 4);

    @Test
    void theBufferMayBeExactlyLongEnough() {
        int needed = RocePacketEncoder.lengthWithoutIcrc(Opcode.RC_RDMA_WRITE_ONLY, 5);
        assertEquals(Bth.LENGTH + Reth.LENGTH + 8, needed);
        ByteBuffer exact = ByteBuffer.allocate(needed);
        assertEquals(needed, RocePacketEncoder.encode(exact, Opcode.RC_RDMA_WRITE_ONLY, 1, 2, true, false, RETH,
                null, null, null, 0, new byte[5], 0, 5));
        assertEquals(0, exact.remaining());
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(ByteBuffer.allocate(needed - 1),
                Opcode.RC_RDMA_WRITE_ONLY, 1, 2, true, false, RETH, null, null, null, 0, new byte[5], 0, 5));
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encodeRequest(
                ByteBuffer.allocate(needed - 1), Opcode.RC_RDMA_WRITE_ONLY, 1, 2, true, false, 1, 2, 5, 0,
                new byte[5], 0, 5));
    }

    @Test
    void aPayloadRangeMustLieInItsArray() {
        byte[] payload = new byte[8];
        ByteBuffer out = ByteBuffer.allocate(64);
        assertEquals(Bth.LENGTH + 8, RocePacketEncoder.encode(out, Opcode.RC_SEND_ONLY, 1, 2, true, false, null,
                null, null, null, 0, payload, 3, 5), "offset + length == the array's length fits");
        for (int[] range : new int[][] {{4, 5}, {-1, 2}, {0, -1}}) {
            assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(ByteBuffer.allocate(64),
                    Opcode.RC_SEND_ONLY, 1, 2, true, false, null, null, null, null, 0, payload, range[0], range[1]),
                    range[0] + "+" + range[1]);
            assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encodeRequest(
                    ByteBuffer.allocate(64), Opcode.RC_SEND_ONLY, 1, 2, true, false, 0, 0, 0, 0, payload, range[0],
                    range[1]), range[0] + "+" + range[1]);
            assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encodeResponse(
                    ByteBuffer.allocate(64), Opcode.RC_RDMA_READ_RESPONSE_ONLY, 1, 2, 0x1f, 0, payload, range[0],
                    range[1]), range[0] + "+" + range[1]);
            assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(ByteBuffer.allocate(64),
                    Bth.of(Opcode.RC_SEND_ONLY, 1, 2, true, 0), null, null, null, null, 0, payload, range[0],
                    range[1]), range[0] + "+" + range[1]);
        }
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(ByteBuffer.allocate(64),
                Opcode.RC_SEND_ONLY, 1, 2, true, false, null, null, null, null, 0, null, 0, 1));
        // No payload needs no array, in every form.
        assertEquals(Bth.LENGTH, RocePacketEncoder.encode(ByteBuffer.allocate(64), Opcode.RC_SEND_ONLY, 1, 2, true,
                false, null, null, null, null, 0, null, 0, 0));
        assertEquals(Bth.LENGTH, RocePacketEncoder.encode(ByteBuffer.allocate(64), Opcode.RC_SEND_ONLY, 1, 2, true,
                false, null, null, null, null, 0, (ByteBuffer) null));
        assertEquals(Bth.LENGTH, RocePacketEncoder.encodeRequest(ByteBuffer.allocate(64), Opcode.RC_SEND_ONLY, 1, 2,
                true, false, 0, 0, 0, 0, null, 0, 0));
        assertEquals(Bth.LENGTH + Aeth.LENGTH, RocePacketEncoder.encodeResponse(ByteBuffer.allocate(64),
                Opcode.RC_ACKNOWLEDGE, 1, 2, 0x1f, 0, null, 0, 0));
        assertEquals(Bth.LENGTH, RocePacketEncoder.encode(ByteBuffer.allocate(64),
                Bth.of(Opcode.RC_SEND_ONLY, 1, 2, true, 0), null, null, null, null, 0, null, 0, 0));
    }

    @Test
    void theHeadersMustBeThoseOfTheOpcode() {
        Bth write = Bth.of(Opcode.RC_RDMA_WRITE_ONLY, 1, 2, true, 0);
        assertEquals(Bth.LENGTH + Reth.LENGTH, RocePacketEncoder.encode(ByteBuffer.allocate(64), write, RETH, null,
                null, null, 0, null, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(ByteBuffer.allocate(64), write,
                null, null, null, null, 0, null, 0, 0), "a WRITE needs its RETH");
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(ByteBuffer.allocate(64), write,
                RETH, Aeth.ack(1), null, null, 0, null, 0, 0), "a WRITE has no AETH");
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(ByteBuffer.allocate(64), write,
                RETH, null, new AtomicEth(0, 0, 0, 0), null, 0, null, 0, 0), "a WRITE has no AtomicETH");
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(ByteBuffer.allocate(64), write,
                RETH, null, null, new AtomicAckEth(0), 0, null, 0, 0), "a WRITE has no AtomicAckETH");
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(ByteBuffer.allocate(64),
                Opcode.RC_ACKNOWLEDGE, 1, 2, false, false, null, null, null, null, 0, null, 0, 0),
                "an ACK needs its AETH");
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(ByteBuffer.allocate(64),
                Opcode.RC_FETCH_ADD, 1, 2, false, false, null, null, null, null, 0, null, 0, 0),
                "an atomic needs its AtomicETH");
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(ByteBuffer.allocate(64),
                Opcode.RC_ATOMIC_ACKNOWLEDGE, 1, 2, false, false, null, Aeth.ack(1), null, null, 0, null, 0, 0),
                "an atomic ACK needs its AtomicAckETH");
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(ByteBuffer.allocate(64),
                Opcode.RC_ACKNOWLEDGE, 1, 2, false, false, null, Aeth.ack(1), null, null, 0, new byte[4], 0, 4),
                "an ACK carries no payload");
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(ByteBuffer.allocate(64),
                Bth.of(Opcode.UD_SEND_ONLY, 1, 2, false, 0), null, null, null, null, 0, null, 0, 0),
                "UD is decoded, not sent");
    }

    @Test
    void eachPrimitiveFormWritesOnlyItsOwnOpcodes() {
        for (Opcode notARequest : new Opcode[] {Opcode.RC_ACKNOWLEDGE, Opcode.RC_COMPARE_SWAP,
                Opcode.RC_ATOMIC_ACKNOWLEDGE, Opcode.RC_RDMA_READ_RESPONSE_ONLY}) {
            assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encodeRequest(ByteBuffer.allocate(64),
                    notARequest, 1, 2, false, false, 0, 0, 0, 0, null, 0, 0), notARequest.name());
        }
        for (Opcode notAResponse : new Opcode[] {Opcode.RC_RDMA_WRITE_ONLY, Opcode.RC_FETCH_ADD,
                Opcode.RC_ATOMIC_ACKNOWLEDGE, Opcode.RC_SEND_ONLY_WITH_IMMEDIATE}) {
            assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encodeResponse(
                    ByteBuffer.allocate(64), notAResponse, 1, 2, 0x1f, 0, null, 0, 0), notAResponse.name());
        }
        // A response without an AETH (a READ response middle) is written without one.
        assertEquals(Bth.LENGTH + 4, RocePacketEncoder.encodeResponse(ByteBuffer.allocate(64),
                Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, 1, 2, 0x1f, 0, new byte[4], 0, 4));
    }

    @Test
    void theQpAndPsnMustFit24Bits() {
        assertEquals(Bth.LENGTH, RocePacketEncoder.encodeRequest(ByteBuffer.allocate(64), Opcode.RC_SEND_ONLY,
                Psn.MASK, Psn.MASK, false, false, 0, 0, 0, 0, null, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encodeRequest(ByteBuffer.allocate(64),
                Opcode.RC_SEND_ONLY, Psn.MASK + 1, 0, false, false, 0, 0, 0, 0, null, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encodeRequest(ByteBuffer.allocate(64),
                Opcode.RC_SEND_ONLY, 0, Psn.MASK + 1, false, false, 0, 0, 0, 0, null, 0, 0));
    }
}
