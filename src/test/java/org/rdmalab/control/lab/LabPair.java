package org.rdmalab.control.lab;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.rdmalab.control.ControlChannel;

/**
 * A lab connection over a loopback socket whose other end a test drives by hand: it writes the
 * peer's frames into {@link #peer} (the peer's hello is there before this side opens) and reads
 * what this side sent from it.
 */
final class LabPair implements AutoCloseable {

    final ServerSocket server;
    final Socket peer;
    final LabConnection lab;

    /** This side reads with {@code readTimeout}; its waits use {@code clock}; close() waits {@code readerJoin}. */
    LabPair(Duration readTimeout, LongSupplier clock, Duration readerJoin) throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        server = new ServerSocket(0, 1, loopback);
        peer = new Socket(loopback, server.getLocalPort());
        Socket mine = server.accept();
        send(new Hello(LabConnection.VERSION, "peer"));
        lab = LabConnection.open(ControlChannel.over(mine, readTimeout), "test", FrameCodec.DEFAULT_MAX_PAYLOAD,
                clock, readerJoin);
    }

    /** A 10-second read timeout, the system clock and the usual wait for the reader. */
    LabPair() throws Exception {
        this(Duration.ofSeconds(10), System::nanoTime, LabConnection.READER_JOIN);
    }

    /** Sends {@code message} from the peer's end. */
    void send(LabMessage message) throws IOException {
        peer.getOutputStream().write(LabCodec.frame(message));
    }

    /** The name this side's reader thread has. */
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
