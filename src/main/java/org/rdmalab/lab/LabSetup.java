package org.rdmalab.lab;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.rdmalab.control.ControlProtocol;
import org.rdmalab.control.Timeouts;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * What a user chose before the first step: one peer talking to another machine, or both peers in
 * one process (the loopback lab), with the device, port, GID index and control plane. Builds the
 * sessions; the window and tests share it so both run exactly the same flows.
 *
 * @param mode loopback lab or one peer of two machines
 * @param device device name (soft0, rxe0, mlx5_0)
 * @param ibPort the device port (the seed: 1)
 * @param gidIndex "-1" (the seed's default: no GRH), "auto" or an index
 * @param flow the seed's flow
 * @param protocol the control protocol (two machines; the loopback lab passes objects in memory)
 * @param role server or client (two machines)
 * @param localIp this peer's address (two machines); in the loopback lab the server is 127.0.0.1
 *     and the client 127.0.0.2
 * @param peerIp the server's address (a two-machine client)
 * @param tcpPort TCP port (the seed: 12025)
 * @param pollTimeoutMillis CQ poll timeout (the seed: 2000)
 * @param peerTimeout how long a step waits for the peer (connect, exchange, sync)
 * @param base device options (UDP port, faults, capture); their address is replaced per peer
 */
public record LabSetup(Mode mode, String device, int ibPort, String gidIndex, Flows.SeedFlow flow,
                       ControlProtocol protocol, Role role, String localIp, String peerIp, int tcpPort,
                       long pollTimeoutMillis, Duration peerTimeout, DeviceOptions base) {

    /** The seed's TCP port. */
    public static final int SEED_TCP_PORT = 12025;
    /** The loopback lab's server address. */
    public static final String LOOPBACK_SERVER_IP = "127.0.0.1";
    /** The loopback lab's client address. */
    public static final String LOOPBACK_CLIENT_IP = "127.0.0.2";

    /** Both peers in one process, or one peer of two machines. */
    public enum Mode {
        /** Server on 127.0.0.1 and client on 127.0.0.2, each with its own device, driven from one place. */
        LOOPBACK("Loopback lab"),
        /** One peer; the other is RDMA Lab, the seed's C program or ibv_rc_pingpong on another machine. */
        TWO_MACHINES("Two machines");

        private final String label;

        Mode(String label) {
            this.label = label;
        }

        @Override
        public String toString() {
            return label;
        }
    }

    public LabSetup {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(flow, "flow");
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(peerTimeout, "peerTimeout");
        if (device == null || device.isBlank()) {
            throw new IllegalArgumentException("choose a device (soft0 works everywhere)");
        }
        if (tcpPort < 1 || tcpPort > 65535) {
            throw new IllegalArgumentException("TCP port " + tcpPort + " is outside 1..65535");
        }
    }

    /** The loopback lab with the seed's defaults: soft0, port 1, gid_idx -1, write-only flow. */
    public static LabSetup loopback() {
        return new LabSetup(Mode.LOOPBACK, "soft0", Flows.IB_PORT, "-1", Flows.SeedFlow.WRITE_ONLY,
                ControlProtocol.LAB, Role.SERVER, LOOPBACK_SERVER_IP, LOOPBACK_SERVER_IP, SEED_TCP_PORT,
                LabSession.SEED_POLL_TIMEOUT.toMillis(), Duration.ofSeconds(60), DeviceOptions.defaults());
    }

    /** The same setup with another GID index. */
    public LabSetup withGidIndex(String index) {
        return new LabSetup(mode, device, ibPort, index, flow, protocol, role, localIp, peerIp, tcpPort,
                pollTimeoutMillis, peerTimeout, base);
    }

    /** The same setup in another mode. */
    public LabSetup withMode(Mode newMode) {
        return new LabSetup(newMode, device, ibPort, gidIndex, flow, protocol, role, localIp, peerIp, tcpPort,
                pollTimeoutMillis, peerTimeout, base);
    }

    /** The same setup with other device options. */
    public LabSetup withBase(DeviceOptions options) {
        return new LabSetup(mode, device, ibPort, gidIndex, flow, protocol, role, localIp, peerIp, tcpPort,
                pollTimeoutMillis, peerTimeout, options);
    }

    /** The same setup as one peer of two machines. */
    public LabSetup twoMachines(Role newRole, String newLocalIp, String newPeerIp, ControlProtocol newProtocol,
                                int newTcpPort) {
        return new LabSetup(Mode.TWO_MACHINES, device, ibPort, gidIndex, flow, newProtocol, newRole, newLocalIp,
                newPeerIp, newTcpPort, pollTimeoutMillis, peerTimeout, base);
    }

    /** The same setup on another device and port. */
    public LabSetup withDevice(String newDevice, int newPort) {
        return new LabSetup(mode, newDevice, newPort, gidIndex, flow, protocol, role, localIp, peerIp, tcpPort,
                pollTimeoutMillis, peerTimeout, base);
    }

    /** The same setup with another flow. */
    public LabSetup withFlow(Flows.SeedFlow newFlow) {
        return new LabSetup(mode, device, ibPort, gidIndex, newFlow, protocol, role, localIp, peerIp, tcpPort,
                pollTimeoutMillis, peerTimeout, base);
    }

    /**
     * Builds the sessions: in the loopback lab the server then the client, joined in memory; with two
     * machines the one local peer over TCP. The steps are the seed's flow without its final
     * teardown: the window keeps the objects to look at, and its reset releases them.
     *
     * @throws IllegalArgumentException for an address that is not IPv4
     */
    public List<LabSession> open(Backends backends) {
        Flows.Settings settings = new Flows.Settings(device, ibPort, gidIndex,
                protocol == ControlProtocol.PINGPONG && mode == Mode.TWO_MACHINES ? 4096 : Flows.MESSAGE_SIZE,
                protocol == ControlProtocol.PINGPONG && mode == Mode.TWO_MACHINES ? Mtu.MTU_1024 : Mtu.MTU_256,
                pollTimeoutMillis);
        List<LabSession> sessions = new ArrayList<>();
        if (mode == Mode.LOOPBACK) {
            PeerLink[] links = PeerLinks.memoryPair(peerTimeout);
            sessions.add(new LabSession(Role.SERVER, backends,
                    base.withAddress(DeviceOptions.parseAddress(LOOPBACK_SERVER_IP)), links[0],
                    withoutTeardown(Flows.seed(Role.SERVER, flow, settings))));
            sessions.add(new LabSession(Role.CLIENT, backends,
                    base.withAddress(DeviceOptions.parseAddress(LOOPBACK_CLIENT_IP)), links[1],
                    withoutTeardown(Flows.seed(Role.CLIENT, flow, settings))));
            return sessions;
        }
        DeviceOptions options = base.withAddress(DeviceOptions.parseAddress(localIp));
        if (role == Role.CLIENT) {
            DeviceOptions.parseAddress(peerIp);
        }
        PeerLinks.Endpoint endpoint = new PeerLinks.Endpoint(role, localIp, role == Role.CLIENT ? peerIp : null,
                tcpPort, new Timeouts(peerTimeout, peerTimeout, peerTimeout));
        PeerLink link;
        List<Step> steps;
        switch (protocol) {
            case SEED -> {
                link = PeerLinks.seed(endpoint);
                steps = Flows.seed(role, flow, settings);
            }
            case LAB -> {
                link = PeerLinks.lab(endpoint);
                steps = Flows.seed(role, flow, settings, true);
            }
            default -> {
                link = PeerLinks.pingpong(endpoint);
                steps = Flows.pingpong(role, settings, 1000);
            }
        }
        LabSession session = new LabSession(role, backends, options, link, withoutTeardown(steps));
        if (protocol == ControlProtocol.PINGPONG) {
            session.resources().sendPsn(new java.security.SecureRandom().nextInt(1 << 24));
        }
        sessions.add(session);
        return sessions;
    }

    private static List<Step> withoutTeardown(List<Step> steps) {
        List<Step> kept = new ArrayList<>(steps);
        kept.removeIf(step -> step instanceof DataSteps.Teardown);
        return kept;
    }

    /**
     * What a control message or sync implies about the peer's QP when the protocol carries no QP
     * state (seed, pingpong): the seed's sync 'Q' is sent once both QPs are in RTS; ibv_rc_pingpong's
     * server sends its data only after RTS, and its client says "done" after its own RTS.
     *
     * @param protocol the control protocol in use
     * @param role this side's role
     * @param event an event of this side's session
     * @return the state the peer must at least have reached
     */
    public static Optional<QpState> impliedPeerState(ControlProtocol protocol, Role role, LabEvent event) {
        if (protocol == ControlProtocol.SEED && event instanceof LabEvent.ControlMessage message && !message.sent()
                && message.description().startsWith("sync 'Q'")) {
            return Optional.of(QpState.RTS);
        }
        if (protocol == ControlProtocol.PINGPONG && event instanceof LabEvent.ControlMessage message
                && !message.sent()) {
            boolean serverData = role == Role.CLIENT && message.description().startsWith("\"");
            boolean clientDone = role == Role.SERVER && message.description().equals("\"done\"");
            if (serverData || clientDone) {
                return Optional.of(QpState.RTS);
            }
        }
        return Optional.empty();
    }
}
