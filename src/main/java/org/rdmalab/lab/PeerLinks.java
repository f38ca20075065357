package org.rdmalab.lab;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.Timeouts;
import org.rdmalab.control.lab.LabConnection;
import org.rdmalab.control.lab.LabMessage;
import org.rdmalab.control.lab.QpStateMessage;
import org.rdmalab.control.lab.StepProgress;
import org.rdmalab.control.lab.StepStatus;
import org.rdmalab.control.pingpong.PingpongExchange;
import org.rdmalab.control.pingpong.PingpongMessage;
import org.rdmalab.control.seed.SeedBlock;
import org.rdmalab.verbs.QpState;

/** The control links a session can use: the three TCP formats and an in-memory pair. */
public final class PeerLinks {

    private PeerLinks() {
    }

    /**
     * Where a TCP link connects.
     *
     * @param role server (listens on localIp:port) or client (connects to serverIp:port)
     * @param localIp this side's address
     * @param serverIp the server's address (the client's target; ignored by the server)
     * @param port TCP port
     * @param timeouts connect, accept and read timeouts
     */
    public record Endpoint(Role role, String localIp, String serverIp, int port, Timeouts timeouts) {
    }

    /** The seed's 34-byte block and one-byte syncs. */
    public static PeerLink seed(Endpoint endpoint) {
        return new SeedLink(endpoint);
    }

    /** ibv_rc_pingpong's 52-byte text and "done". */
    public static PeerLink pingpong(Endpoint endpoint) {
        return new PingpongLink(endpoint);
    }

    /** RDMA Lab's framed protocol, which also carries QP states. */
    public static PeerLink lab(Endpoint endpoint) {
        return new LabLink(endpoint);
    }

    /** Two links joined in memory, for both peers in one process; every wait ends after {@code timeout}. */
    public static PeerLink[] memoryPair(Duration timeout) {
        BlockingQueue<Object> toServer = new LinkedBlockingQueue<>();
        BlockingQueue<Object> toClient = new LinkedBlockingQueue<>();
        return new PeerLink[] {new MemoryLink(toClient, toServer, timeout), new MemoryLink(toServer, toClient, timeout)};
    }

    /** Connects or accepts, and reports the bytes that cross. */
    private abstract static class TcpLink implements PeerLink {

        final Endpoint endpoint;
        ControlChannel channel;
        Consumer<LabEvent> sink = event -> { };

        TcpLink(Endpoint endpoint) {
            this.endpoint = endpoint;
        }

        @Override
        public void attach(Consumer<LabEvent> value) {
            sink = value;
        }

        @Override
        public Optional<Duration> shortestWait() {
            // A client's connect waits for its server's work before it listens, a read for the
            // peer's before it writes, an accept for the client's before it connects; both sides
            // are usually given the same timeouts.
            Timeouts timeouts = endpoint.timeouts();
            return Optional.of(Stream.of(timeouts.connect(), timeouts.accept(), timeouts.read())
                    .min(Duration::compareTo).orElseThrow());
        }

        @Override
        public void connect() throws ControlException {
            if (endpoint.role() == Role.SERVER) {
                channel = ControlChannel.accept(endpoint.localIp(), endpoint.port(), endpoint.timeouts());
                return;
            }
            String start = serverCommand();
            try {
                channel = ControlChannel.connect(endpoint.serverIp(), endpoint.port(), endpoint.timeouts(),
                        (where, refusals, waited) -> sink.accept(new LabEvent.PeerWaiting(where, refusals, waited,
                                endpoint.timeouts().connect(), start)));
            } catch (ControlException e) {
                if (e.reason() != ControlException.Reason.REFUSED) {
                    throw e;
                }
                throw new ControlException(e.reason(), e.getMessage().replace("; start the server first,",
                        "; start the server there first (" + start + "),"), e);
            }
        }

        /** What starts this link's server on the other machine: RDMA Lab's demo in this link's protocol and port. */
        String serverCommand() {
            return "rdma-lab demo " + endpoint.serverIp() + " <device>"
                    + (protocol().equals("seed") ? "" : " --protocol " + protocol())
                    + (endpoint.port() == LabSetup.SEED_TCP_PORT ? "" : " --tcp-port " + endpoint.port());
        }

        ControlChannel channel() throws ControlException {
            if (channel == null) {
                throw new ControlException(ControlException.Reason.PROTOCOL, "not connected; run the TCP step first");
            }
            return channel;
        }

        void report(boolean sent, String description, int length) {
            sink.accept(new LabEvent.ControlMessage(sent, protocol(), description, length));
        }

        @Override
        public void close() {
            if (channel != null) {
                channel.close();
                channel = null;
            }
        }
    }

    private static final class SeedLink extends TcpLink {

        SeedLink(Endpoint endpoint) {
            super(endpoint);
        }

        @Override
        public String protocol() {
            return "seed";
        }

        @Override
        public void send(ConnectionData local) throws ControlException {
            SeedBlock block = SeedBlock.from(local);
            channel().write(block.serialize(), "the connection block");
            report(true, "connection block " + block, SeedBlock.LENGTH);
        }

        @Override
        public ConnectionData receive() throws ControlException {
            SeedBlock block = SeedBlock.parse(channel().read(SeedBlock.LENGTH, "the connection block"));
            report(false, "connection block " + block, SeedBlock.LENGTH);
            return block.toConnectionData();
        }

        @Override
        public void sync(String name) throws ControlException {
            byte value = (byte) (name.isEmpty() ? 'S' : name.charAt(0));
            channel().write(new byte[] {value}, "a sync byte");
            report(true, "sync '" + (char) value + "'", 1);
            // The last sync of the seed tolerates a peer that already closed (one round fewer).
            var received = channel().readIfOpen(1, "a sync byte");
            report(false, received.map(bytes -> "sync '" + (char) bytes[0] + "'").orElse("peer closed after its last sync"),
                    received.isPresent() ? 1 : 0);
        }
    }

    private static final class PingpongLink extends TcpLink {

        PingpongLink(Endpoint endpoint) {
            super(endpoint);
        }

        @Override
        public String protocol() {
            return "pingpong";
        }

        @Override
        public void send(ConnectionData local) throws ControlException {
            PingpongMessage message = PingpongMessage.from(local);
            new PingpongExchange(channel()).send(local);
            report(true, "\"" + message.text() + "\"", PingpongMessage.LENGTH);
        }

        @Override
        public ConnectionData receive() throws ControlException {
            PingpongMessage message = new PingpongExchange(channel()).receiveMessage();
            report(false, "\"" + message.text() + "\"", PingpongMessage.LENGTH);
            return message.toConnectionData();
        }

        @Override
        public void sync(String name) throws ControlException {
            PingpongExchange exchange = new PingpongExchange(channel());
            if (endpoint.role() == Role.CLIENT) {
                exchange.sendDone();
                report(true, "\"done\"", 5);
            } else {
                exchange.awaitDone();
                report(false, "\"done\"", 5);
            }
        }
    }

    private static final class LabLink extends TcpLink {

        private LabConnection connection;
        private java.util.function.BiFunction<Long, Integer, byte[]> bufferSource;

        LabLink(Endpoint endpoint) {
            super(endpoint);
        }

        @Override
        public String protocol() {
            return "lab";
        }

        @Override
        public void connect() throws ControlException {
            super.connect();
            connection = LabConnection.open(channel(), "RDMA Lab");
            connection.onMessage(this::onMessage);
            if (bufferSource != null) {
                connection.serveBuffer(bufferSource::apply);
            }
            report(false, "hello " + connection.peerHello(), 0);
            // From now on the peer's QP states and progress arrive while this side is idle.
            connection.startReader();
        }

        private void onMessage(LabMessage message) {
            if (message instanceof QpStateMessage state) {
                sink.accept(new LabEvent.QpStateChange(LabEvent.Side.PEER, state.qpn(), QpState.UNKNOWN, state.state()));
                report(false, String.format("peer QP 0x%x is %s", state.qpn(), state.state().name()), 0);
            } else if (message instanceof StepProgress progress) {
                report(false, "peer step " + progress.stepId() + " '" + progress.stepName() + "' "
                        + progress.status() + (progress.detail().isEmpty() ? "" : ": " + progress.detail()), 0);
            } else {
                report(false, message.toString(), 0);
            }
        }

        private LabConnection connection() throws ControlException {
            if (connection == null) {
                throw new ControlException(ControlException.Reason.PROTOCOL, "not connected; run the TCP step first");
            }
            return connection;
        }

        @Override
        public void send(ConnectionData local) throws ControlException {
            connection().send(new org.rdmalab.control.lab.ConnectionDataMessage(local));
            report(true, "connection data " + local, 0);
        }

        @Override
        public ConnectionData receive() throws ControlException {
            ConnectionData data = connection().receiveConnectionData();
            report(false, "connection data " + data, 0);
            return data;
        }

        @Override
        public ConnectionData exchange(ConnectionData local) throws ControlException {
            ConnectionData remote = connection().exchange(local);
            report(true, "connection data " + local, 0);
            report(false, "connection data " + remote, 0);
            return remote;
        }

        @Override
        public void sync(String name) throws ControlException {
            connection().sync(name);
            report(true, "sync '" + name + "'", 0);
        }

        @Override
        public void publishQpState(int qpNum, QpState state) throws ControlException {
            if (connection != null) {
                connection.send(new QpStateMessage(qpNum, state));
            }
        }

        @Override
        public void publishStep(int index, String title, boolean ok, String detail) throws ControlException {
            if (connection != null) {
                connection.send(new StepProgress(index, title, ok ? StepStatus.SUCCEEDED : StepStatus.FAILED, detail));
            }
        }

        @Override
        public void serveBuffer(java.util.function.BiFunction<Long, Integer, byte[]> source) {
            bufferSource = source;
            if (connection != null) {
                connection.serveBuffer(source::apply);
            }
        }

        @Override
        public byte[] readPeerBuffer(long offset, int length) throws ControlException {
            byte[] bytes = connection().readPeerBuffer(offset, length);
            report(false, "snapshot of " + bytes.length + " bytes of the peer's buffer at offset " + offset,
                    bytes.length);
            return bytes;
        }

        @Override
        public void close() {
            if (connection != null) {
                try {
                    connection.finish();
                } catch (ControlException e) {
                    // The peer is gone; closing is all that is left.
                }
                connection.close();
                connection = null;
            }
            super.close();
        }
    }

    private static final class MemoryLink implements PeerLink {

        private final BlockingQueue<Object> inbox;
        private final BlockingQueue<Object> outbox;
        private final Duration timeout;
        private Consumer<LabEvent> sink = event -> { };

        MemoryLink(BlockingQueue<Object> inbox, BlockingQueue<Object> outbox, Duration timeout) {
            this.inbox = inbox;
            this.outbox = outbox;
            this.timeout = timeout;
        }

        @Override
        public String protocol() {
            return "memory";
        }

        @Override
        public Optional<Duration> shortestWait() {
            return Optional.of(timeout);
        }

        @Override
        public void attach(Consumer<LabEvent> value) {
            sink = value;
        }

        @Override
        public void connect() {
            // Always connected.
        }

        @Override
        public void send(ConnectionData local) {
            outbox.add(local);
            sink.accept(new LabEvent.ControlMessage(true, protocol(), "connection data " + local, 0));
        }

        @Override
        public ConnectionData receive() throws ControlException {
            Object item = take("connection data");
            if (!(item instanceof ConnectionData data)) {
                throw new ControlException(ControlException.Reason.PROTOCOL, "expected connection data, got " + item);
            }
            sink.accept(new LabEvent.ControlMessage(false, protocol(), "connection data " + data, 0));
            return data;
        }

        @Override
        public void sync(String name) throws ControlException {
            outbox.add("sync:" + name);
            Object item = take("sync '" + name + "'");
            if (!("sync:" + name).equals(item)) {
                throw new ControlException(ControlException.Reason.PROTOCOL, "this side is at sync '" + name
                        + "' but the peer sent " + item);
            }
        }

        private Object take(String what) throws ControlException {
            try {
                Object item = inbox.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
                if (item == null) {
                    throw new ControlException(ControlException.Reason.TIMEOUT, "the peer sent no " + what + " within "
                            + timeout.toMillis() + " ms");
                }
                return item;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ControlException(ControlException.Reason.TIMEOUT, "interrupted while waiting for " + what);
            }
        }

        /**
         * Nothing to release; what the peer sent this side before is forgotten, as a closed TCP
         * connection loses it: a sync the peer sent while this side failed must not answer the
         * next run's exchange.
         */
        @Override
        public void close() {
            inbox.clear();
        }
    }
}
