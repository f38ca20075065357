package org.rdmalab.control.lab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;

/**
 * The lab protocol's limits on both sides of each: string and field widths, message type and step
 * status codes, frame and snapshot sizes, what a snapshot answer holds, and a first frame that is
 * almost a hello. Without sockets: the peer is a script of frames.
 */
@Timeout(30)
class LabLimitsTest {

    private static byte[] hex(String spaced) {
        return HexFormat.of().parseHex(spaced.replaceAll("\\s+", ""));
    }

    private static byte[] frames(LabMessage... messages) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (LabMessage message : messages) {
            out.writeBytes(LabCodec.frame(message));
        }
        return out.toByteArray();
    }

    private static List<LabMessage> decodeAll(byte[] bytes) throws ControlException {
        ControlChannel channel = ControlChannel.of(new ByteArrayInputStream(bytes), new ByteArrayOutputStream(), "x");
        List<LabMessage> messages = new ArrayList<>();
        for (Optional<byte[]> payload = FrameCodec.readIfOpen(channel, FrameCodec.DEFAULT_MAX_PAYLOAD);
                payload.isPresent(); payload = FrameCodec.readIfOpen(channel, FrameCodec.DEFAULT_MAX_PAYLOAD)) {
            messages.add(LabCodec.decode(payload.get()));
        }
        return messages;
    }

    private static ControlChannel script(ByteArrayOutputStream sent, LabMessage... peer) {
        return ControlChannel.of(new ByteArrayInputStream(frames(peer)), sent, "p:1");
    }

    @Test
    void aStringMayHold65535BytesOfUtf8AndNotOneMore() throws ControlException {
        Sync longest = new Sync("a".repeat(Body.MAX_STRING));
        assertEquals(longest, LabCodec.decode(LabCodec.encode(longest)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Sync("a".repeat(Body.MAX_STRING + 1)));
        assertEquals("name is 65536 bytes of UTF-8; the limit is 65535", e.getMessage());
        // Counted in bytes, not characters: 32768 two-byte characters are 65536 bytes.
        assertThrows(IllegalArgumentException.class, () -> new ErrorMessage(1, "\u00e9".repeat(32768)));
    }

    @Test
    void messageTypesAre16BitsAndStepStatuses8() {
        assertEquals("UNKNOWN(0x0000)", MessageType.of(0).name());
        assertEquals("UNKNOWN(0xffff)", MessageType.of(0xffff).name());
        assertThrows(IllegalArgumentException.class, () -> MessageType.of(-1));
        assertThrows(IllegalArgumentException.class, () -> MessageType.of(0x10000));
        assertEquals("UNKNOWN(0xff)", StepStatus.of(0xff).name());
        assertThrows(IllegalArgumentException.class, () -> StepStatus.of(-1));
        assertThrows(IllegalArgumentException.class, () -> StepStatus.of(0x100));
        // A known code decodes to its name, an unknown one keeps its number.
        assertEquals("FAILED", StepStatus.of(StepStatus.FAILED.code()).name());
        assertEquals("SUCCEEDED", StepStatus.of(StepStatus.SUCCEEDED.code()).name());
        assertEquals(List.of("HELLO", "CONNECTION_DATA", "STEP_PROGRESS", "QP_STATE", "SYNC", "BUFFER_REQUEST",
                "BUFFER_REPLY", "ERROR", "BYE", "FACTS"), MessageType.known().stream().map(MessageType::name).toList());
    }

    @Test
    void aCodeEqualsOnlyTheSameCodeOfTheSameKind() {
        assertEquals(MessageType.of(0x7777), MessageType.of(0x7777), "an unknown code read twice is the same type");
        assertEquals(MessageType.of(0x7777).hashCode(), MessageType.of(0x7777).hashCode());
        assertNotEquals(MessageType.of(3), StepStatus.of(3), "STEP_PROGRESS is not the step status FAILED");
        assertNotEquals(MessageType.SYNC, MessageType.BYE);
        assertFalse(MessageType.SYNC.equals(null));
    }

    @Test
    void aStatusAndATypeWithTheSameNumberAreNotEqual() {
        assertEquals(MessageType.of(3), MessageType.of(3));
        assertNotEquals(MessageType.of(3), StepStatus.of(3));
        assertNotEquals(MessageType.of(3), MessageType.of(4));
        assertNotEquals(null, MessageType.of(3));
    }

    @Test
    void unknownMessagesAreEqualOnlyWithTheSameTypeAndBody() {
        UnknownMessage message = new UnknownMessage(MessageType.of(0x4242), new byte[] {1, 2, 3});
        UnknownMessage same = new UnknownMessage(MessageType.of(0x4242), new byte[] {1, 2, 3});
        assertEquals(message, same);
        assertEquals(message.hashCode(), same.hashCode());
        assertNotEquals(message, new UnknownMessage(MessageType.of(0x4243), new byte[] {1, 2, 3}));
        assertNotEquals(message, new UnknownMessage(MessageType.of(0x4242), new byte[] {1, 2, 4}));
        assertNotEquals(message, new Bye());
        assertEquals("UnknownMessage[UNKNOWN(0x4242), 3 bytes]", message.toString());
    }

    @Test
    void bufferRepliesAreEqualOnlyWithTheSameOffsetAndBytesAndShowAtMost32() {
        BufferReply reply = new BufferReply(4, new byte[] {'o', 'W'});
        assertEquals(reply, new BufferReply(4, new byte[] {'o', 'W'}));
        assertEquals(reply.hashCode(), new BufferReply(4, new byte[] {'o', 'W'}).hashCode());
        assertNotEquals(reply, new BufferReply(5, new byte[] {'o', 'W'}));
        assertNotEquals(reply, new BufferReply(4, new byte[] {'o', 'X'}));
        assertNotEquals(reply, new BufferRequest(4, 2));
        assertEquals("BufferReply[offset=4, 2 bytes: 6f57]", reply.toString());
        assertEquals("BufferReply[offset=0, 32 bytes: " + "00".repeat(32) + "]", new BufferReply(0, new byte[32])
                .toString());
        assertEquals("BufferReply[offset=0, 33 bytes: " + "00".repeat(32) + "...]", new BufferReply(0, new byte[33])
                .toString());
    }

    @Test
    void offsetsAndLengthsAboveTheSignedRangeAreMalformedAndZeroIsNot() throws ControlException {
        assertEquals(new BufferRequest(0, 0), LabCodec.decode(hex("00 06  00 00 00 00 00 00 00 00  00 00 00 00")));
        assertEquals(new BufferRequest(Long.MAX_VALUE, Integer.MAX_VALUE),
                LabCodec.decode(hex("00 06  7f ff ff ff ff ff ff ff  7f ff ff ff")));
        ControlException offset = assertThrows(ControlException.class,
                () -> LabCodec.decode(hex("00 06  80 00 00 00 00 00 00 00  00 00 00 04")));
        assertTrue(offset.getMessage().startsWith("malformed BUFFER_REQUEST message of 12 bytes: offset"
                + " 9223372036854775808 or length 4 is too large"), offset.getMessage());
        ControlException length = assertThrows(ControlException.class,
                () -> LabCodec.decode(hex("00 06  00 00 00 00 00 00 00 00  80 00 00 00")));
        assertTrue(length.getMessage().contains("offset 0 or length 2147483648 is too large"), length.getMessage());
        assertEquals(new BufferReply(0, new byte[0]), LabCodec.decode(hex("00 07  00 00 00 00 00 00 00 00")));
        ControlException reply = assertThrows(ControlException.class,
                () -> LabCodec.decode(hex("00 07  ff ff ff ff ff ff ff ff  41")));
        assertTrue(reply.getMessage().startsWith("malformed BUFFER_REPLY message of 9 bytes: offset"
                + " 18446744073709551615 is too large"), reply.getMessage());
    }

    @Test
    void aHelloWithAnotherMagicIsMalformed() {
        ControlException e = assertThrows(ControlException.class,
                () -> LabCodec.decode(hex("00 01  52 4c 41 43  00 01  00 00")));
        assertTrue(e.getMessage().startsWith("malformed HELLO message of 8 bytes: magic 0x524c4143 is not \"RLAB\""),
                e.getMessage());
    }

    @Test
    void aFrameExactlyAtTheLimitIsReadAndOneByteMoreIsRefused() throws ControlException {
        assertEquals(1024, FrameCodec.payloadLength(hex("00 00 04 00"), 1024, "p:1"));
        ControlException e = assertThrows(ControlException.class,
                () -> FrameCodec.payloadLength(hex("00 00 04 01"), 1024, "p:1"));
        assertTrue(e.getMessage().startsWith("peer p:1 announced a frame of 1025 bytes, more than the limit of 1024"),
                e.getMessage());
        // The top bit is a size, not a sign.
        assertThrows(ControlException.class, () -> FrameCodec.payloadLength(hex("80 00 00 00"), Integer.MAX_VALUE,
                "p:1"));
    }

    @Test
    void aFirstFrameOfAHellosFixedFieldsAloneIsAMalformedHelloAndOneByteLessIsNoHello() {
        ControlException fixedOnly = assertThrows(ControlException.class,
                () -> LabConnection.checkHello(hex("00 01  52 4c 41 42  00 01"), "p:1"));
        assertEquals(ControlException.Reason.PROTOCOL, fixedOnly.reason());
        assertTrue(fixedOnly.getMessage().startsWith("malformed HELLO message of 6 bytes: it ends too early"),
                fixedOnly.getMessage());
        ControlException shorter = assertThrows(ControlException.class,
                () -> LabConnection.checkHello(hex("00 01  52 4c 41 42  00"), "p:1"));
        assertTrue(shorter.getMessage().startsWith("peer p:1 did not start with an RDMA Lab hello"), shorter.getMessage());
        ControlException otherMagic = assertThrows(ControlException.class,
                () -> LabConnection.checkHello(hex("00 01  52 4c 41 43  00 01  00 00"), "p:1"));
        assertTrue(otherMagic.getMessage().startsWith("peer p:1 did not start with an RDMA Lab hello"),
                otherMagic.getMessage());
    }

    @Test
    void theFrameLimitIsAtLeast1024AndTheSoftwareNameAtMost200Characters() throws ControlException {
        assertThrows(IllegalArgumentException.class, () -> LabConnection.open(script(new ByteArrayOutputStream(),
                new Hello(1, "peer")), "me", LabConnection.HELLO_MAX_PAYLOAD - 1));
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        String longest = "n".repeat(200);
        try (LabConnection lab = LabConnection.open(script(sent, new Hello(1, "peer"), new Bye()), longest,
                LabConnection.HELLO_MAX_PAYLOAD)) {
            lab.finish();
        }
        assertEquals(new Hello(1, longest), decodeAll(sent.toByteArray()).get(0));
        ByteArrayOutputStream cut = new ByteArrayOutputStream();
        try (LabConnection lab = LabConnection.open(script(cut, new Hello(1, "peer"), new Bye()), longest + "XY")) {
            lab.finish();
        }
        assertEquals(new Hello(1, longest), decodeAll(cut.toByteArray()).get(0));
    }

    @Test
    void aMessageFillingTheFrameLimitIsSentAndOneByteMoreIsRefused() throws ControlException {
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        // A sync's payload: type (2), the name's count (2), the name.
        Sync fits = new Sync("s".repeat(1024 - 4));
        try (LabConnection lab = LabConnection.open(script(sent, new Hello(1, "peer"), fits, new Bye()), "me", 1024)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> lab.send(new Sync("s".repeat(1024 - 3))));
            assertEquals("SYNC message of 1025 bytes exceeds the frame limit of 1024", e.getMessage());
            lab.sync(fits.name());
            lab.finish();
        }
        assertEquals(List.of(new Hello(1, "me"), fits, new Bye()), decodeAll(sent.toByteArray()));
    }

    @Test
    void aSnapshotAsksForAtMostWhatAReplyFrameHoldsAndMustComeBackAtItsOffset() throws ControlException {
        int limit = 1024 - 2 - 8;
        byte[] most = new byte[limit];
        Arrays.fill(most, (byte) 7);
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        try (LabConnection lab = LabConnection.open(script(sent, new Hello(1, "peer"), new BufferReply(16, most),
                new BufferReply(3, new byte[] {1}), new Bye()), "me", 1024)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> lab.readPeerBuffer(0, limit + 1));
            assertEquals("a buffer snapshot holds at most 1014 bytes, not 1015", e.getMessage());
            assertArrayEquals(most, lab.readPeerBuffer(16, limit));
            ControlException moved = assertThrows(ControlException.class, () -> lab.readPeerBuffer(2, 1));
            assertEquals(ControlException.Reason.PROTOCOL, moved.reason());
            assertEquals("asked peer p:1 for its buffer at offset 2 but got offset 3", moved.getMessage());
        }
        assertEquals(List.of(new Hello(1, "me"), new BufferRequest(16, limit), new BufferRequest(2, 1), new Bye()),
                decodeAll(sent.toByteArray()));
    }

    @Test
    void aSnapshotAnswerIsCutToWhatWasAskedAndToWhatAFrameHolds() throws ControlException {
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        List<long[]> asked = new ArrayList<>();
        try (LabConnection lab = LabConnection.open(script(sent, new Hello(1, "peer"), new BufferRequest(5, 4),
                new BufferRequest(0, 5000), new BufferRequest(9, 3), new BufferRequest(64, 1), new Sync("end")),
                "me", 1024)) {
            lab.serveBuffer((offset, length) -> {
                asked.add(new long[] {offset, length});
                if (offset == 64) {
                    throw new IndexOutOfBoundsException("offset 64 is past the 64-byte buffer");
                }
                byte[] bytes = new byte[length + 2]; // a source that hands back more than asked
                Arrays.fill(bytes, (byte) offset);
                return bytes;
            });
            lab.sync("end");
        }
        assertEquals(List.of("5+4", "0+1014", "9+3", "64+1"), asked.stream().map(a -> a[0] + "+" + a[1]).toList());
        // After the hello and this side's sync, the answers in the order asked.
        List<LabMessage> answers = decodeAll(sent.toByteArray()).stream()
                .filter(message -> message instanceof BufferReply || message instanceof ErrorMessage).toList();
        assertEquals(4, answers.size(), answers::toString);
        assertEquals(new BufferReply(5, new byte[] {5, 5, 5, 5}), answers.get(0));
        assertEquals(1014, ((BufferReply) answers.get(1)).bytes().length);
        assertEquals(new BufferReply(9, new byte[] {9, 9, 9}), answers.get(2));
        assertEquals(new ErrorMessage(ErrorMessage.BUFFER_UNAVAILABLE, "offset 64 is past the 64-byte buffer"),
                answers.get(3));
    }
}
