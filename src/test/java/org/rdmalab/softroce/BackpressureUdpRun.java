package org.rdmalab.softroce;

import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;
import org.rdmalab.softroce.net.UdpFabric;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WorkCompletion;

/**
 * The real-UDP half of {@link SoftRoceBackpressureTest}, run in its own JVM inside a private
 * network namespace whose loopback is rate-limited (a tbf queue): there, unlike on a plain
 * loopback, whose datagrams leave the socket's account as soon as they are sent, the kernel's
 * send buffer really fills. Two devices with a small {@code SO_SNDBUF} move 4 MiB of WRITEs and a
 * 6 MiB READ; it prints {@code key=value} lines (the outcome, both sides' counters, and the order
 * in which each side's data packets left and arrived, from the devices' packet events) for the test
 * to check, and exits 0 when it could run. With a listener subscribed every datagram takes the
 * transport's copying path, the one a capture takes; the direct path's handling of a full socket is
 * the simulated tests'.
 */
public final class BackpressureUdpRun {

    /** The SO_SNDBUF asked for (the kernel doubles it). */
    static final int SEND_BUFFER = 16 << 10;

    private BackpressureUdpRun() {
    }

    public static void main(String[] args) throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.mrLength = 16 << 20;
        // 2.1 s: a loaded machine can leave the queue of the rate-limited loopback (run in softirq
        // context, under load by ksoftirqd) unserved for a hundred milliseconds and more: slow,
        // not lost.
        setup.timeout = 19;
        int write = 1 << 20;
        byte[] local = new byte[4 * write];
        byte[] remote = new byte[6 << 20];
        Random random = new Random(17);
        random.nextBytes(local);
        random.nextBytes(remote);
        System.out.println("kernel-fills-send-buffer=" + kernelFillsSendBuffer());
        long start = System.nanoTime();
        WireOrder requests = new WireOrder();
        WireOrder responses = new WireOrder();
        try (Peers peers = Peers.udp(setup, SoftRoceUdpTest.freePort(), null, UdpFabric.withSendBuffer(SEND_BUFFER));
             AutoCloseable aEvents = peers.a.soft().subscribe(event -> {
                 requests.sender(event);
                 responses.receiver(event);
             });
             AutoCloseable bEvents = peers.b.soft().subscribe(event -> {
                 responses.sender(event);
                 requests.receiver(event);
             })) {
            peers.a.mr.write(0, local);
            peers.b.mr.write(0, remote);
            for (int i = 0; i < 4; i++) {
                peers.a.qp.postSend(SendWorkRequest.write(i, peers.a.mr.sge(i * write, write),
                        peers.b.mr.address() + (8 << 20) + (long) i * write, peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            }
            peers.a.qp.postSend(SendWorkRequest.read(4, peers.a.mr.sge(8 << 20, remote.length), peers.b.mr.address(),
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            int good = 0;
            for (int i = 0; i < 5; i++) {
                Optional<WorkCompletion> wc = peers.a.cq.pollOne(Duration.ofSeconds(60));
                if (wc.isEmpty()) {
                    break;
                }
                System.out.println("completion=" + wc.get());
                good += wc.get().isSuccess() ? 1 : 0;
            }
            System.out.println("successes=" + good);
            System.out.println("write-bytes-right=" + Arrays.equals(local, peers.b.mr.read(8 << 20, local.length)));
            System.out.println("read-bytes-right=" + Arrays.equals(remote, peers.a.mr.read(8 << 20, remote.length)));
            System.out.printf("seconds=%.3f%n", (System.nanoTime() - start) / 1e9);
            System.out.println("kernel-receive-drops=" + kernelReceiveDrops());
            System.out.println("a.sent-out-of-order=" + requests.sentOutOfOrder());
            System.out.println("b.sent-out-of-order=" + responses.sentOutOfOrder());
            System.out.println("network-reordered=" + (requests.reorderedOnTheWay() + responses.reorderedOnTheWay()));
            System.out.println("network-lost=" + (requests.lost() + responses.lost()));
            for (Counter counter : Counter.values()) {
                System.out.println("a." + counter.counterName() + "=" + peers.a.counter(counter));
                System.out.println("b." + counter.counterName() + "=" + peers.b.counter(counter));
            }
        }
    }

    /**
     * Whether this kernel pushes back on a UDP sender here: of 3000 datagrams sent in a burst
     * through a 32 KiB send buffer into the rate-limited loopback (about 90 ms of traffic, sent in
     * a few ms), a kernel that charges queued datagrams to the socket takes about as many as fit
     * and as many as drain meanwhile, a few hundred at most, and refuses the rest. Some kernels
     * (seen on 6.18) free the charge before the queueing discipline holds the datagram and refuse
     * from a few to about half, depending on when the queue is served, which is not a full buffer.
     */
    static boolean kernelFillsSendBuffer() throws java.io.IOException {
        try (java.nio.channels.DatagramChannel receiver = java.nio.channels.DatagramChannel.open();
             java.nio.channels.DatagramChannel sender = java.nio.channels.DatagramChannel.open()) {
            receiver.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 4 << 20);
            receiver.bind(new java.net.InetSocketAddress("127.0.0.1", 0));
            sender.setOption(java.net.StandardSocketOptions.SO_SNDBUF, SEND_BUFFER);
            sender.configureBlocking(false);
            java.nio.ByteBuffer datagram = java.nio.ByteBuffer.allocate(1100);
            int refused = 0;
            for (int i = 0; i < 3000; i++) {
                datagram.clear();
                if (sender.send(datagram, receiver.getLocalAddress()) == 0) {
                    refused++;
                }
            }
            System.out.println("probe-refused=" + refused);
            return refused > 2500;
        }
    }

    /**
     * UDP datagrams this network namespace's kernel dropped on receive (RcvbufErrors in
     * /proc/net/snmp): a receiving thread starved on a loaded machine loses datagrams there, which
     * is loss on the network side, not the send buffer's; -1 when unreadable.
     */
    static long kernelReceiveDrops() {
        try {
            java.util.List<String> udp = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/net/snmp")).stream()
                    .filter(line -> line.startsWith("Udp:")).toList();
            java.util.List<String> names = java.util.List.of(udp.get(0).split("\\s+"));
            String[] values = udp.get(1).split("\\s+");
            return Long.parseLong(values[names.indexOf("RcvbufErrors")]);
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }
}
