package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * Random datagrams and mutated valid packets (with a correct ICRC, so they get past the check)
 * thrown at a device with a live QP: nothing crashes (in a simulation an exception would reach
 * this thread), and memory no valid request may touch stays as it was.
 */
class SoftRoceFuzzTest {

    @Test
    void randomAndMutatedDatagramsCrashNothingAndTouchNoProtectedMemory() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<byte[]> valid = new ArrayList<>();
            peers.net.intercept((src, dst, datagram) -> {
                valid.add(datagram.clone());
                return 1;
            });
            // Traffic of every kind to learn from.
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 4096)));
            peers.b.qp.postRecv(ReceiveWorkRequest.of(2, peers.b.mr.sge(0, 4096)));
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 3000), SendFlag.SIGNALED.value()));
            peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 2500), peers.b.mr.address() + 8192,
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            peers.a.qp.postSend(SendWorkRequest.writeWithImm(3, peers.a.mr.sge(0, 10), peers.b.mr.address(),
                    peers.b.mr.rkey(), 5, SendFlag.SIGNALED.value()));
            peers.a.qp.postSend(SendWorkRequest.read(4, peers.a.mr.sge(0, 3000), peers.b.mr.address(),
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            peers.a.qp.postSend(SendWorkRequest.fetchAdd(5, peers.a.mr.sge(0, 8), peers.b.mr.address(),
                    peers.b.mr.rkey(), 1, SendFlag.SIGNALED.value()));
            peers.a.qp.postSend(SendWorkRequest.compareSwap(6, peers.a.mr.sge(0, 8), peers.b.mr.address(),
                    peers.b.mr.rkey(), 0, 1, SendFlag.SIGNALED.value()));
            peers.run();
            assertTrue(Peers.drain(peers.a).stream().filter(org.rdmalab.verbs.WorkCompletion::isSuccess).count() == 6);
            peers.net.intercept(null);

            // Memory no valid request from a may change: an MR without remote rights, and one in another PD.
            MemoryRegion noRights = peers.b.pd.registerMemory(64 * 1024, AccessFlag.LOCAL_WRITE.value());
            ProtectionDomain otherPd = peers.b.context.allocatePd();
            MemoryRegion otherPdRegion = otherPd.registerMemory(64 * 1024, AccessFlag.of(AccessFlag.LOCAL_WRITE,
                    AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC));
            SplittableRandom random = new SplittableRandom(42);
            byte[] pattern = new byte[64 * 1024];
            random.nextBytes(pattern);
            noRights.write(0, pattern);
            otherPdRegion.write(0, pattern);
            byte[] requesterMemory = peers.a.mr.read(0, peers.a.mr.length());

            int a = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.1"));
            int b = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.2"));
            int reconnects = 0;
            for (int i = 0; i < 20_000; i++) {
                byte[] datagram;
                if (i % 4 == 0) {
                    datagram = new byte[random.nextInt(1200)];
                    random.nextBytes(datagram);
                } else {
                    datagram = valid.get(random.nextInt(valid.size())).clone();
                    int flips = 1 + random.nextInt(4);
                    for (int f = 0; f < flips; f++) {
                        int at = random.nextInt(Math.min(datagram.length - 4, 48));
                        datagram[at] = (byte) random.nextInt(256);
                    }
                    if (random.nextInt(3) == 0) {
                        datagram = java.util.Arrays.copyOf(datagram, Math.max(4, random.nextInt(datagram.length)));
                    }
                    if (datagram.length >= 16 && random.nextBoolean()) {
                        datagram[9] = 0;
                        datagram[10] = 0;
                        datagram[11] = (byte) random.nextInt(16); // a PSN the responder may expect
                    }
                    if (datagram.length >= 16) {
                        datagram = SoftRoceVerbsTest.resign(datagram, a, b);
                    }
                }
                peers.net.inject(a, 4791, b, 4791, datagram);
                if (i % 10 == 0) {
                    peers.net.runUntilIdle(java.time.Duration.ofSeconds(1));
                    if (peers.b.qp.state() == org.rdmalab.verbs.QpState.ERR) {
                        // Reconnect, so the fuzz keeps reaching a live responder, not only the ERR drop.
                        peers.b.qp.modify(new org.rdmalab.verbs.QpAttributes().state(org.rdmalab.verbs.QpState.RESET),
                                org.rdmalab.verbs.QpAttrMask.STATE.value());
                        Peers.connect(peers.b, peers.a, new Peers.Setup(), 0, random.nextInt(16));
                        reconnects++;
                        peers.b.qp.postRecv(ReceiveWorkRequest.of(i, peers.b.mr.sge(0, 4096)));
                    }
                }
            }
            peers.net.runUntilIdle(java.time.Duration.ofSeconds(10));
            assertArrayEquals(pattern, noRights.read(0, pattern.length), "an MR without remote rights");
            assertArrayEquals(pattern, otherPdRegion.read(0, pattern.length), "an MR of another PD");
            assertArrayEquals(requesterMemory, peers.a.mr.read(0, requesterMemory.length), "the requester's memory");
            long dropped = peers.b.counter(Counter.RCVD_MALFORMED) + peers.b.counter(Counter.RCVD_ICRC_ERR)
                    + peers.b.counter(Counter.RCVD_UNKNOWN_QP);
            assertTrue(dropped > 1000, "most fuzz is dropped before the QP: " + peers.b.soft().queryCounters());
            assertTrue(peers.b.counter(Counter.RCVD_PKTS) > 100, "some mutated packets reached the QP");
            assertTrue(reconnects > 5, "mutated packets drove the responder into errors: " + reconnects + " " + peers.b.qp.state() + " " + peers.b.soft().queryCounters());
        }
    }

    @Test
    void mutatedResponsesOnlyEverTouchTheOutstandingReadTarget() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<byte[]> responses = new ArrayList<>();
            peers.net.intercept((src, dst, datagram) -> {
                if (SoftRoceTransportTest.decode(datagram).opcode().isResponse()) {
                    responses.add(datagram.clone());
                }
                return 1;
            });
            peers.a.qp.postSend(SendWorkRequest.read(1, peers.a.mr.sge(0, 3000), peers.b.mr.address(),
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 100), peers.b.mr.address(),
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            peers.a.qp.postSend(SendWorkRequest.fetchAdd(3, peers.a.mr.sge(8, 8), peers.b.mr.address(),
                    peers.b.mr.rkey(), 1, SendFlag.SIGNALED.value()));
            peers.run();
            assertTrue(Peers.drain(peers.a).size() == 3);

            SplittableRandom random = new SplittableRandom(99);
            int a = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.1"));
            int b = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.2"));
            byte[] pattern = new byte[peers.a.mr.length()];
            random.nextBytes(pattern);
            peers.a.mr.write(0, pattern);
            MemoryRegion other = peers.a.pd.registerMemory(8192, AccessFlag.LOCAL_WRITE.value());
            byte[] otherPattern = new byte[8192];
            random.nextBytes(otherPattern);
            other.write(0, otherPattern);
            int rounds = 0;
            for (int i = 0; i < 20_000; i++) {
                if (i % 50 == 0) {
                    // A fresh outstanding READ into [0, 3000) whose real answers never arrive.
                    peers.net.intercept((src, dst, datagram) -> src == b ? 0 : 1);
                    if (peers.a.qp.state() != org.rdmalab.verbs.QpState.RTS) {
                        peers.a.qp.modify(new org.rdmalab.verbs.QpAttributes().state(org.rdmalab.verbs.QpState.RESET),
                                org.rdmalab.verbs.QpAttrMask.STATE.value());
                        Peers.connect(peers.a, peers.b, new Peers.Setup(), random.nextInt(8), 0);
                        rounds++;
                    }
                    Peers.drain(peers.a);
                    peers.a.qp.postSend(SendWorkRequest.read(100 + i, peers.a.mr.sge(0, 3000), peers.b.mr.address(),
                            peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
                    peers.net.runUntilIdle(java.time.Duration.ofMillis(1));
                }
                byte[] datagram = responses.get(random.nextInt(responses.size())).clone();
                int flips = 1 + random.nextInt(3);
                for (int f = 0; f < flips; f++) {
                    int at = random.nextInt(Math.min(datagram.length - 4, 24));
                    datagram[at] = (byte) random.nextInt(256);
                }
                if (random.nextBoolean()) {
                    datagram[9] = 0;
                    datagram[10] = 0;
                    datagram[11] = (byte) random.nextInt(12);
                }
                peers.net.inject(b, 4791, a, 4791, SoftRoceVerbsTest.resign(datagram, b, a));
                if (i % 10 == 0) {
                    peers.net.runUntilIdle(java.time.Duration.ofMillis(1));
                }
            }
            peers.net.runUntilIdle(java.time.Duration.ofSeconds(1));
            byte[] after = peers.a.mr.read(0, pattern.length);
            assertArrayEquals(java.util.Arrays.copyOfRange(pattern, 3000, pattern.length),
                    java.util.Arrays.copyOfRange(after, 3000, after.length), "memory outside the READ target");
            assertArrayEquals(otherPattern, other.read(0, otherPattern.length), "another MR");
            assertTrue(rounds > 3, "the requester was driven into errors and reconnected: " + rounds);
        }
    }
}
