package org.rdmalab.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import jnr.ffi.LibraryLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.testing.StandInVerbs;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.CompletionBuffer;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.GlobalRoute;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpInitAttributes;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The native backend allocates nothing per call on the paths a benchmark loop takes (issue 32):
 * {@code postSend} of one reused request, {@code postRecv} of one reused receive,
 * {@code poll(CompletionBuffer)}, {@code readByte} and {@code read} into the caller's array. Each
 * loop runs on the libibverbs stand-in after a warm-up that lets the JIT compile it, and the
 * thread's allocation counter ({@code com.sun.management.ThreadMXBean.getThreadAllocatedBytes})
 * is read around it: a count of bytes, not a time. The copying {@code read(offset, length)} is
 * measured the same way, to show that the counter sees an allocation in such a loop.
 */
class NativeSteadyStateAllocationTest {

    private static final int WARM_UP = 30_000;
    private static final int MEASURED = 100_000;
    /** Bytes per call the measured loop may allocate on average: what is left is a fixed amount. */
    private static final double BOUND = 0.5;
    private static final int RW = AccessFlag.LOCAL_WRITE.value() | AccessFlag.REMOTE_WRITE.value()
            | AccessFlag.REMOTE_READ.value();
    private static final int SIGNALED = SendFlag.SIGNALED.value();

    @TempDir
    static Path dir;
    private static Path library;
    private static StandInControl standIn;
    private Context context;
    private CompletionQueue cqA;
    private CompletionQueue cqB;
    private MemoryRegion mrA;
    private MemoryRegion mrB;
    private QueuePair a;
    private QueuePair b;
    private final CompletionBuffer completions = new CompletionBuffer(2);
    private final byte[] into = new byte[8];

    @BeforeAll
    static void buildStandIn() throws Exception {
        library = StandInVerbs.build(dir);
        standIn = LibraryLoader.create(StandInControl.class).failImmediately().load(library.toString());
    }

    @BeforeEach
    void connectTwoQps() throws Exception {
        context = new NativeProvider(library.toString()).devices(DeviceOptions.defaults()).get(0).open();
        ProtectionDomain pd = context.allocatePd();
        cqA = context.createCq(8, null, 0);
        cqB = context.createCq(8, null, 0);
        mrA = pd.registerMemory(64, RW);
        mrB = pd.registerMemory(64, RW);
        a = pd.createQp(new QpInitAttributes(QpType.RC, cqA, cqA, QpCapabilities.seed(), false));
        b = pd.createQp(new QpInitAttributes(QpType.RC, cqB, cqB, QpCapabilities.seed(), false));
        connect(a, b);
        connect(b, a);
    }

    @AfterEach
    void close() {
        context.close();
        assertEquals(0, standIn.standin_live_objects(), "closing the context freed every child");
    }

    @Test
    void aWriteWithItsCompletionAndAReadOfTheTargetAllocateNothing() throws Exception {
        SendWorkRequest write = SendWorkRequest.write(7, mrA.sge(0, 8), mrB.address() + 8, mrB.rkey(), SIGNALED);
        byte[] pattern = {1, 2, 3, 4, 5, 6, 7, 8};
        byte[] zeros = new byte[8];
        mrA.write(0, pattern);
        double perPair = bytesPerCall(n -> {
            mrB.write(8, zeros);
            a.postSend(write);
            if (cqA.poll(completions) != 1 || !completions.isSuccess(0) || completions.wrId(0) != 7) {
                throw new AssertionError("the WRITE did not complete: " + completions);
            }
            mrB.read(8, into, 0, 8);
            if (into[7] != 8 || mrB.readByte(8) != 1) {
                throw new AssertionError("the WRITE did not land: " + java.util.Arrays.toString(into));
            }
        });
        assertTrue(perPair < BOUND, "post + poll + readByte + read into an array: " + perPair + " bytes per pair");
    }

    @Test
    void aSendToAReceivePostedAgainAllocatesNothing() throws Exception {
        SendWorkRequest send = SendWorkRequest.send(1, mrA.sge(0, 8), SIGNALED);
        ReceiveWorkRequest receive = ReceiveWorkRequest.of(2, mrB.sge(16, 8));
        b.postRecv(receive);
        double perMessage = bytesPerCall(n -> {
            a.postSend(send);
            if (cqA.poll(completions) != 1 || !completions.isSuccess(0)) {
                throw new AssertionError("the SEND did not complete: " + completions);
            }
            if (cqB.poll(completions) != 1 || completions.opcode(0) != WcOpcode.RECV || completions.byteLength(0) != 8) {
                throw new AssertionError("the RECV did not complete: " + completions);
            }
            b.postRecv(receive);
        });
        assertTrue(perMessage < BOUND, "SEND, its completion, the RECV's, the receive posted again: " + perMessage
                + " bytes per message");
    }

    /** The other side of the bound: the counter sees what a copying read allocates, its array. */
    @Test
    void theCopyingReadIsSeenAllocating() throws Exception {
        double perRead = bytesPerCall(n -> {
            if (mrB.read(8, 8).length != 8) {
                throw new AssertionError();
            }
        });
        assertTrue(perRead >= 24, "a new byte[8] is at least 24 bytes: " + perRead);
    }

    /** One step of a loop; {@code n} counts the calls. */
    private interface Call {
        void run(int n) throws VerbsException;
    }

    /** Runs {@code call} {@link #WARM_UP} times, then the average bytes of {@link #MEASURED} more. */
    private static double bytesPerCall(Call call) throws VerbsException {
        for (int i = 0; i < WARM_UP; i++) {
            call.run(i);
        }
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < MEASURED; i++) {
            call.run(i);
        }
        return (threads.getThreadAllocatedBytes(thread) - before) / (double) MEASURED;
    }

    private static void connect(QueuePair qp, QueuePair peer) throws VerbsException {
        qp.modify(new QpAttributes().state(QpState.INIT).portNum(1).accessFlags(RW),
                QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        qp.modify(new QpAttributes().state(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(peer.qpNum())
                        .maxDestRdAtomic(1).minRnrTimer(12)
                        .addressVector(AddressVector.global(new GlobalRoute(Gid.parse("::ffff:127.0.0.1"),
                                0, 1, 64, 0), 1)),
                QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                        QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
        qp.modify(new QpAttributes().state(QpState.RTS).timeout(14).retryCount(7).rnrRetry(7).maxRdAtomic(1),
                QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                        QpAttrMask.SQ_PSN, QpAttrMask.MAX_QP_RD_ATOMIC));
    }
}
