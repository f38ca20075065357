package org.rdmalab.bench;

import java.time.Duration;
import java.util.Objects;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * Where the two sides of a run are. A software device binds the side's address (its GID is the
 * IPv4-mapped form of it); a real device sends from the GID that carries it.
 */
public sealed interface Topology {

    /** perftest's TCP port. */
    int DEFAULT_TCP_PORT = 18515;
    /** The baseline's UDP port on both addresses (the RoCE v2 port 4791 belongs to the device). */
    int DEFAULT_BASELINE_PORT = 18516;

    /** The address a server binds when none is given (a software device's, and the TCP listener's). */
    String DEFAULT_SERVER_ADDRESS = "127.0.0.1";

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

    /** What a server and its client speak over TCP. */
    enum Exchange {
        /** RDMA Lab's own protocol ({@code control.lab}): both sides are RDMA Lab. */
        RDMA_LAB,
        /**
         * perftest's exchange ({@code control.perftest}): the peer is {@code ib_write_bw} or
         * {@code ib_write_lat} (or RDMA Lab with {@code --perftest}).
         */
        PERFTEST
    }

    /** This process is the server: it waits on {@code localAddress:tcpPort} for one client. */
    record Server(String localAddress, int tcpPort, int udpPort, int baselinePort, Duration acceptTimeout,
                  Exchange exchange) implements Topology {
        public Server {
            Objects.requireNonNull(localAddress, "localAddress");
            Objects.requireNonNull(acceptTimeout, "acceptTimeout");
            Objects.requireNonNull(exchange, "exchange");
        }

        /** A server that speaks RDMA Lab's protocol. */
        public Server(String localAddress, int tcpPort, int udpPort, int baselinePort, Duration acceptTimeout) {
            this(localAddress, tcpPort, udpPort, baselinePort, acceptTimeout, Exchange.RDMA_LAB);
        }

        /** A copy that speaks {@code value}. */
        public Server withExchange(Exchange value) {
            return new Server(localAddress, tcpPort, udpPort, baselinePort, acceptTimeout, value);
        }
    }

    /** This process is the client of the server at {@code serverAddress:tcpPort}; it measures. */
    record Client(String localAddress, String serverAddress, int tcpPort, int udpPort, int baselinePort,
                  Duration connectTimeout, Exchange exchange) implements Topology {
        public Client {
            Objects.requireNonNull(localAddress, "localAddress");
            Objects.requireNonNull(serverAddress, "serverAddress");
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(exchange, "exchange");
        }

        /** A client that speaks RDMA Lab's protocol. */
        public Client(String localAddress, String serverAddress, int tcpPort, int udpPort, int baselinePort,
                      Duration connectTimeout) {
            this(localAddress, serverAddress, tcpPort, udpPort, baselinePort, connectTimeout, Exchange.RDMA_LAB);
        }

        /** A copy that speaks {@code value}. */
        public Client withExchange(Exchange value) {
            return new Client(localAddress, serverAddress, tcpPort, udpPort, baselinePort, connectTimeout, value);
        }
    }

    /*
     * bench's rules for the two sides' addresses, shared by the command line and the window: a
     * software device binds the address, so each side needs one of this machine's own, and two sides
     * on one machine need two. Bad values fail with a one-line IllegalArgumentException.
     */

    /**
     * Both sides here: the server on {@code localIp} (blank: 127.0.0.1), the client on the address
     * that reaches it ({@link BenchEngine#localAddressFor}: 127.0.0.2 next to 127.0.0.1).
     */
    static Loopback loopback(String localIp, int udpPort, int baselinePort) {
        checkPort(udpPort, "UDP port", true);
        checkPort(baselinePort, "baseline port", true);
        String server = addressOr(localIp, DEFAULT_SERVER_ADDRESS);
        return new Loopback(server, BenchEngine.localAddressFor(server), udpPort, baselinePort);
    }

    /** This side serves: it binds {@code localIp} (blank: 127.0.0.1) and waits on {@code tcpPort}. */
    static Server server(String localIp, int tcpPort, int udpPort, int baselinePort, Duration acceptTimeout) {
        checkPort(tcpPort, "TCP port", false);
        checkPort(udpPort, "UDP port", true);
        checkPort(baselinePort, "baseline port", true);
        return new Server(addressOr(localIp, DEFAULT_SERVER_ADDRESS), tcpPort, udpPort, baselinePort, acceptTimeout);
    }

    /**
     * This side is the client of {@code serverIp}; it binds {@code localIp}, or when blank the address
     * that reaches the server ({@link BenchEngine#localAddressFor}).
     */
    static Client client(String serverIp, String localIp, int tcpPort, int udpPort, int baselinePort,
                         Duration connectTimeout) {
        if (serverIp == null || serverIp.isBlank()) {
            throw new IllegalArgumentException("give the server's IPv4 address (the machine where the server waits)");
        }
        checkPort(tcpPort, "TCP port", false);
        checkPort(udpPort, "UDP port", true);
        checkPort(baselinePort, "baseline port", true);
        String server = DeviceOptions.parseAddress(serverIp).getHostAddress();
        String local = localIp == null || localIp.isBlank() ? BenchEngine.localAddressFor(server)
                : DeviceOptions.parseAddress(localIp).getHostAddress();
        return new Client(local, server, tcpPort, udpPort, baselinePort, connectTimeout);
    }

    private static String addressOr(String text, String fallback) {
        return DeviceOptions.parseAddress(text == null || text.isBlank() ? fallback : text).getHostAddress();
    }

    /** 1..65535; {@code zero} allows 0 (the baseline's "any port" in tests). */
    private static void checkPort(int port, String what, boolean zero) {
        if (port < (zero ? 0 : 1) || port > 65535) {
            throw new IllegalArgumentException(what + " " + port + " is outside 1..65535");
        }
    }
}
