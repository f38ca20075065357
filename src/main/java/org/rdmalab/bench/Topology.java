package org.rdmalab.bench;

import java.time.Duration;
import java.util.Objects;

/**
 * Where the two sides of a run are. A software device binds the side's address (its GID is the
 * IPv4-mapped form of it); a real device sends from the GID that carries it.
 */
public sealed interface Topology {

    /** perftest's TCP port. */
    int DEFAULT_TCP_PORT = 18515;
    /** The baseline's UDP port on both addresses (the RoCE v2 port 4791 belongs to the device). */
    int DEFAULT_BASELINE_PORT = 18516;

    /** The UDP port each side's baseline socket binds. */
    int baselinePort();

    /** The RoCE v2 UDP port a software device binds (4791). */
    int udpPort();

    /**
     * Both sides in this process, one thread each: the server on {@code serverAddress}, the client
     * on {@code clientAddress} (soft0: 127.0.0.1 and 127.0.0.2, as {@code loopback} and {@code demo}).
     */
    record Loopback(String serverAddress, String clientAddress, int udpPort, int baselinePort) implements Topology {
        public Loopback {
            Objects.requireNonNull(serverAddress, "serverAddress");
            Objects.requireNonNull(clientAddress, "clientAddress");
        }

        /** 127.0.0.1 and 127.0.0.2, UDP 4791, baseline port 18516. */
        public static Loopback defaults() {
            return new Loopback("127.0.0.1", "127.0.0.2", 4791, DEFAULT_BASELINE_PORT);
        }
    }

    /** This process is the server: it waits on {@code localAddress:tcpPort} for one client. */
    record Server(String localAddress, int tcpPort, int udpPort, int baselinePort, Duration acceptTimeout)
            implements Topology {
        public Server {
            Objects.requireNonNull(localAddress, "localAddress");
            Objects.requireNonNull(acceptTimeout, "acceptTimeout");
        }
    }

    /** This process is the client of the server at {@code serverAddress:tcpPort}; it measures. */
    record Client(String localAddress, String serverAddress, int tcpPort, int udpPort, int baselinePort,
                  Duration connectTimeout) implements Topology {
        public Client {
            Objects.requireNonNull(localAddress, "localAddress");
            Objects.requireNonNull(serverAddress, "serverAddress");
            Objects.requireNonNull(connectTimeout, "connectTimeout");
        }
    }
}
