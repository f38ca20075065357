package org.rdmalab.control.lab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.ControlListener;
import org.rdmalab.control.PeerThread;
import org.rdmalab.control.Timeouts;
import org.rdmalab.verbs.QpState;

/** The background reader: what the peer sends arrives while this side waits for nothing. */
@Timeout(60)
class LabConnectionReaderTest {

    private static final Timeouts QUICK = Timeouts.all(Duration.ofSeconds(5));

    static long readerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.isAlive() && thread.getName().startsWith(LabConnection.READER_THREAD_PREFIX))
                .count();
    }

    @Test
    void thePeersQpStateArrivesWhileThisSideIsIdle() throws Exception {
        BlockingQueue<LabMessage> heard = new LinkedBlockingQueue<>();
        CountDownLatch clientHeard = new CountDownLatch(1);
        try (ControlListener listener = ControlListener.bind("127.0.0.1", 0);
                PeerThread<Void> server = PeerThread.start("lab-states", () -> {
                    try (LabConnection lab = LabConnection.open(listener.acceptOne(QUICK), "server")) {
                        lab.send(new StepProgress(7, "Modify QP to RTR", StepStatus.SUCCEEDED, ""));
                        lab.send(new QpStateMessage(0x12, QpState.RTR));
                        lab.send(new QpStateMessage(0x12, QpState.RTS));
                        clientHeard.await(10, TimeUnit.SECONDS);
                        lab.sync("done");
                    }
                    return null;
                })) {
            try (LabConnection lab = LabConnection.open(ControlChannel.connect("127.0.0.1", listener.port(), QUICK),
                    "client")) {
                lab.onMessage(heard::add).startReader();
                assertTrue(lab.readerRunning());
                // No waiting call on this side: the reader alone delivers them.
                assertEquals(new StepProgress(7, "Modify QP to RTR", StepStatus.SUCCEEDED, ""),
                        heard.poll(5, TimeUnit.SECONDS));
                assertEquals(new QpStateMessage(0x12, QpState.RTR), heard.poll(5, TimeUnit.SECONDS));
                assertEquals(new QpStateMessage(0x12, QpState.RTS), heard.poll(5, TimeUnit.SECONDS));
                clientHeard.countDown();
                lab.sync("done");
                lab.finish();
            }
            server.result(Duration.ofSeconds(10));
        }
    }

    @Test
    void bufferRequestsAreAnsweredWhileThisSideIsIdle() throws Exception {
        byte[] buffer = "HelloWorld\0".getBytes(StandardCharsets.US_ASCII);
        BlockingQueue<byte[]> snapshots = new LinkedBlockingQueue<>();
        try (ControlListener listener = ControlListener.bind("127.0.0.1", 0);
                PeerThread<Void> server = PeerThread.start("lab-snapshot", () -> {
                    try (LabConnection lab = LabConnection.open(listener.acceptOne(QUICK), "server")) {
                        snapshots.add(lab.readPeerBuffer(5, 5));
                        lab.finish();
                    }
                    return null;
                })) {
            try (LabConnection lab = LabConnection.open(ControlChannel.connect("127.0.0.1", listener.port(), QUICK),
                    "client")) {
                lab.serveBuffer((offset, length) -> Arrays.copyOfRange(buffer, (int) offset, (int) offset + length))
                        .startReader();
                assertArrayEquals("World".getBytes(StandardCharsets.US_ASCII), snapshots.poll(10, TimeUnit.SECONDS));
                lab.finish();
            }
            server.result(Duration.ofSeconds(10));
        }
    }

    @Test
    void anErrorThatArrivesWhileIdleEndsTheNextWait() throws Exception {
        CountDownLatch clientDone = new CountDownLatch(1);
        try (ControlListener listener = ControlListener.bind("127.0.0.1", 0);
                PeerThread<Void> server = PeerThread.start("lab-error", () -> {
                    try (LabConnection lab = LabConnection.open(listener.acceptOne(QUICK), "server")) {
                        lab.send(new ErrorMessage(ErrorMessage.STEP_FAILED, "ibv_modify_qp failed: EINVAL"));
                        clientDone.await(10, TimeUnit.SECONDS);
                    }
                    return null;
                })) {
            try (LabConnection lab = LabConnection.open(ControlChannel.connect("127.0.0.1", listener.port(), QUICK),
                    "client")) {
                lab.startReader();
                ControlException e = assertThrows(ControlException.class, () -> lab.sync("rts"));
                assertEquals(ControlException.Reason.PEER_ERROR, e.reason());
                assertTrue(e.getMessage().endsWith("reported: ibv_modify_qp failed: EINVAL (error 2)"), e.getMessage());
            } finally {
                clientDone.countDown();
            }
            server.result(Duration.ofSeconds(10));
        }
    }

    @Test
    void openAndClose100TimesLeavesNoReaderThread() throws Exception {
        long before = readerThreads();
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 50,
                java.net.InetAddress.getByName("127.0.0.1"));
                PeerThread<Void> acceptor = PeerThread.start("lab-acceptor", () -> {
                    for (int i = 0; i < 100; i++) {
                        try (LabConnection lab = LabConnection.open(ControlChannel.over(server.accept(),
                                QUICK.read()), "server")) {
                            lab.startReader();
                            lab.finish();
                        }
                    }
                    return null;
                })) {
            for (int i = 0; i < 100; i++) {
                LabConnection lab = LabConnection.open(ControlChannel.connect("127.0.0.1", server.getLocalPort(), QUICK),
                        "client " + i);
                lab.startReader();
                if (i % 2 == 0) {
                    lab.finish();
                }
                lab.close();
                assertFalse(lab.readerRunning(), "reader of connection " + i + " still runs after close()");
            }
            acceptor.result(Duration.ofSeconds(30));
        }
        assertEquals(before, readerThreads());
    }
}
