package org.rdmalab.control.lab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpType;

/** Frames written out by hand from docs/protocol.md, and malformed input, without sockets. */
class LabCodecTest {

    private static byte[] hex(String spaced) {
        return HexFormat.of().parseHex(spaced.replaceAll("\\s+", ""));
    }

    private static void assertFrame(String expectedHex, LabMessage message) throws ControlException {
        byte[] frame = hex(expectedHex);
        assertArrayEquals(frame, LabCodec.frame(message), message.toString());
        assertEquals(message, LabCodec.decode(Arrays.copyOfRange(frame, FrameCodec.HEADER_LENGTH, frame.length)));
    }

    @Test
    void hello() throws ControlException {
        assertFrame("00 00 00 0c  00 01  52 4c 41 42  00 01  00 02 52 4c", new Hello(1, "RL"));
    }

    @Test
    void connectionData() throws ControlException {
        ConnectionData data = new ConnectionData(QpType.RC, 0x11, 0xabcdef, 1, Gid.parse("::ffff:192.168.1.100"),
                0x00007f1234567890L, 0x1234, 11, Mtu.MTU_1024);
        assertFrame("00 00 00 32  00 02  02 03 00 01  00 00 00 11  00 ab cd ef  00 00 12 34"
                + "  00 00 7f 12 34 56 78 90  00 00 00 00 00 00 00 0b"
                + "  00 00 00 00 00 00 00 00 00 00 ff ff c0 a8 01 64", new ConnectionDataMessage(data));
    }

    @Test
    void stepProgress() throws ControlException {
        assertFrame("00 00 00 12  00 03  00 05 03  00 03 52 54 52  00 06 45 49 4e 56 41 4c",
                new StepProgress(5, "RTR", StepStatus.FAILED, "EINVAL"));
    }

    @Test
    void qpState() throws ControlException {
        assertFrame("00 00 00 07  00 04  00 00 00 11 03", new QpStateMessage(0x11, QpState.RTS));
    }

    @Test
    void syncWithUtf8Name() throws ControlException {
        assertFrame("00 00 00 07  00 05  00 03 72 74 73", new Sync("rts"));
        assertFrame("00 00 00 06  00 05  00 02 c3 a9", new Sync("\u00e9"));
    }

    @Test
    void bufferRequestAndReply() throws ControlException {
        assertFrame("00 00 00 0e  00 06  00 00 00 00 00 00 00 00  00 00 00 0b", new BufferRequest(0, 11));
        assertFrame("00 00 00 0c  00 07  00 00 00 00 00 00 00 04  6f 57", new BufferReply(4, new byte[] {'o', 'W'}));
    }

    @Test
    void errorAndBye() throws ControlException {
        assertFrame("00 00 00 07  00 08  00 02  00 01 78", new ErrorMessage(2, "x"));
        assertFrame("00 00 00 02  00 09", new Bye());
    }

    @Test
    void factsKeepTheirOrder() throws ControlException {
        java.util.Map<String, String> values = new java.util.LinkedHashMap<>();
        values.put("mtu", "1024");
        values.put("ip", "10.0.2.15");
        assertFrame("00 00 00 1f  00 0a  01  00 02  00 03 6d 74 75  00 04 31 30 32 34"
                + "  00 02 69 70  00 09 31 30 2e 30 2e 32 2e 31 35", Facts.of(values));
        assertFrame("00 00 00 05  00 0a  01  00 00", Facts.of(java.util.Map.of()));
        Facts decoded = (Facts) LabCodec.decode(hex("00 0a  01  00 02  00 03 6d 74 75  00 04 31 30 32 34"
                + "  00 02 69 70  00 09 31 30 2e 30 2e 32 2e 31 35"));
        assertEquals(java.util.List.of("mtu", "ip"), java.util.List.copyOf(decoded.values().keySet()));
        assertEquals("none", decoded.get("gid", "none"));
    }

    @Test
    void aFactTwiceOrAFactsCountPastTheEndIsMalformed() {
        ControlException twice = assertThrows(ControlException.class,
                () -> LabCodec.decode(hex("00 0a 01 00 02  00 01 61 00 01 31  00 01 61 00 01 32")));
        assertTrue(twice.getMessage().startsWith("malformed FACTS message of 15 bytes: fact 'a' appears twice"),
                twice.getMessage());
        ControlException shortBody = assertThrows(ControlException.class,
                () -> LabCodec.decode(hex("00 0a 01 00 02  00 01 61 00 01 31")));
        assertTrue(shortBody.getMessage().contains("it ends too early"), shortBody.getMessage());
    }

    @Test
    void unknownTypeSurvivesARoundTrip() throws ControlException {
        byte[] payload = hex("77 77 01 02 03");
        LabMessage message = LabCodec.decode(payload);
        UnknownMessage unknown = (UnknownMessage) message;
        assertFalse(unknown.type().isKnown());
        assertEquals("UNKNOWN(0x7777)", unknown.type().name());
        assertArrayEquals(hex("01 02 03"), unknown.body());
        assertArrayEquals(payload, LabCodec.encode(message));
        assertEquals(MessageType.of(0x7777), unknown.type());
        assertTrue(MessageType.of(5).isKnown());
    }

    @Test
    void unknownStepStatusSurvivesARoundTrip() throws ControlException {
        byte[] payload = hex("00 03  00 01 09  00 01 41  00 00");
        StepProgress progress = (StepProgress) LabCodec.decode(payload);
        assertEquals("UNKNOWN(0x09)", progress.status().name());
        assertArrayEquals(payload, LabCodec.encode(progress));
    }

    @Test
    void truncatedBodyIsMalformed() {
        byte[] payload = Arrays.copyOf(hex("00 02 02 03 00 01 00 00 00 11"), 2 + 47);
        ControlException e = assertThrows(ControlException.class, () -> LabCodec.decode(payload));
        assertEquals(ControlException.Reason.PROTOCOL, e.reason());
        assertTrue(e.getMessage().startsWith("malformed CONNECTION_DATA message of 47 bytes: it ends too early; body \""),
                e.getMessage());
    }

    @Test
    void leftoverBytesAreMalformed() {
        ControlException e = assertThrows(ControlException.class, () -> LabCodec.decode(hex("00 09 ff")));
        assertEquals("malformed BYE message of 1 bytes: 1 bytes are left over after the fields; body \"\\xff\"",
                e.getMessage());
    }

    @Test
    void badValuesAreMalformed() {
        byte[] body = new byte[48];
        body[0] = 77;
        body[1] = 3;
        byte[] payload = new byte[50];
        payload[1] = 2;
        System.arraycopy(body, 0, payload, 2, 48);
        ControlException e = assertThrows(ControlException.class, () -> LabCodec.decode(payload));
        assertTrue(e.getMessage().startsWith("malformed CONNECTION_DATA message of 48 bytes: no ibv_qp_type has value 77"),
                e.getMessage());
        ControlException utf8 = assertThrows(ControlException.class, () -> LabCodec.decode(hex("00 05 00 01 ff")));
        assertTrue(utf8.getMessage().contains("a string is not valid UTF-8"), utf8.getMessage());
        ControlException longString = assertThrows(ControlException.class,
                () -> LabCodec.decode(hex("00 05 00 09 41")));
        assertTrue(longString.getMessage().contains("a string of 9 bytes runs past the end"), longString.getMessage());
    }

    @Test
    void frameTooShortForAType() {
        ControlException e = assertThrows(ControlException.class, () -> LabCodec.decode(hex("01")));
        assertEquals("a frame of 1 bytes is too short to hold a message type: \"\\x01\"", e.getMessage());
    }

    @Test
    void oversizedFrameIsRefusedBeforeReadingItsPayload() {
        InputStream onlyAHeader = new ByteArrayInputStream(hex("7f ff ff ff")) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                if (pos == count) {
                    throw new AssertionError("the payload must not be read");
                }
                return super.read(b, off, len);
            }
        };
        ControlChannel channel = ControlChannel.of(onlyAHeader, new ByteArrayOutputStream(), "10.0.0.2:12025");
        ControlException e = assertThrows(ControlException.class, () -> FrameCodec.read(channel, 1 << 20));
        assertEquals(ControlException.Reason.PROTOCOL, e.reason());
        assertEquals("peer 10.0.0.2:12025 announced a frame of 2147483647 bytes, more than the limit of 1048576"
                + " (it began \"\\x7f\\xff\\xff\\xff\"); is the peer speaking RDMA Lab's protocol (--protocol lab)?",
                e.getMessage());
    }

    @Test
    void truncatedFrameSaysHowFarItGot() {
        ControlChannel channel = ControlChannel.of(new ByteArrayInputStream(hex("00 00 00 0a 00 05 00")),
                new ByteArrayOutputStream(), "10.0.0.2:12025");
        ControlException e = assertThrows(ControlException.class, () -> FrameCodec.read(channel, 1 << 20));
        assertEquals("peer 10.0.0.2:12025 closed the connection after 3 of 10 bytes of the 10-byte frame",
                e.getMessage());
    }

    @Test
    void versionMismatchNamesBothVersions() {
        byte[] payload = hex("00 01  52 4c 41 42  00 02  00 00");
        ControlException e = assertThrows(ControlException.class, () -> LabConnection.checkHello(payload, "peer:1"));
        assertEquals(ControlException.Reason.VERSION_MISMATCH, e.reason());
        assertEquals("peer peer:1 speaks RDMA Lab protocol version 2, this side speaks version 1;"
                + " run the same RDMA Lab release on both machines", e.getMessage());
    }

    @Test
    void aFirstMessageOtherThanHelloIsNotRdmaLab() {
        ControlException e = assertThrows(ControlException.class,
                () -> LabConnection.checkHello(hex("00 05 00 01 41"), "peer:1"));
        assertEquals("peer peer:1 did not start with an RDMA Lab hello (it sent \"\\0\\x05\\0\\x01A\");"
                + " is it running RDMA Lab with --protocol lab?", e.getMessage());
    }

    @Test
    void aSeedPeerIsCaughtByTheHelloLimit() {
        byte[] seedBlock = hex("00 00 7f 12 34 56 78 90 00 00 12 34 00 00 00 11 00 00"
                + " 00 00 00 00 00 00 00 00 00 00 ff ff c0 a8 01 64");
        ControlChannel channel = ControlChannel.of(new ByteArrayInputStream(seedBlock), new ByteArrayOutputStream(),
                "10.0.0.2:12025");
        ControlException e = assertThrows(ControlException.class, () -> LabConnection.open(channel, "test"));
        assertTrue(e.getMessage().startsWith("peer 10.0.0.2:12025 announced a frame of 32530 bytes, more than the"
                + " limit of 1024"), e.getMessage());
        assertTrue(channel.isClosed(), "open closes the channel when the handshake fails");
    }
}
