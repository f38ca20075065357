package org.rdmalab.lab;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.WrOpcode;

/**
 * The step lists of the programs RDMA Lab reproduces: the seed demo (two flows) and
 * ibv_rc_pingpong. Defaults are those of the C programs (control-protocols.md).
 */
public final class Flows {

    /** The seed's message. */
    public static final String MESSAGE = "HelloWorld";
    /** MSG_SIZE = strlen(MSG) + 1. */
    public static final int MESSAGE_SIZE = MESSAGE.length() + 1;
    /** What the seed's server SENDs in the rc-example flow (same size as the message, and not it). */
    public static final String SERVER_SEND_TEXT = "ServerSend";

    /** What {@code demo --pattern}'s lines name: the SEND's, the READ's and the WRITE's buffer. */
    public static final String SEND_BUFFER = "the SEND's buffer";
    public static final String READ_BUFFER = "the buffer the RDMA READ reads";
    public static final String WRITE_BUFFER = "the RDMA WRITE's buffer";

    /** The seed's InfiniBand port. */
    public static final int IB_PORT = 1;

    /** The seed's sequences (control-protocols.md, "Ancestor sequence"). */
    public enum SeedFlow {
        /** The published ancestor's full sequence: SEND → RECV, sync, client READ then WRITE, sync, server prints. */
        RC_EXAMPLE("rc-example"),
        /** Exchange, RTS, sync, client WRITE, sync, server prints. */
        WRITE_ONLY("write-only");

        private final String label;

        SeedFlow(String label) {
            this.label = label;
        }

        /** The command-line name. */
        public String label() {
            return label;
        }

        /** Parses rc-example or write-only. */
        public static SeedFlow parse(String text) {
            for (SeedFlow flow : values()) {
                if (flow.label.equalsIgnoreCase(text.trim())) {
                    return flow;
                }
            }
            throw new IllegalArgumentException("unknown flow '" + text + "'; valid flows: rc-example, write-only");
        }
    }

    /**
     * Settings shared by the flows, with the seed's defaults.
     *
     * @param device device name
     * @param ibPort device port
     * @param gidIndex "auto", "-1" or an index
     * @param size buffer size in bytes (the seed: MSG_SIZE; bigger for --size)
     * @param mtu path MTU (the seed: 256)
     * @param pollTimeoutMillis CQ poll timeout (the seed: 2000)
     */
    public record Settings(String device, int ibPort, String gidIndex, int size, Mtu mtu, long pollTimeoutMillis) {

        /** The seed's values for {@code device}. */
        public static Settings seed(String device) {
            return new Settings(device, IB_PORT, "auto", MESSAGE_SIZE, Mtu.MTU_256, 2000);
        }
    }

    private Flows() {
    }

    /** The seed demo's steps for one role. */
    public static List<Step> seed(Role role, SeedFlow flow, Settings settings) {
        return seed(role, flow, settings, false);
    }

    /**
     * The seed demo's steps; with {@code snapshots} (RDMA Lab's own protocol) the client also
     * looks at the server's buffer over TCP after its WRITE.
     */
    public static List<Step> seed(Role role, SeedFlow flow, Settings settings, boolean snapshots) {
        return seed(role, flow, settings, snapshots, false);
    }

    /**
     * The seed demo's steps; with {@code pattern} ({@code demo --pattern}) each message's sender
     * fills its buffer after the text with {@link BufferPattern}'s bytes for that message and
     * prints their CRC32, and the receiver prints the CRC32 of its whole buffer once the message
     * is there: the server before its SEND and before the client's RDMA READ (after the SEND is
     * done, before the sync that lets the READ go), the client before its RDMA WRITE.
     */
    public static List<Step> seed(Role role, SeedFlow flow, Settings settings, boolean snapshots, boolean pattern) {
        int access = AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE);
        boolean server = role == Role.SERVER;
        String initial = server && flow == SeedFlow.RC_EXAMPLE ? SERVER_SEND_TEXT : "";
        List<Step> steps = new ArrayList<>(common(settings, initial, 0, access, QpCapabilities.seed(), 1));
        steps.add(new ConnectSteps.Connect());
        steps.add(ConnectSteps.Exchange.both());
        steps.add(new ModifySteps.ToInit(settings.ibPort(), access));
        if (flow == SeedFlow.RC_EXAMPLE && !server) {
            steps.add(new DataSteps.PostRecv(settings.size()));
        }
        steps.add(new ModifySteps.ToRtr(settings.ibPort(), settings.mtu(), "0", 0x12));
        steps.add(new ModifySteps.ToRts(0x12, 6, 0, "0"));
        steps.add(new ConnectSteps.Sync("Q", "both QPs are ready"));
        if (flow == SeedFlow.RC_EXAMPLE) {
            if (server) {
                if (pattern) {
                    steps.add(new DataSteps.FillPattern(BufferPattern.SEND, SEND_BUFFER));
                }
                steps.add(new DataSteps.PostSend(WrOpcode.SEND, settings.size()));
                steps.add(new DataSteps.PollCq("SEND", settings.pollTimeoutMillis()));
                if (pattern) {
                    steps.add(new DataSteps.FillPattern(BufferPattern.READ, READ_BUFFER));
                }
            } else {
                steps.add(new DataSteps.PollCq("RECV", settings.pollTimeoutMillis()));
                steps.add(new DataSteps.ReadBuffer("Message is"));
                if (pattern) {
                    steps.add(new DataSteps.Checksum(SEND_BUFFER));
                }
            }
            steps.add(new ConnectSteps.Sync("R", "the SEND was received"));
        }
        if (!server) {
            if (flow == SeedFlow.RC_EXAMPLE) {
                steps.add(new DataSteps.PostSend(WrOpcode.RDMA_READ, settings.size()));
                steps.add(new DataSteps.PollCq("RDMA READ", settings.pollTimeoutMillis()));
                steps.add(new DataSteps.ReadBuffer("Contents of server's buffer"));
                if (pattern) {
                    steps.add(new DataSteps.Checksum(READ_BUFFER));
                }
            }
            steps.add(new DataSteps.WriteBuffer(MESSAGE));
            if (pattern) {
                steps.add(new DataSteps.FillPattern(BufferPattern.WRITE, WRITE_BUFFER));
            }
            steps.add(new DataSteps.PostSend(WrOpcode.RDMA_WRITE, settings.size()));
            steps.add(new DataSteps.PollCq("RDMA WRITE", settings.pollTimeoutMillis()));
            if (snapshots) {
                steps.add(new DataSteps.ReadRemoteBuffer(settings.size()));
            }
        }
        steps.add(new ConnectSteps.Sync("W", "the client's WRITE is done"));
        if (server) {
            steps.add(new DataSteps.ReadBuffer("Contents of server buffer"));
            if (pattern) {
                steps.add(new DataSteps.Checksum(WRITE_BUFFER));
            }
        }
        steps.add(new DataSteps.Teardown());
        return steps;
    }

    /**
     * ibv_rc_pingpong's steps: SEND/RECV ping-pong of {@code size}-byte messages.
     *
     * @param iterations round trips (ibv_rc_pingpong: 1000)
     */
    public static List<Step> pingpong(Role role, Settings settings, int iterations) {
        return pingpong(role, settings, iterations, OptionalInt.empty());
    }

    /**
     * ibv_rc_pingpong's steps, then, with a {@code baselinePort}, the same round trips over plain
     * UDP between the two GIDs' addresses on that port, and then as RC's datagrams alone, with no
     * device behind them ({@code demo --baseline}).
     */
    public static List<Step> pingpong(Role role, Settings settings, int iterations, OptionalInt baselinePort) {
        int receiveDepth = PingPongStep.RECEIVE_DEPTH;
        // The client's messages start with the seed's "HelloWorld" (then ibv_rc_pingpong's 0x7b
        // fill), so the server can show what arrived; ibv_rc_pingpong does not look at the payload.
        String initial = role == Role.CLIENT ? MESSAGE : "";
        List<Step> steps = new ArrayList<>(common(settings, initial, PingPongStep.FILL, AccessFlag.LOCAL_WRITE.value(),
                new QpCapabilities(1, receiveDepth, 1, 1, 0), receiveDepth + 1));
        steps.add(new ModifySteps.ToInit(settings.ibPort(), 0));
        // On soft0 the receives step warms the path up first (PathWarmUp). The server's runs before
        // it listens, the client's once it is connected and before it sends its data, so the two
        // warm-ups never share the cores: the client's connect succeeds only once its server has
        // warmed up, and the server waits for the client's data without spinning. A server
        // started first is ready when its client comes, as before.
        Step receives = new PingPongStep.PostReceives(settings.mtu(),
                Duration.ofMillis(settings.pollTimeoutMillis()), iterations);
        if (role == Role.CLIENT) {
            steps.add(new ConnectSteps.Connect());
            steps.add(receives);
        } else {
            steps.add(receives);
            steps.add(new ConnectSteps.Connect());
        }
        ModifySteps.ToRtr rtr = new ModifySteps.ToRtr(settings.ibPort(), settings.mtu(), "peer", 12);
        ModifySteps.ToRts rts = new ModifySteps.ToRts(14, 7, 7, "own");
        if (role == Role.CLIENT) {
            steps.add(ConnectSteps.Exchange.both());
            steps.add(new ConnectSteps.Sync("done", "the client got the server's data"));
            steps.add(rtr);
            steps.add(rts);
        } else {
            steps.add(ConnectSteps.Exchange.receive());
            steps.add(rtr);
            steps.add(rts);
            steps.add(ConnectSteps.Exchange.send());
            steps.add(new ConnectSteps.Sync("done", "the client got the server's data"));
        }
        steps.add(new PingPongStep(iterations, settings.pollTimeoutMillis()));
        if (baselinePort.isPresent()) {
            steps.add(new UdpPingPongStep(iterations, baselinePort.getAsInt(), settings.pollTimeoutMillis()));
            steps.add(new UdpPingPongStep(UdpPingPongStep.Pattern.RC, iterations, baselinePort.getAsInt(),
                    settings.pollTimeoutMillis()));
        }
        if (role == Role.SERVER) {
            steps.add(new DataSteps.ReadBuffer("Last message received"));
        }
        steps.add(new DataSteps.Teardown());
        return steps;
    }

    /**
     * How one side of a loopback lesson builds its resources and connects its RC QP: the seed's
     * steps with other values, one thing changed at a time to show what it does.
     *
     * @param bufferLength bytes of the registered buffer
     * @param mrAccess {@code ibv_reg_mr} access flags
     * @param qpAccess {@code qp_access_flags} given at RESET → INIT
     * @param capabilities QP queue sizes
     * @param cqEntries {@code ibv_create_cq} entries
     * @param timers RTR's min_rnr_timer and RTS's timeout, retry_cnt and rnr_retry
     */
    public record RcSide(int bufferLength, int mrAccess, int qpAccess, QpCapabilities capabilities, int cqEntries,
                         org.rdmalab.verbs.RcPath.Timers timers) {

        /** Checks the sizes. */
        public RcSide {
            if (bufferLength <= 0) {
                throw new IllegalArgumentException("buffer length " + bufferLength + " must be positive");
            }
            if (cqEntries <= 0) {
                throw new IllegalArgumentException("CQ entries " + cqEntries + " must be positive");
            }
            java.util.Objects.requireNonNull(capabilities, "capabilities");
            java.util.Objects.requireNonNull(timers, "timers");
        }
    }

    /**
     * One side's steps up to RTS for a loopback lesson: open the device, query the port and pick
     * the GID ({@code settings.gidIndex()}), PD, MR, CQ, RC QP (every send signaled), connect, the
     * exchange, then INIT, RTR and RTS with PSN 0 both ways. The server sends its data first and
     * then receives the client's (two steps, so one thread can drive both sides in turn: server
     * send, client exchange, server receive); the client exchanges in one step. Two threads
     * driving the two sides meet at the exchange as the seed's do.
     */
    public static List<Step> rcSide(Role role, Settings settings, RcSide side) {
        List<Step> steps = new ArrayList<>();
        steps.add(new DeviceSteps.OpenDevice(settings.device()));
        steps.add(new DeviceSteps.QueryPort(settings.ibPort(), settings.gidIndex()));
        steps.add(new ResourceSteps.AllocatePd());
        steps.add(new ResourceSteps.RegisterMr(side.bufferLength(), "", 0, side.mrAccess()));
        steps.add(new ResourceSteps.CreateCq(side.cqEntries()));
        steps.add(new ResourceSteps.CreateQp(side.capabilities(), true));
        steps.add(new ConnectSteps.Connect());
        if (role == Role.SERVER) {
            steps.add(ConnectSteps.Exchange.send());
            steps.add(ConnectSteps.Exchange.receive());
        } else {
            steps.add(ConnectSteps.Exchange.both());
        }
        steps.add(new ModifySteps.ToInit(settings.ibPort(), side.qpAccess()));
        steps.add(new ModifySteps.ToRtr(settings.ibPort(), settings.mtu(), "0", side.timers().minRnrTimer()));
        steps.add(new ModifySteps.ToRts(side.timers().timeout(), side.timers().retryCount(), side.timers().rnrRetry(),
                "0"));
        return steps;
    }

    /**
     * One side's steps up to its QP in RESET, and no further (a lesson that then moves the QP by
     * hand): open, query port and GID, PD, MR, CQ, QP.
     */
    public static List<Step> resources(Settings settings, RcSide side) {
        return new ArrayList<>(rcSide(Role.SERVER, settings, side).subList(0, 6));
    }

    private static List<Step> common(Settings settings, String initial, int fill, int access, QpCapabilities caps,
                                     int cqSize) {
        return List.of(
                new DeviceSteps.OpenDevice(settings.device()),
                new DeviceSteps.QueryPort(settings.ibPort(), settings.gidIndex()),
                new ResourceSteps.AllocatePd(),
                new ResourceSteps.CreateCq(cqSize),
                new ResourceSteps.RegisterMr(settings.size(), initial, fill, access),
                new ResourceSteps.CreateQp(caps, true));
    }
}
