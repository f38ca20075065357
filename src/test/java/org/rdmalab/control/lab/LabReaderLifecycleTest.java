package org.rdmalab.control.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.PeerThread;
import org.rdmalab.testing.Await;

/**
 * The background reader's life as a user of a lab connection meets it: it starts once, ends when
 * the peer goes, when reading fails or when the connection is closed, and every wait after its
 * end says why at once; {@code close()} returns once the reader has ended, or after its bounded
 * wait with the stuck reader reported; and how long a wait for the peer lasts, on a clock the test
 * moves (from the wait's start, or from the last frame that came during it).
 */
@Timeout(30)
class LabReaderLifecycleTest {

    private static final long MS = 1_000_000L;
    private static final long SECOND = 1000 * MS;
    private static final Duration TEN_SECONDS = Duration.ofSeconds(10);

    /** This side over a loopback socket whose other end the test writes frames into by hand. */
    private static final class Pair implements AutoCloseable {
        final ServerSocket server;
        final Socket peer;
        final LabConnection lab;

        Pair(Duration readTimeout, LongSupplier clock, Duration readerJoin) throws Exception {
            InetAddress loopback = InetAddress.getLoopbackAddress();
            server = new ServerSocket(0, 1, loopback);
            peer = new Socket(loopback, server.getLocalPort());
            Socket mine = server.accept();
            send(new Hello(LabConnection.VERSION, "peer"));
            lab = LabConnection.open(ControlChannel.over(mine, readTimeout), "test", FrameCodec.DEFAULT_MAX_PAYLOAD,
                    clock, readerJoin);
        }

        Pair() throws Exception {
            this(TEN_SECONDS, System::nanoTime, LabConnection.READER_JOIN);
        }

        void send(LabMessage message) throws IOException {
            peer.getOutputStream().write(LabCodec.frame(message));
        }

        String readerName() {
            return LabConnection.READER_THREAD_PREFIX + lab.channel().peer();
        }

        @Override
        public void close() throws IOException {
            lab.close();
            peer.close();
            server.close();
        }
    }

    private static List<Thread> threadsNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.isAlive() && thread.getName().equals(name))
                .toList();
    }

    /** The warnings LabConnection logs while {@code body} runs. */
    private static List<LogRecord> warningsDuring(ThrowingRunnable body) throws Exception {
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    records.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger(LabConnection.class.getName());
        logger.addHandler(handler);
        try {
            body.run();
        } finally {
            logger.removeHandler(handler);
        }
        return records;
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static String peerClosed(Pair pair, String what) {
        return "peer " + pair.lab.channel().peer() + " closed the connection after 0 of 4 bytes of the frame header"
                + " (while this side waited for " + what + ")";
    }

    @Test
    void theReaderStartsOnceAsADaemonAndEndsWhenThePeerGoesAndEveryLaterWaitSaysSoAtOnce() throws Exception {
        try (Pair pair = new Pair()) {
            String name = pair.readerName();
            assertFalse(pair.lab.readerRunning(), "no reader before it is started");
            assertEquals(List.of(), threadsNamed(name));
            pair.lab.startReader().startReader();
            assertTrue(pair.lab.readerRunning());
            List<Thread> readers = threadsNamed(name);
            assertEquals(1, readers.size(), "started twice, one reader");
            assertTrue(readers.get(0).isDaemon(), "a reader left behind must not keep the program from exiting");

            pair.peer.close();
            Await.until("the reader to end after the peer left", TEN_SECONDS, () -> !pair.lab.readerRunning());
            assertEquals(List.of(), threadsNamed(name));
            for (int i = 0; i < 2; i++) {
                ControlException e = assertThrows(ControlException.class, pair.lab::receive);
                assertEquals(ControlException.Reason.PEER_CLOSED, e.reason());
                assertEquals(peerClosed(pair, "a message"), e.getMessage());
            }
            pair.lab.startReader();
            assertFalse(pair.lab.readerRunning(), "an ended reader is not started again");
        }
    }

    @Test
    void aReaderThatFailsEndsAndEveryLaterWaitReportsTheFailure() throws Exception {
        try (Pair pair = new Pair()) {
            pair.lab.serveBuffer((offset, length) -> {
                throw new IllegalStateException("the buffer was deregistered");
            }).startReader();
            pair.send(new BufferRequest(0, 8));
            Await.until("the reader to end on the failing buffer source", TEN_SECONDS,
                    () -> !pair.lab.readerRunning());
            for (int i = 0; i < 2; i++) {
                ControlException e = assertThrows(ControlException.class, pair.lab::receive);
                assertEquals(ControlException.Reason.PROTOCOL, e.reason());
                assertEquals("reading from peer " + pair.lab.channel().peer() + " failed: "
                        + "java.lang.IllegalStateException: the buffer was deregistered", e.getMessage());
            }
        }
    }

    @Test
    void closeSaysByeAndReturnsOnlyOnceTheReaderHasEnded() throws Exception {
        Pair pair = new Pair();
        String name = pair.readerName();
        pair.lab.startReader();
        List<LogRecord> warnings = warningsDuring(pair.lab::close);
        assertEquals(List.of(), threadsNamed(name), "close() returned with the reader still running");
        assertFalse(pair.lab.readerRunning());
        assertEquals(List.of(), warnings, "an ended reader is not reported");
        pair.lab.startReader();
        assertFalse(pair.lab.readerRunning(), "a closed connection starts no reader");
        assertEquals(List.of(), threadsNamed(name));

        ControlChannel peerSide = ControlChannel.over(pair.peer, TEN_SECONDS);
        assertTrue(LabCodec.decode(FrameCodec.read(peerSide, 1024)) instanceof Hello);
        assertTrue(LabCodec.decode(FrameCodec.read(peerSide, 1024)) instanceof Bye);
        peerSide.close();
        pair.server.close();
    }

    @Test
    void closeWithoutAReaderAndAgainAfterwardsIsQuiet() throws Exception {
        Pair pair = new Pair();
        List<LogRecord> warnings = warningsDuring(() -> {
            pair.lab.close();
            pair.lab.close();
        });
        assertEquals(List.of(), warnings);
        assertTrue(pair.lab.channel().isClosed());
        pair.peer.close();
        pair.server.close();
    }

    @Test
    void aReaderStuckInTheListenerIsLeftAfterTheBoundedWaitAndReported() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Pair pair = new Pair(TEN_SECONDS, System::nanoTime, Duration.ofMillis(50))) {
            pair.lab.onMessage(message -> {
                entered.countDown();
                try {
                    release.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }).startReader();
            pair.send(new StepProgress(1, "Create QP", StepStatus.SUCCEEDED, ""));
            assertTrue(entered.await(10, TimeUnit.SECONDS));
            List<LogRecord> warnings;
            try {
                warnings = warningsDuring(pair.lab::close);
                assertTrue(pair.lab.readerRunning(), "close() waited for the stuck reader no more than 50 ms");
            } finally {
                release.countDown();
            }
            assertEquals(1, warnings.size());
            assertEquals(pair.readerName() + " did not end within 50 ms", warnings.get(0).getMessage());
            Await.until("the reader to end once the listener returns", TEN_SECONDS, () -> !pair.lab.readerRunning());
        }
    }

    @Test
    void closeFromTheReadersOwnListenerDoesNotWaitForItselfAndEndsALaterWaitAtOnce() throws Exception {
        CountDownLatch closed = new CountDownLatch(1);
        // A day to join: a close() that waited for its own thread would never return.
        try (Pair pair = new Pair(Duration.ofDays(1), System::nanoTime, Duration.ofDays(1))) {
            List<LogRecord> warnings = warningsDuring(() -> {
                pair.lab.onMessage(message -> {
                    pair.lab.close();
                    closed.countDown();
                }).startReader();
                pair.send(new StepProgress(1, "Create QP", StepStatus.FAILED, "ENOMEM"));
                assertTrue(closed.await(10, TimeUnit.SECONDS), "close() on the reader returned");
                Await.until("the reader to end", TEN_SECONDS, () -> !pair.lab.readerRunning());
            });
            assertEquals(List.of(), warnings);
            // The read timeout is a day: the wait ends because the reader said it ended.
            ControlException e = assertThrows(ControlException.class, pair.lab::receive);
            assertEquals(ControlException.Reason.PEER_CLOSED, e.reason());
        }
    }

    @Test
    void aFinishWaitingForThePeersByeEndsQuietlyWhenTheConnectionIsClosed() throws Exception {
        try (Pair pair = new Pair()) {
            CompletableFuture<Thread> finisher = new CompletableFuture<>();
            try (PeerThread<Void> finishing = PeerThread.start("finish", () -> {
                finisher.complete(Thread.currentThread());
                pair.lab.finish();
                return null;
            })) {
                Await.untilTimedWaiting("finish() to wait for the peer's bye", TEN_SECONDS,
                        finisher.get(10, TimeUnit.SECONDS));
                pair.lab.close();
                assertNull(finishing.result(TEN_SECONDS), "finish() returned without an error");
            }
        }
    }

    @Test
    void closeOnAnInterruptedThreadKeepsTheInterrupt() throws Exception {
        try (Pair pair = new Pair()) {
            pair.lab.startReader();
            Thread.currentThread().interrupt();
            try {
                pair.lab.close();
                assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
            } finally {
                Thread.interrupted();
            }
            Await.until("the reader to end", TEN_SECONDS, () -> !pair.lab.readerRunning());
        }
    }

    // ---- how long a wait lasts, on a clock the test moves ----

    /**
     * A clock for the connection: the reader thread reads {@link #atReader}; every other read (the
     * connection's start, a wait's start, each look at the time left) takes the next scripted value.
     */
    private static final class ScriptedClock implements LongSupplier {
        final AtomicLong atReader = new AtomicLong();
        private final Deque<Long> script = new ArrayDeque<>();

        ScriptedClock(long... values) {
            for (long value : values) {
                script.add(value);
            }
        }

        @Override
        public long getAsLong() {
            if (Thread.currentThread().getName().startsWith(LabConnection.READER_THREAD_PREFIX)) {
                return atReader.get();
            }
            synchronized (script) {
                Long next = script.poll();
                if (next == null) {
                    throw new AssertionError("the wait looked at the clock after it should have ended");
                }
                return next;
            }
        }

        int left() {
            synchronized (script) {
                return script.size();
            }
        }
    }

    private static String noAnswer(Pair pair, String within) {
        return "no answer from " + pair.lab.channel().peer() + " within " + within
                + " (waiting for a frame header); is the peer still running?";
    }

    @Test
    void aWaitBegunLongAfterTheLastFrameGivesThePeerTheWholeReadTimeoutFromItsStart() throws Exception {
        // Opened at 1 s, the wait begins at 61 s: it ends at 66 s, not before (1 ns left is still a wait).
        ScriptedClock clock = new ScriptedClock(1 * SECOND, 61 * SECOND, 66 * SECOND - 1, 66 * SECOND);
        try (Pair pair = new Pair(Duration.ofSeconds(5), clock, LabConnection.READER_JOIN)) {
            ControlException e = assertThrows(ControlException.class, pair.lab::receive);
            assertEquals(ControlException.Reason.TIMEOUT, e.reason());
            assertEquals(noAnswer(pair, "5 s"), e.getMessage());
            assertEquals(0, clock.left(), "the wait looked at the time again after 1 ns was left");
        }
    }

    @Test
    void aFrameThatCameDuringTheWaitMovesItsEndToTheReadTimeoutAfterIt() throws Exception {
        BlockingQueue<LabMessage> heard = new LinkedBlockingQueue<>();
        // The wait begins at 1 s; a progress report came at 4 s: the wait ends at 9 s, not at 6 s.
        ScriptedClock clock = new ScriptedClock(0, 1 * SECOND, 9 * SECOND - 1, 9 * SECOND);
        clock.atReader.set(4 * SECOND);
        try (Pair pair = new Pair(Duration.ofSeconds(5), clock, LabConnection.READER_JOIN)) {
            pair.lab.onMessage(heard::add).startReader();
            StepProgress progress = new StepProgress(3, "Register MR", StepStatus.SUCCEEDED, "");
            pair.send(progress);
            assertEquals(progress, heard.poll(10, TimeUnit.SECONDS));
            ControlException e = assertThrows(ControlException.class, pair.lab::receive);
            assertEquals(ControlException.Reason.TIMEOUT, e.reason());
            assertEquals(noAnswer(pair, "5 s"), e.getMessage());
            assertEquals(0, clock.left(), "the wait ended before 9 s");
        }
    }

    @Test
    void aWaitOnAnInterruptedThreadStopsAtOnceSayingSo() throws Exception {
        ScriptedClock clock = new ScriptedClock(0, 0, 0);
        try (Pair pair = new Pair(Duration.ofSeconds(5), clock, LabConnection.READER_JOIN)) {
            Thread.currentThread().interrupt();
            try {
                ControlException e = assertThrows(ControlException.class, pair.lab::receive);
                assertEquals(ControlException.Reason.INTERRUPTED, e.reason());
                assertEquals("stopped while waiting for a message from " + pair.lab.channel().peer(), e.getMessage());
                assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
            } finally {
                Thread.interrupted();
            }
        }
    }
}
