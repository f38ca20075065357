package org.rdmalab.softroce;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.rdmalab.softroce.net.SimulatedNetwork;
import org.rdmalab.softroce.net.UdpFabric;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.GlobalRoute;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpInitAttributes;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.DeviceOptions;

/** Two connected software devices (a on 127.0.0.1, b on 127.0.0.2), each with a PD, an MR, a CQ and an RC QP. */
final class Peers implements AutoCloseable {

    /** What the connection is made with; fields are plain so tests tweak them. */
    static final class Setup {
        Mtu mtu = Mtu.MTU_1024;
        int timeout = 14;
        int retryCount = 7;
        int rnrRetry = 7;
        int minRnrTimer = 12;
        int maxRdAtomic = 16;
        /** The responder side's max_dest_rd_atomic; null: {@link #maxRdAtomic}. */
        Integer maxDestRdAtomic;
        int qpAccess = AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ,
                AccessFlag.REMOTE_ATOMIC);
        int mrAccess = qpAccess;
        int mrLength = 1 << 20;
        int cqEntries = 4096;
        QpCapabilities capabilities = new QpCapabilities(1024, 1024, 4, 4, 64);
        boolean sqSigAll;
        String faultsA = "";
        String faultsB = "";
        int psnA = 0;
        int psnB = 0;
        QpType type = QpType.RC;
        java.nio.file.Path capture;
        /** The devices' link MTU in bytes (udp only); null: the default (an Ethernet link of 1500). */
        Integer linkMtu;
    }

    final SimulatedNetwork net;
    final Side a;
    final Side b;

    /** One peer. */
    static final class Side {
        Context context;
        ProtectionDomain pd;
        MemoryRegion mr;
        CompletionQueue cq;
        QueuePair qp;

        SoftRoceContext soft() {
            return (SoftRoceContext) context;
        }

        long counter(Counter counter) {
            return soft().counter(counter);
        }
    }

    private Peers(SimulatedNetwork net, Side a, Side b) {
        this.net = net;
        this.a = a;
        this.b = b;
    }

    static Peers simulated(Setup setup) throws VerbsException {
        SimulatedNetwork net = new SimulatedNetwork();
        return simulated(setup, net, net, "127.0.0.1", "127.0.0.2");
    }

    /**
     * Devices at {@code addressA} and {@code addressB} on {@code fabric}, whose datagrams and clock
     * are {@code net}'s (the network itself, or a fabric that wraps it).
     */
    static Peers simulated(Setup setup, SimulatedNetwork net, org.rdmalab.softroce.net.Fabric fabric, String addressA,
                           String addressB) throws VerbsException {
        DeviceOptions base = DeviceOptions.defaults().withCapture(setup.capture);
        Device da = SoftRoceProvider.device(base.withAddress(DeviceOptions.parseAddress(addressA))
                .withFaults(setup.faultsA), fabric);
        Device db = SoftRoceProvider.device(base.withAddress(DeviceOptions.parseAddress(addressB))
                .withFaults(setup.faultsB), fabric);
        Peers peers = new Peers(net, open(da, setup), open(db, setup));
        connect(peers.a, peers.b, setup, setup.psnA, setup.psnB);
        connect(peers.b, peers.a, setup, setup.psnB, setup.psnA);
        return peers;
    }

    static Peers simulated() throws VerbsException {
        return simulated(new Setup());
    }

    /** Over real UDP: devices on 127.0.0.1 and 127.0.0.2 at {@code port}. */
    static Peers udp(Setup setup, int port, java.nio.file.Path capture) throws VerbsException {
        return udp(setup, "127.0.0.1", "127.0.0.2", port, capture, UdpFabric.INSTANCE);
    }

    /** Over real UDP sockets made by {@code fabric} (one with a small send buffer, say). */
    static Peers udp(Setup setup, int port, java.nio.file.Path capture, UdpFabric fabric) throws VerbsException {
        return udp(setup, "127.0.0.1", "127.0.0.2", port, capture, fabric);
    }

    /** Over real UDP: devices on {@code addressA} and {@code addressB} at {@code port}. */
    static Peers udp(Setup setup, String addressA, String addressB, int port, java.nio.file.Path capture)
            throws VerbsException {
        return udp(setup, addressA, addressB, port, capture, UdpFabric.INSTANCE);
    }

    private static Peers udp(Setup setup, String addressA, String addressB, int port, java.nio.file.Path capture,
                             UdpFabric fabric) throws VerbsException {
        DeviceOptions base = DeviceOptions.defaults().withUdpPort(port).withCapture(capture);
        if (setup.linkMtu != null) {
            base = base.withLinkMtu(setup.linkMtu);
        }
        Device da = SoftRoceProvider.device(base.withAddress(DeviceOptions.parseAddress(addressA))
                .withFaults(setup.faultsA), fabric);
        Device db = SoftRoceProvider.device(base.withAddress(DeviceOptions.parseAddress(addressB))
                .withFaults(setup.faultsB), fabric);
        Side sa = open(da, setup);
        Side sb;
        try {
            sb = open(db, setup);
        } catch (VerbsException | RuntimeException e) {
            sa.context.close();
            throw e;
        }
        Peers peers = new Peers(null, sa, sb);
        connect(peers.a, peers.b, setup, setup.psnA, setup.psnB);
        connect(peers.b, peers.a, setup, setup.psnB, setup.psnA);
        return peers;
    }

    static Side open(Device device, Setup setup) throws VerbsException {
        Side side = new Side();
        side.context = device.open();
        try {
            side.pd = side.context.allocatePd();
            side.mr = side.pd.registerMemory(setup.mrLength, setup.mrAccess);
            side.cq = side.context.createCq(setup.cqEntries, null, 0);
            side.qp = side.pd.createQp(new QpInitAttributes(setup.type, side.cq, side.cq, setup.capabilities, setup.sqSigAll));
        } catch (VerbsException | RuntimeException e) {
            side.context.close();
            throw e;
        }
        return side;
    }

    static void connect(Side local, Side remote, Setup setup, int localPsn, int remotePsn) throws VerbsException {
        QueuePair qp = local.qp;
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(setup.qpAccess),
                QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        GlobalRoute grh = GlobalRoute.of(remote.context.queryGid(1, 3), 3);
        QpAttributes rtr = new QpAttributes().state(QpState.RTR).addressVector(AddressVector.global(grh, 1))
                .pathMtu(setup.mtu).destQpNum(remote.qp.qpNum()).rqPsn(remotePsn)
                .maxDestRdAtomic(setup.maxDestRdAtomic != null ? setup.maxDestRdAtomic : setup.maxRdAtomic)
                .minRnrTimer(setup.minRnrTimer);
        int rtrMask = setup.type == QpType.RC
                ? QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                        QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER)
                : QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                        QpAttrMask.RQ_PSN);
        qp.modify(rtr, rtrMask);
        QpAttributes rts = new QpAttributes().state(QpState.RTS).timeout(setup.timeout).retryCount(setup.retryCount)
                .rnrRetry(setup.rnrRetry).sqPsn(localPsn).maxRdAtomic(setup.maxRdAtomic);
        int rtsMask = setup.type == QpType.RC
                ? QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                        QpAttrMask.SQ_PSN, QpAttrMask.MAX_QP_RD_ATOMIC)
                : QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN);
        qp.modify(rts, rtsMask);
    }

    /**
     * Posts a's RDMA WRITE of {@code length} bytes at {@code offset} of a's region to the start of
     * b's region.
     */
    void writeFromA(long wrId, int offset, int length, int flags) throws VerbsException {
        a.qp.postSend(SendWorkRequest.write(wrId, a.mr.sge(offset, length), b.mr.address(), b.mr.rkey(), flags));
    }

    /**
     * Posts a's RDMA READ of {@code length} bytes from the start of b's region into {@code offset}
     * of a's region.
     */
    void readIntoA(long wrId, int offset, int length, int flags) throws VerbsException {
        a.qp.postSend(SendWorkRequest.read(wrId, a.mr.sge(offset, length), b.mr.address(), b.mr.rkey(), flags));
    }

    /** Runs the simulated network until idle (at most a virtual minute). */
    void run() {
        net.runUntilIdle(Duration.ofMinutes(1));
    }

    /** Runs until side {@code s} has {@code count} completions (at most a virtual minute) and returns them. */
    List<WorkCompletion> runUntilCompletions(Side s, int count) throws VerbsException {
        List<WorkCompletion> all = new ArrayList<>();
        VerbsException[] failure = new VerbsException[1];
        net.runUntil(() -> {
            try {
                all.addAll(s.cq.poll(64));
            } catch (VerbsException e) {
                failure[0] = e;
                return true;
            }
            return all.size() >= count;
        }, Duration.ofMinutes(1));
        if (failure[0] != null) {
            throw failure[0];
        }
        return all;
    }

    /** Everything side {@code s}'s CQ holds now. */
    static List<WorkCompletion> drain(Side s) throws VerbsException {
        List<WorkCompletion> all = new ArrayList<>();
        while (true) {
            List<WorkCompletion> some = s.cq.poll(64);
            if (some.isEmpty()) {
                return all;
            }
            all.addAll(some);
        }
    }

    @Override
    public void close() {
        a.context.close();
        b.context.close();
    }
}
