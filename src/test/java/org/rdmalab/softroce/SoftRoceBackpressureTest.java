package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.SimulatedNetwork;
import org.rdmalab.testing.Tools;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WorkCompletion;

/**
 * A full socket send buffer slows soft0 down instead of costing it retries: packets the socket
 * cannot take wait in the host and leave in order, the QPs stop producing meanwhile, and no
 * retransmission timer counts the wait as loss. On the virtual clock the send buffer is modelled
 * ({@link SimulatedNetwork#limitSendBuffer}); {@code BackpressureUdpRun} shows the same on a real
 * kernel socket.
 */
class SoftRoceBackpressureTest {

    /** Both devices: 8 datagrams of send buffer in front of a link that takes one every 20 µs. */
    private static Peers slowLinks(Peers.Setup setup) throws Exception {
        Peers peers = Peers.simulated(setup);
        peers.net.limitSendBuffer(8, Duration.ofNanos(20_000));
        return peers;
    }

    private static Peers.Setup setup() {
        Peers.Setup setup = new Peers.Setup();
        setup.mrLength = 8 << 20;
        // 1 ms: far shorter than the time the packets spend waiting for the slow links (a 64-packet
        // stretch between AckReqs alone takes 1.3 ms to leave), so a timer that counted the wait
        // as loss would fire again and again.
        setup.timeout = 8;
        setup.retryCount = 7;
        return setup;
    }

    @Test
    void aLargeReadAndLargeWritesThroughFullSendBuffersArriveWhole() throws Exception {
        try (Peers peers = slowLinks(setup())) {
            byte[] remote = new byte[3 << 20];
            byte[] local = new byte[1 << 20];
            Random random = new Random(11);
            random.nextBytes(remote);
            random.nextBytes(local);
            peers.b.mr.write(0, remote);
            peers.a.mr.write(0, local);
            for (int i = 0; i < 4; i++) {
                peers.a.qp.postSend(SendWorkRequest.write(i, peers.a.mr.sge(i * (256 << 10), 256 << 10),
                        peers.b.mr.address() + (4 << 20) + i * (256 << 10), peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            }
            peers.a.qp.postSend(SendWorkRequest.read(9, peers.a.mr.sge(4 << 20, remote.length), peers.b.mr.address(),
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 5);
            assertEquals(5, done.size(), done.toString());
            for (WorkCompletion wc : done) {
                assertTrue(wc.isSuccess(), wc.toString());
            }
            assertArrayEquals(remote, peers.a.mr.read(4 << 20, remote.length), "the READ's bytes");
            assertArrayEquals(local, peers.b.mr.read(4 << 20, local.length), "the WRITEs' bytes");

            assertTrue(peers.net.refusedDatagrams() > 100, "the send buffers were full: " + peers.net.refusedDatagrams());
            assertTrue(peers.a.counter(Counter.SEND_BLOCKED) > 0, "the requester's side waited for room");
            assertTrue(peers.b.counter(Counter.SEND_BLOCKED) > 0, "the responder's side waited for room");
            for (Peers.Side side : List.of(peers.a, peers.b)) {
                assertEquals(0, side.counter(Counter.COMPLETER_RETRY_ERR), "no retry: nothing was lost");
                assertEquals(0, side.counter(Counter.RETRY_EXCEEDED_ERR));
                assertEquals(0, side.counter(Counter.SEND_ERR), "nothing dropped on the way out");
                assertEquals(0, side.counter(Counter.DUPLICATE_REQUEST), "nothing sent twice");
            }
            // Every request packet left once (1 MiB of WRITEs in 1 KiB packets and one READ
            // request), and everything either side sent arrived.
            assertEquals(1024 + 1, peers.a.counter(Counter.SENT_PKTS), "request packets sent");
            assertEquals(peers.a.counter(Counter.SENT_PKTS), peers.b.counter(Counter.RCVD_PKTS));
            assertEquals(peers.b.counter(Counter.SENT_PKTS), peers.a.counter(Counter.RCVD_PKTS));
        }
    }

    /**
     * The READ's responses wait for room on the responder's slow link, and the WRITE behind the
     * READ reaches the responder while some are still to go: it waits for them, so its ACK cannot
     * overtake them (an ACK beyond an unanswered READ would make the requester ask again).
     */
    @Test
    void aRequestBehindALongReadWaitsForTheReadsResponses() throws Exception {
        try (Peers peers = slowLinks(setup())) {
            byte[] remote = new byte[1 << 20];
            new Random(5).nextBytes(remote);
            peers.b.mr.write(0, remote);
            peers.a.mr.write(0, remote);
            peers.a.qp.postSend(SendWorkRequest.read(1, peers.a.mr.sge(2 << 20, remote.length), peers.b.mr.address(),
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 4096), peers.b.mr.address() + (4 << 20),
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 2);
            assertEquals(List.of(1L, 2L), done.stream().map(WorkCompletion::wrId).toList());
            assertTrue(done.stream().allMatch(WorkCompletion::isSuccess), done.toString());
            assertArrayEquals(remote, peers.a.mr.read(2 << 20, remote.length));
            assertArrayEquals(java.util.Arrays.copyOf(remote, 4096), peers.b.mr.read(4 << 20, 4096));
            assertEquals(0, peers.a.counter(Counter.COMPLETER_RETRY_ERR));
            assertEquals(0, peers.a.counter(Counter.RCVD_UNEXPECTED_RESPONSE));
            assertEquals(0, peers.b.counter(Counter.DUPLICATE_REQUEST));
        }
    }

    /**
     * The same over real UDP, where a plain loopback cannot show it: Linux hands a loopback
     * datagram on at once and frees its room in the send buffer, so the buffer never fills. In a
     * private network namespace ({@code unshare -rn}) whose loopback sends through a 300 Mbit/s
     * tbf queue, datagrams stay charged to their socket until the queue lets them go, and a small
     * SO_SNDBUF fills: {@code send_blocked} counts it. Every byte must arrive, each side's packets
     * must leave in order, and nothing may be retried unless the network itself lost or reordered
     * a packet.
     */
    @Test
    void overRealUdpAFullKernelSendBufferCostsNoRetry() throws Exception {
        Tools.require("unshare", "util-linux");
        Tools.require("tc", "iproute2");
        Tools.require("ip", "iproute2");
        String slowLoopback = "ip link set lo up && tc qdisc add dev lo root tbf rate 300mbit burst 32kb latency 500ms";
        List<String> namespace = null;
        StringBuilder why = new StringBuilder();
        for (List<String> candidate : List.of(List.of("unshare", "-rn"), List.of("unshare", "-n"))) {
            List<String> probe = new java.util.ArrayList<>(candidate);
            probe.addAll(List.of("sh", "-c", slowLoopback));
            Run result = run(probe, Duration.ofSeconds(20));
            if (result.exit == 0) {
                namespace = candidate;
                break;
            }
            why.append(String.join(" ", candidate)).append(": ").append(result.output.strip()).append("; ");
        }
        if (namespace == null) {
            Tools.unavailable("no private network namespace with a rate-limited loopback could be made (" + why
                    + "user namespaces or root are needed)");
            return;
        }
        String javaCommand = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classpath = location(SoftRoceDevice.class) + java.io.File.pathSeparator + location(BackpressureUdpRun.class);
        List<String> command = new java.util.ArrayList<>(namespace);
        command.addAll(List.of("sh", "-c", slowLoopback + " && exec \"$0\" -cp \"$1\" " + BackpressureUdpRun.class.getName(),
                javaCommand, classpath));
        Run result = run(command, Duration.ofSeconds(150));
        String output = result.output;
        assertEquals(0, result.exit, output);
        java.util.Map<String, String> values = new java.util.HashMap<>();
        for (String line : output.split("\n")) {
            int equals = line.indexOf('=');
            if (equals > 0) {
                values.put(line.substring(0, equals).trim(), line.substring(equals + 1).trim());
            }
        }
        assertEquals("5", values.get("successes"), output);
        assertEquals("true", values.get("write-bytes-right"), output);
        assertEquals("true", values.get("read-bytes-right"), output);
        // A receiving thread starved on a loaded machine makes its kernel drop datagrams: that is
        // loss on the network's side and may cost a retry; the send buffer alone never may.
        long receiveDrops = Long.parseLong(values.get("kernel-receive-drops"));
        assertTrue(receiveDrops >= 0, "the namespace's /proc/net/snmp was readable:\n" + output);
        boolean receiveLoss = receiveDrops > 0;
        // Some kernels (seen on 6.18) free a UDP datagram's send-buffer charge before the queueing
        // discipline holds it, so a socket seldom fills there; the simulated test above covers the
        // logic, and this one still checks every byte, the order and the retries.
        boolean kernelFills = Boolean.parseBoolean(values.get("kernel-fills-send-buffer"));
        // A side fills its send buffer only when it sends faster than the 300 Mbit/s queue drains:
        // b's 6 MiB of READ responses do, a's WRITEs in a JVM that has not compiled them yet
        // sometimes do not (send_blocked 0 in about half the runs of one machine, before and after
        // issue 8's changes). The path must be exercised somewhere; each side must not retry.
        if (kernelFills) {
            assertTrue(Long.parseLong(values.get("a.send_blocked")) + Long.parseLong(values.get("b.send_blocked")) > 0,
                    "a side found its socket's send buffer full:\n" + output);
        }
        // Datagrams that waited for room leave in order: each side hands every new PSN to its
        // socket right after the one before it.
        assertEquals("0", values.get("a.sent-out-of-order"), output);
        assertEquals("0", values.get("b.sent-out-of-order"), output);
        // The network itself may reorder: the 6.18 kernel of one machine delivered a few of one
        // thread's datagrams through the rate-limited loopback in another order than they were
        // sent (seen in a capture on lo against the order soft0 sent them in). RC takes that for
        // a loss, the responder NAKs and the requester goes back, as rxe would: a retry then is
        // the network's, not the send buffer's.
        boolean networkDisorder = Long.parseLong(values.get("network-reordered")) > 0
                || Long.parseLong(values.get("network-lost")) > 0;
        // Where the kernel never pushes back, the rate-limited queue itself may overflow and drop:
        // loss on the network's side again (network-lost), which RC recovers from.
        for (String side : List.of("a.", "b.")) {
            if (!receiveLoss && !networkDisorder) {
                assertEquals("0", values.get(side + "completer_retry_err"), output);
            }
            assertEquals("0", values.get(side + "retry_exceeded_err"), output);
            assertEquals("0", values.get(side + "send_err"), output);
        }
    }

    private record Run(int exit, String output) {
    }

    private static Run run(List<String> command, Duration limit) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        java.io.ByteArrayOutputStream output = new java.io.ByteArrayOutputStream();
        Thread reader = new Thread(() -> {
            try (java.io.InputStream in = process.getInputStream()) {
                in.transferTo(output);
            } catch (java.io.IOException ignored) {
                // The process is gone; what was read is kept.
            }
        }, "backpressure-run output");
        reader.start();
        if (!process.waitFor(limit.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
            return new Run(-1, "did not end within " + limit.toSeconds() + " s");
        }
        reader.join(10_000);
        String text = output.toString(java.nio.charset.StandardCharsets.UTF_8);
        return new Run(process.isAlive() ? -1 : process.exitValue(), text);
    }

    private static String location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
