package org.rdmalab.control.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    private static List<Thread> threadsNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.isAlive() && thread.getName().equals(name))
                .toList();
    }

    /** The warnings LabConnection logs while {@code body} runs. */
    static List<LogRecord> warningsDuring(ThrowingRunnable body) throws Exception {
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
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static String peerClosed(LabPair pair, String what) {
        return "peer " + pair.lab.channel().peer() + " closed the connection after 0 of 4 bytes of the frame header"
                + " (while this side waited for " + what + ")";
    }

    @Test
    void theReaderStartsOnceAsADaemonAndEndsWhenThePeerGoesAndEveryLaterWaitSaysSoAtOnce() throws Exception {
        try (LabPair pair = new LabPair()) {
            String name = pair.readerName();
            assertFalse(pair.lab.readerRunning(), "no reader before it is started");
            assertEquals(List.of(), threadsNamed(name));
            // Started from a thread that is no daemon (a program's main thread): the reader still is one.
            Thread starter = new Thread(() -> pair.lab.startReader().startReader(), "starter");
            starter.setDaemon(false);
            starter.start();
            starter.join(TEN_SECONDS.toMillis());
            assertFalse(starter.isAlive());
            assertTrue(pair.lab.readerRunning());
            assertSame(pair.lab, pair.lab.startReader(), "startReader() returns the connection, for chaining");
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
        IllegalStateException bug = new IllegalStateException("the buffer was deregistered");
        try (LabPair pair = new LabPair()) {
            List<LogRecord> warnings = warningsDuring(() -> {
                pair.lab.serveBuffer((offset, length) -> {
                    throw bug;
                }).startReader();
                pair.send(new BufferRequest(0, 8));
                Await.until("the reader to end on the failing buffer source", TEN_SECONDS,
                        () -> !pair.lab.readerRunning());
            });
            assertEquals(1, warnings.size());
            assertSame(bug, warnings.get(0).getThrown(), "the log keeps the stack trace the user's line leaves out");
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
        LabPair pair = new LabPair();
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
        LabPair pair = new LabPair();
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
        try (LabPair pair = new LabPair(TEN_SECONDS, System::nanoTime, Duration.ofMillis(50))) {
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
        try (LabPair pair = new LabPair(Duration.ofDays(1), System::nanoTime, Duration.ofDays(1))) {
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
        try (LabPair pair = new LabPair()) {
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
        try (LabPair pair = new LabPair()) {
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

    private static String noAnswer(LabPair pair, String within) {
        return "no answer from " + pair.lab.channel().peer() + " within " + within
                + " (waiting for a frame header); is the peer still running?";
    }

    @Test
    void aWaitBegunLongAfterTheLastFrameGivesThePeerTheWholeReadTimeoutFromItsStart() throws Exception {
        // Opened at 1 s, the wait begins at 61 s: it ends at 66 s, not before (1 ns left is still a wait).
        ScriptedClock clock = new ScriptedClock(1 * SECOND, 61 * SECOND, 66 * SECOND - 1, 66 * SECOND);
        try (LabPair pair = new LabPair(Duration.ofSeconds(5), clock, LabConnection.READER_JOIN)) {
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
        try (LabPair pair = new LabPair(Duration.ofSeconds(5), clock, LabConnection.READER_JOIN)) {
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
        try (LabPair pair = new LabPair(Duration.ofSeconds(5), clock, LabConnection.READER_JOIN)) {
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

    /** Input that blocks until the test adds bytes or the stream is closed (then a read fails). */
    private static final class BlockingInput extends java.io.InputStream {
        private final BlockingQueue<Integer> bytes = new LinkedBlockingQueue<>();
        private volatile boolean closed;

        BlockingInput(byte[] first) {
            for (byte b : first) {
                bytes.add(b & 0xff);
            }
        }

        @Override
        public int read() throws java.io.IOException {
            try {
                int b = bytes.take();
                if (b < 0) {
                    throw new java.io.IOException("Stream closed");
                }
                return b;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException();
            }
        }

        @Override
        public void close() {
            closed = true;
            bytes.add(-1);
        }
    }

    @Test
    void closeAfterThePeerVanishedStillStopsTheReaderAndClosesTheConnection() throws Exception {
        BlockingInput in = new BlockingInput(LabCodec.frame(new Hello(LabConnection.VERSION, "peer")));
        // The hello goes out; the bye cannot: the peer is gone by then.
        java.io.OutputStream out = new java.io.OutputStream() {
            private int writes;

            @Override
            public void write(int b) throws java.io.IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws java.io.IOException {
                if (writes++ > 0) {
                    throw new java.io.IOException("Broken pipe");
                }
            }
        };
        LabConnection lab = LabConnection.open(ControlChannel.of(in, out, "gone:1"), "test",
                FrameCodec.DEFAULT_MAX_PAYLOAD, System::nanoTime, LabConnection.READER_JOIN);
        lab.startReader();
        assertTrue(lab.readerRunning());
        List<LogRecord> warnings = warningsDuring(lab::close);
        assertTrue(in.closed, "the connection is closed although the bye could not be sent");
        assertFalse(lab.readerRunning(), "close() returned with the reader still running");
        assertEquals(List.of(), threadsNamed(LabConnection.READER_THREAD_PREFIX + "gone:1"));
        assertEquals(List.of(), warnings);
    }
}
