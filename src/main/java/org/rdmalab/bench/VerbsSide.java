package org.rdmalab.bench;

import java.net.Inet4Address;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.DeviceAttributes;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.GidSelection;
import org.rdmalab.verbs.GlobalRoute;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.PortAttributes;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.RcPath;
import org.rdmalab.verbs.VerbsException;

/**
 * One side's verbs objects, as perftest builds them: an opened device, a PD, one registered buffer,
 * one CQ for sends and receives, and RC QPs ({@code -q} of them), brought to RTS against the peer's
 * connection data.
 *
 * <p>The buffer has one slot of {@link #slot()} bytes per QP, and one more: messages go out from
 * slot 0, and QP i's landing slot is slot i + 1 ({@link #landing(int)}), where the peer's WRITEs and
 * SENDs on that QP and this side's READ / atomic results on it land (as ib_write_lat keeps the byte it
 * posts apart from the byte it polls, and as perftest gives each QP a target slot of its own). The
 * peer is told each QP's landing slot.
 *
 * <p>Used by one thread at a time. {@link #close()} releases everything (QP, MR, CQ, PD, device) and
 * is idempotent.
 */
final class VerbsSide implements AutoCloseable {

    /** perftest's RTR / RTS values: min_rnr_timer 12, timeout 14 (-u), retry_cnt 7, rnr_retry 7. */
    static final RcPath.Timers TIMERS = RcPath.Timers.PERFTEST;
    /** READ / atomic requests in flight at most (perftest caps its outstanding reads at the device's limit). */
    static final int MAX_OUTSTANDING_READS = 16;
    /** Receives kept posted for SEND bandwidth (perftest's rx depth 512) and latency. */
    static final int RX_DEPTH_BW = 512;
    static final int RX_DEPTH_LAT = 4;

    private final BenchSettings settings;
    private final Context context;
    private final PortAttributes port;
    private final GidEntry gid;
    private Mtu mtu;
    private final int slot;
    private final int outstandingReads;
    private final int sendDepth;
    private final int rxDepth;
    /** Each QP's first PSN, in the order of {@link #qps}. */
    private final int[] psns;
    private ProtectionDomain pd;
    private MemoryRegion mr;
    private CompletionQueue cq;
    /** {@code -q} QPs on the one CQ; the first is {@link #qp()}. */
    private final List<QueuePair> qps = new ArrayList<>();

    /**
     * Opens {@code device} and creates the objects.
     *
     * @param localAddress the address whose GID this side sends from (when {@code -x} is not given)
     * @throws IllegalArgumentException when {@code -m} exceeds the port's active MTU or {@code -x} is not in the table
     */
    VerbsSide(Device device, Inet4Address localAddress, BenchSettings settings) throws VerbsException {
        this(device, localAddress, settings, 0);
    }

    /**
     * Opens {@code device} and creates the objects, with slots of at least {@code minimumSlot} bytes
     * (a perftest peer writes small messages anywhere in its cycle buffer).
     */
    VerbsSide(Device device, Inet4Address localAddress, BenchSettings settings, int minimumSlot)
            throws VerbsException {
        this.settings = settings;
        this.context = device.open();
        try {
            port = context.queryPort(settings.ibPort());
            gid = chooseGid(localAddress);
            mtu = settings.mtu() != null ? settings.mtu() : port.activeMtu();
            if (mtu.bytes() > port.activeMtu().bytes()) {
                throw new IllegalArgumentException("-m " + mtu.bytes() + " is above the active MTU "
                        + port.activeMtu().bytes() + " of " + device.name() + " port " + settings.ibPort()
                        + "; choose -m " + port.activeMtu().bytes() + " or less (or raise the link's MTU)");
            }
            DeviceAttributes attributes = context.queryDevice();
            outstandingReads = Math.max(1, Math.min(MAX_OUTSTANDING_READS, attributes.maxQpRdAtomic()));
            int maxWr = Math.max(1, attributes.maxQpWr() - 1);
            sendDepth = Math.min(maxWr, Math.max(settings.txDepth(), 16) + 1);
            rxDepth = settings.test() != BenchTest.SEND ? 1
                    : Math.min(maxWr, settings.mode() == BenchMode.BW ? RX_DEPTH_BW : RX_DEPTH_LAT);
            if (settings.txDepth() > maxWr) {
                throw new IllegalArgumentException("-t " + settings.txDepth() + " is above " + device.name()
                        + "'s max_qp_wr " + attributes.maxQpWr());
            }
            slot = Math.max(64, (Math.max(settings.maxSize(), minimumSlot) + 63) & ~63);
            SecureRandom random = new SecureRandom();
            psns = new int[settings.qps()];
            for (int i = 0; i < psns.length; i++) {
                psns[i] = random.nextInt(1 << 24);
            }
            pd = context.allocatePd();
            // Slot 0 for what goes out, then one landing slot per QP.
            mr = pd.registerMemory(Math.multiplyExact(settings.qps() + 1, slot), AccessFlag.of(AccessFlag.LOCAL_WRITE,
                    AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC));
            int cqe = (int) Math.min(attributes.maxCqe(), (long) settings.qps() * (sendDepth + rxDepth) + 16);
            cq = context.createCq(cqe, null, 0);
            for (int i = 0; i < settings.qps(); i++) {
                qps.add(RcPath.createQp(pd, cq, new QpCapabilities(sendDepth, rxDepth, 1, 1, 0), false));
            }
        } catch (VerbsException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private GidEntry chooseGid(Inet4Address localAddress) throws VerbsException {
        List<GidEntry> table = context.gidTable(settings.ibPort());
        if (settings.gidIndex() >= 0) {
            for (GidEntry entry : table) {
                if (entry.index() == settings.gidIndex()) {
                    return entry;
                }
            }
            throw new IllegalArgumentException("-x " + settings.gidIndex() + ": " + context.device().name()
                    + " port " + settings.ibPort() + " has no GID there; populated indexes: "
                    + table.stream().map(entry -> String.valueOf(entry.index())).toList());
        }
        return GidSelection.forAddress(table, localAddress).map(GidSelection.Choice::entry)
                .orElseThrow(() -> new VerbsException("ibv_query_gid_ex", Errno.ENODATA, context.device().name()
                        + " port " + settings.ibPort() + " has no GID; RoCE needs one"));
    }

    /** What the peer needs for the first QP: QPN, PSN, LID, GID, and the address and rkey of its landing slot. */
    ConnectionData local() {
        return local(0);
    }

    /** The same for QP {@code index} ({@code -q}): its QPN and PSN, its landing slot in the one buffer. */
    ConnectionData local(int index) {
        return new ConnectionData(QpType.RC, qps.get(index).qpNum(), psns[index], port.lid(), gid.gid(),
                mr.address() + landing(index), mr.rkey(), slot, mtu);
    }

    /** {@link #local(int)} of every QP, in order. */
    List<ConnectionData> locals() {
        List<ConnectionData> all = new ArrayList<>();
        for (int i = 0; i < qps.size(); i++) {
            all.add(local(i));
        }
        return all;
    }

    /**
     * RESET → INIT → RTR → RTS of the first QP against {@code remote}, with perftest's attributes;
     * the path MTU is the smaller of this side's and the peer's.
     */
    void connect(ConnectionData remote) throws VerbsException {
        connect(0, remote);
    }

    /** The same for QP {@code index} ({@code -q}: QP i of one side talks to QP i of the other). */
    void connect(int index, ConnectionData remote) throws VerbsException {
        QueuePair qp = qps.get(index);
        int psn = psns[index];
        if (remote.length() < settings.maxSize()) {
            throw new IllegalArgumentException("the peer's buffer holds " + remote.length() + " bytes but this side"
                    + " sends up to " + settings.maxSize() + "; start both sides with the same -s / -a");
        }
        if (remote.pathMtu().bytes() < mtu.bytes()) {
            mtu = remote.pathMtu();
        }
        RcPath.toInit(qp, settings.ibPort(), AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
                AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC));
        AddressVector av = new AddressVector(GlobalRoute.of(remote.gid(), gid.index()), remote.lid(), 0, 0, 0,
                settings.ibPort());
        RcPath.toRtr(qp, mtu, remote.qpn(), remote.psn(), outstandingReads, TIMERS, av);
        RcPath.toRts(qp, TIMERS, psn, outstandingReads);
    }

    Context context() {
        return context;
    }

    PortAttributes port() {
        return port;
    }

    GidEntry gid() {
        return gid;
    }

    Mtu mtu() {
        return mtu;
    }

    MemoryRegion mr() {
        return mr;
    }

    CompletionQueue cq() {
        return cq;
    }

    /** The first QP (the only one without {@code -q}). */
    QueuePair qp() {
        return qps.get(0);
    }

    /** Every QP, in the order the peer's connection data came. */
    List<QueuePair> qps() {
        return qps;
    }

    /** Bytes per slot (the largest size, rounded up to 64). */
    int slot() {
        return slot;
    }

    /** The offset in the buffer of QP {@code index}'s landing slot: slot {@code index + 1}. */
    int landing(int index) {
        return (index + 1) * slot;
    }

    int outstandingReads() {
        return outstandingReads;
    }

    /** Send queue depth granted. */
    int sendDepth() {
        return sendDepth;
    }

    /** Receives kept posted (SEND tests). */
    int rxDepth() {
        return rxDepth;
    }

    @Override
    public void close() {
        try {
            for (QueuePair qp : qps) {
                qp.close();
            }
            if (mr != null) {
                mr.close();
            }
            if (cq != null) {
                cq.close();
            }
            if (pd != null) {
                pd.close();
            }
        } finally {
            context.close();
        }
    }
}
