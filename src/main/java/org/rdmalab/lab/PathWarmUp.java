package org.rdmalab.lab;

import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collections;
import java.util.concurrent.atomic.AtomicReference;
import org.rdmalab.baseline.RoundTrips;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.CompletionBuffer;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.GidSelection;
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
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * Gets a software device's ping-pong path compiled before the lab's run: a private twin of the
 * session's device (the same address, a free UDP port of its own, no faults, no capture) runs
 * {@link PingPongStep.Race} between two of its own QPs, one thread each, so that the run's code
 * (post, poll, the device's packets out and in over UDP) has been through the JIT compiler. None
 * of it touches the session's device, QP numbers, counters or buffers; the lab's run still counts
 * every one of its own round trips.
 */
final class PathWarmUp {

    private static final int RW = AccessFlag.LOCAL_WRITE.value() | AccessFlag.REMOTE_WRITE.value()
            | AccessFlag.REMOTE_READ.value();

    private PathWarmUp() {
    }

    /** The most round trips a warm-up runs (docs/performance.md: what 1 000, 3 000 and 10 000 gave). */
    static final int ROUNDS = 3_000;

    /**
     * A JVM property that sets the warm-up's round trips instead, 0 for none: for measuring what the
     * warm-up gives ({@code java -Drdmalab.pingpong.warmUp=0 -jar ...}).
     */
    static final String ROUNDS_PROPERTY = "rdmalab.pingpong.warmUp";

    /**
     * The longest a warm-up goes on: it stops after the chunk that passes it. A quiet 2-core
     * machine runs {@link #ROUNDS} in well under it; a machine busy with other work stops early
     * rather than keep the peer waiting.
     */
    static final Duration BUDGET = Duration.ofSeconds(3);
    /** Round trips between two looks at the clock; both threads meet after each chunk. */
    private static final int CHUNK = 250;

    /**
     * Runs up to {@code rounds} round trips on the twin, in chunks, until they are done or
     * {@link #BUDGET} has passed; a failure ends the warm-up with the exception.
     *
     * @return the round trips run
     */
    static int run(LabSession session, int rounds, Mtu mtu, Duration timeout) throws Exception {
        LabResources resources = session.resources();
        Context real = resources.context().orElseThrow();
        DeviceOptions options = session.deviceOptions().withUdpPort(freePort(session.deviceOptions()))
                .withFaults("").withCapture(null);
        Device device = session.backends().find(real.device().name(), options);
        int size = resources.mr().length();
        QpCapabilities capabilities = resources.qp().capabilities();
        long deadline = System.nanoTime() + BUDGET.toNanos();
        try (Context context = device.open()) {
            GidEntry gid = GidSelection.forAddress(context.gidTable(1), options.address()).orElseThrow().entry();
            ProtectionDomain pd = context.allocatePd();
            Side client = new Side(context, pd, size, capabilities);
            Side server = new Side(context, pd, size, capabilities);
            connect(client.qp, server.qp, gid, mtu);
            connect(server.qp, client.qp, gid, mtu);
            int done = 0;
            while (done < rounds && (done == 0 || System.nanoTime() - deadline < 0)) {
                int chunk = Math.min(CHUNK, rounds - done);
                chunk(client, server, chunk, timeout);
                done += chunk;
            }
            return done;
        }
    }

    /** One chunk: the server's race on a thread of its own, the client's on this one. */
    private static void chunk(Side client, Side server, int rounds, Duration timeout) throws Exception {
        AtomicReference<Object> serverEnd = new AtomicReference<>();
        Thread serverThread = new Thread(() -> {
            try {
                serverEnd.set(server.race.run(false, rounds, timeout, System.nanoTime()));
            } catch (VerbsException | RuntimeException e) {
                serverEnd.set(e);
            }
        }, "pingpong-warm-up");
        serverThread.setDaemon(true);
        serverThread.start();
        String clientEnd = client.race.run(true, rounds, timeout, System.nanoTime());
        serverThread.join(timeout.toMillis() + 1_000);
        if (clientEnd != null) {
            throw new IllegalStateException("the warm-up's client: " + clientEnd);
        }
        if (serverThread.isAlive()) {
            throw new IllegalStateException("the warm-up's server did not finish");
        }
        if (serverEnd.get() instanceof Exception e) {
            throw e;
        }
        if (serverEnd.get() != null) {
            throw new IllegalStateException("the warm-up's server: " + serverEnd.get());
        }
    }

    /** One QP with its CQ, buffer and receives, as the lab's pingpong makes them. */
    private static final class Side {
        final QueuePair qp;
        final PingPongStep.Race race;

        Side(Context context, ProtectionDomain pd, int size, QpCapabilities capabilities) throws VerbsException {
            CompletionQueue cq = context.createCq(PingPongStep.RECEIVE_DEPTH + 1, null, 0);
            MemoryRegion mr = pd.registerMemory(size, RW);
            qp = pd.createQp(new QpInitAttributes(QpType.RC, cq, cq, capabilities, false));
            ReceiveWorkRequest receive = ReceiveWorkRequest.of(1, mr.sge());
            race = new PingPongStep.Race(qp, cq, SendWorkRequest.send(2, mr.sge(), SendFlag.SIGNALED.value()),
                    receive, new CompletionBuffer(2), new RoundTrips(), PingPongStep.RECEIVE_DEPTH);
            qp.modify(new QpAttributes().state(QpState.INIT).portNum(1).accessFlags(RW),
                    QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
            qp.postRecv(Collections.nCopies(PingPongStep.RECEIVE_DEPTH, receive));
        }
    }

    private static void connect(QueuePair qp, QueuePair peer, GidEntry gid, Mtu mtu) throws VerbsException {
        qp.modify(new QpAttributes().state(QpState.RTR).pathMtu(mtu).destQpNum(peer.qpNum()).maxDestRdAtomic(1)
                        .minRnrTimer(12).addressVector(AddressVector.global(GlobalRoute.of(gid.gid(), gid.index()), 1)),
                QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                        QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
        qp.modify(new QpAttributes().state(QpState.RTS).timeout(14).retryCount(7).rnrRetry(7).maxRdAtomic(1),
                QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                        QpAttrMask.SQ_PSN, QpAttrMask.MAX_QP_RD_ATOMIC));
    }

    /** A UDP port free on the session's address, for the twin's socket. */
    private static int freePort(DeviceOptions options) throws java.io.IOException {
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(options.address(), 0))) {
            return socket.getLocalPort();
        }
    }
}
