package org.rdmalab.verbs;

import java.util.Objects;

/**
 * The one way an RC QP is created and brought up, RESET → INIT → RTR → RTS, for every caller: the
 * lab's steps (the window, {@code demo}, {@code loopback}'s scenarios), {@code bench} and
 * {@code doctor}. Each caller gives its own values (the seed's timers, perftest's, the doctor's
 * probe's); the attributes each transition sets and the mask that names them are built here, and
 * every transition goes through {@link #modify}, so a fix to the sequence is made once.
 *
 * <p>The masks are the kernel's required and usual optional attributes of each transition
 * (IB spec 11.2.4.2, rdma-core's {@code ibv_modify_qp(3)}):
 * <ul>
 *   <li>RESET → INIT: {@code STATE | PKEY_INDEX | PORT | ACCESS_FLAGS};</li>
 *   <li>INIT → RTR: {@code STATE | AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER};</li>
 *   <li>RTR → RTS: {@code STATE | TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN | MAX_QP_RD_ATOMIC}.</li>
 * </ul>
 *
 * <p>{@link #plant} swaps in a change to every transition, for a test that proves all callers
 * take this path (a different {@code min_rnr_timer} shows up in each). Thread rules: static and
 * stateless apart from the planted change, which is read once per transition.
 */
public final class RcPath {

    /** The mask of RESET → INIT. */
    public static final int INIT_MASK = QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT,
            QpAttrMask.ACCESS_FLAGS);
    /** The mask of INIT → RTR. */
    public static final int RTR_MASK = QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU,
            QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);
    /** The mask of RTR → RTS. */
    public static final int RTS_MASK = QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT,
            QpAttrMask.RNR_RETRY, QpAttrMask.SQ_PSN, QpAttrMask.MAX_QP_RD_ATOMIC);

    /**
     * The RTR and RTS timers of a program.
     *
     * @param minRnrTimer RTR's {@code min_rnr_timer} code (how long a peer waits after this side's RNR NAK)
     * @param timeout RTS's local ACK timeout exponent: 4.096 µs × 2^timeout
     * @param retryCount RTS's {@code retry_cnt}
     * @param rnrRetry RTS's {@code rnr_retry} (7 = for ever)
     */
    public record Timers(int minRnrTimer, int timeout, int retryCount, int rnrRetry) {

        /** The seed's: min_rnr_timer 0x12 (5.12 ms), timeout 0x12 (1.07 s), retry_cnt 6, rnr_retry 0. */
        public static final Timers SEED = new Timers(0x12, 0x12, 6, 0);
        /** perftest's: min_rnr_timer 12, timeout 14 ({@code -u}), retry_cnt 7, rnr_retry 7. */
        public static final Timers PERFTEST = new Timers(12, 14, 7, 7);

        public Timers {
            check(minRnrTimer, 31, "min_rnr_timer");
            check(timeout, 31, "timeout");
            check(retryCount, 7, "retry_cnt");
            check(rnrRetry, 7, "rnr_retry");
        }

        private static void check(int value, int max, String name) {
            if (value < 0 || value > max) {
                throw new IllegalArgumentException(name + " " + value + " is outside 0.." + max);
            }
        }

        /** The same timers with another local ACK timeout and retry count. */
        public Timers withRetry(int newTimeout, int newRetryCount) {
            return new Timers(minRnrTimer, newTimeout, newRetryCount, rnrRetry);
        }
    }

    /** A change made to every transition's attributes before the QP sees them (tests only). */
    @FunctionalInterface
    public interface Plant {

        /**
         * Called before {@code ibv_modify_qp} of {@code qp} to {@code attributes.state()}.
         *
         * @return the attributes to apply (may be {@code attributes}, changed)
         */
        QpAttributes adjust(QueuePair qp, QpAttributes attributes, int mask) throws VerbsException;
    }

    private static final Plant NONE = (qp, attributes, mask) -> attributes;
    private static volatile Plant planted = NONE;

    private RcPath() {
    }

    /**
     * {@code ibv_create_qp} of an RC QP with one CQ for sends and receives.
     *
     * @param sqSigAll whether every send WR completes ({@code sq_sig_all = 1})
     */
    public static QueuePair createQp(ProtectionDomain pd, CompletionQueue cq, QpCapabilities capabilities,
                                     boolean sqSigAll) throws VerbsException {
        return pd.createQp(new QpInitAttributes(QpType.RC, cq, cq, capabilities, sqSigAll));
    }

    /** RESET → INIT's attributes: the port, the P_Key index and what the peer may do to this side's memory. */
    public static QpAttributes init(int port, int pkeyIndex, int accessFlags) {
        return new QpAttributes().state(QpState.INIT).portNum(port).pkeyIndex(pkeyIndex).accessFlags(accessFlags);
    }

    /** INIT → RTR's attributes: the path to the peer and what this side expects from it. */
    public static QpAttributes rtr(Mtu pathMtu, int destQpNum, int rqPsn, int maxDestRdAtomic, int minRnrTimer,
                                   AddressVector addressVector) {
        return new QpAttributes().state(QpState.RTR).pathMtu(pathMtu).destQpNum(destQpNum).rqPsn(rqPsn)
                .maxDestRdAtomic(maxDestRdAtomic).minRnrTimer(minRnrTimer).addressVector(addressVector);
    }

    /** RTR → RTS's attributes: the send side's timers and first PSN. */
    public static QpAttributes rts(int timeout, int retryCount, int rnrRetry, int sqPsn, int maxRdAtomic) {
        return new QpAttributes().state(QpState.RTS).timeout(timeout).retryCount(retryCount).rnrRetry(rnrRetry)
                .sqPsn(sqPsn).maxRdAtomic(maxRdAtomic);
    }

    /**
     * The address vector of a RoCE peer: a GRH to {@code remoteGid} from the local GID at
     * {@code sgidIndex} with {@code hopLimit}, the peer's LID (0 on RoCE), on {@code port}.
     */
    public static AddressVector route(Gid remoteGid, int sgidIndex, int hopLimit, int remoteLid, int serviceLevel,
                                      int port) {
        return new AddressVector(new GlobalRoute(remoteGid, 0, sgidIndex, hopLimit, 0), remoteLid, serviceLevel, 0,
                0, port);
    }

    /** RESET → INIT with {@link #INIT_MASK}. */
    public static QpAttributes toInit(QueuePair qp, int port, int accessFlags) throws VerbsException {
        return modify(qp, init(port, 0, accessFlags), INIT_MASK);
    }

    /** INIT → RTR with {@link #RTR_MASK}, the seed's {@code max_dest_rd_atomic} of its caller's choosing. */
    public static QpAttributes toRtr(QueuePair qp, Mtu pathMtu, int destQpNum, int rqPsn, int maxDestRdAtomic,
                                     Timers timers, AddressVector addressVector) throws VerbsException {
        return modify(qp, rtr(pathMtu, destQpNum, rqPsn, maxDestRdAtomic, timers.minRnrTimer(), addressVector),
                RTR_MASK);
    }

    /** RTR → RTS with {@link #RTS_MASK}. */
    public static QpAttributes toRts(QueuePair qp, Timers timers, int sqPsn, int maxRdAtomic) throws VerbsException {
        return modify(qp, rts(timers.timeout(), timers.retryCount(), timers.rnrRetry(), sqPsn, maxRdAtomic),
                RTS_MASK);
    }

    /**
     * {@code ibv_modify_qp} of one transition of the path (with a caller's own mask, as the lab's
     * editable steps have).
     *
     * @return the attributes the QP was given
     * @throws VerbsException as the device returned it
     */
    public static QpAttributes modify(QueuePair qp, QpAttributes attributes, int mask) throws VerbsException {
        Objects.requireNonNull(qp, "qp");
        QpAttributes applied = planted.adjust(qp, attributes, mask);
        qp.modify(applied, mask);
        return applied;
    }

    /**
     * Plants {@code change} into every transition until the returned handle is closed (tests only:
     * it proves that each caller takes this path).
     */
    public static AutoCloseable plant(Plant change) {
        Objects.requireNonNull(change, "change");
        planted = change;
        return () -> planted = NONE;
    }
}
