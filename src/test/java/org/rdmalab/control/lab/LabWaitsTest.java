package org.rdmalab.control.lab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.testing.Await;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpType;

/**
 * What a lab connection does with what the peer sends while this side waits for something else,
 * and the bye each side says once: seen from the peer's end of a loopback socket, frame by frame.
 */
@Timeout(30)
class LabWaitsTest {

    private static final Duration TEN_SECONDS = Duration.ofSeconds(10);
    /** Short enough that a message wrongly left to the listener shows as a timeout quickly. */
    private static final Duration TWO_SECONDS = Duration.ofSeconds(2);

    private static LabPair pair(Duration readTimeout) throws Exception {
        return new LabPair(readTimeout, System::nanoTime, LabConnection.READER_JOIN);
    }

    /** Everything this side sent, as the peer reads it until this side's end. */
    private static List<LabMessage> sentByThisSide(LabPair pair) throws ControlException {
        ControlChannel peerSide = ControlChannel.over(pair.peer, TEN_SECONDS);
        List<LabMessage> messages = new ArrayList<>();
        while (true) {
            var payload = FrameCodec.readIfOpen(peerSide, FrameCodec.DEFAULT_MAX_PAYLOAD);
            if (payload.isEmpty()) {
                return messages;
            }
            messages.add(LabCodec.decode(payload.get()));
        }
    }

    private static List<MessageType> types(List<LabMessage> messages) {
        return messages.stream().map(LabMessage::type).toList();
    }

    @Test
    void aFirstFrameOfAnotherTypeIsNoHelloEvenWhenTheMagicFollows() throws ControlException {
        byte[] hello = LabCodec.encode(new Hello(LabConnection.VERSION, "peer"));
        assertEquals(new Hello(LabConnection.VERSION, "peer"), LabConnection.checkHello(hello, "p:1"));
        byte[] other = hello.clone();
        ByteBuffer.wrap(other).putShort((short) MessageType.CONNECTION_DATA.code());
        ControlException e = assertThrows(ControlException.class, () -> LabConnection.checkHello(other, "p:1"));
        assertEquals(ControlException.Reason.PROTOCOL, e.reason());
        assertTrue(e.getMessage().startsWith("peer p:1 did not start with an RDMA Lab hello (it sent \"\\0\\x02"),
                e.getMessage());
    }

    @Test
    void eachSideSaysByeOnceWhetherItSaidItItselfOrFinishOrCloseDid() throws Exception {
        try (LabPair pair = pair(TEN_SECONDS)) {
            pair.lab.send(new Bye());
            pair.send(new Bye());
            pair.lab.finish();
            pair.lab.close();
            assertEquals(List.of(MessageType.HELLO, MessageType.BYE), types(sentByThisSide(pair)));
        }
        try (LabPair pair = pair(TEN_SECONDS)) {
            pair.send(new Bye());
            pair.lab.finish();
            pair.lab.close();
            assertEquals(List.of(MessageType.HELLO, MessageType.BYE), types(sentByThisSide(pair)));
        }
    }

    @Test
    void finishReportsAReaderThatFailedInsteadOfEndingQuietly() throws Exception {
        try (LabPair pair = pair(TEN_SECONDS)) {
            pair.lab.startReader();
            // A frame header announcing 2 GiB: the reader refuses it and ends.
            pair.peer.getOutputStream().write(new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff});
            Await.until("the reader to end", TEN_SECONDS, () -> !pair.lab.readerRunning());
            ControlException e = assertThrows(ControlException.class, pair.lab::finish);
            assertEquals(ControlException.Reason.PROTOCOL, e.reason());
        }
    }

    @Test
    void finishReportsAMalformedMessageThatCameBeforeThePeersEnd() throws Exception {
        // A SYNC whose name claims 16 bytes and has 2.
        byte[] malformed = {0, (byte) MessageType.SYNC.code(), 0, 16, 'a', 'b'};
        assertThrows(ControlException.class, () -> LabCodec.decode(malformed));
        try (LabPair pair = pair(TEN_SECONDS)) {
            pair.lab.startReader();
            pair.peer.getOutputStream().write(FrameCodec.frame(malformed));
            pair.send(new Sync("rts"));
            pair.peer.shutdownOutput();
            Await.until("the reader to see the peer's end", TEN_SECONDS, () -> !pair.lab.readerRunning());
            ControlException e = assertThrows(ControlException.class, pair.lab::finish);
            assertEquals(ControlException.Reason.PROTOCOL, e.reason());
        }
    }

    @Test
    void aHelloOrConnectionDataOutOfTurnEndsTheWaitNamingIt() throws Exception {
        try (LabPair pair = pair(TWO_SECONDS)) {
            pair.send(new Hello(LabConnection.VERSION, "again"));
            ControlException e = assertThrows(ControlException.class, () -> pair.lab.sync("rts"));
            assertEquals(ControlException.Reason.PROTOCOL, e.reason());
            assertEquals("peer " + pair.lab.channel().peer() + " sent a HELLO message while this side waited for"
                    + " sync 'rts'; both sides must run the same scenario", e.getMessage());
        }
        ConnectionData data = new ConnectionData(QpType.RC, 0x12, 0x200, 0, Gid.parse("::ffff:10.0.0.2"), 0x2000,
                0x33, 11, Mtu.MTU_1024);
        try (LabPair pair = pair(TWO_SECONDS)) {
            pair.send(new ConnectionDataMessage(data));
            ControlException e = assertThrows(ControlException.class, () -> pair.lab.sync("rts"));
            assertEquals(ControlException.Reason.PROTOCOL, e.reason());
            assertEquals("peer " + pair.lab.channel().peer() + " sent its connection data while this side waited"
                    + " for sync 'rts'; both sides must run the same scenario", e.getMessage());
        }
    }

    @Test
    void aStrayReplyOrFactsWhileWaitingGoToTheListenerAndTheWaitGoesOn() throws Exception {
        List<LabMessage> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (LabPair pair = pair(TWO_SECONDS)) {
            pair.lab.onMessage(heard::add);
            BufferReply stray = new BufferReply(0, new byte[] {1, 2});
            Facts facts = Facts.of(Map.of("mtu", "1024"));
            pair.send(stray);
            pair.send(facts);
            pair.send(new Sync("rts"));
            pair.lab.sync("rts");
            assertEquals(List.of(stray, facts), heard);
        }
    }

    @Test
    void aSnapshotShorterThanAskedIsSentAsItIsAndALongerOneIsCut() throws Exception {
        byte[] twelve = "HelloWorld!\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        try (LabPair pair = pair(TEN_SECONDS)) {
            pair.lab.serveBuffer((offset, length) -> offset == 0 ? Arrays.copyOf(twelve, 3) : twelve).startReader();
            pair.send(new BufferRequest(0, 8));
            pair.send(new BufferRequest(1, 8));
            ControlChannel peerSide = ControlChannel.over(pair.peer, TEN_SECONDS);
            List<LabMessage> sent = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                sent.add(LabCodec.decode(FrameCodec.read(peerSide, FrameCodec.DEFAULT_MAX_PAYLOAD)));
            }
            assertEquals(List.of(MessageType.HELLO, MessageType.BUFFER_REPLY, MessageType.BUFFER_REPLY), types(sent));
            assertArrayEquals(Arrays.copyOf(twelve, 3), ((BufferReply) sent.get(1)).bytes(), "3 bytes, not padded");
            assertEquals(1, ((BufferReply) sent.get(2)).offset());
            assertArrayEquals(Arrays.copyOf(twelve, 8), ((BufferReply) sent.get(2)).bytes(), "cut to the 8 asked");
        }
    }

    @Test
    void factsAreSentAndThePeersAreReturned() throws Exception {
        Facts ours = Facts.of(Map.of("mtu", "4096"));
        Facts theirs = Facts.of(Map.of("mtu", "1024"));
        try (LabPair pair = pair(TEN_SECONDS)) {
            pair.send(theirs);
            assertEquals(theirs, pair.lab.exchangeFacts(ours));
            pair.lab.close();
            List<LabMessage> sent = sentByThisSide(pair);
            assertEquals(List.of(new Hello(LabConnection.VERSION, "test"), ours, new Bye()), sent);
        }
    }

    @Test
    void aMessageOfAnUnknownTypeReachesTheListenerWhileThisSideIsIdle() throws Exception {
        BlockingQueue<LabMessage> heard = new LinkedBlockingQueue<>();
        try (LabPair pair = pair(TEN_SECONDS)) {
            pair.lab.onMessage(heard::add).startReader();
            UnknownMessage unknown = new UnknownMessage(MessageType.of(0x7777), new byte[] {9, 8, 7});
            pair.send(unknown);
            assertEquals(unknown, heard.poll(10, TimeUnit.SECONDS), "no waiting call: the reader alone delivers it");
            assertFalse(pair.lab.channel().isClosed());
        }
    }
}
