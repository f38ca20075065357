package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.capture.CaptureInspector;
import org.rdmalab.capture.PcapReader;
import org.rdmalab.softroce.net.UdpFabric;
import org.rdmalab.softroce.net.WireSocket;
import org.rdmalab.testing.Await;
import org.rdmalab.testing.Tools;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * soft0's socket sends the IPv4 header its ICRC covers: tcpdump on the loopback interface sees ID 0,
 * DF and the socket's TTL, every ICRC verifies, and soft0's own capture holds the same bytes.
 */
class SoftRoceWireHeaderTest {

    private static boolean linux() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
    }

    @Test
    void devicesSaysWireInteropIsOffAndWhyWhenTheOptionIsMissing() {
        DeviceOptions options = DeviceOptions.defaults().withAddress(DeviceOptions.parseAddress("10.1.2.3"));
        SoftRoceDevice device = SoftRoceProvider.device(options, UdpFabric.INSTANCE);
        String off = device.description(WireSocket.Setup.failed(
                "IP_PMTUDISC_DO (IPv4 ID 0 on every datagram) is a Linux socket option, and this is Mac OS X"));
        assertEquals("software RoCE v2 on 10.1.2.3 UDP 4791; wire interop with kernel rxe off: IP_PMTUDISC_DO (IPv4 ID 0"
                + " on every datagram) is a Linux socket option, and this is Mac OS X", off);
        assertEquals("software RoCE v2 on 10.1.2.3 UDP 4791",
                device.description(new WireSocket.Setup(true, 64, true, null)));
        if (linux()) {
            // Here the option works, so `devices` (which prints description()) does not say "off".
            assertEquals("software RoCE v2 on 10.1.2.3 UDP 4791", device.description());
        }
    }

    @Test
    void tcpdumpOnLoopbackSeesTheHeaderTheIcrcCoversAndTheOwnCaptureMatchesIt(@TempDir Path dir) throws Exception {
        assumeTrue(linux(), "IP_PMTUDISC_DO is Linux's");
        Path tcpdump = Tools.require("tcpdump", "tcpdump");
        // Port 4791, which `pcap inspect` reads as RoCE v2, on loopback addresses of this run's own.
        int net = 100 + new Random().nextInt(150);
        String addressA = "127." + net + ".71.1";
        String addressB = "127." + net + ".71.2";
        int port = 4791;
        Path wire = dir.resolve("wire.pcap");
        Path own = dir.resolve("own.pcap");
        Path errors = dir.resolve("tcpdump.err");
        Process dump = new ProcessBuilder(tcpdump.toString(), "-i", "lo", "-U", "--immediate-mode", "-n", "-w", wire.toString(),
                "udp port " + port + " and host " + addressA).redirectError(errors.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            try {
                Await.until("tcpdump to listen", Duration.ofSeconds(20),
                        () -> !dump.isAlive() || read(errors).contains("listening on"));
            } catch (AssertionError timedOut) {
                // said below
            }
            if (!read(errors).contains("listening on")) {
                Tools.unavailable("tcpdump cannot capture on lo (it needs root or CAP_NET_RAW): " + read(errors).trim());
            }
            Peers.Setup setup = new Peers.Setup();
            setup.timeout = 18; // about 1 s: few retransmissions on a loaded machine
            try (Peers peers = Peers.udp(setup, addressA, addressB, port, own)) {
                byte[] data = new byte[5000];
                new Random(11).nextBytes(data);
                peers.a.mr.write(0, data);
                peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, data.length), peers.b.mr.address(),
                        peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
                peers.a.qp.postSend(SendWorkRequest.read(2, peers.a.mr.sge(10_000, data.length), peers.b.mr.address(),
                        peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
                for (int i = 0; i < 2; i++) {
                    WorkCompletion wc = SoftRoceUdpTest.await(peers.a);
                    assertTrue(wc.isSuccess(), wc.toString());
                }
                assertArrayEquals(data, peers.a.mr.read(10_000, data.length));
            }
            // -U writes each packet as tcpdump reads it: the wire capture fills up to soft0's own.
            int sent = headers(own).size();
            Await.until("tcpdump to write the " + sent + " packets soft0 captured", Duration.ofSeconds(20),
                    () -> packetsIn(wire) >= sent);
        } finally {
            dump.destroy(); // SIGTERM: tcpdump closes the file
            if (!dump.waitFor(20, TimeUnit.SECONDS)) {
                dump.destroyForcibly();
            }
        }
        List<String> lines = new ArrayList<>();
        CaptureInspector.Result onWire = CaptureInspector.inspect(wire, lines::add);
        // WRITE at MTU 1024: 5 packets and an ACK; READ: a request and 5 responses; more when a
        // loaded machine made the requester time out and send again (both captures show those).
        assertTrue(onWire.packets() >= 12, String.join("\n", lines));
        assertTrue(onWire.allOk(), String.join("\n", lines));
        List<String> wireHeaders = headers(wire);
        for (String header : wireHeaders) {
            // version/IHL, TOS 0 | total length | ID 0 | DF | TTL, protocol UDP
            assertEquals("4500", header.substring(0, 4), header);
            assertEquals("00004000", header.substring(8, 16), "ID 0 and DF: " + header);
            int ttl = Integer.parseInt(header.substring(16, 18), 16);
            assertEquals(WireSocket.probe().ttl(), ttl, header);
        }
        // soft0's own capture holds every packet once, byte for byte as the wire carried it.
        List<String> ownHeaders = headers(own);
        List<String> sortedWire = new ArrayList<>(wireHeaders);
        List<String> sortedOwn = new ArrayList<>(ownHeaders);
        sortedWire.sort(null);
        sortedOwn.sort(null);
        assertEquals(sortedWire, sortedOwn);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** How many whole datagrams a capture being written holds so far. */
    private static int packetsIn(Path capture) {
        try {
            return headers(capture).size();
        } catch (Exception partial) {
            return -1; // a record half written: look again
        }
    }

    /** Each datagram of a capture from its IPv4 header to the end of the UDP payload, in hex. */
    private static List<String> headers(Path capture) throws Exception {
        List<String> out = new ArrayList<>();
        try (PcapReader reader = PcapReader.open(capture)) {
            for (PcapReader.Datagram d = reader.next(); d != null; d = reader.next()) {
                byte[] bytes = Arrays.copyOfRange(d.frame(), d.ipOffset(), d.payloadOffset() + d.capturedPayloadLength());
                out.add(HexFormat.of().formatHex(bytes));
            }
        }
        return out;
    }

}
