package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.capture.PcapReader;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.softroce.net.SimulatedNetwork;
import org.rdmalab.verbs.FaultKind;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.verbs.PacketObservable;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Reth;
import org.rdmalab.wire.RocePacketEncoder;

/**
 * What the transport tells its packet listeners and its capture: a datagram that arrives
 * malformed or for a QP the device does not have, a packet sent so corrupted that it no longer
 * decodes, every octet of both addresses, and capture timestamps that keep the clock's intervals.
 */
class SoftTransportEventsTest {

    private static final int A = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.1"));
    private static final int B = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.2"));
    private static final int SIGNALED = SendFlag.SIGNALED.value();

    private static List<PacketEvent> events(Peers.Side side) {
        List<PacketEvent> events = Collections.synchronizedList(new ArrayList<>());
        ((PacketObservable) side.context).subscribe(events::add);
        return events;
    }

    @Test
    void aMalformedDatagramIsCountedAndShownWithItsBytes() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<PacketEvent> events = events(peers.b);
            byte[] garbage = {0x0A, 0, 0};
            peers.net.inject(A, 4791, B, 4791, garbage);
            peers.run();
            assertEquals(1, peers.b.counter(Counter.RCVD_MALFORMED));
            assertEquals(1, events.size(), events.toString());
            PacketEvent dropped = events.get(0);
            assertEquals(PacketEvent.Direction.DROPPED, dropped.direction());
            assertEquals("?", dropped.opcode());
            assertEquals("127.0.0.1:4791", dropped.source());
            assertEquals("127.0.0.2:4791", dropped.destination());
            assertTrue(dropped.detail().startsWith("malformed: "), dropped.detail());
            assertEquals(3, dropped.length());
            assertTrue(Arrays.equals(garbage, dropped.bytes()));
        }
    }

    @Test
    void aPacketForAQpTheDeviceDoesNotHaveIsCountedAndNamed() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<PacketEvent> events = events(peers.b);
            ByteBuffer out = ByteBuffer.allocate(256);
            byte[] data = new byte[8];
            int length = RocePacketEncoder.encode(out, Opcode.RC_RDMA_WRITE_ONLY, 0x999, 5, true, false,
                    new Reth(peers.b.mr.address(), peers.b.mr.rkey(), 8), null, null, null, 0, data, 0, 8);
            peers.net.inject(A, 4791, B, 4791, SoftRoceVerbsTest.resign(Arrays.copyOf(out.array(), length + 4), A, B));
            peers.run();
            assertEquals(1, peers.b.counter(Counter.RCVD_UNKNOWN_QP));
            assertEquals(0, peers.b.counter(Counter.RCVD_PKTS));
            PacketEvent dropped = events.get(0);
            assertEquals(PacketEvent.Direction.DROPPED, dropped.direction());
            assertEquals("RC_RDMA_WRITE_ONLY", dropped.opcode());
            assertEquals(0x999, dropped.destQp());
            assertEquals(5, dropped.psn());
            assertTrue(dropped.detail().startsWith("no QP 0x999 on this device; RETH"), dropped.detail());
        }
    }

    @Test
    void aSentPacketCorruptedPastDecodingIsShownAsCorrupted() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.faultsA = "corrupt=1,seed=49"; // flips bit 7 of byte 0: opcode 0x0A becomes 0x8A, no opcode
        try (Peers peers = Peers.simulated(setup)) {
            List<PacketEvent> events = events(peers.a);
            peers.writeFromA(1, 0, 8, SIGNALED);
            assertTrue(peers.net.runUntil(() -> !events.isEmpty(), Duration.ofSeconds(1)));
            PacketEvent sent = events.get(0);
            assertEquals(PacketEvent.Direction.SENT, sent.direction());
            assertEquals("?", sent.opcode());
            assertEquals("corrupted", sent.detail());
            assertEquals(40, sent.length());
            assertEquals(FaultKind.CORRUPT, sent.faults().get(0).kind());
            assertEquals("bit 7 of byte 0 flipped", sent.faults().get(0).detail());
            assertEquals((byte) 0x8A, sent.bytes()[0]);
        }
    }

    @Test
    void eventsNameEveryOctetOfBothAddresses() throws Exception {
        SimulatedNetwork net = new SimulatedNetwork();
        try (Peers peers = Peers.simulated(new Peers.Setup(), net, net, "10.1.2.3", "10.4.5.6")) {
            List<PacketEvent> events = events(peers.a);
            peers.writeFromA(1, 0, 8, SIGNALED);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            PacketEvent sent = events.get(0);
            assertEquals(PacketEvent.Direction.SENT, sent.direction());
            assertEquals("10.1.2.3:4791", sent.source());
            assertEquals("10.4.5.6:4791", sent.destination());
            PacketEvent ack = events.get(1);
            assertEquals(PacketEvent.Direction.RECEIVED, ack.direction());
            assertEquals("10.4.5.6:4791", ack.source());
        }
    }

    @Test
    void captureTimestampsKeepTheClocksIntervals(@TempDir Path dir) throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.capture = dir.resolve("both.pcap");
        try (Peers peers = Peers.simulated(setup)) {
            peers.writeFromA(1, 0, 8, SIGNALED);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
        }
        try (PcapReader reader = PcapReader.open(setup.capture)) {
            PcapReader.Datagram write = reader.next();
            PcapReader.Datagram ack = reader.next();
            assertNull(reader.next());
            assertEquals("127.0.0.1:4791", write.source());
            assertEquals("127.0.0.2:4791", ack.source());
            assertEquals(2_000, ack.timestampNanos() - write.timestampNanos(), "one latency of the simulated network");
            // On the process's time line, anchored to the wall clock: the virtual clock started
            // when the test did, so its packets are stamped no later than now.
            assertTrue(ack.timestampNanos() <= System.currentTimeMillis() * 1_000_000L, ack.timestampNanos() + " ns");
        }
    }
}
