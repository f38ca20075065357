package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.RocePacket;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * READ requests asked again and READ responses checked as rxe does (rxe_resp.c duplicate_request
 * and read_reply; rxe_comp.c check_psn and check_ack), on the simulated network.
 */
class SoftRoceReadRecoveryTest {

    private static final int SIGNALED = SendFlag.SIGNALED.value();
    private static final int A = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.1"));
    private static final int B = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.2"));
    /** Bytes before the RETH or the AETH: the BTH. */
    private static final int BTH = 12;

    private static byte[] random(int length, long seed) {
        byte[] data = new byte[length];
        new Random(seed).nextBytes(data);
        return data;
    }

    /** {@code request} (a READ request as a sees it sent) with another PSN and RETH, re-signed. */
    private static byte[] readRequest(byte[] request, int psn, long address, int rkey, int length) {
        byte[] copy = request.clone();
        copy[9] = (byte) (psn >>> 16);
        copy[10] = (byte) (psn >>> 8);
        copy[11] = (byte) psn;
        ByteBuffer.wrap(copy, BTH, 16).putLong(address).putInt(rkey).putInt(length);
        return SoftRoceVerbsTest.resign(copy, A, B);
    }

    /**
     * After a 4-packet READ has been answered, the responder is sent READ requests with earlier
     * PSNs, as a requester asking again after lost responses would send them. It answers only
     * those that are the saved READ or a part of it with the same rkey: from the READ's first PSN
     * starting with FIRST, from a later PSN continuing with MIDDLE … LAST, with the bytes the
     * request names. Anything else is dropped without an answer.
     */
    @Test
    void aReadAskedAgainIsAnsweredOnlyAsAPartOfTheOriginalWithTheSameRkey() throws Exception {
        try (Peers peers = Peers.simulated()) {
            byte[] data = random(4096, 11);
            peers.b.mr.write(0, data);
            byte[][] request = new byte[1][];
            List<String> answers = new ArrayList<>();
            peers.net.intercept((src, dst, datagram) -> {
                RocePacket p = SoftRoceTransportTest.decode(datagram);
                if (p.opcode() == Opcode.RC_RDMA_READ_REQUEST && request[0] == null) {
                    request[0] = datagram.clone();
                }
                if (src == B && p.opcode().isReadResponse()) {
                    int offset = p.payloadOffset();
                    byte[] payload = java.util.Arrays.copyOfRange(p.buffer(), offset, offset + p.payloadLength());
                    int at = indexOf(data, payload);
                    answers.add(p.opcode().name().substring("RC_RDMA_READ_RESPONSE_".length()) + ":" + p.bth().psn()
                            + "@" + at);
                }
                return 1;
            });
            long base = peers.b.mr.address();
            int rkey = peers.b.mr.rkey();
            peers.a.qp.postSend(SendWorkRequest.read(1, peers.a.mr.sge(0, 4096), base, rkey, SIGNALED));
            peers.run();
            assertTrue(Peers.drain(peers.a).get(0).isSuccess());
            assertEquals(List.of("FIRST:0@0", "MIDDLE:1@1024", "MIDDLE:2@2048", "LAST:3@3072"), answers);

            record Case(String what, int psn, long offset, int rkey, int length, List<String> expected) {
            }
            List<Case> cases = List.of(
                    new Case("from PSN 2, the last half", 2, 2048, rkey, 2048, List.of("MIDDLE:2@2048", "LAST:3@3072")),
                    new Case("from PSN 3, the last MTU", 3, 3072, rkey, 1024, List.of("LAST:3@3072")),
                    new Case("the whole READ again", 0, 0, rkey, 4096,
                            List.of("FIRST:0@0", "MIDDLE:1@1024", "MIDDLE:2@2048", "LAST:3@3072")),
                    new Case("past the original's end", 2, 2048, rkey, 4096, List.of()),
                    new Case("before the original's start", 2, -1024, rkey, 2048, List.of()),
                    new Case("another rkey", 2, 2048, rkey ^ 0x80, 2048, List.of()));
            long duplicates = 0;
            for (Case c : cases) {
                answers.clear();
                peers.net.inject(A, 4791, B, 4791, readRequest(request[0], c.psn(), base + c.offset(), c.rkey(),
                        c.length()));
                peers.run();
                duplicates++;
                assertEquals(c.expected(), answers, c.what());
                assertEquals(duplicates, peers.b.counter(Counter.DUPLICATE_REQUEST), c.what());
                assertEquals(QpState.RTS, peers.b.qp.state(), c.what() + ": a refused duplicate is only dropped");
            }
        }
    }

    private static int indexOf(byte[] data, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= data.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (data[i + j] != part[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /**
     * rxe looks the memory region up again for a READ it answers again (rxe_recheck_mr); once it
     * is deregistered, the answer is a NAK remote access error and the responder's QP goes to ERR.
     */
    @Test
    void aReadAskedAgainAfterItsRegionWasDeregisteredIsARemoteAccessError() throws Exception {
        try (Peers peers = Peers.simulated()) {
            org.rdmalab.verbs.MemoryRegion target = peers.b.pd.registerMemory(4096,
                    org.rdmalab.verbs.AccessFlag.of(org.rdmalab.verbs.AccessFlag.LOCAL_WRITE,
                            org.rdmalab.verbs.AccessFlag.REMOTE_READ));
            byte[][] request = new byte[1][];
            List<Integer> naks = new ArrayList<>();
            peers.net.intercept((src, dst, datagram) -> {
                RocePacket p = SoftRoceTransportTest.decode(datagram);
                if (p.opcode() == Opcode.RC_RDMA_READ_REQUEST && request[0] == null) {
                    request[0] = datagram.clone();
                }
                if (src == B && p.opcode() == Opcode.RC_ACKNOWLEDGE) {
                    naks.add(p.aeth().syndrome());
                }
                return 1;
            });
            peers.a.qp.postSend(SendWorkRequest.read(1, peers.a.mr.sge(0, 4096), target.address(), target.rkey(),
                    SIGNALED));
            peers.run();
            assertTrue(Peers.drain(peers.a).get(0).isSuccess());
            long address = target.address();
            int rkey = target.rkey();
            target.close();
            peers.net.inject(A, 4791, B, 4791, readRequest(request[0], 2, address + 2048, rkey, 2048));
            peers.run();
            assertEquals(List.of(0x62), naks, "NAK remote access error");
            assertEquals(QpState.ERR, peers.b.qp.state());
        }
    }

    /**
     * rxe's completer (check_ack) refuses a READ response FIRST, LAST or ONLY whose AETH is not
     * an ACK, an atomic ACK likewise, and a READ response in sequence whose opcode does not
     * continue the message (a FIRST in the middle): COMPST_ERROR without a status of its own. The work
     * request keeps the status it was posted with (IBV_WC_SUCCESS: a completion only if it was
     * signaled, and without the refused packet's bytes), the QP goes to ERR and everything behind
     * it is flushed.
     */
    @Test
    void aReadResponseOrAtomicAckWhoseAethIsNotAnAckEndsTheQpAsInRxe() throws Exception {
        record Case(String what, Opcode target, int syndrome, boolean atomic, boolean signaled) {
        }
        List<Case> cases = List.of(
                new Case("LAST with NAK invalid request", Opcode.RC_RDMA_READ_RESPONSE_LAST, 0x61, false, true),
                new Case("FIRST with an RNR NAK", Opcode.RC_RDMA_READ_RESPONSE_FIRST, 0x2C, false, true),
                new Case("ONLY with NAK remote access error", Opcode.RC_RDMA_READ_RESPONSE_ONLY, 0x62, false, true),
                new Case("LAST with a NAK, unsignaled READ", Opcode.RC_RDMA_READ_RESPONSE_LAST, 0x63, false, false),
                new Case("atomic ACK with a NAK", Opcode.RC_ATOMIC_ACKNOWLEDGE, 0x61, true, true),
                new Case("a MIDDLE turned into a FIRST", Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, -1, false, true));
        for (Case c : cases) {
            try (Peers peers = Peers.simulated()) {
                int length = c.target() == Opcode.RC_RDMA_READ_RESPONSE_ONLY ? 1000 : 3000;
                // 3000 bytes at path MTU 1024: FIRST, MIDDLE, LAST.
                byte[] data = random(length, 12);
                peers.b.mr.write(0, data);
                peers.net.intercept((src, dst, datagram) -> {
                    if (src == B && SoftRoceTransportTest.decode(datagram).opcode() == c.target()) {
                        if (c.syndrome() < 0) {
                            datagram[0] = (byte) Opcode.RC_RDMA_READ_RESPONSE_FIRST.value();
                        } else {
                            datagram[BTH] = (byte) c.syndrome();
                        }
                        byte[] signed = SoftRoceVerbsTest.resign(datagram, B, A);
                        System.arraycopy(signed, 0, datagram, 0, signed.length);
                    }
                    return 1;
                });
                int flags = c.signaled() ? SIGNALED : 0;
                peers.a.qp.postSend(c.atomic()
                        ? SendWorkRequest.fetchAdd(1, peers.a.mr.sge(0, 8), peers.b.mr.address() + 8192,
                                peers.b.mr.rkey(), 1, flags)
                        : SendWorkRequest.read(1, peers.a.mr.sge(0, length), peers.b.mr.address(), peers.b.mr.rkey(),
                                flags));
                peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 8), peers.b.mr.address(),
                        peers.b.mr.rkey(), SIGNALED));
                peers.run();
                List<WorkCompletion> done = Peers.drain(peers.a);
                List<String> seen = done.stream().map(w -> w.wrId() + " " + w.status()).toList();
                List<String> expected = c.signaled() ? List.of("1 SUCCESS", "2 WR_FLUSH_ERR") : List.of("2 WR_FLUSH_ERR");
                assertEquals(expected, seen, c.what());
                assertEquals(QpState.ERR, peers.a.qp.state(), c.what());
                assertEquals(0, peers.a.counter(Counter.COMPLETER_RETRY_ERR), c.what() + ": no retry");
                if (c.target() == Opcode.RC_RDMA_READ_RESPONSE_LAST) {
                    assertArrayEquals(java.util.Arrays.copyOf(data, 2048), peers.a.mr.read(0, 2048), c.what());
                    assertArrayEquals(new byte[length - 2048], peers.a.mr.read(2048, length - 2048),
                            c.what() + ": the refused response's bytes are not copied");
                }
            }
        }
    }

    /**
     * Several READs in flight, responses lost at random on the way back: each gap is recovered
     * by the timer and a re-request for the rest, and every byte arrives.
     */
    @Test
    void readsUnderRandomResponseLossStillDeliverEveryByte() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.faultsB = "drop=0.1,dup=0.02,reorder=0.05,seed=5";
        setup.timeout = 8;
        try (Peers peers = Peers.simulated(setup)) {
            byte[] data = random(64 * 1024, 13);
            peers.b.mr.write(0, data);
            for (int i = 0; i < 4; i++) {
                peers.a.qp.postSend(SendWorkRequest.read(i, peers.a.mr.sge(i * 65_536, 16 * 1024),
                        peers.b.mr.address() + i * 16 * 1024, peers.b.mr.rkey(), SIGNALED));
            }
            List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 4);
            assertEquals(4, done.stream().filter(WorkCompletion::isSuccess).count(), done.toString());
            for (int i = 0; i < 4; i++) {
                assertArrayEquals(java.util.Arrays.copyOfRange(data, i * 16 * 1024, (i + 1) * 16 * 1024),
                        peers.a.mr.read(i * 65_536, 16 * 1024), "READ " + i);
            }
            assertTrue(peers.b.counter(Counter.FAULT_DROPPED) > 0, "responses were lost");
            assertTrue(peers.b.counter(Counter.DUPLICATE_REQUEST) > 0, "and asked for again");
            assertEquals(0, peers.a.counter(Counter.RETRY_EXCEEDED_ERR));
            assertTrue(peers.net.nanoTime() < Duration.ofMinutes(1).toNanos());
        }
    }
}
