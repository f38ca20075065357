package org.rdmalab.lab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.WrOpcode;

class TrafficRequestTest {

    private static String error(Runnable parse) {
        return assertThrows(IllegalArgumentException.class, parse::run).getMessage();
    }

    @Test
    void textKeepsItsBytesAndUnderstandsEscapes() {
        assertArrayEquals("HelloWorld\0".getBytes(StandardCharsets.US_ASCII), TrafficRequest.parseText("HelloWorld\\0"));
        assertArrayEquals(new byte[] {'a', '\n', '\t', '\\', 0x41, (byte) 0xff}, TrafficRequest.parseText("a\\n\\t\\\\\\x41\\xff"));
        assertArrayEquals("é".getBytes(StandardCharsets.UTF_8), TrafficRequest.parseText("é"));
    }

    @Test
    void badTextSaysWhatToType() {
        assertEquals("text data: empty; type the bytes to write, e.g. HelloWorld\\0", error(() -> TrafficRequest.parseText("")));
        assertEquals("text data: unknown escape \\q at position 2; use \\0, \\n, \\t, \\\\ or \\xHH",
                error(() -> TrafficRequest.parseText("ab\\q")));
        assertEquals("text data: a lone \\ at the end; write \\\\ for a backslash", error(() -> TrafficRequest.parseText("ab\\")));
        assertEquals("text data: \\x at position 0 needs two hex digits, e.g. \\x41", error(() -> TrafficRequest.parseText("\\x4")));
        assertEquals("text data: \\xzz at position 0 needs two hex digits, e.g. \\x41",
                error(() -> TrafficRequest.parseText("\\xzz")));
    }

    @Test
    void hexAcceptsSpacesColonsAndAPrefix() {
        byte[] hello = "Hello".getBytes(StandardCharsets.US_ASCII);
        assertArrayEquals(hello, TrafficRequest.parseHex("48 65 6c 6c 6f"));
        assertArrayEquals(hello, TrafficRequest.parseHex("0x48656C6C6F"));
        assertArrayEquals(hello, TrafficRequest.parseHex(" 48:65:6c:6c:6f\n"));
    }

    @Test
    void badHexSaysWhatToType() {
        assertEquals("hex data: 'g' is not a hex digit; give two digits per byte, e.g. 48 65 6c 6c 6f",
                error(() -> TrafficRequest.parseHex("4g")));
        assertEquals("hex data: 3 digits is an odd number; give two digits per byte, e.g. 0a rather than a",
                error(() -> TrafficRequest.parseHex("abc")));
        assertEquals("hex data: no digits; give two digits per byte, e.g. 48 65 6c 6c 6f", error(() -> TrafficRequest.parseHex(" 0x ")));
    }

    @Test
    void requestsAreCheckedWhenMade() {
        assertEquals("length: an atomic operates on 8 bytes, not 4",
                error(() -> TrafficRequest.of(WrOpcode.ATOMIC_FETCH_AND_ADD, 1, 0, 4, 0)));
        assertEquals("local offset: -1 is negative", error(() -> TrafficRequest.of(WrOpcode.RDMA_WRITE, 1, -1, 4, 0)));
        assertEquals("opcode: IBV_WR_BIND_MW is not offered here; use one of RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ,"
                + " SEND, SEND_WITH_IMM, ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD",
                error(() -> TrafficRequest.of(WrOpcode.BIND_MW, 1, 0, 4, 0)));
        byte[] data = {1, 2};
        TrafficRequest request = TrafficRequest.of(WrOpcode.SEND, 1, 0, 2, 0).withData(data);
        data[0] = 9;
        assertArrayEquals(new byte[] {1, 2}, request.data(), "the request keeps its own copy");
    }
}
