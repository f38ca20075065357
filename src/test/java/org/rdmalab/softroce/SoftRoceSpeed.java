package org.rdmalab.softroce;

import com.sun.management.ThreadMXBean;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.rdmalab.baseline.PingPong;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WorkCompletion;

/**
 * A measurement, not a test (it asserts nothing and surefire does not run it): the software
 * device against plain UDP between the same two addresses (127.0.0.1 and 127.0.0.2), in one run,
 * printed as ratios. Latency: a UDP ping-pong (busy-polled, connected sockets: the yardstick of
 * {@code demo --protocol pingpong --baseline}), a SEND/RECV ping-pong with busy-polled CQs
 * (ibv_rc_pingpong's pattern), an RDMA WRITE ping-pong that polls the last byte of the buffer
 * (ib_write_lat's pattern) and RC's four datagrams a round trip with no RDMA logic
 * ({@link #rcPatternPingPong}); the ratio is the median round trip over UDP's. {@code rc} runs
 * only UDP, RC's datagrams and soft0's SEND/RECV, three times side by side. Bandwidth: 64 KiB
 * RDMA WRITEs, 16 in flight, against 64 KiB messages sent as datagrams of the MTU's size with one
 * acknowledgement per message and the same window. It also prints the bytes the device's threads
 * allocate per message (ThreadMXBean), which should be zero in steady state.
 *
 * <p>Run it after {@code mvn test-compile} with
 * {@code java -cp target/classes:target/test-classes org.rdmalab.softroce.SoftRoceSpeed [lat|rc|bw|all] [iters] [mtu]}.
 */
public final class SoftRoceSpeed {

    private static final VarHandle BYTES = MethodHandles.arrayElementVarHandle(byte[].class);
    private static final int PING_SIZE = 64;
    private static final int WRITE_SIZE = 8;
    private static final int MESSAGE = 64 * 1024;
    private static final int IN_FLIGHT = 16;
    private static final long WAIT_NANOS = 5_000_000_000L;

    private SoftRoceSpeed() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "all";
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        int mtu = args.length > 2 ? Integer.parseInt(args[2]) : 4096;
        if (mode.equals("lat") || mode.equals("all")) {
            latency(iterations);
        }
        if (mode.equals("rc")) {
            rcShare(iterations);
        }
        if (mode.equals("bw") || mode.equals("all")) {
            bandwidth(Mtu.ofBytes(mtu), 3.0);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Latency
    // ---------------------------------------------------------------------------------------------

    static void latency(int iterations) throws Exception {
        int warmup = Math.max(1000, iterations / 10);
        Result udp = datagramPingPong(warmup, iterations, false);
        progress("UDP ping-pong", udp);
        Result send = softSendPingPong(warmup, iterations);
        progress("soft0 SEND/RECV ping-pong", send);
        Result write = softWritePingPong(warmup, iterations);
        progress("soft0 RDMA WRITE ping-pong", write);
        Result udp2 = datagramPingPong(warmup, iterations, false);
        Result rcPattern = rcPatternPingPong(warmup, iterations);
        progress("RC's datagrams alone", rcPattern);
        double baseline = Math.min(udp.median(), udp2.median());
        System.out.printf("%-34s %10s %10s %10s %10s%n", "round trip [usec]", "median", "mean", "p99", "ratio");
        print("UDP ping-pong 64 B (first)", udp, baseline);
        print("UDP ping-pong 64 B (last)", udp2, baseline);
        print("soft0 SEND/RECV 64 B busy poll", send, baseline);
        print("soft0 RDMA WRITE 8 B last byte", write, baseline);
        print("RC's 4 datagrams, unconnected", rcPattern, baseline);
        System.out.printf("ratio send/recv: %.2f   ratio write: %.2f   (median round trip / UDP's; goals 2.0 and 1.5)%n",
                send.median() / baseline, write.median() / baseline);
        System.out.printf("busy-polled: RC's datagrams alone %.2f x the UDP ping-pong; soft0 SEND/RECV %.2f x RC's "
                + "datagrams alone%n", rcPattern.median() / baseline, send.median() / rcPattern.median());
        System.out.printf("device threads allocate %.1f B per round trip (send/recv), %.1f B (write); "
                + "callers %.1f B, %.1f B%n", send.loopBytes, write.loopBytes, send.callerBytes, write.callerBytes);
    }

    /**
     * Where a SEND/RECV ping-pong's time goes, busy-polled on both sides, three rounds side by
     * side: plain UDP, RC's four datagrams alone ({@link #rcPatternPingPong}) and soft0; then the
     * medians' ratios, so that what the acknowledgements cost and what the device adds to them read
     * apart.
     */
    static void rcShare(int iterations) throws Exception {
        int warmup = Math.max(1000, iterations / 10);
        System.out.printf("%-10s %12s %12s %12s %14s %14s%n", "round", "UDP [usec]", "RC's [usec]", "soft0 [usec]",
                "RC's / UDP", "soft0 / RC's");
        for (int round = 1; round <= 3; round++) {
            Result plain = datagramPingPong(warmup, iterations, false);
            Result rc = rcPatternPingPong(warmup, iterations);
            Result soft = softSendPingPong(warmup, iterations);
            System.out.printf("%-10d %12.2f %12.2f %12.2f %14.2f %14.2f%n", round, plain.median(), rc.median(),
                    soft.median(), rc.median() / plain.median(), soft.median() / rc.median());
        }
    }

    private static void progress(String name, Result result) {
        System.err.printf("%s done: median %.2f usec%n", name, result.median());
    }

    private static void print(String name, Result result, double baseline) {
        System.out.printf("%-34s %10.2f %10.2f %10.2f %10.2f%n", name, result.median(), result.mean(),
                result.p99(), result.median() / baseline);
    }

    /** The round trips' median, mean and 99th percentile in microseconds, and the bytes allocated per round trip. */
    static final class Result {
        private final double median;
        private final double mean;
        private final double p99;
        double loopBytes;
        double callerBytes;

        Result(long[] nanos) {
            double[] micros = new double[nanos.length];
            double sum = 0;
            for (int i = 0; i < nanos.length; i++) {
                micros[i] = nanos[i] / 1e3;
                sum += micros[i];
            }
            Arrays.sort(micros);
            median = micros[micros.length / 2];
            mean = sum / micros.length;
            p99 = micros[Math.min(micros.length - 1, (int) (micros.length * 0.99))];
        }

        /** A ping-pong's run: its round trips' distribution and its time per round trip. */
        Result(PingPong.Run run, int iterations) {
            median = run.roundTrips().medianMicros();
            mean = run.nanos() / 1e3 / iterations;
            p99 = run.roundTrips().p99Micros();
        }

        double median() {
            return median;
        }

        double p99() {
            return p99;
        }

        double mean() {
            return mean;
        }
    }

    /**
     * What RC's acknowledgements cost with no RDMA logic at all: the SEND/RECV ping-pong's four
     * datagrams a round trip ({@link PingPong.Pattern#RC}: each side's 64-byte SEND as long as
     * soft0's packet is on the wire, and an ACK for each), sent from unconnected sockets with an
     * address, as a RoCE device must (docs/performance.md), in soft0's order. The floor any RC
     * device on these sockets starts from.
     */
    static Result rcPatternPingPong(int warmup, int iterations) throws Exception {
        return datagramPingPong(warmup, iterations, true);
    }

    /**
     * {@link #rcPatternPingPong} with {@code rc}; without, the plain busy-polled UDP ping-pong of
     * {@code demo --protocol pingpong --baseline}: one datagram each way, connected sockets, no ACK.
     * Both are {@link PingPong}, the demo's own, between 127.0.0.1 and 127.0.0.2.
     */
    static Result datagramPingPong(int warmup, int iterations, boolean rc) throws Exception {
        int port = SoftRoceUdpTest.freePort();
        InetSocketAddress addressA = new InetSocketAddress("127.0.0.1", port);
        InetSocketAddress addressB = new InetSocketAddress("127.0.0.2", port);
        try (DatagramChannel a = DatagramChannel.open(StandardProtocolFamily.INET);
             DatagramChannel b = DatagramChannel.open(StandardProtocolFamily.INET)) {
            a.bind(addressA);
            b.bind(addressB);
            if (!rc) {
                a.connect(addressB);
                b.connect(addressA);
            }
            a.configureBlocking(false);
            b.configureBlocking(false);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread pong = new Thread(() -> {
                try {
                    PingPong.Run served = new PingPong(b, rc ? addressA : null, PING_SIZE, 1024)
                            .server(warmup + iterations, WAIT_NANOS);
                    if (served.failure() != null) {
                        failure.set(new IllegalStateException(served.failure()));
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            }, "datagram pong");
            pong.setDaemon(true);
            pong.start();
            PingPong.Run ran = new PingPong(a, rc ? addressB : null, PING_SIZE, 1024)
                    .client(warmup, iterations, WAIT_NANOS);
            pong.join(5000);
            if (ran.failure() != null) {
                throw new IllegalStateException(ran.failure());
            }
            if (failure.get() != null) {
                throw new IllegalStateException("the answering side failed", failure.get());
            }
            return new Result(ran, iterations);
        }
    }

    static Peers softPeers(int port) throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.mrLength = 4096;
        setup.mtu = Mtu.MTU_1024;
        setup.capabilities = new QpCapabilities(256, 256, 1, 1, 0);
        return Peers.udp(setup, port, null);
    }

    /** ibv_rc_pingpong's data phase, both CQs busy-polled; a's thread times each round trip. */
    static Result softSendPingPong(int warmup, int iterations) throws Exception {
        try (Peers peers = softPeers(SoftRoceUdpTest.freePort())) {
            int total = warmup + iterations;
            int depth = 64;
            for (Peers.Side side : List.of(peers.a, peers.b)) {
                List<ReceiveWorkRequest> receives = new ArrayList<>();
                for (int i = 0; i < depth; i++) {
                    receives.add(ReceiveWorkRequest.of(1, side.mr.sge(0, PING_SIZE)));
                }
                side.qp.postRecv(receives);
            }
            long[] nanos = new long[iterations];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch done = new CountDownLatch(1);
            Thread pong = new Thread(() -> {
                try {
                    pingPongSide(peers.b, total, false, null, 0);
                } catch (Throwable e) {
                    failure.set(e);
                } finally {
                    done.countDown();
                }
            }, "soft0 pong");
            pong.setDaemon(true);
            long[] before = allocated();
            pong.start();
            try {
                pingPongSide(peers.a, total, true, nanos, warmup);
            } catch (RuntimeException e) {
                throw new IllegalStateException(e.getMessage() + ";" + counters(peers), e);
            }
            done.await();
            long[] after = allocated();
            if (failure.get() != null) {
                throw new IllegalStateException(failure.get());
            }
            Result result = new Result(nanos);
            result.loopBytes = (after[0] - before[0]) / (double) total;
            result.callerBytes = (after[1] - before[1]) / (double) total;
            if (Boolean.getBoolean("speed.counters")) {
                System.err.println("counters (a/b):" + counters(peers));
            }
            return result;
        }
    }

    private static String counters(Peers peers) {
        StringBuilder text = new StringBuilder();
        for (Counter counter : Counter.values()) {
            long a = peers.a.counter(counter);
            long b = peers.b.counter(counter);
            if (a != 0 || b != 0) {
                text.append(' ').append(counter).append('=').append(a).append('/').append(b);
            }
        }
        return text.toString();
    }

    private static void pingPongSide(Peers.Side side, int total, boolean starts, long[] nanos, int warmup)
            throws VerbsException {
        SendWorkRequest send = SendWorkRequest.send(2, side.mr.sge(0, PING_SIZE), SendFlag.SIGNALED.value());
        ReceiveWorkRequest receive = ReceiveWorkRequest.of(1, side.mr.sge(0, PING_SIZE));
        int received = 0;
        int sent = 0;
        boolean sendDone = true;
        long start = System.nanoTime();
        if (starts) {
            side.qp.postSend(send);
            sendDone = false;
        }
        boolean receivePending = true;
        while (received < total || sent < total) {
            for (WorkCompletion wc : busyPoll(side.cq)) {
                if (!wc.isSuccess()) {
                    throw new IllegalStateException(wc.toString());
                }
                if (wc.opcode() == WcOpcode.SEND) {
                    sent++;
                    sendDone = true;
                } else {
                    received++;
                    receivePending = false;
                    side.qp.postRecv(receive);
                }
            }
            if (starts) {
                if (sendDone && !receivePending) {
                    long now = System.nanoTime();
                    if (received > warmup) {
                        nanos[received - 1 - warmup] = now - start;
                    }
                    start = now;
                    if (sent < total) {
                        side.qp.postSend(send);
                        sendDone = false;
                        receivePending = true;
                    }
                }
            } else if (sendDone && !receivePending && sent < total) {
                side.qp.postSend(send);
                sendDone = false;
                receivePending = true;
            }
        }
    }

    private static List<WorkCompletion> busyPoll(CompletionQueue cq) throws VerbsException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (true) {
            List<WorkCompletion> polled = cq.poll(16);
            if (!polled.isEmpty()) {
                return polled;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no completion within 5 s");
            }
            Thread.onSpinWait();
        }
    }

    /** ib_write_lat's pattern: each side writes 8 bytes to the other and polls its own buffer's last byte. */
    static Result softWritePingPong(int warmup, int iterations) throws Exception {
        try (Peers peers = softPeers(SoftRoceUdpTest.freePort())) {
            int total = warmup + iterations;
            long[] nanos = new long[iterations];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch done = new CountDownLatch(1);
            Thread pong = new Thread(() -> {
                try {
                    writeSide(peers.b, peers.a, total, false, null, 0);
                } catch (Throwable e) {
                    failure.set(e);
                } finally {
                    done.countDown();
                }
            }, "soft0 write pong");
            pong.setDaemon(true);
            long[] before = allocated();
            pong.start();
            try {
                writeSide(peers.a, peers.b, total, true, nanos, warmup);
            } catch (RuntimeException e) {
                throw new IllegalStateException(e.getMessage() + ";" + counters(peers), e);
            }
            done.await();
            long[] after = allocated();
            if (failure.get() != null) {
                throw new IllegalStateException(failure.get());
            }
            Result result = new Result(nanos);
            result.loopBytes = (after[0] - before[0]) / (double) total;
            result.callerBytes = (after[1] - before[1]) / (double) total;
            if (Boolean.getBoolean("speed.counters")) {
                System.err.println("counters (a/b):" + counters(peers));
            }
            return result;
        }
    }

    private static void writeSide(Peers.Side side, Peers.Side peer, int total, boolean starts, long[] nanos,
                                  int warmup) throws VerbsException {
        byte[] landing = ((SoftMemoryRegion) side.mr).memory();
        int source = 64;
        SendWorkRequest write = SendWorkRequest.write(3, side.mr.sge(source, WRITE_SIZE), peer.mr.address(),
                peer.mr.rkey(), SendFlag.SIGNALED.value());
        int outstanding = 0;
        for (int i = 1; i <= total; i++) {
            byte mark = (byte) (i % 255 + 1);
            if (!starts) {
                outstanding -= awaitByte(side, landing, WRITE_SIZE - 1, mark);
            }
            long start = System.nanoTime();
            BYTES.setRelease(landing, source + WRITE_SIZE - 1, mark);
            side.qp.postSend(write);
            outstanding++;
            outstanding -= side.cq.poll(16).size();
            while (outstanding > 32) {
                outstanding -= busyPoll(side.cq).size();
            }
            if (starts) {
                outstanding -= awaitByte(side, landing, WRITE_SIZE - 1, mark);
                if (i > warmup) {
                    nanos[i - 1 - warmup] = System.nanoTime() - start;
                }
            }
        }
        while (outstanding > 0) {
            outstanding -= busyPoll(side.cq).size();
        }
    }

    /**
     * Spins until the peer's WRITE put {@code value} at {@code index}, polling the CQ meanwhile as
     * ib_write_lat's loop and {@code bench} do (the poll is also what turns the device: a side that
     * only watched its memory would leave the socket to the device's own thread and its wake-ups).
     *
     * @return the send completions the polls took
     */
    private static int awaitByte(Peers.Side side, byte[] memory, int index, byte value) throws VerbsException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        int completed = 0;
        while ((byte) BYTES.getOpaque(memory, index) != value) {
            completed += side.cq.poll(16).size();
            if ((byte) BYTES.getOpaque(memory, index) == value) {
                break;
            }
            Thread.onSpinWait();
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the peer's WRITE did not land within 5 s");
            }
        }
        return completed;
    }

    /** Bytes allocated so far by the devices' transport threads [0] and by every other live thread [1]. */
    static long[] allocated() {
        ThreadMXBean bean = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long loops = 0;
        long others = 0;
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            long bytes = bean.getThreadAllocatedBytes(thread.getId());
            if (bytes < 0) {
                continue;
            }
            if (thread.getName().contains("transport")) {
                loops += bytes;
            } else if (thread.getName().startsWith("soft0") || thread == Thread.currentThread()) {
                others += bytes;
            }
        }
        return new long[] {loops, others};
    }

    // ---------------------------------------------------------------------------------------------
    // Bandwidth
    // ---------------------------------------------------------------------------------------------

    static void bandwidth(Mtu mtu, double seconds) throws Exception {
        double udp = udpBandwidth(mtu.bytes(), seconds);
        double[] soft = softBandwidth(mtu, seconds);
        double udp2 = udpBandwidth(mtu.bytes(), seconds);
        double baseline = Math.max(udp, udp2);
        System.out.printf("UDP, 64 KiB messages as %d B datagrams, %d in flight: %.1f MB/s, then %.1f MB/s%n",
                mtu.bytes(), IN_FLIGHT, udp, udp2);
        System.out.printf("soft0 RDMA WRITE 64 KiB, MTU %d, %d in flight:          %.1f MB/s%n", mtu.bytes(), IN_FLIGHT,
                soft[0]);
        System.out.printf("ratio: %.2f (soft0 / the better UDP run; goal 0.6)%n", soft[0] / baseline);
        System.out.printf("device threads allocate %.1f B per 64 KiB WRITE (%.2f B per packet)%n", soft[1],
                soft[1] / ((MESSAGE + mtu.bytes() - 1) / mtu.bytes()));
    }

    /** Megabytes per second received: 64 KiB messages in datagrams of {@code datagram} bytes, acked per message. */
    static double udpBandwidth(int datagram, double seconds) throws Exception {
        int port = SoftRoceUdpTest.freePort();
        int perMessage = (MESSAGE + datagram - 1) / datagram;
        try (DatagramChannel a = DatagramChannel.open(StandardProtocolFamily.INET);
             DatagramChannel b = DatagramChannel.open(StandardProtocolFamily.INET)) {
            for (DatagramChannel c : List.of(a, b)) {
                c.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
                c.setOption(StandardSocketOptions.SO_SNDBUF, 4 << 20);
            }
            a.bind(new InetSocketAddress("127.0.0.1", port));
            b.bind(new InetSocketAddress("127.0.0.2", port));
            a.connect(b.getLocalAddress());
            b.connect(a.getLocalAddress());
            long[] received = new long[1];
            Thread receiver = new Thread(() -> {
                ByteBuffer buffer = ByteBuffer.allocateDirect(65536);
                ByteBuffer ack = ByteBuffer.allocateDirect(8);
                long count = 0;
                try {
                    while (true) {
                        buffer.clear();
                        b.read(buffer);
                        if (buffer.position() == 1) {
                            return;
                        }
                        count++;
                        synchronized (received) {
                            received[0] = count;
                        }
                        if (count % perMessage == 0) {
                            ack.clear();
                            ack.putLong(0, count);
                            b.write(ack);
                        }
                    }
                } catch (Exception e) {
                    // Closed.
                }
            }, "udp receiver");
            receiver.setDaemon(true);
            receiver.start();
            a.configureBlocking(false);
            ByteBuffer data = ByteBuffer.allocateDirect(datagram);
            ByteBuffer ack = ByteBuffer.allocateDirect(8);
            long sent = 0;
            long acked = 0;
            long lost = 0;
            long lastProgress = System.nanoTime();
            long warmEnd = System.nanoTime() + 500_000_000L;
            long start = 0;
            long startCount = 0;
            long end = Long.MAX_VALUE;
            while (true) {
                while (sent - acked - lost < (long) IN_FLIGHT * perMessage) {
                    data.clear();
                    if (a.write(data) == 0) {
                        break;
                    }
                    sent++;
                }
                ack.clear();
                if (a.read(ack) == 8) {
                    acked = Math.max(acked, ack.getLong(0));
                    lastProgress = System.nanoTime();
                } else if (System.nanoTime() - lastProgress > 5_000_000L) {
                    lost = sent - acked;
                    lastProgress = System.nanoTime();
                } else {
                    Thread.onSpinWait();
                }
                long now = System.nanoTime();
                if (start == 0 && now > warmEnd) {
                    start = now;
                    synchronized (received) {
                        startCount = received[0];
                    }
                    end = start + (long) (seconds * 1e9);
                }
                if (now > end) {
                    long count;
                    synchronized (received) {
                        count = received[0] - startCount;
                    }
                    a.write(ByteBuffer.allocate(1));
                    receiver.join(1000);
                    return count * (double) datagram * MESSAGE / (perMessage * (double) datagram) / ((now - start) / 1e3);
                }
            }
        }
    }

    /** [MB/s, device-thread bytes allocated per WRITE]. */
    static double[] softBandwidth(Mtu mtu, double seconds) throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.mrLength = MESSAGE * IN_FLIGHT;
        setup.mtu = mtu;
        setup.linkMtu = 9000;
        setup.capabilities = new QpCapabilities(IN_FLIGHT, 1, 1, 1, 0);
        setup.timeout = 12;
        try (Peers peers = Peers.udp(setup, SoftRoceUdpTest.freePort(), null)) {
            long posted = 0;
            long completed = 0;
            long warmEnd = System.nanoTime() + 500_000_000L;
            long start = 0;
            long startCount = 0;
            long[] before = null;
            long end = Long.MAX_VALUE;
            while (true) {
                while (posted - completed < IN_FLIGHT) {
                    int slot = (int) (posted % IN_FLIGHT);
                    peers.a.qp.postSend(SendWorkRequest.write(posted, peers.a.mr.sge(slot * MESSAGE, MESSAGE),
                            peers.b.mr.address() + (long) slot * MESSAGE, peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
                    posted++;
                }
                for (WorkCompletion wc : busyPoll(peers.a.cq)) {
                    if (!wc.isSuccess()) {
                        throw new IllegalStateException(wc.toString());
                    }
                    completed++;
                }
                long now = System.nanoTime();
                if (start == 0 && now > warmEnd) {
                    start = now;
                    startCount = completed;
                    before = allocated();
                    end = start + (long) (seconds * 1e9);
                }
                if (now > end) {
                    long[] after = allocated();
                    long writes = completed - startCount;
                    return new double[] {writes * (double) MESSAGE / ((now - start) / 1e3),
                        (after[0] - before[0]) / (double) writes};
                }
            }
        }
    }
}
