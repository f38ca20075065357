package org.rdmalab.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;

/** Free ports for tests that bind sockets: UDP ports free on both loopback addresses, TCP ports. */
public final class Ports {

    private Ports() {
    }

    /** A UDP port free on both 127.0.0.1 and 127.0.0.2 right now, so parallel runs do not clash. */
    public static int freeUdpPort() {
        for (int attempt = 0; attempt < 20; attempt++) {
            try (DatagramSocket first = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
                int port = first.getLocalPort();
                try (DatagramSocket second = new DatagramSocket(new InetSocketAddress("127.0.0.2", port))) {
                    return port;
                } catch (IOException taken) {
                    // try another
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("no UDP port free on both 127.0.0.1 and 127.0.0.2");
    }

    /** True when {@code port} can be bound again on both addresses (the devices released their sockets). */
    public static boolean portReleased(int port) {
        try (DatagramSocket first = new DatagramSocket(new InetSocketAddress("127.0.0.1", port));
             DatagramSocket second = new DatagramSocket(new InetSocketAddress("127.0.0.2", port))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** A TCP port free on 127.0.0.1 right now. */
    public static int freeTcpPort() {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
