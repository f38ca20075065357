package org.rdmalab.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.RnrTimer;
import org.rdmalab.wire.Dissection.Check;
import org.rdmalab.wire.Dissection.Field;
import org.rdmalab.wire.Dissection.Header;
import org.rdmalab.wire.Dissection.Layer;
import org.rdmalab.wire.Dissection.Meaning;

/**
 * A packet opened field by field: every header form's fields at the offsets the IBTA puts them,
 * with their values and meanings, the ICRC computed and compared (and a corrupted one found), the
 * IPv4 checksum checked, and what is malformed marked. Offsets below are counted by hand from the
 * specification's layouts: a rebuilt packet is IPv4 (20) + UDP (8) + RoCE, so the BTH starts at 28.
 */
class DissectorTest {

    private static final String CLIENT = "127.0.0.2:51234";
    private static final String SERVER = "127.0.0.1:4791";
    private static final byte[] HELLO = "HelloWorld\0".getBytes(StandardCharsets.US_ASCII);
    private static final int BTH = 28;

    /** A packet as soft0 sends it from the client to the server, ICRC over the canonical IPv4 header. */
    private static byte[] packet(Opcode opcode, int psn, boolean ackReq, Reth reth, Aeth aeth, AtomicEth atomic,
                                 AtomicAckEth atomicAck, int imm, byte[] payload) {
        ByteBuffer out = ByteBuffer.allocate(256);
        RocePacketEncoder.encode(out, opcode, 0x11, psn, ackReq, false, reth, aeth, atomic, atomicAck, imm, payload, 0,
                payload.length);
        Icrc.appendCanonicalIpv4(0x7F000002, 0x7F000001, 51234, 4791, out, 0);
        return Arrays.copyOf(out.array(), out.position());
    }

    private static Dissection open(byte[] roce) {
        return Dissector.udpPayload(roce, CLIENT, SERVER);
    }

    private static Field field(Dissection dissection, Layer layer, String name) {
        return dissection.field(layer, name).orElseThrow(() -> new AssertionError("no " + layer + " " + name));
    }

    private static void assertField(Dissection dissection, Layer layer, String name, int offset, int length, long mask,
                                    String value) {
        Field field = field(dissection, layer, name);
        assertEquals(offset, field.offset(), name + " offset");
        assertEquals(length, field.length(), name + " length");
        assertEquals(mask, field.mask(), name + " mask");
        assertEquals(value, field.value(), name + " value");
    }

    private static void assertMeaning(Field field, String key, String... args) {
        assertEquals(new Meaning(key, List.of(args)), field.meaning(), field.name());
    }

    private static List<Layer> layers(Dissection dissection) {
        return dissection.headers().stream().map(Header::layer).toList();
    }

    /** The headers follow each other with no gap and no overlap, from byte 0 to the last. */
    private static void assertCoversEveryByte(Dissection dissection) {
        int at = 0;
        for (Header header : dissection.headers()) {
            assertEquals(at, header.offset(), header.name() + " starts where the one before ended");
            for (Field field : header.fields()) {
                assertTrue(field.offset() >= header.offset()
                        && field.offset() + field.length() <= header.offset() + header.length(),
                        field.name() + " lies inside " + header.name());
            }
            at += header.length();
        }
        assertEquals(dissection.length(), at, "the headers end at the last byte");
    }

    @Test
    void theSeedsWriteOpensAsIpv4UdpBthRethPayloadPadAndAGoodIcrc() {
        Reth reth = new Reth(0x00007f3a5c400000L, 0x1234, 11);
        Dissection dissection = open(packet(Opcode.RC_RDMA_WRITE_ONLY, 0x000abc, true, reth, null, null, null, 0,
                HELLO));
        assertEquals(List.of(Layer.IPV4, Layer.UDP, Layer.BTH, Layer.RETH, Layer.PAYLOAD, Layer.PAD, Layer.ICRC),
                layers(dissection));
        assertCoversEveryByte(dissection);
        assertTrue(dissection.rebuiltIp());
        assertNull(dissection.problem());

        assertField(dissection, Layer.IPV4, "Version", 0, 1, 0xF0, "4");
        assertField(dissection, Layer.IPV4, "Header Length", 0, 1, 0x0F, "20 bytes (5)");
        assertField(dissection, Layer.IPV4, "Total Length", 2, 2, 0, Integer.toString(20 + 8 + 12 + 16 + 12 + 4));
        assertField(dissection, Layer.IPV4, "Identification", 4, 2, 0, "0x0000 (0)");
        assertMeaning(field(dissection, Layer.IPV4, "Identification"), "ip.id.zero");
        assertField(dissection, Layer.IPV4, "Flags", 6, 2, 0xE000, "0x2");
        assertMeaning(field(dissection, Layer.IPV4, "Flags"), "ip.df");
        assertField(dissection, Layer.IPV4, "Protocol", 9, 1, 0, "17 (UDP)");
        assertField(dissection, Layer.IPV4, "Source Address", 12, 4, 0, "127.0.0.2");
        assertField(dissection, Layer.IPV4, "Destination Address", 16, 4, 0, "127.0.0.1");
        assertMeaning(field(dissection, Layer.IPV4, "Time to Live"), "rebuilt.masked");
        assertEquals(new Meaning("rebuilt.ip", List.of("127.0.0.2", "127.0.0.1")),
                dissection.header(Layer.IPV4).orElseThrow().summary());

        assertField(dissection, Layer.UDP, "Source Port", 20, 2, 0, "51234");
        assertField(dissection, Layer.UDP, "Destination Port", 22, 2, 0, "4791");
        assertMeaning(field(dissection, Layer.UDP, "Destination Port"), "udp.roce");
        assertField(dissection, Layer.UDP, "Length", 24, 2, 0, Integer.toString(8 + 12 + 16 + 12 + 4));

        assertField(dissection, Layer.BTH, "Opcode", BTH, 1, 0, "RC_RDMA_WRITE_ONLY (0x0a)");
        assertMeaning(field(dissection, Layer.BTH, "Opcode"), "opcode.rc", "RETH, payload");
        assertField(dissection, Layer.BTH, "Solicited Event", BTH + 1, 1, 0x80, "0");
        assertMeaning(field(dissection, Layer.BTH, "Solicited Event"), "bth.se.clear");
        assertField(dissection, Layer.BTH, "MigReq", BTH + 1, 1, 0x40, "0");
        assertField(dissection, Layer.BTH, "Pad Count", BTH + 1, 1, 0x30, "1");
        assertMeaning(field(dissection, Layer.BTH, "Pad Count"), "bth.pad", "1");
        assertField(dissection, Layer.BTH, "Header Version", BTH + 1, 1, 0x0F, "0");
        assertField(dissection, Layer.BTH, "Partition Key", BTH + 2, 2, 0, "0xffff");
        assertMeaning(field(dissection, Layer.BTH, "Partition Key"), "bth.pkey.default");
        assertField(dissection, Layer.BTH, "FECN", BTH + 4, 1, 0x80, "0");
        assertField(dissection, Layer.BTH, "BECN", BTH + 4, 1, 0x40, "0");
        assertField(dissection, Layer.BTH, "Destination Queue Pair", BTH + 5, 3, 0, "0x000011 (17)");
        assertField(dissection, Layer.BTH, "Acknowledge Request", BTH + 8, 1, 0x80, "1");
        assertMeaning(field(dissection, Layer.BTH, "Acknowledge Request"), "bth.ackreq.set");
        assertField(dissection, Layer.BTH, "Packet Sequence Number", BTH + 9, 3, 0, "2748");
        assertMeaning(field(dissection, Layer.BTH, "Packet Sequence Number"), "bth.psn.request");

        assertField(dissection, Layer.RETH, "Virtual Address", BTH + 12, 8, 0, "0x00007f3a5c400000");
        assertField(dissection, Layer.RETH, "Remote Key", BTH + 20, 4, 0, "0x00001234");
        assertField(dissection, Layer.RETH, "DMA Length", BTH + 24, 4, 0, "11");
        assertEquals(new Meaning("reth", List.of("0x00007f3a5c400000", "0x00001234", "11")),
                dissection.header(Layer.RETH).orElseThrow().summary());

        Header payload = dissection.header(Layer.PAYLOAD).orElseThrow();
        assertEquals(BTH + 28, payload.offset());
        assertEquals(11, payload.length());
        assertEquals("48 65 6c 6c 6f 57 6f 72 …", payload.fields().get(0).value());
        Header pad = dissection.header(Layer.PAD).orElseThrow();
        assertEquals(BTH + 39, pad.offset());
        assertEquals(1, pad.length());

        Header icrc = dissection.header(Layer.ICRC).orElseThrow();
        assertEquals(BTH + 40, icrc.offset());
        assertEquals(4, icrc.length());
        assertEquals(Check.GOOD, dissection.icrcCheck());
        byte[] bytes = dissection.bytes();
        String onWire = String.format("0x%08x", Icrc.read(bytes, BTH + 40));
        assertEquals(onWire, icrc.fields().get(0).value());
        assertEquals(new Meaning("icrc.good", List.of(onWire)), icrc.summary());
    }

    @Test
    void aCorruptedPacketsIcrcIsBadAndNamesTheComputedValue() {
        byte[] good = packet(Opcode.RC_RDMA_WRITE_ONLY, 5, true, new Reth(0x1000, 0x77, 11), null, null, null, 0,
                HELLO);
        int sent = Icrc.read(good, good.length - 4);
        byte[] corrupted = good.clone();
        corrupted[12 + 16 + 3] ^= 0x08; // bit 3 of the payload's 4th byte, as the fault injector flips one
        Dissection dissection = open(corrupted);
        assertEquals(Check.BAD, dissection.icrcCheck());
        int computed = Icrc.forCanonicalIpv4(0x7F000002, 0x7F000001, 51234, 4791, corrupted, 0, corrupted.length - 4);
        assertFalse(computed == sent);
        Field icrc = field(dissection, Layer.ICRC, "ICRC");
        assertEquals(String.format("0x%08x", sent), icrc.value());
        assertEquals(Check.BAD, icrc.check());
        assertMeaning(icrc, "icrc.bad", String.format("0x%08x", computed));
        assertTrue(dissection.problem().contains("does not match"), dissection.problem());
        // The corrupted byte still reads as it arrived: nothing is hidden.
        assertEquals(Check.GOOD, open(good).icrcCheck());
    }

    @Test
    void theBitsTheIcrcMasksDoNotBreakItAndTheOthersDo() {
        byte[] good = packet(Opcode.RC_SEND_ONLY, 9, true, null, null, null, null, 0, HELLO);
        byte[] becn = good.clone();
        becn[4] |= (byte) Bth.BECN; // byte 4 is masked to 0xFF in the ICRC
        Dissection marked = open(becn);
        assertEquals(Check.GOOD, marked.icrcCheck());
        assertEquals("1", field(marked, Layer.BTH, "BECN").value());
        assertMeaning(field(marked, Layer.BTH, "BECN"), "bth.becn.set");
        byte[] se = good.clone();
        se[1] |= (byte) 0x80; // byte 1 (SE) is not
        Dissection solicited = open(se);
        assertEquals(Check.BAD, solicited.icrcCheck());
        assertEquals("1", field(solicited, Layer.BTH, "Solicited Event").value());
        assertEquals("1... ....", field(solicited, Layer.BTH, "Solicited Event").bitPattern(solicited.bytes()));
        assertEquals("..01 ....", field(solicited, Layer.BTH, "Pad Count").bitPattern(solicited.bytes()));
    }

    @Test
    void anAckSaysItsMsnAndThatRxeSendsNoCredits() {
        Dissection dissection = open(packet(Opcode.RC_ACKNOWLEDGE, 0x000abc, false, null, Aeth.ack(3), null, null, 0,
                new byte[0]));
        assertEquals(List.of(Layer.IPV4, Layer.UDP, Layer.BTH, Layer.AETH, Layer.ICRC), layers(dissection));
        assertCoversEveryByte(dissection);
        assertMeaning(field(dissection, Layer.BTH, "Opcode"), "opcode.rc", "AETH");
        assertMeaning(field(dissection, Layer.BTH, "Packet Sequence Number"), "bth.psn.ack");
        assertMeaning(field(dissection, Layer.BTH, "Acknowledge Request"), "bth.ackreq.response");
        assertField(dissection, Layer.AETH, "Syndrome", BTH + 12, 1, 0, "0x1f");
        assertMeaning(field(dissection, Layer.AETH, "Syndrome"), "aeth.ack.noCredits", "31");
        assertField(dissection, Layer.AETH, "Syndrome Type", BTH + 12, 1, 0x60, "0");
        assertField(dissection, Layer.AETH, "Credit Count", BTH + 12, 1, 0x1F, "31");
        assertMeaning(field(dissection, Layer.AETH, "Credit Count"), "aeth.credits.invalid", "31");
        assertField(dissection, Layer.AETH, "Message Sequence Number", BTH + 13, 3, 0, "3");
        assertEquals(Check.GOOD, dissection.icrcCheck());

        Dissection credits = open(packet(Opcode.RC_ACKNOWLEDGE, 1, false, null, new Aeth(0x1E, 4), null, null, 0,
                new byte[0]));
        assertMeaning(field(credits, Layer.AETH, "Syndrome"), "aeth.ack", "30");
    }

    @Test
    void anRnrNakSaysItsTimerInMilliseconds() {
        Dissection dissection = open(packet(Opcode.RC_ACKNOWLEDGE, 7, false, null, Aeth.rnrNak(14, 2), null, null, 0,
                new byte[0]));
        assertField(dissection, Layer.AETH, "Syndrome", BTH + 12, 1, 0, "0x2e");
        assertMeaning(field(dissection, Layer.AETH, "Syndrome"), "aeth.rnr", "14", "1.28");
        assertField(dissection, Layer.AETH, "Syndrome Type", BTH + 12, 1, 0x60, "1");
        assertField(dissection, Layer.AETH, "RNR Timer", BTH + 12, 1, 0x1F, "14");
        assertMeaning(field(dissection, Layer.AETH, "RNR Timer"), "aeth.rnrTimer", "1.28");
        Dissection longest = open(packet(Opcode.RC_ACKNOWLEDGE, 7, false, null, Aeth.rnrNak(0, 2), null, null, 0,
                new byte[0]));
        assertMeaning(field(longest, Layer.AETH, "Syndrome"), "aeth.rnr", "0", "655.36");
        Dissection shortest = open(packet(Opcode.RC_ACKNOWLEDGE, 7, false, null, Aeth.rnrNak(1, 2), null, null, 0,
                new byte[0]));
        assertMeaning(field(shortest, Layer.AETH, "Syndrome"), "aeth.rnr", "1", "0.01");
        Dissection code31 = open(packet(Opcode.RC_ACKNOWLEDGE, 7, false, null, Aeth.rnrNak(31, 2), null, null, 0,
                new byte[0]));
        assertMeaning(field(code31, Layer.AETH, "Syndrome"), "aeth.rnr", "31", "491.52");
    }

    @Test
    void theRnrTimerTableIsTheOneTheVerbsUse() {
        for (int code = 0; code < 32; code++) {
            assertEquals(RnrTimer.nanos(code), Dissector.rnrTimerMicros(code) * 1000, "code " + code);
        }
        assertThrows(IllegalArgumentException.class, () -> Dissector.rnrTimerMicros(32));
        assertThrows(IllegalArgumentException.class, () -> Dissector.rnrTimerMicros(-1));
    }

    @Test
    void eachNakCodeIsNamedAndAReservedOneIsMarkedBad() {
        String[] keys = {"aeth.nak.psnSequenceError", "aeth.nak.invalidRequest", "aeth.nak.remoteAccessError",
            "aeth.nak.remoteOperationalError"};
        for (int code = 0; code < 4; code++) {
            Dissection dissection = open(packet(Opcode.RC_ACKNOWLEDGE, 7, false, null, Aeth.nak(code, 1), null, null,
                    0, new byte[0]));
            assertField(dissection, Layer.AETH, "Syndrome", BTH + 12, 1, 0, String.format("0x%02x", 0x60 | code));
            assertMeaning(field(dissection, Layer.AETH, "Syndrome"), keys[code], Integer.toString(code));
            assertField(dissection, Layer.AETH, "Syndrome Type", BTH + 12, 1, 0x60, "3");
            assertField(dissection, Layer.AETH, "NAK Code", BTH + 12, 1, 0x1F, Integer.toString(code));
            assertMeaning(field(dissection, Layer.AETH, "NAK Code"), "aeth.nakCode", Integer.toString(code),
                    Aeth.nakName(code));
            assertEquals(Check.NONE, dissection.header(Layer.AETH).orElseThrow().check());
        }
        Dissection reserved = open(packet(Opcode.RC_ACKNOWLEDGE, 7, false, null, Aeth.nak(4, 1), null, null, 0,
                new byte[0]));
        assertMeaning(field(reserved, Layer.AETH, "Syndrome"), "aeth.nak.reserved", "4");
        assertEquals(Check.BAD, reserved.header(Layer.AETH).orElseThrow().check());
        Dissection type2 = open(packet(Opcode.RC_ACKNOWLEDGE, 7, false, null, new Aeth(0x40, 1), null, null, 0,
                new byte[0]));
        assertMeaning(field(type2, Layer.AETH, "Syndrome"), "aeth.reserved");
        assertEquals(Check.BAD, type2.header(Layer.AETH).orElseThrow().check());
    }

    @Test
    void aCompareAndSwapAndAFetchAndAddCarryTheirAtomicEth() {
        AtomicEth atomic = new AtomicEth(0x00007f0000000008L, 0xabcd, 0x1111L, 0x2222L);
        Dissection swap = open(packet(Opcode.RC_COMPARE_SWAP, 3, true, null, null, atomic, null, 0, new byte[0]));
        assertEquals(List.of(Layer.IPV4, Layer.UDP, Layer.BTH, Layer.ATOMIC_ETH, Layer.ICRC), layers(swap));
        assertCoversEveryByte(swap);
        assertField(swap, Layer.ATOMIC_ETH, "Virtual Address", BTH + 12, 8, 0, "0x00007f0000000008");
        assertField(swap, Layer.ATOMIC_ETH, "Remote Key", BTH + 20, 4, 0, "0x0000abcd");
        assertField(swap, Layer.ATOMIC_ETH, "Swap (Or Add) Data", BTH + 24, 8, 0, "0x0000000000001111");
        assertMeaning(field(swap, Layer.ATOMIC_ETH, "Swap (Or Add) Data"), "atomic.swapData");
        assertField(swap, Layer.ATOMIC_ETH, "Compare Data", BTH + 32, 8, 0, "0x0000000000002222");
        assertMeaning(field(swap, Layer.ATOMIC_ETH, "Compare Data"), "atomic.compareData");
        assertEquals(Check.GOOD, swap.icrcCheck());

        Dissection add = open(packet(Opcode.RC_FETCH_ADD, 3, true, null, null, atomic, null, 0, new byte[0]));
        assertMeaning(field(add, Layer.ATOMIC_ETH, "Swap (Or Add) Data"), "atomic.addData");
        assertMeaning(field(add, Layer.ATOMIC_ETH, "Compare Data"), "atomic.compareIgnored");
    }

    @Test
    void anAtomicAcknowledgeCarriesTheAethThenTheOriginalData() {
        Dissection dissection = open(packet(Opcode.RC_ATOMIC_ACKNOWLEDGE, 3, false, null, Aeth.ack(1), null,
                new AtomicAckEth(0x0123456789abcdefL), 0, new byte[0]));
        assertEquals(List.of(Layer.IPV4, Layer.UDP, Layer.BTH, Layer.AETH, Layer.ATOMIC_ACK_ETH, Layer.ICRC),
                layers(dissection));
        assertCoversEveryByte(dissection);
        assertField(dissection, Layer.AETH, "Message Sequence Number", BTH + 13, 3, 0, "1");
        assertField(dissection, Layer.ATOMIC_ACK_ETH, "Original Remote Data", BTH + 16, 8, 0, "0x0123456789abcdef");
        assertMeaning(field(dissection, Layer.BTH, "Opcode"), "opcode.rc", "AETH, AtomicAckETH");
    }

    @Test
    void aWriteWithImmediateCarriesTheRethThenTheImmDt() {
        Dissection dissection = open(packet(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 3, true,
                new Reth(0x2000, 0x55, 4), null, null, null, 0xCAFEF00D, new byte[] {1, 2, 3, 4}));
        assertEquals(List.of(Layer.IPV4, Layer.UDP, Layer.BTH, Layer.RETH, Layer.IMM_DT, Layer.PAYLOAD, Layer.ICRC),
                layers(dissection));
        assertCoversEveryByte(dissection);
        assertField(dissection, Layer.IMM_DT, "Immediate Data", BTH + 28, 4, 0, "0xcafef00d");
        assertEquals(BTH + 32, dissection.header(Layer.PAYLOAD).orElseThrow().offset());
        assertField(dissection, Layer.BTH, "Pad Count", BTH + 1, 1, 0x30, "0");

        Dissection send = open(packet(Opcode.RC_SEND_LAST_WITH_IMMEDIATE, 4, true, null, null, null, null, 7,
                new byte[] {9}));
        assertEquals(List.of(Layer.IPV4, Layer.UDP, Layer.BTH, Layer.IMM_DT, Layer.PAYLOAD, Layer.PAD, Layer.ICRC),
                layers(send));
        assertEquals(3, send.header(Layer.PAD).orElseThrow().length());
    }

    @Test
    void aReadRequestAndItsResponsesSayWhatTheirPsnsAre() {
        Dissection request = open(packet(Opcode.RC_RDMA_READ_REQUEST, 10, true, new Reth(0x3000, 0x66, 8192), null,
                null, null, 0, new byte[0]));
        assertEquals(List.of(Layer.IPV4, Layer.UDP, Layer.BTH, Layer.RETH, Layer.ICRC), layers(request));
        assertField(request, Layer.RETH, "DMA Length", BTH + 24, 4, 0, "8192");
        Dissection first = open(packet(Opcode.RC_RDMA_READ_RESPONSE_FIRST, 10, false, null, Aeth.ack(0), null, null,
                0, new byte[8]));
        assertEquals(List.of(Layer.IPV4, Layer.UDP, Layer.BTH, Layer.AETH, Layer.PAYLOAD, Layer.ICRC), layers(first));
        assertMeaning(field(first, Layer.BTH, "Packet Sequence Number"), "bth.psn.readResponse");
        Dissection middle = open(packet(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, 11, false, null, null, null, null, 0,
                new byte[8]));
        assertEquals(List.of(Layer.IPV4, Layer.UDP, Layer.BTH, Layer.PAYLOAD, Layer.ICRC), layers(middle));
    }

    @Test
    void aPartitionKeyOtherThanTheDefaultSaysItsMembership() {
        ByteBuffer out = ByteBuffer.allocate(64);
        RocePacketEncoder.encode(out, new Bth(Opcode.RC_SEND_ONLY, true, true, 0, 0, 0x8012, 0, 0x11, false, 1), null,
                null, null, null, 0, new byte[4], 0, 4);
        Icrc.appendCanonicalIpv4(0x7F000002, 0x7F000001, 51234, 4791, out, 0);
        Dissection full = open(Arrays.copyOf(out.array(), out.position()));
        assertMeaning(field(full, Layer.BTH, "Partition Key"), "bth.pkey.full", "0x0012");
        assertMeaning(field(full, Layer.BTH, "Solicited Event"), "bth.se.set");
        assertMeaning(field(full, Layer.BTH, "MigReq"), "bth.mig.set");
        out.clear();
        RocePacketEncoder.encode(out, new Bth(Opcode.RC_SEND_ONLY, false, false, 0, 0, 0x0012, 0, 0x11, false, 1),
                null, null, null, null, 0, new byte[4], 0, 4);
        Icrc.appendCanonicalIpv4(0x7F000002, 0x7F000001, 51234, 4791, out, 0);
        Dissection limited = open(Arrays.copyOf(out.array(), out.position()));
        assertMeaning(field(limited, Layer.BTH, "Partition Key"), "bth.pkey.limited", "0x0012");
    }

    @Test
    void aKernelRxePacketsCountedIdentificationIsRecoveredFromItsIcrc() {
        byte[] roce = packet(Opcode.RC_SEND_ONLY, 9, true, null, null, null, null, 0, HELLO);
        byte[] ip = new byte[20];
        Ipv4Header.write(ByteBuffer.wrap(ip), 0x7F000002, 0x7F000001, 8 + roce.length, 0, 64, 0x1234);
        byte[] udp = ByteBuffer.allocate(8).putShort((short) 51234).putShort((short) 4791)
                .putShort((short) (8 + roce.length)).putShort((short) 0).array();
        Icrc.append(ip, 0, 20, udp, 0, roce, 0, roce.length - 4);
        Dissection dissection = open(roce);
        assertEquals(Check.GOOD, dissection.icrcCheck());
        assertField(dissection, Layer.IPV4, "Identification", 4, 2, 0, "0x1234 (4660)");
        assertMeaning(field(dissection, Layer.IPV4, "Identification"), "ip.id.recovered");
    }

    /** A frame as tcpdump takes it: Ethernet II, IPv4 with the given ID, UDP with a checksum, RoCE. */
    private static byte[] ethernetFrame(byte[] roce, int id) {
        ByteBuffer frame = ByteBuffer.allocate(14 + 20 + 8 + roce.length);
        frame.put(new byte[] {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2}).putShort((short) 0x0800);
        Ipv4Header.write(frame, 0x0A000001, 0x0A000002, 8 + roce.length, 0x02, 63, id);
        frame.putShort((short) 0xC123).putShort((short) 4791).putShort((short) (8 + roce.length))
                .putShort((short) 0xBEEF);
        frame.put(roce);
        byte[] bytes = frame.array();
        Icrc.append(bytes, 14, 20, bytes, 34, bytes, 42, roce.length - 4);
        return bytes;
    }

    @Test
    void aCapturedEthernetFrameOpensWithItsRealHeadersChecked() {
        byte[] roce = packet(Opcode.RC_RDMA_WRITE_ONLY, 1, true, new Reth(0x1000, 0x77, 11), null, null, null, 0,
                HELLO);
        byte[] frame = ethernetFrame(roce, 0x4321);
        Dissection dissection = Dissector.frame(frame, 14);
        assertEquals(List.of(Layer.ETHERNET, Layer.IPV4, Layer.UDP, Layer.BTH, Layer.RETH, Layer.PAYLOAD, Layer.PAD,
                Layer.ICRC), layers(dissection));
        assertCoversEveryByte(dissection);
        assertFalse(dissection.rebuiltIp());
        assertField(dissection, Layer.ETHERNET, "Destination", 0, 6, 0, "02:00:00:00:00:01");
        assertField(dissection, Layer.ETHERNET, "Source", 6, 6, 0, "02:00:00:00:00:02");
        assertField(dissection, Layer.ETHERNET, "Type", 12, 2, 0, "0x0800");
        assertField(dissection, Layer.IPV4, "Identification", 18, 2, 0, "0x4321 (17185)");
        assertMeaning(field(dissection, Layer.IPV4, "Identification"), "ip.id");
        assertField(dissection, Layer.IPV4, "Explicit Congestion Notification", 15, 1, 0x03, "2");
        assertMeaning(field(dissection, Layer.IPV4, "Explicit Congestion Notification"), "ecn.ect", "ECT(0)");
        assertField(dissection, Layer.IPV4, "Time to Live", 22, 1, 0, "63");
        assertEquals(Check.GOOD, field(dissection, Layer.IPV4, "Header Checksum").check());
        assertField(dissection, Layer.UDP, "Checksum", 40, 2, 0, "0xbeef");
        assertField(dissection, Layer.BTH, "Opcode", 42, 1, 0, "RC_RDMA_WRITE_ONLY (0x0a)");
        assertEquals(Check.GOOD, dissection.icrcCheck());

        byte[] badChecksum = frame.clone();
        badChecksum[24] ^= 1; // the IPv4 header checksum's low byte: the ICRC masks it, the checksum does not
        Dissection broken = Dissector.frame(badChecksum, 14);
        assertEquals(Check.BAD, field(broken, Layer.IPV4, "Header Checksum").check());
        assertEquals(Check.BAD, broken.header(Layer.IPV4).orElseThrow().check());
        assertEquals(Check.GOOD, broken.icrcCheck());

        byte[] otherId = frame.clone();
        otherId[19] ^= 1; // the identification is covered by the ICRC
        assertEquals(Check.BAD, Dissector.frame(otherId, 14).icrcCheck());
    }

    @Test
    void ethernetPaddingAfterTheIpPacketIsATrailerNotPayload() {
        byte[] roce = packet(Opcode.RC_ACKNOWLEDGE, 1, false, null, Aeth.ack(1), null, null, 0, new byte[0]);
        byte[] frame = Arrays.copyOf(ethernetFrame(roce, 7), 14 + 20 + 8 + roce.length + 6);
        Dissection dissection = Dissector.frame(frame, 14);
        assertCoversEveryByte(dissection);
        Header trailer = dissection.headers().get(dissection.headers().size() - 1);
        assertEquals(Layer.DATA, trailer.layer());
        assertEquals("Trailer", trailer.name());
        assertEquals(6, trailer.length());
        assertEquals(Check.GOOD, dissection.icrcCheck());
    }

    @Test
    void anIpv6FrameOpensWithItsHeaderAndItsIcrcChecked() {
        byte[] roce = packet(Opcode.RC_SEND_ONLY, 2, true, null, null, null, null, 0, new byte[] {1, 2, 3, 4});
        ByteBuffer frame = ByteBuffer.allocate(40 + 8 + roce.length);
        frame.putInt(0x6_0A_12345).putShort((short) (8 + roce.length)).put((byte) 17).put((byte) 64);
        byte[] source = new byte[16];
        source[0] = (byte) 0xfe;
        source[1] = (byte) 0x80;
        source[15] = 1;
        byte[] destination = source.clone();
        destination[15] = 2;
        frame.put(source).put(destination);
        frame.putShort((short) 0xC000).putShort((short) 4791).putShort((short) (8 + roce.length)).putShort((short) 0);
        frame.put(roce);
        byte[] bytes = frame.array();
        Icrc.append(bytes, 0, 40, bytes, 40, bytes, 48, roce.length - 4);
        Dissection dissection = Dissector.frame(bytes, 0);
        assertEquals(List.of(Layer.IPV6, Layer.UDP, Layer.BTH, Layer.PAYLOAD, Layer.ICRC), layers(dissection));
        assertCoversEveryByte(dissection);
        assertField(dissection, Layer.IPV6, "Traffic Class", 0, 4, 0x0FF00000L, "0x0a");
        assertMeaning(field(dissection, Layer.IPV6, "Traffic Class"), "ip6.tc", "2", "2");
        assertField(dissection, Layer.IPV6, "Flow Label", 0, 4, 0x000FFFFFL, "0x12345");
        assertField(dissection, Layer.IPV6, "Source Address", 8, 16, 0, "fe80:0:0:0:0:0:0:1");
        assertEquals(Check.GOOD, dissection.icrcCheck());
    }

    @Test
    void aLinuxCookedCaptureAndAVlanTagOpenAsTheirLinkHeaders() {
        byte[] roce = packet(Opcode.RC_ACKNOWLEDGE, 1, false, null, Aeth.ack(1), null, null, 0, new byte[0]);
        byte[] ethernet = ethernetFrame(roce, 1);
        byte[] cooked = new byte[16 + ethernet.length - 14];
        ByteBuffer.wrap(cooked).putShort((short) 4).putShort((short) 1).putShort((short) 6)
                .put(new byte[] {2, 0, 0, 0, 0, 2, 0, 0}).putShort((short) 0x0800);
        System.arraycopy(ethernet, 14, cooked, 16, ethernet.length - 14);
        Dissection sll = Dissector.frame(cooked, 16);
        assertEquals(Layer.LINK, sll.headers().get(0).layer());
        assertField(sll, Layer.LINK, "Packet type", 0, 2, 0, "4");
        assertMeaning(field(sll, Layer.LINK, "Packet type"), "sll.outgoing");
        assertField(sll, Layer.LINK, "Source", 6, 8, 0, "02:00:00:00:00:02");
        assertField(sll, Layer.LINK, "Protocol", 14, 2, 0, "0x0800");
        assertEquals(Check.GOOD, sll.icrcCheck());
        assertCoversEveryByte(sll);

        byte[] tagged = new byte[ethernet.length + 4];
        System.arraycopy(ethernet, 0, tagged, 0, 12);
        ByteBuffer.wrap(tagged, 12, 6).putShort((short) 0x8100).putShort((short) (3 << 13 | 42)).putShort((short) 0x0800);
        System.arraycopy(ethernet, 14, tagged, 18, ethernet.length - 14);
        Dissection vlan = Dissector.frame(tagged, 18);
        assertEquals("Ethernet II, 802.1Q", vlan.headers().get(0).name());
        assertField(vlan, Layer.ETHERNET, "Priority", 14, 2, 0xE000, "3");
        assertField(vlan, Layer.ETHERNET, "ID", 14, 2, 0x0FFF, "42");
        assertEquals(Check.GOOD, vlan.icrcCheck());
        assertCoversEveryByte(vlan);
    }

    @Test
    void malformedPacketsAreMarkedAndTheRestShownAsData() {
        byte[] unknown = packet(Opcode.RC_SEND_ONLY, 1, true, null, null, null, null, 0, new byte[] {1, 2, 3, 4});
        unknown[0] = 0x1F;
        Dissection dissection = open(unknown);
        assertEquals("unknown opcode 0x1f", dissection.problem());
        assertEquals(Check.BAD, field(dissection, Layer.BTH, "Opcode").check());
        assertEquals(Layer.DATA, dissection.headers().get(3).layer());
        assertEquals(Check.BAD, dissection.headers().get(3).check());
        assertEquals(Layer.ICRC, dissection.headers().get(4).layer());
        assertCoversEveryByte(dissection);

        byte[] write = packet(Opcode.RC_RDMA_WRITE_ONLY, 1, true, new Reth(1, 2, 3), null, null, null, 0, new byte[0]);
        byte[] cut = Arrays.copyOf(write, 12 + 10 + 4); // a RETH of 10 bytes out of 16
        Dissection shortReth = open(cut);
        assertTrue(shortReth.problem().startsWith("RC_RDMA_WRITE_ONLY too short"), shortReth.problem());
        assertFalse(shortReth.header(Layer.RETH).isPresent());
        assertCoversEveryByte(shortReth);

        Dissection tiny = open(new byte[] {0x11, 0, 0, 0});
        assertTrue(tiny.problem().startsWith("packet too short"), tiny.problem());
        assertCoversEveryByte(tiny);

        byte[] tver = packet(Opcode.RC_SEND_ONLY, 1, true, null, null, null, null, 0, new byte[4]);
        tver[1] |= 1;
        Dissection version = open(tver);
        assertEquals(Check.BAD, field(version, Layer.BTH, "Header Version").check());
        assertMeaning(field(version, Layer.BTH, "Header Version"), "bth.tver.bad");
    }

    @Test
    void aPacketWithoutAnIpv4AddressIsOpenedWithoutIpAndItsIcrcUnchecked() {
        byte[] roce = packet(Opcode.RC_SEND_ONLY, 1, true, null, null, null, null, 0, new byte[4]);
        Dissection dissection = Dissector.udpPayload(roce, "[fe80::1]:4791", SERVER);
        assertEquals(List.of(Layer.BTH, Layer.PAYLOAD, Layer.ICRC), layers(dissection));
        assertEquals(Check.UNKNOWN, dissection.icrcCheck());
        assertEquals(0, dissection.header(Layer.BTH).orElseThrow().offset());
        assertEquals(Check.UNKNOWN, Dissector.udpPayload(roce, "127.0.0.300:1", SERVER).icrcCheck());
    }

    @Test
    void aByteLeadsToItsFieldAndAFieldToItsHeader() {
        Dissection dissection = open(packet(Opcode.RC_RDMA_WRITE_ONLY, 1, true, new Reth(1, 2, 3), null, null, null, 0,
                new byte[] {1, 2, 3}));
        assertEquals("Opcode", dissection.fieldAt(BTH).orElseThrow().name());
        assertEquals("Solicited Event", dissection.fieldAt(BTH + 1).orElseThrow().name());
        assertEquals("Destination Queue Pair", dissection.fieldAt(BTH + 7).orElseThrow().name());
        assertEquals("Packet Sequence Number", dissection.fieldAt(BTH + 11).orElseThrow().name());
        assertEquals("Virtual Address", dissection.fieldAt(BTH + 12).orElseThrow().name());
        assertEquals("Remote Key", dissection.fieldAt(BTH + 20).orElseThrow().name());
        assertEquals("DMA Length", dissection.fieldAt(BTH + 27).orElseThrow().name());
        assertEquals(Layer.PAYLOAD, dissection.headerAt(BTH + 28).orElseThrow().layer());
        assertEquals(Layer.ICRC, dissection.headerAt(dissection.length() - 1).orElseThrow().layer());
        assertFalse(dissection.fieldAt(dissection.length()).isPresent());
        Field rkey = field(dissection, Layer.RETH, "Remote Key");
        assertEquals(Layer.RETH, dissection.headerOf(rkey).orElseThrow().layer());
    }
}
