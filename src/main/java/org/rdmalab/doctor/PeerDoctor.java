package org.rdmalab.doctor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.Timeouts;
import org.rdmalab.control.lab.Facts;
import org.rdmalab.control.lab.LabConnection;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.GlobalRoute;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.RcPath;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The two-machine part of {@code doctor}: one side serves ({@code --serve}), the other connects over
 * RDMA Lab's protocol (TCP, default port 12025). Both send their {@link SideFacts} in a
 * {@link Facts} message and compare them (GID types, subnets, MTUs). Then, unless the comparison
 * already shows the probe cannot work, the active probe: an RC QP on each side brought to RTS, a
 * small RDMA WRITE each way, then a full path-MTU write each way. After each write the receiving
 * side reports what it saw (its packet counter and its buffer), so a failure is classified with
 * both views: a black hole (no packet arrived), a one-way black hole (packets arrived, no
 * acknowledgement returned), an MTU problem (only full size fails), or a remote access error.
 *
 * <p>Both sides run the same code and reach the same verdicts from the same facts. Every wait has
 * a timeout: the TCP reads, and each write's completion (QP timeout 17 = 537 ms, 3 retries, so a
 * black hole shows after about 2.1 s, then a poll of at most {@code pollTimeout}).
 *
 * <p>Threads: one run on the calling thread. The device, its resources and the connection are
 * released on every path.
 */
public final class PeerDoctor {

    /** The probe's small message. */
    public static final int SMALL_BYTES = 16;

    /**
     * QP local ACK timeout: 4.096 us x 2^17 = 537 ms. Shorter timeouts (67 ms was tried) gave false
     * black holes on a loaded machine, where a cold JVM answered too late.
     */
    public static final int QP_TIMEOUT = 17;

    /** What a failed RTR means. */
    static final Phrase RTR_FAILED = Phrase.from(Check.PEER, "peer.probe.rtr");

    /** What to do about it. */
    static final Phrase RTR_FIX = Phrase.from(Check.PEER, "peer.probe.rtr.fix");

    /** Transport retries before IBV_WC_RETRY_EXC_ERR. */
    public static final int RETRY_COUNT = 3;

    /** The probe's timers: the seed's min_rnr_timer 0x12, timeout {@link #QP_TIMEOUT}, {@link #RETRY_COUNT} retries of both kinds. */
    static final RcPath.Timers TIMERS = new RcPath.Timers(0x12, QP_TIMEOUT, RETRY_COUNT, RETRY_COUNT);

    /**
     * One side's settings.
     *
     * @param localIp this side's address
     * @param device the RDMA device
     * @param port the device port
     * @param options how to open the software device (address, UDP port, faults)
     * @param tcpPort the lab protocol's TCP port
     * @param timeouts connect, accept and read timeouts of the TCP exchange
     * @param pollTimeout how long one write's completion is waited for
     */
    public record Settings(String localIp, String device, int port, DeviceOptions options, int tcpPort,
            Timeouts timeouts, Duration pollTimeout) {
    }

    private enum Role {
        SERVER("server"), CLIENT("client");

        final String text;

        Role(String text) {
            this.text = text;
        }

        Role other() {
            return this == SERVER ? CLIENT : SERVER;
        }
    }

    /**
     * What the peer part found.
     *
     * @param checks the comparison and the probe
     * @param peer the peer's facts, when they arrived
     */
    public record Result(List<Check> checks, Optional<SideFacts> peer) {
    }

    private final Backends backends;
    private final Host host;

    /** A peer doctor using the devices of {@code backends} and the counters of {@code host}'s sysfs. */
    public PeerDoctor(Backends backends, Host host) {
        this.backends = backends;
        this.host = host;
    }

    /** Waits for one client on {@code localIp:tcpPort}, then compares and probes. */
    public Result serve(Settings settings, SideFacts local) {
        ControlChannel channel;
        try {
            channel = ControlChannel.accept(settings.localIp(), settings.tcpPort(), settings.timeouts());
        } catch (ControlException e) {
            return new Result(List.of(Check.fail("peer", Phrase.literal(e.getMessage()),
                    e.reason() == ControlException.Reason.TIMEOUT
                            ? Phrase.from(Check.PEER, "peer.serve.timeout.fix", settings.device(), settings.localIp())
                            : Phrase.from(Check.PEER, "peer.serve.fix"))), Optional.empty());
        }
        return run(channel, settings, local, Role.SERVER);
    }

    /** Connects to a serving doctor at {@code peerIp:tcpPort}, then compares and probes. */
    public Result connect(Settings settings, SideFacts local, String peerIp) {
        ControlChannel channel;
        try {
            channel = ControlChannel.connect(peerIp, settings.tcpPort(), settings.timeouts());
        } catch (ControlException e) {
            Phrase fix = e.reason() == ControlException.Reason.REFUSED || e.reason() == ControlException.Reason.TIMEOUT
                    ? Phrase.from(Check.PEER, "peer.connect.notRunning.fix", peerIp)
                    : Phrase.from(Check.PEER, "peer.connect.fix");
            return new Result(List.of(Check.fail("peer", Phrase.from(Check.PEER, "peer.connect.noAnswer", peerIp,
                    settings.tcpPort(), e.getMessage()), fix)), Optional.empty());
        }
        return run(channel, settings, local, Role.CLIENT);
    }

    private Result run(ControlChannel channel, Settings settings, SideFacts local, Role role) {
        List<Check> checks = new ArrayList<>();
        Duration read = settings.timeouts().read().compareTo(settings.pollTimeout().plusSeconds(5)) > 0
                ? settings.timeouts().read() : settings.pollTimeout().plusSeconds(5);
        channel.setReadTimeout(read);
        Optional<SideFacts> peerFacts = Optional.empty();
        try (LabConnection connection = LabConnection.open(channel, "RDMA Lab doctor")) {
            Map<String, String> mine = new LinkedHashMap<>(local.toMap());
            mine.put("role", role.text);
            SideFacts peer = SideFacts.from(connection.exchangeFacts(Facts.of(mine)));
            peerFacts = Optional.of(peer);
            checks.add(Check.pass("peer", Phrase.from(Check.PEER, "peer.answered", roleName(role.other().text),
                    peer.ip(), peer.device(), peer.backend(), peer.gidText())));
            SideFacts server = role == Role.SERVER ? local : peer;
            SideFacts client = role == Role.CLIENT ? local : peer;
            Optional<Mtu> pathMtu = compare(checks, local, peer, server, client);
            if (pathMtu.isPresent()) {
                new Probe(connection, settings, local, peer, role, pathMtu.get(), checks).run();
            }
            connection.finish();
        } catch (ControlException e) {
            checks.add(Check.fail("peer", Phrase.literal(e.getMessage()), Phrase.from(Check.PEER, "peer.lost.fix")));
        }
        return new Result(List.copyOf(checks), peerFacts);
    }

    /** The comparison; returns the path MTU for the probe, or empty when the probe cannot run. */
    Optional<Mtu> compare(List<Check> checks, SideFacts local, SideFacts peer, SideFacts server,
            SideFacts client) {
        boolean probe = true;
        if (local.gidIndex() < 0 || peer.gidIndex() < 0) {
            checks.add(Check.fail("compare GID", Phrase.from(Check.PEER, local.gidIndex() < 0 ? "peer.gid.noneHere"
                    : "peer.gid.nonePeer"), Phrase.from(Check.PEER, "peer.gid.none.fix")));
            probe = false;
        } else if (!local.gidType().equals(peer.gidType())) {
            checks.add(Check.fail("compare GID", Phrase.from(Check.PEER, "peer.gid.types", local.gidText(),
                    peer.gidText()), Phrase.from(Check.PEER, "peer.gid.types.fix")));
        } else {
            checks.add(Check.pass("compare GID", Phrase.from(Check.PEER, "peer.gid.same", local.gidType(),
                    local.gidText(), peer.gidText())));
        }
        compareSubnets(checks, local, peer);
        if (local.netdevMtu() > 0 && peer.netdevMtu() > 0 && local.netdevMtu() != peer.netdevMtu()) {
            checks.add(Check.fail("compare netdev MTU", Phrase.from(Check.PEER, "peer.netdevMtu.differ",
                    local.netdevMtu(), local.netdev(), peer.netdevMtu(), peer.netdev()), Phrase.from(Check.PEER,
                    "peer.netdevMtu.differ.fix", Math.min(local.netdevMtu(), peer.netdevMtu()))));
        } else if (local.netdevMtu() > 0 && peer.netdevMtu() > 0) {
            checks.add(Check.pass("compare netdev MTU", Phrase.from(Check.PEER, "peer.netdevMtu.same",
                    local.netdevMtu())));
        }
        int requested = client.pathMtu() > 0 ? client.pathMtu() : server.pathMtu();
        int smallestActive = Math.min(local.activeMtu(), peer.activeMtu());
        if (smallestActive <= 0) {
            checks.add(Check.fail("compare MTU", Phrase.from(Check.PEER, local.activeMtu() <= 0 ? "peer.mtu.unknownHere"
                    : "peer.mtu.unknownPeer"), Phrase.from(Check.PEER, "peer.mtu.unknown.fix")));
            return Optional.empty();
        }
        int path = requested > 0 ? requested : smallestActive;
        Phrase actives = Phrase.from(Check.PEER, "peer.mtu.actives", server.activeMtu(), client.activeMtu());
        if (path > smallestActive) {
            checks.add(Check.fail("compare MTU", Phrase.from(Check.PEER, "peer.mtu.above", path, actives),
                    Phrase.from(Check.PEER, "peer.mtu.above.fix", smallestActive)));
            return Optional.empty();
        }
        checks.add(Check.pass("compare MTU", Phrase.from(Check.PEER, "peer.mtu.fits", path, actives)));
        return probe ? Optional.of(Mtu.ofBytes(path)) : Optional.empty();
    }

    private void compareSubnets(List<Check> checks, SideFacts local, SideFacts peer) {
        if (local.prefixLength() < 0 || !LocalChecks.isIpv4(peer.ip()) || !LocalChecks.isIpv4(local.ip())) {
            checks.add(Check.skip("compare subnet", Phrase.from(Check.PEER, "peer.subnet.unknownPrefix", local.ip())));
            return;
        }
        String subnet = network(local.ip(), local.prefixLength()) + "/" + local.prefixLength();
        if (network(peer.ip(), local.prefixLength()).equals(network(local.ip(), local.prefixLength()))) {
            checks.add(Check.pass("compare subnet", Phrase.from(Check.PEER, "peer.subnet.same", subnet)));
            return;
        }
        CommandRunner.Result route = host.commands().run(List.of("ip", "route", "get", peer.ip()));
        if (route.ok()) {
            checks.add(Check.pass("compare subnet", Phrase.from(Check.PEER, "peer.subnet.routed", peer.ip(), subnet,
                    route.output().lines().findFirst().orElse("").strip())));
        } else {
            checks.add(Check.fail("compare subnet", Phrase.from(Check.PEER, "peer.subnet.noRoute", peer.ip(), subnet),
                    Phrase.from(Check.PEER, "peer.subnet.noRoute.fix", peer.ip())));
        }
    }

    /** The network part of {@code ip} under {@code prefix}, dotted. */
    static String network(String ip, int prefix) {
        byte[] bytes = DeviceOptions.parseAddress(ip).getAddress();
        int value = ((bytes[0] & 0xff) << 24) | ((bytes[1] & 0xff) << 16) | ((bytes[2] & 0xff) << 8) | (bytes[3] & 0xff);
        int mask = prefix == 0 ? 0 : -1 << (32 - prefix);
        int net = value & mask;
        return ((net >>> 24) & 0xff) + "." + ((net >>> 16) & 0xff) + "." + ((net >>> 8) & 0xff) + "." + (net & 0xff);
    }

    /** One side's QP and the writes; both sides walk the same stages in the same order. */
    private final class Probe {

        private final LabConnection connection;
        private final Settings settings;
        private final SideFacts local;
        private final SideFacts peer;
        private final Role role;
        private final Mtu pathMtu;
        private final List<Check> checks;

        Probe(LabConnection connection, Settings settings, SideFacts local, SideFacts peer, Role role, Mtu pathMtu,
                List<Check> checks) {
            this.connection = connection;
            this.settings = settings;
            this.local = local;
            this.peer = peer;
            this.role = role;
            this.pathMtu = pathMtu;
            this.checks = checks;
        }

        private Context context;

        void run() throws ControlException {
            try {
                String failure = "";
                QueuePair qp = null;
                MemoryRegion mr = null;
                CompletionQueue cq = null;
                try {
                    context = backends.find(settings.device(), settings.options()).open();
                    ProtectionDomain pd = context.allocatePd();
                    mr = pd.registerMemory(LocalChecks.PROBE_BUFFER_BYTES,
                            AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE));
                    cq = context.createCq(16, null, 0);
                    qp = RcPath.createQp(pd, cq, new QpCapabilities(4, 4, 1, 1, 0), true);
                    RcPath.toInit(qp, settings.port(), AccessFlag.of(AccessFlag.REMOTE_WRITE));
                } catch (VerbsException e) {
                    failure = "setup: " + e.getMessage();
                }
                Gid gid = local.gidIndex() >= 0 ? Gid.parse(local.gid()) : Gid.ZERO;
                ConnectionData mine = failure.isEmpty()
                        ? new ConnectionData(QpType.RC, qp.qpNum(), 0, 0, gid, mr.address(), mr.rkey(), mr.length(),
                                pathMtu)
                        : new ConnectionData(QpType.RC, 0, 0, 0, gid, 0, 0, 0, pathMtu);
                ConnectionData remote = connection.exchange(mine);
                if (!stage("setup", failure, Phrase.from(Check.PEER, "peer.probe.setup"),
                        Phrase.from(Check.PEER, "peer.probe.setup.fix"))) {
                    return;
                }
                failure = modify(qp, remote, true);
                if (!stage("RTR", failure, Phrase.from(Check.PEER, "peer.probe.rtr.gids", RTR_FAILED, local.gidText(),
                        peer.gidText()), RTR_FIX)) {
                    return;
                }
                failure = modify(qp, remote, false);
                if (!stage("RTS", failure, Phrase.from(Check.PEER, "peer.probe.rts"),
                        Phrase.from(Check.PEER, "peer.probe.rts.fix"))) {
                    return;
                }
                checks.add(Check.pass("probe: QP", Phrase.from(Check.PEER, "peer.probe.qp",
                        Integer.toHexString(qp.qpNum()), Integer.toHexString(remote.qpn()), pathMtu.bytes())));
                int step = 0;
                for (int size : new int[] {SMALL_BYTES, pathMtu.bytes()}) {
                    for (Role writer : new Role[] {Role.CLIENT, Role.SERVER}) {
                        step++;
                        Check check = write(step, writer, size, size == SMALL_BYTES, qp, mr, cq, remote);
                        checks.add(check);
                        if (check.failed()) {
                            return;
                        }
                    }
                }
            } finally {
                if (context != null) {
                    context.close();
                }
            }
        }

        /** Both sides say how a stage went; true when both got through it. */
        private boolean stage(String name, String failure, Phrase explanation, Phrase fix) throws ControlException {
            Map<String, String> mine = new LinkedHashMap<>();
            mine.put("stage", name);
            mine.put("error", failure);
            Facts theirs = connection.exchangeFacts(Facts.of(mine));
            String peerFailure = theirs.get("error", "");
            if (failure.isEmpty() && peerFailure.isEmpty()) {
                return true;
            }
            checks.add(stageFailure(name, failure, peerFailure, role.other().text, explanation, fix));
            return false;
        }

        private String modify(QueuePair qp, ConnectionData remote, boolean rtr) {
            try {
                if (rtr) {
                    AddressVector av = AddressVector.global(new GlobalRoute(remote.gid(), 0, local.gidIndex(), 64, 0),
                            settings.port());
                    RcPath.toRtr(qp, pathMtu, remote.qpn(), remote.psn(), 1, TIMERS, av);
                } else {
                    RcPath.toRts(qp, TIMERS, 0, 1);
                }
                return "";
            } catch (VerbsException e) {
                return e.getMessage();
            }
        }

        private Check write(int step, Role writer, int size, boolean small, QueuePair qp,
                MemoryRegion mr, CompletionQueue cq, ConnectionData remote) throws ControlException {
            byte[] pattern = pattern(step, size);
            Map<String, Long> before = counters();
            if (writer != role) {
                mr.write(0, new byte[size]);
            }
            connection.exchangeFacts(Facts.of(Map.of("stage", "ready " + step)));
            String status;
            String writerNote;
            String answers = "";
            String seenPackets;
            boolean dataOk;
            if (writer == role) {
                mr.write(0, pattern);
                status = post(qp, cq, mr, remote, size);
                Map<String, Long> after = counters();
                writerNote = droppedNote(before, after, "this side");
                answers = delta(before, after, "rcvd_pkts");
                Map<String, String> report = new LinkedHashMap<>();
                report.put("stage", "wrote " + step);
                report.put("status", status);
                report.put("note", writerNote);
                report.put("answers", answers);
                Facts seen = connection.exchangeFacts(Facts.of(report));
                seenPackets = seen.get("rcvd_pkts", "");
                writerNote += seen.get("note", "");
                dataOk = seen.get("data", "").equals("ok");
            } else {
                Facts wrote = connection.awaitFacts("the peer's write result (step " + step + ")");
                status = wrote.get("status", "?");
                answers = wrote.get("answers", "");
                writerNote = wrote.get("note", "").replace("this side", "the " + writer.text);
                Map<String, Long> after = counters();
                seenPackets = delta(before, after, "rcvd_pkts");
                writerNote += droppedNote(before, after, "the " + role.text);
                dataOk = Arrays.equals(pattern, mr.read(0, size));
                Map<String, String> report = new LinkedHashMap<>();
                report.put("stage", "seen " + step);
                report.put("rcvd_pkts", seenPackets);
                report.put("data", dataOk ? "ok" : "different");
                report.put("note", droppedNote(before, after, "the " + role.text));
                connection.send(Facts.of(report));
            }
            SideFacts writerFacts = writer == role ? local : peer;
            SideFacts receiverFacts = writer == role ? peer : local;
            return verdict(new WriteOutcome(writer.text, writer.other().text, writerFacts, receiverFacts, size, small,
                    status, seenPackets, dataOk, answers, writerNote));
        }

        private String post(QueuePair qp, CompletionQueue cq, MemoryRegion mr, ConnectionData remote, int size) {
            try {
                qp.postSend(SendWorkRequest.write(1, mr.sge(0, size), remote.addr(), remote.rkey(),
                        SendFlag.SIGNALED.value()));
                Optional<WorkCompletion> completion = cq.pollOne(settings.pollTimeout());
                return completion.map(wc -> wc.status().cName()).orElse("no completion within "
                        + settings.pollTimeout().toMillis() + " ms");
            } catch (VerbsException e) {
                return e.getMessage();
            }
        }

        /**
         * The device's packet counters: the software device's own, or for a kernel device its
         * sysfs {@code hw_counters/rcvd_pkts} (rxe) or {@code counters/port_rcv_packets}.
         */
        private Map<String, Long> counters() {
            Map<String, Long> values = new LinkedHashMap<>();
            try {
                if (context != null) {
                    values.putAll(context.queryCounters());
                }
            } catch (VerbsException e) {
                // fall back to sysfs below
            }
            if (!values.containsKey("rcvd_pkts")) {
                String port = "/sys/class/infiniband/" + settings.device() + "/ports/" + settings.port();
                host.read(port + "/hw_counters/rcvd_pkts").or(() -> host.read(port + "/counters/port_rcv_packets"))
                        .filter(text -> text.matches("\\d+")).ifPresent(text -> values.put("rcvd_pkts", Long.parseLong(text)));
            }
            return values;
        }
    }

    /** The peer check when this side's own checks found no usable device and address: nothing to compare. */
    public static Check nothingToCompare() {
        return Check.fail("peer", Phrase.from(Check.PEER, "peer.noLocalFacts"),
                Phrase.from(Check.PEER, "peer.noLocalFacts.fix"));
    }

    /** A stage of the probe failed on one side or both. */
    static Check stageFailure(String name, String here, String there, String peerRole, Phrase explanation, Phrase fix) {
        Phrase found;
        if (here.isEmpty() && there.isEmpty()) {
            // stage() does not get here (both sides passed); the explanation alone, as before
            found = Phrase.literal(explanation.english() + ": ");
        } else if (there.isEmpty()) {
            found = Phrase.from(Check.PEER, "peer.probe.stage.here", explanation, here);
        } else if (here.isEmpty()) {
            found = Phrase.from(Check.PEER, "peer.probe.stage.there", explanation, roleName(peerRole), there);
        } else {
            found = Phrase.from(Check.PEER, "peer.probe.stage.both", explanation, here, roleName(peerRole), there);
        }
        return Check.fail("probe: " + name, found, fix);
    }

    /**
     * What one probe write showed, from both sides.
     *
     * @param writerRole {@code client} or {@code server}
     * @param receiverRole the other
     * @param writer the writer's facts
     * @param receiver the receiver's facts
     * @param size bytes written
     * @param small true for the small write, false for the full path-MTU one (which runs only after both small ones passed)
     * @param status the writer's completion status ({@code IBV_WC_SUCCESS}) or what went wrong before one came
     * @param seenPackets how many packets the receiver's counter rose by, empty when it has no counter
     * @param dataOk whether the receiver found the written bytes
     * @param answers how many packets the writer received meanwhile, empty when unknown
     * @param notes fault-injection notes of both sides, each starting with " ("
     */
    record WriteOutcome(String writerRole, String receiverRole, SideFacts writer, SideFacts receiver, int size,
            boolean small, String status, String seenPackets, boolean dataOk, String answers, String notes) {
    }

    /** The verdict on one write: passed, or the failure classified with its fix. */
    static Check verdict(WriteOutcome o) {
        String direction = o.writerRole() + " → " + o.receiverRole();
        String name = "probe: " + (o.small() ? "small" : "full") + " write " + direction;
        Phrase writerName = roleName(o.writerRole());
        Phrase receiverName = roleName(o.receiverRole());
        String from = o.writer().ip();
        String toward = o.receiver().ip();
        Phrase view = o.seenPackets().isEmpty() ? Phrase.from(Check.PEER, "peer.write.noCounters", receiverName)
                : o.seenPackets().equals("0") ? Phrase.from(Check.PEER, "peer.write.noPacket", receiverName, from)
                : Phrase.from(Check.PEER, "peer.write.packets", receiverName, o.seenPackets(), from);
        Phrase found = Phrase.from(Check.PEER, "peer.write", o.size(), writerName, receiverName, o.status(), view,
                o.notes());
        boolean success = o.status().equals(WcStatus.SUCCESS.cName());
        if (success && o.dataOk()) {
            return Check.pass(name, Phrase.from(Check.PEER, "peer.write.intact", found));
        }
        if (success) {
            return Check.fail(name, Phrase.from(Check.PEER, "peer.write.differ", found, receiverName),
                    Phrase.from(Check.PEER, "peer.write.differ.fix"));
        }
        if (o.status().equals(WcStatus.REM_ACCESS_ERR.cName()) || o.status().equals(WcStatus.REM_INV_REQ_ERR.cName())) {
            return Check.fail(name, Phrase.from(Check.PEER, "peer.write.remoteAccess", found, receiverName),
                    Phrase.from(Check.PEER, "peer.write.remoteAccess.fix"));
        }
        if (!o.small()) {
            return Check.fail(name, Phrase.from(Check.PEER, "peer.write.mtu", found, o.size()),
                    Phrase.from(Check.PEER, "peer.write.mtu.fix", Math.max(256, o.size() / 2),
                            o.size() + LocalChecks.ROCE_HEADER_ROOM));
        }
        if (o.seenPackets().equals("0") || o.seenPackets().isEmpty()) {
            return Check.fail(name, Phrase.from(Check.PEER, "peer.write.blackHole", found,
                    suspects(o.writer(), o.receiver())), Phrase.from(Check.PEER, "peer.write.blackHole.fix", toward,
                    toward));
        }
        if (!o.answers().isEmpty() && !o.answers().equals("0")) {
            return Check.fail(name, Phrase.from(Check.PEER, "peer.write.late", found, writerName, o.answers(),
                    RETRY_COUNT + 1), Phrase.from(Check.PEER, "peer.write.late.fix"));
        }
        return Check.fail(name, Phrase.from(Check.PEER, "peer.write.noAck", found, receiverName, writerName,
                suspects(o.receiver(), o.writer())), Phrase.from(Check.PEER, "peer.write.noAck.fix", writerName,
                toward, from));
    }

    /** A role ({@code client}, {@code server}) in the reader's language; another text as it is. */
    private static Phrase roleName(String role) {
        if ("client".equals(role)) {
            return Phrase.from(Check.PEER, "peer.role.client");
        }
        if ("server".equals(role)) {
            return Phrase.from(Check.PEER, "peer.role.server");
        }
        return Phrase.literal(role);
    }

    private static Phrase suspects(SideFacts from, SideFacts to) {
        return Phrase.from(Check.PEER, "peer.suspects", from.ip(), to.ip(), from.gidText(), to.gidText(), from.ip(),
                to.ip());
    }

    private static byte[] pattern(int step, int size) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) ('A' + (step * 7 + i) % 26);
        }
        return bytes;
    }

    private static String delta(Map<String, Long> before, Map<String, Long> after, String key) {
        if (!before.containsKey(key) || !after.containsKey(key)) {
            return "";
        }
        return Long.toString(after.get(key) - before.get(key));
    }

    private static String droppedNote(Map<String, Long> before, Map<String, Long> after, String side) {
        String dropped = delta(before, after, "fault_dropped");
        return dropped.isEmpty() || dropped.equals("0") ? "" : " (" + side + "'s --fault dropped " + dropped
                + " packet(s))";
    }

}
