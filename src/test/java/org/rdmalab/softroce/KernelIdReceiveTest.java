package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.capture.CaptureInspector;
import org.rdmalab.wire.Icrc;
import org.rdmalab.wire.Ipv4Header;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.RocePacketEncoder;
import org.rdmalab.testing.Await;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WorkCompletion;

/**
 * Packets as kernel rxe sends them (a non-zero IPv4 ID in the ICRC, a source port from 0xC000 up)
 * reach a software device's QP over real UDP; a corrupted one is dropped and counted.
 */
class KernelIdReceiveTest {

    /** A SEND ONLY to {@code qpn} whose ICRC covers an IPv4 header with identification {@code id}. */
    private static byte[] send(int src, int srcPort, int dst, int dstPort, int qpn, int psn, byte[] payload, int id) {
        ByteBuffer out = ByteBuffer.allocate(payload.length + 64);
        int length = RocePacketEncoder.encode(out, Opcode.RC_SEND_ONLY, qpn, psn, true, false, null, null, null, null,
                0, payload, 0, payload.length);
        byte[] roce = new byte[length + Icrc.LENGTH];
        System.arraycopy(out.array(), 0, roce, 0, length);
        byte[] ip = new byte[Ipv4Header.LENGTH];
        Ipv4Header.write(ByteBuffer.wrap(ip), src, dst, 8 + roce.length, 0, 64, id);
        byte[] udp = ByteBuffer.allocate(8).putShort((short) srcPort).putShort((short) dstPort)
                .putShort((short) (8 + roce.length)).putShort((short) 0).array();
        Icrc.append(ip, 0, Ipv4Header.LENGTH, udp, 0, roce, 0, length);
        return roce;
    }

    @Test
    void aPacketWithTheKernelsIdIsTakenAndACorruptedOneCounted(@TempDir Path dir) throws Exception {
        // Port 4791, which `pcap inspect` reads as RoCE v2, on loopback addresses of this run's own.
        int net = 100 + new java.util.Random().nextInt(150);
        int a = 0x7F000000 | net << 16 | 72 << 8 | 1;
        int b = a + 1;
        String addressA = "127." + net + ".72.1";
        String addressB = "127." + net + ".72.2";
        int port = 4791;
        Path capture = dir.resolve("b.pcap");
        Peers.Setup setup = new Peers.Setup();
        try (Peers peers = Peers.udp(setup, addressA, addressB, port, capture);
             DatagramSocket kernel = new DatagramSocket(new InetSocketAddress(addressA, 0))) {
            peers.b.qp.postRecv(ReceiveWorkRequest.of(7, peers.b.mr.sge(0, 64)));
            peers.b.qp.postRecv(ReceiveWorkRequest.of(8, peers.b.mr.sge(64, 64)));
            byte[] hello = "HelloWorld\0".getBytes(StandardCharsets.US_ASCII);
            int srcPort = kernel.getLocalPort();
            InetSocketAddress target = new InetSocketAddress(addressB, port);
            byte[] first = send(a, srcPort, b, port, peers.b.qp.qpNum(), 0, hello, 0x33e7);
            kernel.send(new DatagramPacket(first, first.length, target));
            Optional<WorkCompletion> received = peers.b.cq.pollOne(Duration.ofSeconds(20));
            assertTrue(received.isPresent(), "the SEND with IPv4 ID 0x33e7 completes");
            assertTrue(received.get().isSuccess(), received.get().toString());
            assertEquals(WcOpcode.RECV, received.get().opcode());
            assertArrayEquals(hello, peers.b.mr.read(0, hello.length));

            byte[] second = send(a, srcPort, b, port, peers.b.qp.qpNum(), 1, hello, 0x33e8);
            second[20] ^= 0x10; // one bit of the payload flipped on the way
            kernel.send(new DatagramPacket(second, second.length, target));
            Await.until("the corrupted SEND to be counted", Duration.ofSeconds(20),
                    () -> peers.b.counter(Counter.RCVD_ICRC_ERR) > 0);
            assertEquals(1, peers.b.counter(Counter.RCVD_ICRC_ERR));
            assertEquals(Optional.empty(), peers.b.cq.pollOne(Duration.ofMillis(200)), "the corrupted SEND completes nothing");
        }
        // The capture shows the SEND with the ID it travelled with, so its ICRC verifies; b's ACK
        // verifies too; the corrupted SEND does not.
        List<String> lines = new ArrayList<>();
        CaptureInspector.Result result = CaptureInspector.inspect(capture, lines::add);
        String all = String.join("\n", lines);
        assertEquals(3, result.packets(), all);
        assertEquals(2, result.icrcOk(), all);
        assertEquals(1, result.icrcBad(), all);
        assertTrue(lines.get(0).contains("RC_SEND_ONLY") && lines.get(0).endsWith("ICRC ok"), all);
    }
}
