package org.rdmalab.control.lab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.ControlListener;
import org.rdmalab.control.PeerThread;
import org.rdmalab.control.Timeouts;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpType;

@Timeout(30)
class LabConnectionTest {

    private static final ConnectionData LOCAL = new ConnectionData(QpType.RC, 0x11, 0x100, 0,
            Gid.parse("::ffff:10.0.0.1"), 0x1000, 0x22, 11, Mtu.MTU_1024);
    private static final ConnectionData PEER = new ConnectionData(QpType.RC, 0x12, 0x200, 0,
            Gid.parse("::ffff:10.0.0.2"), 0x2000, 0x33, 11, Mtu.MTU_1024);
    private static final byte[] HELLO_BUFFER = "HelloWorld\0".getBytes(StandardCharsets.US_ASCII);

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
        while (true) {
            var payload = FrameCodec.readIfOpen(channel, FrameCodec.DEFAULT_MAX_PAYLOAD);
            if (payload.isEmpty()) {
                return messages;
            }
            messages.add(LabCodec.decode(payload.get()));
        }
    }

    @Test
    void messagesInBetweenAreAnsweredOrReportedWhileWaiting() throws ControlException {
        UnknownMessage future = new UnknownMessage(MessageType.of(0x4242), new byte[] {9, 8, 7});
        StepProgress progress = new StepProgress(4, "Create QP", StepStatus.SUCCEEDED, "");
        QpStateMessage state = new QpStateMessage(0x12, QpState.INIT);
        byte[] script = frames(new Hello(1, "peer"), progress, future, new BufferRequest(5, 5), state,
                new ConnectionDataMessage(PEER), new Bye());
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        List<LabMessage> reported = new ArrayList<>();
        try (LabConnection lab = LabConnection.open(ControlChannel.of(new ByteArrayInputStream(script), sent, "p:1"),
                "RDMA Lab test")) {
            lab.onMessage(reported::add).serveBuffer((offset, length) ->
                    Arrays.copyOfRange(HELLO_BUFFER, (int) offset, (int) offset + length));
            assertEquals(new Hello(1, "peer"), lab.peerHello());
            assertEquals(PEER, lab.exchange(LOCAL));
            lab.finish();
        }
        assertEquals(List.of(progress, future, state), reported);
        assertEquals(List.of(new Hello(1, "RDMA Lab test"), new ConnectionDataMessage(LOCAL),
                new BufferReply(5, "World".getBytes(StandardCharsets.US_ASCII)), new Bye()), decodeAll(sent.toByteArray()));
    }

    @Test
    void aSyncThatOvertakesASnapshotReplyIsKeptForTheNextSync() throws ControlException {
        byte[] script = frames(new Hello(1, "peer"), new Sync("W"), new BufferReply(0, HELLO_BUFFER), new Bye());
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        try (LabConnection lab = LabConnection.open(ControlChannel.of(new ByteArrayInputStream(script), sent, "p:1"),
                "me")) {
            assertArrayEquals(HELLO_BUFFER, lab.readPeerBuffer(0, HELLO_BUFFER.length));
            lab.sync("W");
            lab.finish();
        }
        List<LabMessage> messages = decodeAll(sent.toByteArray());
        assertEquals(List.of(new Hello(1, "me"), new BufferRequest(0, HELLO_BUFFER.length), new Sync("W"), new Bye()),
                messages);
    }

    @Test
    void aBufferRequestWithoutASourceIsAnsweredWithAnError() throws ControlException {
        byte[] script = frames(new Hello(1, "peer"), new BufferRequest(0, 4), new Sync("rts"));
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        try (LabConnection lab = LabConnection.open(ControlChannel.of(new ByteArrayInputStream(script), sent, "p:1"),
                "me")) {
            lab.sync("rts");
        }
        List<LabMessage> messages = decodeAll(sent.toByteArray());
        assertEquals(new Sync("rts"), messages.get(1));
        assertEquals(new ErrorMessage(ErrorMessage.BUFFER_UNAVAILABLE, "no buffer is registered on this side yet"),
                messages.get(2));
        assertEquals(new Bye(), messages.get(3));
    }

    @Test
    void peerErrorsByesAndOtherSyncsEndTheWait() throws ControlException {
        assertEquals("peer p:1 reported: ibv_modify_qp failed: EINVAL (error 2)",
                failure(new ErrorMessage(2, "ibv_modify_qp failed: EINVAL")).getMessage());
        assertEquals("peer p:1 ended the session while this side waited for sync 'rts'",
                failure(new Bye()).getMessage());
        assertEquals("this side is at sync 'rts' but peer p:1 is at sync 'written'; both sides must run the same"
                + " scenario", failure(new Sync("written")).getMessage());
        assertEquals("peer p:1 sent its connection data while this side waited for sync 'rts'; both sides must run"
                + " the same scenario", failure(new ConnectionDataMessage(PEER)).getMessage());
    }

    private static ControlException failure(LabMessage instead) throws ControlException {
        byte[] script = frames(new Hello(1, "peer"), instead);
        LabConnection lab = LabConnection.open(ControlChannel.of(new ByteArrayInputStream(script),
                new ByteArrayOutputStream(), "p:1"), "me");
        try (lab) {
            return assertThrows(ControlException.class, () -> lab.sync("rts"));
        }
    }

    @Test
    void sessionOverASocket() throws Exception {
        Timeouts quick = Timeouts.all(Duration.ofSeconds(5));
        byte[] serverBuffer = "HelloWorld\0".getBytes(StandardCharsets.US_ASCII);
        List<LabMessage> serverHeard = new ArrayList<>();
        try (ControlListener listener = ControlListener.bind("127.0.0.1", 0);
                PeerThread<ConnectionData> server = PeerThread.start("lab-server", () -> {
                    try (LabConnection lab = LabConnection.open(listener.acceptOne(quick), "server")) {
                        lab.onMessage(serverHeard::add).serveBuffer((offset, length) -> {
                            if (offset + length > serverBuffer.length) {
                                throw new IllegalArgumentException("offset " + offset + " + length " + length
                                        + " is past the end of the 11-byte buffer");
                            }
                            return Arrays.copyOfRange(serverBuffer, (int) offset, (int) offset + length);
                        });
                        ConnectionData client = lab.exchange(PEER);
                        lab.sync("rts");
                        lab.finish();
                        return client;
                    }
                })) {
            try (LabConnection lab = LabConnection.open(ControlChannel.connect("127.0.0.1", listener.port(), quick),
                    "client")) {
                assertEquals("server", lab.peerHello().software());
                assertEquals(PEER, lab.exchange(LOCAL));
                lab.send(new QpStateMessage(0x11, QpState.RTS));
                lab.sync("rts");
                assertArrayEquals(serverBuffer, lab.readPeerBuffer(0, 11));
                ControlException e = assertThrows(ControlException.class, () -> lab.readPeerBuffer(8, 8));
                assertEquals(ControlException.Reason.PEER_ERROR, e.reason());
                assertTrue(e.getMessage().endsWith("reported: offset 8 + length 8 is past the end of the 11-byte buffer"
                        + " (error 3)"), e.getMessage());
                lab.finish();
            }
            assertEquals(LOCAL, server.result(Duration.ofSeconds(10)));
            assertEquals(List.of(new QpStateMessage(0x11, QpState.RTS)), serverHeard);
        }
    }

    @Test
    void silentPeerAfterTheHelloTimesOut() throws Exception {
        Timeouts quick = Timeouts.all(Duration.ofSeconds(5));
        CountDownLatch clientDone = new CountDownLatch(1);
        try (ControlListener listener = ControlListener.bind("127.0.0.1", 0);
                PeerThread<Void> server = PeerThread.start("lab-silent", () -> {
                    try (LabConnection lab = LabConnection.open(listener.acceptOne(quick), "server")) {
                        clientDone.await(10, TimeUnit.SECONDS);
                    }
                    return null;
                })) {
            try (LabConnection lab = LabConnection.open(ControlChannel.connect("127.0.0.1", listener.port(),
                    quick.withRead(Duration.ofMillis(300))), "client")) {
                ControlException e = assertThrows(ControlException.class, () -> lab.sync("rts"));
                assertEquals(ControlException.Reason.TIMEOUT, e.reason());
                assertTrue(e.getMessage().matches("no answer from 127\\.0\\.0\\.1:\\d+ within 300 ms \\(waiting for a"
                        + " frame header\\); is the peer still running\\?"), e.getMessage());
            } finally {
                clientDone.countDown();
            }
            server.result(Duration.ofSeconds(10));
        }
    }
}
