package org.rdmalab.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every RC and UC opcode against a table written by hand from the spec (IBTA Vol. 1 table 38). */
class OpcodeTest {

    /** value, name, extension headers in order, payload?, kind. */
    private record Row(int value, String name, String headers, boolean payload, String kind) {
    }

    private static final List<Row> RC = List.of(
            new Row(0x00, "SEND_FIRST", "", true, "send first"),
            new Row(0x01, "SEND_MIDDLE", "", true, "send middle"),
            new Row(0x02, "SEND_LAST", "", true, "send last"),
            new Row(0x03, "SEND_LAST_WITH_IMMEDIATE", "ImmDt", true, "send last"),
            new Row(0x04, "SEND_ONLY", "", true, "send only"),
            new Row(0x05, "SEND_ONLY_WITH_IMMEDIATE", "ImmDt", true, "send only"),
            new Row(0x06, "RDMA_WRITE_FIRST", "RETH", true, "write first"),
            new Row(0x07, "RDMA_WRITE_MIDDLE", "", true, "write middle"),
            new Row(0x08, "RDMA_WRITE_LAST", "", true, "write last"),
            new Row(0x09, "RDMA_WRITE_LAST_WITH_IMMEDIATE", "ImmDt", true, "write last"),
            new Row(0x0A, "RDMA_WRITE_ONLY", "RETH", true, "write only"),
            new Row(0x0B, "RDMA_WRITE_ONLY_WITH_IMMEDIATE", "RETH ImmDt", true, "write only"),
            new Row(0x0C, "RDMA_READ_REQUEST", "RETH", false, "readreq"),
            new Row(0x0D, "RDMA_READ_RESPONSE_FIRST", "AETH", true, "readresp first"),
            new Row(0x0E, "RDMA_READ_RESPONSE_MIDDLE", "", true, "readresp middle"),
            new Row(0x0F, "RDMA_READ_RESPONSE_LAST", "AETH", true, "readresp last"),
            new Row(0x10, "RDMA_READ_RESPONSE_ONLY", "AETH", true, "readresp only"),
            new Row(0x11, "ACKNOWLEDGE", "AETH", false, "ack"),
            new Row(0x12, "ATOMIC_ACKNOWLEDGE", "AETH AtomicAckETH", false, "ack"),
            new Row(0x13, "COMPARE_SWAP", "AtomicETH", false, "atomic"),
            new Row(0x14, "FETCH_ADD", "AtomicETH", false, "atomic"));

    @Test
    void rcAndUcTable() {
        Set<Integer> known = new HashSet<>();
        for (Row row : RC) {
            check(Opcode.of(row.value), "RC_" + row.name, row);
            known.add(row.value);
            if (row.value <= 0x0B) {
                check(Opcode.of(0x20 + row.value), "UC_" + row.name, row);
                known.add(0x20 + row.value);
            }
        }
        known.add(0x64);
        known.add(0x65);
        known.add(0x81);
        for (int value = 0; value < 256; value++) {
            Opcode opcode = Opcode.of(value);
            assertSame(opcode, Opcode.of(value));
            assertEquals(value, opcode.value());
            assertEquals(known.contains(value), opcode.isKnown(), opcode.name());
            if (!known.contains(value)) {
                assertEquals(String.format("UNKNOWN_0x%02X", value), opcode.name());
                assertEquals(0, opcode.extensionLength());
                assertFalse(opcode.isRequest() || opcode.isResponse() || opcode.hasPayload());
            }
        }
    }

    private static void check(Opcode opcode, String name, Row row) {
        assertEquals(name, opcode.name());
        assertTrue(opcode.isKnown(), name);
        List<String> headers = row.headers.isEmpty() ? List.of() : List.of(row.headers.split(" "));
        assertEquals(headers.contains("RETH"), opcode.hasReth(), name);
        assertEquals(headers.contains("AETH"), opcode.hasAeth(), name);
        assertEquals(headers.contains("ImmDt"), opcode.hasImmDt(), name);
        assertEquals(headers.contains("AtomicETH"), opcode.hasAtomicEth(), name);
        assertEquals(headers.contains("AtomicAckETH"), opcode.hasAtomicAckEth(), name);
        int length = 0;
        for (String header : headers) {
            length += switch (header) {
                case "RETH" -> 16;
                case "AETH", "ImmDt" -> 4;
                case "AtomicETH" -> 28;
                case "AtomicAckETH" -> 8;
                default -> throw new AssertionError(header);
            };
        }
        assertEquals(length, opcode.extensionLength(), name);
        assertEquals(row.payload, opcode.hasPayload(), name);
        String kind = row.kind;
        assertEquals(kind.startsWith("send"), opcode.isSend(), name);
        assertEquals(kind.startsWith("write"), opcode.isWrite(), name);
        assertEquals(kind.equals("readreq"), opcode.isReadRequest(), name);
        assertEquals(kind.startsWith("readresp"), opcode.isReadResponse(), name);
        assertEquals(kind.equals("atomic"), opcode.isAtomic(), name);
        assertEquals(kind.equals("ack"), opcode.isAcknowledge(), name);
        assertEquals(kind.endsWith("first"), opcode.isFirst(), name);
        assertEquals(kind.endsWith("middle"), opcode.isMiddle(), name);
        assertEquals(kind.endsWith("last"), opcode.isLast(), name);
        assertEquals(kind.endsWith("only"), opcode.isOnly(), name);
        boolean request = kind.startsWith("send") || kind.startsWith("write") || kind.equals("readreq")
                || kind.equals("atomic");
        assertEquals(request, opcode.isRequest(), name);
        assertEquals(!request, opcode.isResponse(), name);
        boolean single = kind.endsWith("only") || kind.equals("readreq") || kind.equals("atomic");
        assertEquals(single || kind.endsWith("first"), opcode.startsMessage(), name);
        assertEquals(single || kind.endsWith("last"), opcode.endsMessage(), name);
        assertEquals(name.startsWith("RC_"), opcode.isRc(), name);
        assertEquals(name.startsWith("UC_"), opcode.isUc(), name);
    }

    @Test
    void constantsAndHelpers() {
        assertEquals(0x0A, Opcode.RC_RDMA_WRITE_ONLY.value());
        assertEquals(0x05, Opcode.RC_SEND_ONLY_WITH_IMMEDIATE.value());
        assertEquals(0x0E, Opcode.RC_RDMA_READ_RESPONSE_MIDDLE.value());
        assertEquals(0x12, Opcode.RC_ATOMIC_ACKNOWLEDGE.value());
        assertEquals(0x2B, Opcode.UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE.value());
        assertSame(Opcode.RC_FETCH_ADD, Opcode.rc(0x14));
        assertSame(Opcode.UC_SEND_ONLY, Opcode.uc(0x04));
        assertEquals("UNKNOWN_0x2C", Opcode.uc(0x0C).name());
        assertEquals("CNP", Opcode.of(0x81).name());
        // UD: SEND_ONLY with a DETH (8), with immediate DETH + ImmDt (12); no other UD opcode.
        assertEquals("UD_SEND_ONLY", Opcode.of(0x64).name());
        assertTrue(Opcode.UD_SEND_ONLY.hasDeth() && Opcode.UD_SEND_ONLY.isUd() && Opcode.UD_SEND_ONLY.isSend());
        assertFalse(Opcode.UD_SEND_ONLY.isRc() || Opcode.UD_SEND_ONLY.isUc());
        assertEquals(8, Opcode.UD_SEND_ONLY.extensionLength());
        assertEquals("UD_SEND_ONLY_WITH_IMMEDIATE", Opcode.of(0x65).name());
        assertEquals(12, Opcode.UD_SEND_ONLY_WITH_IMMEDIATE.extensionLength());
        assertEquals("UNKNOWN_0x60", Opcode.of(0x60).name());
        assertFalse(Opcode.RC_SEND_ONLY.hasDeth());
        assertTrue(Opcode.CNP.isCnp());
        assertFalse(Opcode.CNP.isRequest());
        assertEquals("RC_SEND_ONLY", Opcode.RC_SEND_ONLY.toString());
        assertThrows(IllegalArgumentException.class, () -> Opcode.of(256));
        assertThrows(IllegalArgumentException.class, () -> Opcode.of(-1));
    }
}
