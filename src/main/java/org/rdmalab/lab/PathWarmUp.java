package org.rdmalab.lab;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collections;
import java.util.Optional;
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
 * Gets a software device's ping-pong path compiled before the lab's run: two private twins of the
 * session's device (the same address, free UDP ports of their own, each sending to the other's,
 * no faults, no capture) run {@link PingPongStep.Race} between a QP on each, one thread each, as
 * the run's two sides do, so that the run's code (post, poll, the device's packets out and in
 * over UDP) has been through the JIT compiler. None of it touches the session's device, QP
 * numbers, counters or buffers; the lab's run still counts every one of its own round trips. The
 * two sides' warm-ups run one after the other ({@link Flows#pingpong}), each within half of what
 * its peer waits for it ({@link Limits#within}).
 */
final class PathWarmUp {

    private static final int RW = AccessFlag.LOCAL_WRITE.value() | AccessFlag.REMOTE_WRITE.value()
            | AccessFlag.REMOTE_READ.value();

    private PathWarmUp() {
    }

    /** The most round trips a warm-up runs (docs/performance.md, "The first thousand round trips"). */
    static final int ROUNDS = 20_000;

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
     * Round trips on one pair of twins before the next pair is opened. A device takes some
     * branches once, with its first packets (the first send to an address, the first poll of a
     * CQ, the socket's first source). Taken while the JIT compiler profiles the path, they are in
     * its compiled code when the session's device takes them; taken only by the first twins,
     * before profiling, they were not, and the run's first packets threw the compiled path away
     * again (docs/performance.md, "The first thousand round trips").
     */
    static final int TWIN_ROUNDS = 1_000;

    /**
     * Runs up to {@code rounds} round trips on pairs of twins, in chunks, until they are done or
     * {@link #BUDGET} has passed; a failure ends the warm-up with the exception.
     *
     * @return the round trips run
     */
    static int run(LabSession session, int rounds, Mtu mtu, Duration timeout) throws Exception {
        return run(session, rounds, mtu, timeout, BUDGET);
    }

    /**
     * {@link #run(LabSession, int, Mtu, Duration)} within {@code budget}: the first chunk always runs.
     * Then it waits, up to {@link #QUIET_LIMIT}, for the JIT compiler to finish what the warm-up
     * queued ({@link #awaitCompilerQuiet}), so that those compilations do not land in the run.
     */
    static int run(LabSession session, int rounds, Mtu mtu, Duration timeout, Duration budget) throws Exception {
        return run(session, rounds, mtu, timeout, new Limits(budget, QUIET_LIMIT));
    }

    /**
     * {@link #run(LabSession, int, Mtu, Duration)} within {@code limits}: its round trips within
     * {@link Limits#rounds()} (the first chunk always runs), then its wait for the compilers within
     * {@link Limits#compilers()}.
     */
    static int run(LabSession session, int rounds, Mtu mtu, Duration timeout, Limits limits) throws Exception {
        int done = warm(session, rounds, mtu, timeout, limits.rounds());
        awaitCompilerQuiet(ManagementFactory.getCompilationMXBean(), QUIET, limits.compilers());
        return done;
    }

    /**
     * How long a warm-up's round trips and its wait for the compilers may go on.
     *
     * @param rounds the round trips' budget (they stop after the chunk that passes it)
     * @param compilers the longest wait for the compilers after them
     */
    record Limits(Duration rounds, Duration compilers) {

        /** {@link #BUDGET} and {@link #QUIET_LIMIT}: about 4 s in all. */
        static final Limits FULL = new Limits(BUDGET, QUIET_LIMIT);

        /**
         * The limits for a side whose peer waits for it at most {@code peerWait} in one call (the
         * link's {@link PeerLink#shortestWait()}): the two sides warm up one after the other, so
         * the client's connect waits out its server's warm-up and the server's read its client's.
         * {@link #FULL} where half of that wait holds it; else half of the wait, shared three to
         * one, so that a short {@code --timeout} still meets its peer.
         */
        static Limits within(Optional<Duration> peerWait) {
            Duration half = peerWait.map(wait -> wait.dividedBy(2)).orElse(Duration.ZERO);
            if (peerWait.isEmpty() || half.compareTo(BUDGET.plus(QUIET_LIMIT)) >= 0) {
                return FULL;
            }
            return new Limits(half.multipliedBy(3).dividedBy(4), half.dividedBy(4));
        }
    }

    /**
     * How long the compilers' total time must stand still before the warm-up counts them as done:
     * a compilation adds to the total as it ends, and the warm-up's queue is many short ones.
     */
    static final Duration QUIET = Duration.ofMillis(100);
    /** The longest a warm-up waits for the compilers after its round trips. */
    static final Duration QUIET_LIMIT = Duration.ofSeconds(1);
    /** How often the wait looks at the compilers' total time. */
    private static final long QUIET_POLL_MILLIS = 20;

    /**
     * Sleeps until {@code compiler}'s total compilation time has not grown for {@code quiet}, or
     * {@code limit} has passed; returns at once where there is no JIT or it keeps no time.
     *
     * @return whether the compilers went quiet within the limit
     */
    static boolean awaitCompilerQuiet(CompilationMXBean compiler, Duration quiet, Duration limit)
            throws InterruptedException {
        if (compiler == null || !compiler.isCompilationTimeMonitoringSupported()) {
            return false;
        }
        long start = System.nanoTime();
        long total = compiler.getTotalCompilationTime();
        long since = start;
        while (true) {
            long now = System.nanoTime();
            if (now - since >= quiet.toNanos()) {
                return true;
            }
            if (now - start >= limit.toNanos()) {
                return false;
            }
            Thread.sleep(QUIET_POLL_MILLIS);
            long next = compiler.getTotalCompilationTime();
            if (next != total) {
                total = next;
                since = System.nanoTime();
            }
        }
    }

    private static int warm(LabSession session, int rounds, Mtu mtu, Duration timeout, Duration budget)
            throws Exception {
        LabResources resources = session.resources();
        String name = resources.context().orElseThrow().device().name();
        int size = resources.mr().length();
        QpShape shape = new QpShape(resources.qp().capabilities(), sqSigAll(session));
        long deadline = System.nanoTime() + budget.toNanos();
        int done = 0;
        while (done < rounds && (done == 0 || System.nanoTime() - deadline < 0)) {
            done += twins(session, name, size, shape, Math.min(TWIN_ROUNDS, rounds - done), mtu, timeout,
                    deadline);
        }
        return done;
    }

    /**
     * Opens a pair of twins and runs up to {@code rounds} round trips between them, in chunks,
     * until they are done or the deadline has passed (at least one chunk).
     */
    private static int twins(LabSession session, String name, int size, QpShape shape, int rounds,
                             Mtu mtu, Duration timeout, long deadline) throws Exception {
        DeviceOptions base = session.deviceOptions().withFaults("").withCapture(null);
        int[] ports = freePorts(base);
        Device one = session.backends().find(name, base.withUdpPort(ports[0]).withPeerUdpPort(ports[1]));
        Device other = session.backends().find(name, base.withUdpPort(ports[1]).withPeerUdpPort(ports[0]));
        try (Context clientContext = one.open(); Context serverContext = other.open()) {
            Side client = new Side(clientContext, size, shape);
            Side server = new Side(serverContext, size, shape);
            // Each QP's route names its peer's GID (both twins have the session's address).
            connect(client.qp, server.qp, gid(serverContext, base), mtu);
            connect(server.qp, client.qp, gid(clientContext, base), mtu);
            int done = 0;
            while (done < rounds && (done == 0 || System.nanoTime() - deadline < 0)) {
                int chunk = Math.min(CHUNK, rounds - done);
                done += chunk(client, server, chunk, timeout);
            }
            return done;
        }
    }

    /**
     * The session QP's capabilities and {@code sq_sig_all}: a twin's QP is made the same, so that
     * its posts take the branches the run's do (with sq_sig_all 0 instead of ibv_rc_pingpong's 1,
     * the run's first post threw the compiled post away).
     */
    private record QpShape(QpCapabilities capabilities, boolean sqSigAll) {
    }

    private static boolean sqSigAll(LabSession session) {
        return session.steps().stream().filter(step -> step.id().equals("create-qp")).findFirst()
                .map(step -> step.parameter("sq_sig_all").asInt() == 1).orElse(false);
    }

    private static GidEntry gid(Context context, DeviceOptions options) throws VerbsException {
        return GidSelection.forAddress(context.gidTable(1), options.address()).orElseThrow().entry();
    }

    /**
     * One chunk: the server's race on a thread of its own, the client's on this one.
     *
     * @return the round trips run, {@code rounds} (a failure throws)
     */
    private static int chunk(Side client, Side server, int rounds, Duration timeout) throws Exception {
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
        return rounds;
    }

    /** One QP with its CQ, buffer and receives, as the lab's pingpong makes them. */
    private static final class Side {
        final QueuePair qp;
        final PingPongStep.Race race;

        Side(Context context, int size, QpShape shape) throws VerbsException {
            ProtectionDomain pd = context.allocatePd();
            CompletionQueue cq = context.createCq(PingPongStep.RECEIVE_DEPTH + 1, null, 0);
            MemoryRegion mr = pd.registerMemory(size, RW);
            qp = pd.createQp(new QpInitAttributes(QpType.RC, cq, cq, shape.capabilities(), shape.sqSigAll()));
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

    /** Two distinct UDP ports free on the session's address, for the twins' sockets. */
    private static int[] freePorts(DeviceOptions options) throws java.io.IOException {
        try (DatagramSocket one = new DatagramSocket(new InetSocketAddress(options.address(), 0));
             DatagramSocket other = new DatagramSocket(new InetSocketAddress(options.address(), 0))) {
            return new int[] {one.getLocalPort(), other.getLocalPort()};
        }
    }
}
