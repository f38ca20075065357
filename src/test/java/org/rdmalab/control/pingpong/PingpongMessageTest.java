package org.rdmalab.control.pingpong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpType;

class PingpongMessageTest {

    private static final Gid GID = Gid.parse("fe80::202:c9ff:fe01:203");

    /** Written by hand from the format "%04x:%06x:%06x:%s" plus the NUL. */
    private static final String WIRE = "0001:000123:abcdef:fe800000000000000202c9fffe010203\0";

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void serializesTo52BytesOfLowercaseTextWithTheNul() {
        byte[] wire = new PingpongMessage(0x0001, 0x000123, 0xabcdef, GID).serialize();
        assertEquals(52, wire.length);
        assertArrayEquals(ascii(WIRE), wire);
        assertEquals(0, wire[51]);
    }

    @Test
    void zeroGidAndZeroLidAsOnRoceWithoutGid() {
        assertEquals("0000:000011:000000:00000000000000000000000000000000",
                new PingpongMessage(0, 0x11, 0, Gid.ZERO).text());
    }

    @Test
    void parsesWhatItWritesAndUppercaseHex() throws ControlException {
        PingpongMessage message = PingpongMessage.parse(ascii(WIRE));
        assertEquals(new PingpongMessage(1, 0x123, 0xabcdef, GID), message);
        assertEquals(message, PingpongMessage.parse(ascii(WIRE.toUpperCase(java.util.Locale.ROOT))));
    }

    @Test
    void mapsToTheCommonFormWithoutABuffer() throws ControlException {
        ConnectionData data = PingpongMessage.parse(ascii(WIRE)).toConnectionData();
        assertEquals(new ConnectionData(QpType.RC, 0x123, 0xabcdef, 1, GID, 0, 0, 4096, Mtu.MTU_1024), data);
        assertArrayEquals(ascii(WIRE), PingpongMessage.from(data.withBuffer(0x1000, 0x55, 64)).serialize());
    }

    @Test
    void garbageIsQuoted() {
        ControlException e = assertThrows(ControlException.class,
                () -> PingpongMessage.parse(ascii("GET / HTTP/1.1\r\nHost: x\r\n\r\n0123456789abcdef01234567\0")));
        assertEquals(ControlException.Reason.PROTOCOL, e.reason());
        assertEquals("expected ibv_rc_pingpong's 52-byte LID:QPN:PSN:GID message, got 52 bytes:"
                + " \"GET / HTTP/1.1\\x0d\\x0aHost: x\\x0d\\x0a\\x0d\\x0a0123456789abcdef01234567\\0\";"
                + " is the peer ibv_rc_pingpong (try another --protocol)?", e.getMessage());
    }

    @Test
    void missingNulShortFieldsAndWrongLengthsAreRejected() {
        String noNul = WIRE.substring(0, 51) + "x";
        String shortLid = "001:000123:abcdef:fe800000000000000202c9fffe010203\0\0";
        for (String text : new String[] {noNul, shortLid, WIRE.substring(0, 40), WIRE + "\0"}) {
            assertThrows(ControlException.class, () -> PingpongMessage.parse(ascii(text)), text);
        }
    }

    @Test
    void clientSendsFirstThenDone() throws ControlException {
        PingpongMessage server = new PingpongMessage(2, 0x456, 0x10, Gid.ZERO);
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        ControlChannel channel = ControlChannel.of(new ByteArrayInputStream(server.serialize()), sent, "test peer");
        ConnectionData local = new ConnectionData(QpType.RC, 0x123, 0xabcdef, 1, GID, 0, 0, 4096, Mtu.MTU_1024);
        ConnectionData got = new PingpongExchange(channel).asClient(local);
        assertEquals(server.toConnectionData(), got);
        assertEquals(WIRE + "done\0", sent.toString(StandardCharsets.US_ASCII));
        assertEquals("done\0", new String(PingpongExchange.doneBytes(), StandardCharsets.US_ASCII),
                "the bytes a test peer compares with are the ones sent");
    }

    @Test
    void serverRepliesAndWaitsForDone() throws ControlException {
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        ControlChannel channel = ControlChannel.of(new ByteArrayInputStream(ascii(WIRE + "done\0")), sent, "test peer");
        PingpongMessage local = new PingpongMessage(2, 0x456, 0x10, Gid.ZERO);
        ConnectionData client = new PingpongExchange(channel).asServer(local.toConnectionData());
        assertEquals(0x123, client.qpn());
        assertArrayEquals(local.serialize(), sent.toByteArray());
    }

    @Test
    void somethingElseInsteadOfDoneIsQuoted() {
        ControlChannel channel = ControlChannel.of(new ByteArrayInputStream(ascii("bye!!")),
                new ByteArrayOutputStream(), "10.0.0.2:18515");
        ControlException e = assertThrows(ControlException.class, () -> new PingpongExchange(channel).awaitDone());
        assertEquals("expected \"done\\0\" from 10.0.0.2:18515, got \"bye!!\"", e.getMessage());
    }

    @Test
    void truncatedMessageNamesTheCounts() {
        ControlChannel channel = ControlChannel.of(new ByteArrayInputStream(ascii(WIRE.substring(0, 20))),
                new ByteArrayOutputStream(), "10.0.0.2:18515");
        ControlException e = assertThrows(ControlException.class, () -> new PingpongExchange(channel).receive());
        assertEquals(ControlException.Reason.PEER_CLOSED, e.reason());
        assertEquals("peer 10.0.0.2:18515 closed the connection after 20 of 52 bytes of the LID:QPN:PSN:GID message",
                e.getMessage());
    }

    @Test
    void aServerWhoseClientNeverSaysDoneFails() {
        ControlChannel channel = ControlChannel.of(new ByteArrayInputStream(ascii(WIRE)), new ByteArrayOutputStream(),
                "10.0.0.2:18515");
        PingpongMessage local = new PingpongMessage(2, 0x456, 0x10, Gid.ZERO);
        ControlException e = assertThrows(ControlException.class,
                () -> new PingpongExchange(channel).asServer(local.toConnectionData()));
        assertEquals(ControlException.Reason.PEER_CLOSED, e.reason());
    }
}
