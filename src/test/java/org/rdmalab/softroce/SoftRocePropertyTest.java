package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WorkCompletion;

/**
 * Thousands of random WRITE, READ, SEND and FETCH_ADD requests over a lossy, duplicating,
 * reordering and corrupting simulated network: every byte lands right and every request
 * completes exactly once, successfully. Seeded, so a failure repeats.
 */
class SoftRocePropertyTest {

    private static final int READ_AREA = 256 * 1024;
    private static final int COUNTER = READ_AREA;
    private static final int WRITE_AREA = READ_AREA + 4096;
    private static final int MEMORY = 1 << 20;

    @ParameterizedTest
    @ValueSource(longs = {7, 1234})
    void everyByteRightEveryRequestCompletedOnce(long seed) throws Exception {
        Peers.Setup setup = new Peers.Setup();
        String faults = "drop=0.03,dup=0.02,reorder=0.03,corrupt=0.005,seed=";
        setup.faultsA = faults + seed;
        setup.faultsB = faults + (seed + 1);
        setup.mtu = seed % 2 == 0 ? Mtu.MTU_1024 : Mtu.MTU_512;
        setup.mrLength = MEMORY;
        setup.timeout = 8;
        setup.maxRdAtomic = 4;
        SplittableRandom random = new SplittableRandom(seed);
        try (Peers peers = Peers.simulated(setup)) {
            byte[] modelA = new byte[MEMORY];
            byte[] modelB = new byte[MEMORY];
            random.nextBytes(modelA);
            random.nextBytes(modelB);
            java.util.Arrays.fill(modelB, COUNTER, COUNTER + 8, (byte) 0);
            peers.a.mr.write(0, modelA);
            peers.b.mr.write(0, modelB);
            Map<Long, Integer> completions = new HashMap<>();
            long expectedCounter = 0;
            int requests = 2500;
            int posted = 0;
            long nextRecv = 1_000_000;
            List<WorkCompletion> received = new ArrayList<>();
            while (posted < requests) {
                int batch = Math.min(200, requests - posted);
                List<SendWorkRequest> wrs = new ArrayList<>();
                for (int i = 0; i < batch; i++) {
                    long id = posted + i;
                    int kind = random.nextInt(4);
                    int length = random.nextInt(4) == 0 ? random.nextInt(64) : random.nextInt(6000);
                    int localOffset = random.nextInt(READ_AREA - length);
                    switch (kind) {
                        case 0 -> {
                            int remote = WRITE_AREA + random.nextInt(MEMORY - WRITE_AREA - length);
                            System.arraycopy(modelA, localOffset, modelB, remote, length);
                            wrs.add(SendWorkRequest.write(id, peers.a.mr.sge(localOffset, length),
                                    peers.b.mr.address() + remote, peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
                        }
                        case 1 -> {
                            int remote = random.nextInt(READ_AREA - length);
                            int target = READ_AREA + 4096 + random.nextInt(MEMORY - READ_AREA - 4096 - length);
                            System.arraycopy(modelB, remote, modelA, target, length);
                            wrs.add(SendWorkRequest.read(id, peers.a.mr.sge(target, length), peers.b.mr.address() + remote,
                                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
                        }
                        case 2 -> {
                            int slot = WRITE_AREA + random.nextInt(MEMORY - WRITE_AREA - 6000);
                            peers.b.qp.postRecv(ReceiveWorkRequest.of(nextRecv++, peers.b.mr.sge(slot, 6000)));
                            System.arraycopy(modelA, localOffset, modelB, slot, length);
                            wrs.add(SendWorkRequest.send(id, peers.a.mr.sge(localOffset, length), SendFlag.SIGNALED.value()));
                        }
                        default -> {
                            long add = random.nextInt(1000);
                            int target = READ_AREA + 8 * (int) (id % 500);
                            byte[] old = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(expectedCounter).array();
                            System.arraycopy(old, 0, modelA, target, 8);
                            expectedCounter += add;
                            wrs.add(SendWorkRequest.fetchAdd(id, peers.a.mr.sge(target, 8), peers.b.mr.address() + COUNTER,
                                    peers.b.mr.rkey(), add, SendFlag.SIGNALED.value()));
                        }
                    }
                }
                peers.a.qp.postSend(wrs);
                posted += batch;
                int target = posted;
                peers.net.runUntil(() -> {
                    try {
                        for (WorkCompletion wc : peers.a.cq.poll(256)) {
                            completions.merge(wc.wrId(), 1, Integer::sum);
                            assertTrue(wc.isSuccess(), wc.toString());
                        }
                        received.addAll(peers.b.cq.poll(256));
                    } catch (org.rdmalab.verbs.VerbsException e) {
                        throw new AssertionError(e);
                    }
                    return completions.size() >= target;
                }, Duration.ofMinutes(5));
                assertEquals(target, completions.size(), "every request so far completed (faults: "
                        + peers.a.soft().queryCounters() + ")");
            }
            peers.run();
            received.addAll(Peers.drain(peers.b));
            assertTrue(completions.values().stream().allMatch(count -> count == 1), "each exactly once");
            assertTrue(received.stream().allMatch(wc -> wc.isSuccess() && wc.opcode() == WcOpcode.RECV));
            assertEquals(received.size(), received.stream().map(WorkCompletion::wrId).distinct().count());
            assertArrayEquals(modelA, peers.a.mr.read(0, MEMORY), "requester memory (READ targets, atomic results)");
            byte[] counter = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(expectedCounter).array();
            System.arraycopy(counter, 0, modelB, COUNTER, 8);
            assertArrayEquals(modelB, peers.b.mr.read(0, MEMORY), "responder memory (WRITE, SEND targets, counter)");
            long lost = peers.a.counter(Counter.FAULT_DROPPED) + peers.b.counter(Counter.FAULT_DROPPED);
            assertTrue(lost > 50, "the network really lost packets: " + lost);
            assertTrue(peers.b.counter(Counter.DUPLICATE_REQUEST) > 0);
            assertTrue(peers.b.counter(Counter.RCVD_ICRC_ERR) + peers.a.counter(Counter.RCVD_ICRC_ERR) > 0);
        }
    }
}
