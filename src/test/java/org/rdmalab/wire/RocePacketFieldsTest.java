package org.rdmalab.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The data path's header forms (issue 8): {@code encodeRequest} / {@code encodeResponse} write, from
 * plain fields, byte for byte what the record-based encoder writes, and the packet's RETH and AETH
 * accessors read the same values as its records.
 */
class RocePacketFieldsTest {

    private static final byte[] PAYLOAD = {1, 2, 3, 4, 5, 6, 7};

    private static byte[] bytes(ByteBuffer out, int length) {
        return Arrays.copyOf(out.array(), length);
    }

    @Test
    void requestsFromFieldsMatchTheRecordForm() throws Exception {
        Reth reth = new Reth(0x00007f3a00001000L, 0x4321, 0x80000000);
        Opcode[] opcodes = {Opcode.RC_RDMA_WRITE_ONLY, Opcode.RC_RDMA_WRITE_FIRST, Opcode.RC_RDMA_WRITE_MIDDLE,
            Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcode.RC_SEND_ONLY,
            Opcode.RC_SEND_LAST_WITH_IMMEDIATE, Opcode.RC_RDMA_READ_REQUEST, Opcode.UC_RDMA_WRITE_ONLY};
        for (Opcode op : opcodes) {
            int payload = op.hasPayload() ? PAYLOAD.length : 0;
            ByteBuffer expected = ByteBuffer.allocate(96);
            int length = RocePacketEncoder.encode(expected, op, 0x12, 0xFFFFFE, true, op.isLast(),
                    op.hasReth() ? reth : null, null, null, null, 0xCAFE, PAYLOAD, 0, payload);
            ByteBuffer actual = ByteBuffer.allocate(96);
            assertEquals(length, RocePacketEncoder.encodeRequest(actual, op, 0x12, 0xFFFFFE, true, op.isLast(),
                    reth.virtualAddress(), reth.rkey(), reth.dmaLength(), 0xCAFE, PAYLOAD, 0, payload), op.name());
            assertArrayEquals(bytes(expected, length), bytes(actual, length), op.name());

            RocePacket decoded = RocePacket.decode(Arrays.copyOf(actual.array(), length + Icrc.LENGTH), 0,
                    length + Icrc.LENGTH);
            if (op.hasReth()) {
                assertEquals(reth.virtualAddress(), decoded.rethVirtualAddress());
                assertEquals(reth.rkey(), decoded.rethRkey());
                assertEquals(reth.dmaLengthUnsigned(), decoded.rethDmaLength());
                assertEquals(decoded.reth(), new Reth(decoded.rethVirtualAddress(), decoded.rethRkey(),
                        (int) decoded.rethDmaLength()));
            } else {
                assertThrows(IllegalStateException.class, decoded::rethRkey, op.name());
            }
        }
    }

    @Test
    void responsesFromFieldsMatchTheRecordForm() throws Exception {
        int[] syndromes = {Aeth.ACK_SYNDROME, Aeth.nakSyndrome(Aeth.NAK_REMOTE_ACCESS_ERROR), Aeth.rnrNakSyndrome(14)};
        Opcode[] opcodes = {Opcode.RC_ACKNOWLEDGE, Opcode.RC_RDMA_READ_RESPONSE_FIRST,
            Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, Opcode.RC_RDMA_READ_RESPONSE_LAST, Opcode.RC_RDMA_READ_RESPONSE_ONLY};
        for (int syndrome : syndromes) {
            for (Opcode op : opcodes) {
                int payload = op.hasPayload() ? PAYLOAD.length : 0;
                Aeth aeth = new Aeth(syndrome, 0xABCDEF);
                ByteBuffer expected = ByteBuffer.allocate(64);
                int length = RocePacketEncoder.encode(expected, op, 0x13, 5, false, false, null,
                        op.hasAeth() ? aeth : null, null, null, 0, PAYLOAD, 0, payload);
                ByteBuffer actual = ByteBuffer.allocate(64);
                assertEquals(length, RocePacketEncoder.encodeResponse(actual, op, 0x13, 5, syndrome, 0xABCDEF,
                        PAYLOAD, 0, payload));
                assertArrayEquals(bytes(expected, length), bytes(actual, length), op.name());

                RocePacket decoded = RocePacket.decode(Arrays.copyOf(actual.array(), length + Icrc.LENGTH), 0,
                        length + Icrc.LENGTH);
                if (op.hasAeth()) {
                    assertEquals(aeth, decoded.aeth());
                    assertEquals(syndrome, decoded.aethSyndrome());
                    assertEquals(0xABCDEF, decoded.aethMsn());
                    assertEquals(aeth.isAck(), Aeth.isAck(decoded.aethSyndrome()));
                    assertEquals(aeth.isRnrNak(), Aeth.isRnrNak(decoded.aethSyndrome()));
                    assertEquals(aeth.code(), Aeth.code(decoded.aethSyndrome()));
                } else {
                    assertThrows(IllegalStateException.class, decoded::aethSyndrome);
                }
            }
        }
        assertTrue(Aeth.isAck(Aeth.ACK_SYNDROME));
        assertFalse(Aeth.isAck(Aeth.rnrNakSyndrome(0)));
    }

    @Test
    void theFieldFormsRefuseOpcodesWithOtherHeadersAndBadFields() {
        ByteBuffer out = ByteBuffer.allocate(96);
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encodeRequest(out,
                Opcode.RC_COMPARE_SWAP, 1, 0, true, false, 0, 0, 0, 0, null, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encodeRequest(out,
                Opcode.RC_ACKNOWLEDGE, 1, 0, true, false, 0, 0, 0, 0, null, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encodeResponse(out,
                Opcode.RC_ATOMIC_ACKNOWLEDGE, 1, 0, Aeth.ACK_SYNDROME, 0, null, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encodeResponse(out,
                Opcode.RC_ACKNOWLEDGE, 1, 0, 0x100, 0, null, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encodeResponse(out,
                Opcode.RC_ACKNOWLEDGE, 1, 0, Aeth.ACK_SYNDROME, 1 << 24, null, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> Aeth.nakSyndrome(32));
        assertThrows(IllegalArgumentException.class, () -> Aeth.rnrNakSyndrome(-1));
    }
}
