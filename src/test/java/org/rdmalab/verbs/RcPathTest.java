package org.rdmalab.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The RC bring-up every caller takes, as the QP receives it: each transition's attributes and the
 * mask that names them (the kernel's required attributes of RESET → INIT → RTR → RTS), the timers'
 * ranges, and a planted change reaching every transition until it is removed.
 */
class RcPathTest {

    /** What {@code ibv_modify_qp} was called with. */
    private record Modify(QpAttributes attributes, int mask) {
    }

    /** A QP that records its modifies and refuses one when told to. */
    private static final class RecordingQp implements QueuePair {
        final List<Modify> modifies = new ArrayList<>();
        final List<List<SendWorkRequest>> sends = new ArrayList<>();
        final List<List<ReceiveWorkRequest>> receives = new ArrayList<>();
        VerbsException refusal;

        @Override
        public int qpNum() {
            return 0x11;
        }

        @Override
        public QpType type() {
            return QpType.RC;
        }

        @Override
        public QpState state() {
            return modifies.isEmpty() ? QpState.RESET : modifies.get(modifies.size() - 1).attributes().state();
        }

        @Override
        public ProtectionDomain pd() {
            return null;
        }

        @Override
        public CompletionQueue sendCq() {
            return null;
        }

        @Override
        public CompletionQueue recvCq() {
            return null;
        }

        @Override
        public QpCapabilities capabilities() {
            return QpCapabilities.seed();
        }

        @Override
        public void modify(QpAttributes attributes, int mask) throws VerbsException {
            if (refusal != null) {
                throw refusal;
            }
            modifies.add(new Modify(attributes, mask));
        }

        @Override
        public QpAttributes query(int mask) {
            return new QpAttributes();
        }

        @Override
        public void postSend(List<SendWorkRequest> requests) {
            sends.add(requests);
        }

        @Override
        public void postRecv(List<ReceiveWorkRequest> requests) {
            receives.add(requests);
        }

        @Override
        public void close() {
        }
    }

    @Test
    void theMasksNameTheKernelsRequiredAttributesOfEachTransition() {
        assertEquals("STATE, ACCESS_FLAGS, PKEY_INDEX, PORT", QpAttrMask.names(RcPath.INIT_MASK));
        assertEquals(0x39, RcPath.INIT_MASK);
        assertEquals("STATE, AV, PATH_MTU, RQ_PSN, MIN_RNR_TIMER, MAX_DEST_RD_ATOMIC, DEST_QPN",
                QpAttrMask.names(RcPath.RTR_MASK));
        assertEquals(0x129181, RcPath.RTR_MASK);
        assertEquals("STATE, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC, SQ_PSN", QpAttrMask.names(RcPath.RTS_MASK));
        assertEquals(0x12e01, RcPath.RTS_MASK);
    }

    @Test
    void theThreeTransitionsReachTheQpWithTheirValuesAndMasks() throws VerbsException {
        RecordingQp qp = new RecordingQp();
        Gid peer = Gid.parse("::ffff:10.0.2.16");
        AddressVector av = RcPath.route(peer, 3, 64, 0x21, 5, 1);
        assertEquals(new AddressVector(new GlobalRoute(peer, 0, 3, 64, 0), 0x21, 5, 0, 0, 1), av);
        RcPath.Timers timers = new RcPath.Timers(12, 14, 6, 5);
        int access = AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ);

        QpAttributes init = RcPath.toInit(qp, 2, access);
        QpAttributes rtr = RcPath.toRtr(qp, Mtu.MTU_2048, 0x22, 1000, 4, timers, av);
        QpAttributes rts = RcPath.toRts(qp, timers, 2000, 8);

        assertEquals(List.of(new Modify(init, RcPath.INIT_MASK), new Modify(rtr, RcPath.RTR_MASK),
                new Modify(rts, RcPath.RTS_MASK)), qp.modifies);
        assertEquals(QpState.INIT, init.state());
        assertEquals(2, init.portNum());
        assertEquals(0, init.pkeyIndex());
        assertEquals(access, init.accessFlags());

        assertEquals(QpState.RTR, rtr.state());
        assertEquals(Mtu.MTU_2048, rtr.pathMtu());
        assertEquals(0x22, rtr.destQpNum());
        assertEquals(1000, rtr.rqPsn());
        assertEquals(4, rtr.maxDestRdAtomic());
        assertEquals(12, rtr.minRnrTimer());
        assertSame(av, rtr.addressVector());

        assertEquals(QpState.RTS, rts.state());
        assertEquals(14, rts.timeout());
        assertEquals(6, rts.retryCount());
        assertEquals(5, rts.rnrRetry());
        assertEquals(2000, rts.sqPsn());
        assertEquals(8, rts.maxRdAtomic());
        assertEquals(QpState.RTS, qp.state());
    }

    @Test
    void theInitBuilderKeepsThePkeyIndexItIsGiven() {
        QpAttributes init = RcPath.init(1, 7, 0x8);
        assertEquals(7, init.pkeyIndex());
        assertEquals(1, init.portNum());
        assertEquals(0x8, init.accessFlags());
    }

    @Test
    void aRefusedTransitionReachesTheCallerAsTheDeviceSaidIt() {
        RecordingQp qp = new RecordingQp();
        qp.refusal = new VerbsException("ibv_modify_qp", Errno.EINVAL, "missing: AV");
        VerbsException e = assertThrows(VerbsException.class, () -> RcPath.toInit(qp, 1, 0));
        assertSame(qp.refusal, e);
        assertThrows(NullPointerException.class, () -> RcPath.modify(null, new QpAttributes(), 0));
    }

    @Test
    void aPlantedChangeReachesEveryTransitionUntilItIsRemoved() throws Exception {
        RecordingQp qp = new RecordingQp();
        List<Integer> masks = new ArrayList<>();
        try (AutoCloseable planted = RcPath.plant((target, attributes, mask) -> {
            assertSame(qp, target);
            masks.add(mask);
            return attributes.copy().minRnrTimer(31);
        })) {
            QpAttributes init = RcPath.toInit(qp, 1, 0);
            QpAttributes rtr = RcPath.toRtr(qp, Mtu.MTU_1024, 1, 0, 1, RcPath.Timers.SEED, null);
            assertEquals(31, init.minRnrTimer());
            assertEquals(31, rtr.minRnrTimer());
            assertEquals(31, qp.modifies.get(1).attributes().minRnrTimer());
        }
        assertEquals(List.of(RcPath.INIT_MASK, RcPath.RTR_MASK), masks);
        QpAttributes after = RcPath.toRtr(qp, Mtu.MTU_1024, 1, 0, 1, RcPath.Timers.SEED, null);
        assertEquals(0x12, after.minRnrTimer());
        assertEquals(2, masks.size());
        assertThrows(NullPointerException.class, () -> RcPath.plant(null));
    }

    @Test
    void theSeedsAndPerftestsTimers() {
        assertEquals(new RcPath.Timers(0x12, 0x12, 6, 0), RcPath.Timers.SEED);
        assertEquals(new RcPath.Timers(12, 14, 7, 7), RcPath.Timers.PERFTEST);
        assertEquals(new RcPath.Timers(12, 20, 3, 7), RcPath.Timers.PERFTEST.withRetry(20, 3));
    }

    @Test
    void eachTimerIsCheckedAtBothEndsOfItsRange() {
        new RcPath.Timers(0, 0, 0, 0);
        new RcPath.Timers(31, 31, 7, 7);
        assertEquals("min_rnr_timer 32 is outside 0..31", refused(32, 0, 0, 0));
        assertEquals("min_rnr_timer -1 is outside 0..31", refused(-1, 0, 0, 0));
        assertEquals("timeout 32 is outside 0..31", refused(0, 32, 0, 0));
        assertEquals("timeout -1 is outside 0..31", refused(0, -1, 0, 0));
        assertEquals("retry_cnt 8 is outside 0..7", refused(0, 0, 8, 0));
        assertEquals("retry_cnt -1 is outside 0..7", refused(0, 0, -1, 0));
        assertEquals("rnr_retry 8 is outside 0..7", refused(0, 0, 0, 8));
        assertEquals("rnr_retry -1 is outside 0..7", refused(0, 0, 0, -1));
    }

    private static String refused(int minRnrTimer, int timeout, int retryCount, int rnrRetry) {
        return assertThrows(IllegalArgumentException.class,
                () -> new RcPath.Timers(minRnrTimer, timeout, retryCount, rnrRetry)).getMessage();
    }

    @Test
    void oneRequestIsPostedAsAListOfOne() throws VerbsException {
        RecordingQp qp = new RecordingQp();
        ScatterGatherElement sge = new ScatterGatherElement(0x1000, 8, 1);
        qp.postSend(SendWorkRequest.send(1, sge, 0));
        qp.postRecv(ReceiveWorkRequest.of(2, sge));
        assertEquals(List.of(List.of(SendWorkRequest.send(1, sge, 0))), qp.sends);
        assertEquals(List.of(List.of(ReceiveWorkRequest.of(2, sge))), qp.receives);
    }

    @Test
    void theRcQpIsCreatedWithOneCqForBothQueues() throws VerbsException {
        List<QpInitAttributes> asked = new ArrayList<>();
        RecordingQp created = new RecordingQp();
        ProtectionDomain pd = new ProtectionDomain() {
            @Override
            public Context context() {
                return null;
            }

            @Override
            public int handle() {
                return 1;
            }

            @Override
            public MemoryRegion registerMemory(int length, int accessFlags) {
                return null;
            }

            @Override
            public QueuePair createQp(QpInitAttributes attributes) {
                asked.add(attributes);
                return created;
            }

            @Override
            public void close() {
            }
        };
        CompletionQueue cq = new CompletionQueue() {
            @Override
            public int capacity() {
                return 15;
            }

            @Override
            public CompletionChannel channel() {
                return null;
            }

            @Override
            public List<WorkCompletion> poll(int maxEntries) {
                return List.of();
            }

            @Override
            public void requestNotify(boolean solicitedOnly) {
            }

            @Override
            public void ackEvents(int count) {
            }

            @Override
            public void close() {
            }
        };
        QpCapabilities caps = new QpCapabilities(4, 5, 1, 2, 16);
        assertSame(created, RcPath.createQp(pd, cq, caps, true));
        assertEquals(List.of(new QpInitAttributes(QpType.RC, cq, cq, caps, true)), asked);
    }
}
