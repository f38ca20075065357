package org.rdmalab.control.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpType;

/**
 * perftest's exchange against bytes written by hand from perftest's formats: what a real
 * ib_write_bw would send, and what it expects to read.
 */
class PerftestExchangeTest {

    private static final Gid GID = Gid.parse("::ffff:10.0.2.15");

    /** "%04x:%04x:%06x:%06x:%08x:%016llx:" then 16 × "%02x:" then "%08x:" and the NUL. */
    private static final String KEYS = "0000:0010:000011:a1b2c3:00001234:00007f0011223000:"
            + "00:00:00:00:00:00:00:00:00:00:ff:ff:0a:00:02:0f:00000000:\0";

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    private static byte[] version(String text) {
        return Arrays.copyOf(ascii(text), 16);
    }

    private static byte[] int32(int value) {
        return ByteBuffer.allocate(4).putInt(value).array();
    }

    private static byte[] int64(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    @Test
    void keysAre108BytesOfLowercaseHexWithAColonAfterEachField() {
        PerftestKeys keys = new PerftestKeys(0, 0x10, 0x11, 0xa1b2c3, 0x1234, 0x7f0011223000L, GID, 0);
        byte[] wire = keys.serialize(true);
        assertEquals(PerftestKeys.LENGTH_WITH_GID, wire.length);
        assertArrayEquals(ascii(KEYS), wire);
    }

    @Test
    void keysWithoutAGidAre59Bytes() throws ControlException {
        PerftestKeys keys = new PerftestKeys(0x1f, 0x10, 0x11, 0xa1b2c3, 0xfedcba98, 0x7f0011223000L, Gid.ZERO, 7);
        byte[] wire = keys.serialize(false);
        assertArrayEquals(ascii("001f:0010:000011:a1b2c3:fedcba98:00007f0011223000:00000007\0"), wire);
        assertEquals(keys, PerftestKeys.parse(wire, false));
    }

    @Test
    void keysParseWhatTheyWriteAndUppercaseHex() throws ControlException {
        PerftestKeys keys = PerftestKeys.parse(ascii(KEYS), true);
        assertEquals(new PerftestKeys(0, 0x10, 0x11, 0xa1b2c3, 0x1234, 0x7f0011223000L, GID, 0), keys);
        assertEquals(keys, PerftestKeys.parse(ascii(KEYS.toUpperCase(java.util.Locale.ROOT)), true));
        PerftestKeys high = new PerftestKeys(0, 1, 0xffffff, 0, 0xffffffff, 0xffff_8000_0000_0000L, GID, 0);
        assertEquals(high, PerftestKeys.parse(high.serialize(true), true));
    }

    @Test
    void keysOfTheOtherFormAreRefusedWithAHint() {
        PerftestKeys keys = new PerftestKeys(0, 1, 2, 3, 4, 5, Gid.ZERO, 0);
        ControlException e = assertThrows(ControlException.class,
                () -> PerftestKeys.parse(Arrays.copyOf(keys.serialize(true), 59), false));
        assertTrue(e.getMessage().contains("same -x"), e.getMessage());
        assertThrows(ControlException.class, () -> PerftestKeys.parse(ascii("GET / HTTP/1.1\r\n"), true));
    }

    @Test
    void aClientWritesEachStepFirstAndTakesTheLargerSystemDataAndTheSmallerMtu() throws ControlException {
        byte[] server = concat(version("6.29"), int32(16384), int32(128), ascii("3\0"), ascii(KEYS));
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        PerftestExchange client = new PerftestExchange(
                ControlChannel.of(new ByteArrayInputStream(server), sent, "server"), true);

        assertEquals("6.29", client.versions(PerftestExchange.VERSION));
        assertArrayEquals(new int[] {16384, 128}, client.systemData(4096, 64));
        assertEquals(Mtu.MTU_1024, client.mtu(Mtu.MTU_4096));
        PerftestKeys mine = new PerftestKeys(0, 1, 0x22, 0x333, 0x44, 0x5000L, GID, 0);
        assertEquals(PerftestKeys.parse(ascii(KEYS), true), client.handShake(mine, true));

        byte[] expected = concat(ascii("6.06"), new byte[12], HexFormat.of().parseHex("00001000" + "00000040"),
                ascii("5\0"), mine.serialize(true));
        assertArrayEquals(expected, sent.toByteArray());
    }

    @Test
    void aServerReadsEachStepFirstAndKeepsItsMtuWhenThePeersIsSmallerOrInvalid() throws ControlException {
        byte[] client = concat(version("6.06"), int32(4096), int32(64), ascii("5\0"));
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        PerftestExchange server = new PerftestExchange(
                ControlChannel.of(new ByteArrayInputStream(client), sent, "client"), false);
        server.versions(PerftestExchange.VERSION);
        assertArrayEquals(new int[] {4096, 64}, server.systemData(4096, 64));
        assertEquals(Mtu.MTU_1024, server.mtu(Mtu.MTU_1024));
        assertEquals(16 + 8 + 2, sent.size());

        PerftestExchange odd = new PerftestExchange(
                ControlChannel.of(new ByteArrayInputStream(ascii("9\0")), new ByteArrayOutputStream(), "c"), false);
        assertEquals(Mtu.MTU_2048, odd.mtu(Mtu.MTU_2048));
    }

    @Test
    void bandwidthReportsAreBigEndianIntegersAndDoublesFieldByField() throws ControlException {
        BandwidthReport theirs = new BandwidthReport(65536, 5000, 1234.5, 1000.25, 0.016);
        byte[] client = concat(int64(65536), int64(5000), int64(Double.doubleToLongBits(1234.5)),
                int64(Double.doubleToLongBits(1000.25)), int64(Double.doubleToLongBits(0.016)));
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        PerftestExchange server = new PerftestExchange(
                ControlChannel.of(new ByteArrayInputStream(client), sent, "client"), false);
        assertEquals(theirs, server.bandwidthReports(BandwidthReport.NONE));
        assertArrayEquals(new byte[40], sent.toByteArray());
    }

    @Test
    void aPeerThatIsNotPerftestOrTooOldIsRefusedWithWhatToDo() {
        PerftestExchange http = new PerftestExchange(ControlChannel.of(
                new ByteArrayInputStream(ascii("GET / HTTP/1.1\r\n")), new ByteArrayOutputStream(), "peer"), true);
        ControlException e = assertThrows(ControlException.class, () -> http.versions(PerftestExchange.VERSION));
        assertTrue(e.getMessage().contains("is the peer perftest"), e.getMessage());

        PerftestExchange old = new PerftestExchange(ControlChannel.of(
                new ByteArrayInputStream(version("5.60")), new ByteArrayOutputStream(), "peer"), true);
        e = assertThrows(ControlException.class, () -> old.versions(PerftestExchange.VERSION));
        assertTrue(e.getMessage().contains("use perftest 5.70 or later"), e.getMessage());
    }

    @Test
    void versionsAreReadAsCReadsThem() {
        assertEquals(6.06, PerftestExchange.leadingNumber("6.06"), 1e-9);
        assertEquals(5.7, PerftestExchange.leadingNumber("5.70-beta"), 1e-9);
        assertTrue(Double.isNaN(PerftestExchange.leadingNumber("GET")));
    }

    @Test
    void versionsAreReadAsCReadsThemToTheFirstCharacterThatIsNotPartOfANumber() {
        assertEquals(6.0, PerftestExchange.leadingNumber("6.0.1"), 1e-9, "a second dot ends the number");
        assertEquals(0.5, PerftestExchange.leadingNumber(".5"), 1e-9);
        assertEquals(12.0, PerftestExchange.leadingNumber("12"), 1e-9);
        assertTrue(Double.isNaN(PerftestExchange.leadingNumber(".")));
        assertTrue(Double.isNaN(PerftestExchange.leadingNumber("")));
    }

    private static PerftestExchange peer(byte[] bytes, boolean client) {
        return new PerftestExchange(ControlChannel.of(new ByteArrayInputStream(bytes), new ByteArrayOutputStream(),
                "peer"), client);
    }

    @Test
    void theOldestPeerTakenIs570AndAVersionFillingAll16BytesIsRead() throws ControlException {
        assertEquals("5.70", peer(version("5.70"), true).versions(PerftestExchange.VERSION));
        ControlException e = assertThrows(ControlException.class,
                () -> peer(version("5.69"), true).versions(PerftestExchange.VERSION));
        assertEquals("the peer is perftest 5.69, which is older than 5.70; use perftest 5.70 or later", e.getMessage());
        assertEquals("6.1234567890abcd", peer(ascii("6.1234567890abcd"), true).versions(PerftestExchange.VERSION));
    }

    @Test
    void theSmallerOfTwoMtusIsTakenAndOnlyTheDigits1To5AreMtus() throws ControlException {
        assertEquals(Mtu.MTU_256, peer(ascii("1\0"), true).mtu(Mtu.MTU_1024));
        assertEquals(Mtu.MTU_2048, peer(ascii("4x"), true).mtu(Mtu.MTU_4096), "a non-digit may follow");
        assertEquals(Mtu.MTU_1024, peer(ascii("5\0"), true).mtu(Mtu.MTU_1024), "the peer's is larger");
        assertEquals(Mtu.MTU_4096, peer(ascii("0\0"), true).mtu(Mtu.MTU_4096));
        assertEquals(Mtu.MTU_4096, peer(ascii("6\0"), true).mtu(Mtu.MTU_4096));
        assertEquals(Mtu.MTU_4096, peer(ascii("12"), true).mtu(Mtu.MTU_4096), "12 is no MTU value");
    }

    /**
     * A peer that answers only what it was sent first (the client writes first) or that may not be
     * written to before its block was read (a server reads first): each side in its role's order.
     */
    @Test
    void aClientWritesBeforeItReadsAndAServerReadsBeforeItWrites() throws ControlException {
        ByteArrayOutputStream clientSent = new ByteArrayOutputStream();
        java.io.InputStream answersAfterAWrite = new ByteArrayInputStream(int32(7)) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                if (clientSent.size() == 0) {
                    throw new AssertionError("the client read before it wrote");
                }
                return super.read(b, off, len);
            }
        };
        PerftestExchange client = new PerftestExchange(ControlChannel.of(answersAfterAWrite, clientSent, "server"),
                true);
        assertArrayEquals(int32(7), client.swap(int32(5), "a block"));
        assertArrayEquals(int32(5), clientSent.toByteArray());

        ByteArrayInputStream request = new ByteArrayInputStream(int32(9));
        ByteArrayOutputStream serverSent = new ByteArrayOutputStream() {
            @Override
            public synchronized void write(byte[] b, int off, int len) {
                if (request.available() > 0) {
                    throw new AssertionError("the server wrote before it read");
                }
                super.write(b, off, len);
            }
        };
        PerftestExchange server = new PerftestExchange(ControlChannel.of(request, serverSent, "client"), false);
        assertArrayEquals(int32(9), server.swap(int32(3), "a block"));
        assertArrayEquals(int32(3), serverSent.toByteArray());
    }

    @Test
    void keysOneByteLongerOrShorterThanTheirFormAreRefused() throws ControlException {
        PerftestKeys keys = new PerftestKeys(1, 2, 3, 4, 5, 6, GID, 7);
        assertEquals(keys, PerftestKeys.parse(keys.serialize(true), true));
        assertThrows(ControlException.class, () -> PerftestKeys.parse(concat(keys.serialize(true), new byte[1]), true));
        assertThrows(ControlException.class, () -> PerftestKeys.parse(Arrays.copyOf(keys.serialize(true), 107), true));
        assertEquals(new PerftestKeys(1, 2, 3, 4, 5, 6, Gid.ZERO, 7), PerftestKeys.parse(keys.serialize(false), false));
    }

    /** The MTU a peer sends as text, "1".."5" then NUL (or anything not a digit): each side keeps the smaller. */
    @Test
    void thePeersMtuFieldIsOneDigitOneToFiveAndTheSmallerMtuIsKept() throws ControlException {
        assertEquals(Mtu.MTU_256, peer(ascii("1\0"), true).mtu(Mtu.MTU_4096));
        assertEquals(Mtu.MTU_4096, peer(ascii("5\0"), true).mtu(Mtu.MTU_4096), "an equal MTU is kept");
        assertEquals(Mtu.MTU_2048, peer(ascii("4x"), true).mtu(Mtu.MTU_4096), "a non-digit ends the number");
        assertEquals(Mtu.MTU_4096, peer(ascii("0\0"), true).mtu(Mtu.MTU_4096), "0 is no MTU: ours is kept");
        assertEquals(Mtu.MTU_4096, peer(ascii("6\0"), true).mtu(Mtu.MTU_4096), "6 is no MTU: ours is kept");
        assertEquals(Mtu.MTU_4096, peer(ascii("12"), true).mtu(Mtu.MTU_4096), "two digits are no MTU");
        assertEquals(Mtu.MTU_512, peer(ascii("3\0"), true).mtu(Mtu.MTU_512), "a larger peer MTU leaves ours");
    }

    @Test
    void keysOfTheRightLengthButAnotherFormAreRefused() {
        byte[] keys = new PerftestKeys(1, 2, 3, 4, 5, 6, org.rdmalab.verbs.Gid.ZERO, 0).serialize(false);
        byte[] bad = keys.clone();
        bad[4] = '-'; // the colon after the LID
        ControlException e = assertThrows(ControlException.class, () -> PerftestKeys.parse(bad, false));
        assertTrue(e.getMessage().startsWith("expected perftest's 59-byte LID:OUT_READS:QPN:PSN:RKEY:VADDR:SRQN"
                + " message, got 59 bytes: "), e.getMessage());
        byte[] longer = java.util.Arrays.copyOf(keys, keys.length + 1);
        ControlException e2 = assertThrows(ControlException.class, () -> PerftestKeys.parse(longer, false));
        assertTrue(e2.getMessage().contains("got 60 bytes"), e2.getMessage());
    }

    @Test
    void theKeysSentAreThoseOfTheConnectionDataWithTheReadsAllowedAndNoSrq() {
        ConnectionData data = new ConnectionData(QpType.RC, 0x000011, 0xa1b2c3, 0x0010, GID, 0x7f0011223000L, 0x1234,
                4096, Mtu.MTU_1024);
        assertEquals(new PerftestKeys(0x0010, 16, 0x000011, 0xa1b2c3, 0x1234, 0x7f0011223000L, GID, 0),
                PerftestKeys.from(data, 16));
    }

    @Test
    void malformedKeysAreReportedInTheFormExpectedAndOnlyTheFormWithoutAGidAsksAboutX() {
        PerftestKeys keys = new PerftestKeys(1, 2, 3, 4, 5, 6, GID, 7);
        ControlException withGid = assertThrows(ControlException.class,
                () -> PerftestKeys.parse(Arrays.copyOf(keys.serialize(true), 107), true));
        assertTrue(withGid.getMessage().startsWith("expected perftest's 108-byte LID:OUT_READS:QPN:PSN:RKEY:VADDR:GID:"
                + "SRQN message, got 107 bytes: \"0001:"), withGid.getMessage());
        assertTrue(withGid.getMessage().endsWith("\" (and 43 more bytes)"), "no word of -x: " + withGid.getMessage());
        ControlException withoutGid = assertThrows(ControlException.class,
                () -> PerftestKeys.parse(keys.serialize(true), false));
        assertTrue(withoutGid.getMessage().startsWith("expected perftest's 59-byte LID:OUT_READS:QPN:PSN:RKEY:VADDR:SRQN"
                + " message, got 108 bytes: "), withoutGid.getMessage());
        assertTrue(withoutGid.getMessage().endsWith("; does the peer use a GID (give both sides the same -x)?"),
                withoutGid.getMessage());
    }

    @Test
    void anEmptyOrNonDigitMtuFieldLeavesOurs() throws ControlException {
        assertEquals(Mtu.MTU_1024, peer(new byte[2], true).mtu(Mtu.MTU_1024), "an empty field is no MTU");
        assertEquals(Mtu.MTU_1024, peer(ascii("/\0"), true).mtu(Mtu.MTU_1024), "the character before '0' is no MTU");
    }
}
