package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.verbs.PacketObservable;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WorkCompletion;

/**
 * The fault injector repeats a run exactly: the same seed and the same traffic give the same
 * packets dropped, duplicated, reordered and corrupted, and so the same capture byte for byte.
 */
class FaultInjectorTest {

    /** What a run left behind: each fault-dropped packet (time, side, opcode, PSN), the counters and the capture. */
    private record Run(List<String> dropped, List<Long> faultCounters, byte[] capture) {
    }

    private static Run run(long seed, Path pcap) throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.faultsA = "drop=0.05,dup=0.03,reorder=0.03,corrupt=0.01,seed=" + seed;
        setup.faultsB = "drop=0.05,dup=0.03,reorder=0.03,corrupt=0.01,seed=" + (seed + 1000);
        setup.timeout = 8;
        setup.capture = pcap;
        List<String> dropped = Collections.synchronizedList(new ArrayList<>());
        List<Long> counters = new ArrayList<>();
        try (Peers peers = Peers.simulated(setup)) {
            for (Peers.Side side : List.of(peers.a, peers.b)) {
                String name = side == peers.a ? "a" : "b";
                ((PacketObservable) side.context).subscribe(event -> {
                    if (event.direction() == PacketEvent.Direction.DROPPED && event.detail().startsWith("fault injector")) {
                        dropped.add(event.timestampNanos() + " " + name + " " + event.opcode() + " " + event.psn());
                    }
                });
            }
            byte[] data = new byte[64 * 1024];
            new Random(seed).nextBytes(data);
            peers.a.mr.write(0, data);
            for (int i = 0; i < 4; i++) {
                peers.b.qp.postRecv(ReceiveWorkRequest.of(100 + i, peers.b.mr.sge(500_000 + i * 8192, 8192)));
            }
            for (int i = 0; i < 4; i++) {
                peers.a.qp.postSend(SendWorkRequest.write(i, peers.a.mr.sge(i * 16_384, 16_384),
                        peers.b.mr.address() + i * 16_384, peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
                peers.a.qp.postSend(SendWorkRequest.send(10 + i, peers.a.mr.sge(i * 1000, 5000), SendFlag.SIGNALED.value()));
                peers.a.qp.postSend(SendWorkRequest.read(20 + i, peers.a.mr.sge(200_000 + i * 16_384, 16_384),
                        peers.b.mr.address() + i * 16_384, peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            }
            List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 12);
            assertEquals(12, done.stream().filter(WorkCompletion::isSuccess).count(), done.toString());
            assertArrayEquals(data, peers.b.mr.read(0, data.length));
            assertArrayEquals(data, peers.a.mr.read(200_000, data.length));
            for (Peers.Side side : List.of(peers.a, peers.b)) {
                for (Counter counter : List.of(Counter.FAULT_DROPPED, Counter.FAULT_DUPLICATED, Counter.FAULT_REORDERED,
                        Counter.FAULT_CORRUPTED, Counter.SENT_PKTS)) {
                    counters.add(side.counter(counter));
                }
            }
        }
        return new Run(List.copyOf(dropped), counters, Files.readAllBytes(pcap));
    }

    @Test
    void theSameSeedGivesTheSameRunAndTheSameCapture(@TempDir Path dir) throws Exception {
        Run first = run(7, dir.resolve("first.pcap"));
        Run again = run(7, dir.resolve("again.pcap"));
        assertFalse(first.dropped().isEmpty(), "the injector dropped packets");
        assertTrue(first.faultCounters().get(1) + first.faultCounters().get(2) + first.faultCounters().get(3) > 0,
                "and duplicated, reordered or corrupted some");
        assertEquals(first.dropped(), again.dropped(), "the same packets dropped at the same times");
        assertEquals(first.faultCounters(), again.faultCounters());
        assertTrue(first.capture().length > 64 * 1024, "the capture holds the traffic");
        assertArrayEquals(first.capture(), again.capture(), "the same capture, byte for byte");
        Run other = run(8, dir.resolve("other.pcap"));
        assertNotEquals(first.dropped(), other.dropped(), "another seed drops other packets");
    }
}
