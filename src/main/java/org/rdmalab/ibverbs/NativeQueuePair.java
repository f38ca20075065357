package org.rdmalab.ibverbs;

import static org.rdmalab.ibverbs.StructField.*;

import com.kenai.jffi.MemoryIO;
import java.util.List;
import java.util.Objects;
import java.util.function.IntToLongFunction;
import jnr.ffi.Pointer;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.GlobalRoute;
import org.rdmalab.verbs.MigState;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpTransitions;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.ScatterGatherElement;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WrOpcode;
import org.rdmalab.verbs.spi.ResourceNode;

/**
 * {@code struct ibv_qp *}. Modify and query marshal {@code struct ibv_qp_attr}; posting builds a
 * chain of work requests and SGEs in native memory the QP keeps for its posts (the provider
 * copies them into its queue before returning, as verbs requires), so a post allocates nothing
 * native (see {@link NativeScratch}). A request posted alone again, the same object, is handed
 * over as the block still holds it, unwritten: the provider only reads a work request, as
 * perftest relies on when it reposts its own.
 */
final class NativeQueuePair extends ResourceNode implements QueuePair {

    /**
     * Bytes of the chain each QP keeps for its posts, one block for the send queue and one for the
     * receive queue: 16 single-SGE send requests, more receives. Each block belongs to the first
     * thread that posts to its queue; a longer chain, or a post from another thread, allocates its own.
     */
    static final int SCRATCH_BYTES = 16 * (StructSize.SEND_WR.size + StructSize.SGE.size) + 8;
    private static final MemoryIO MEMORY = MemoryIO.getInstance();

    /*
     * The offsets a post writes, as constants: C2 folds a static final int, while the fields of an
     * enum constant are loaded (and StructField.putAt's width switched on) at every store, which
     * cost about 10 ns a post. wr_id, next, sg_list and num_sge sit at the same offsets in
     * ibv_send_wr and ibv_recv_wr.
     */
    private static final int WR_ID = offset(SEND_WR_WR_ID, 8, RECV_WR_WR_ID);
    private static final int WR_NEXT = offset(SEND_WR_NEXT, 8, RECV_WR_NEXT);
    private static final int WR_SG_LIST = offset(SEND_WR_SG_LIST, 8, RECV_WR_SG_LIST);
    private static final int WR_NUM_SGE = offset(SEND_WR_NUM_SGE, 4, RECV_WR_NUM_SGE);
    private static final int WR_OPCODE = offset(SEND_WR_OPCODE, 4, SEND_WR_OPCODE);
    private static final int WR_SEND_FLAGS = offset(SEND_WR_SEND_FLAGS, 4, SEND_WR_SEND_FLAGS);
    private static final int WR_IMM_DATA = offset(SEND_WR_IMM_DATA, 4, SEND_WR_IMM_DATA);
    private static final int WR_RDMA_REMOTE_ADDR = offset(SEND_WR_RDMA_REMOTE_ADDR, 8, SEND_WR_RDMA_REMOTE_ADDR);
    private static final int WR_RDMA_RKEY = offset(SEND_WR_RDMA_RKEY, 4, SEND_WR_RDMA_RKEY);
    private static final int WR_ATOMIC_REMOTE_ADDR = offset(SEND_WR_ATOMIC_REMOTE_ADDR, 8, SEND_WR_ATOMIC_REMOTE_ADDR);
    private static final int WR_ATOMIC_COMPARE_ADD = offset(SEND_WR_ATOMIC_COMPARE_ADD, 8, SEND_WR_ATOMIC_COMPARE_ADD);
    private static final int WR_ATOMIC_SWAP = offset(SEND_WR_ATOMIC_SWAP, 8, SEND_WR_ATOMIC_SWAP);
    private static final int WR_ATOMIC_RKEY = offset(SEND_WR_ATOMIC_RKEY, 4, SEND_WR_ATOMIC_RKEY);
    private static final int SGE_ADDRESS = offset(SGE_ADDR, 8, SGE_ADDR);
    private static final int SGE_BYTES = offset(SGE_LENGTH, 4, SGE_LENGTH);
    private static final int SGE_KEY = offset(SGE_LKEY, 4, SGE_LKEY);
    private static final int SGE_SIZE = StructSize.SGE.size;
    private static final int SEND_WR_SIZE = StructSize.SEND_WR.size;
    /** The 4 bytes after num_sge, the last of {@code struct ibv_recv_wr}. */
    private static final int RECV_WR_PADDING = WR_NUM_SGE + 4;

    static {
        // What a post writes must cover each struct: the header ints up to the wr union, and
        // ibv_recv_wr ending with the padding after num_sge.
        if (WR_OPCODE != WR_NUM_SGE + 4 || WR_SEND_FLAGS != WR_OPCODE + 4 || WR_IMM_DATA != WR_SEND_FLAGS + 4
                || WR_RDMA_REMOTE_ADDR != WR_IMM_DATA + 4 || RECV_WR_PADDING + 4 != StructSize.RECV_WR.size) {
            throw new IllegalStateException("ibv_send_wr / ibv_recv_wr are not laid out as the post path expects");
        }
    }

    /** {@code field}'s offset, after checking its width and that {@code same} sits at the same place. */
    private static int offset(StructField field, int width, StructField same) {
        if (field.width != width || same.offset != field.offset || same.width != width) {
            throw new IllegalStateException(field + " is not a " + width + "-byte field at the offset of " + same);
        }
        return field.offset;
    }

    private final NativeProtectionDomain pd;
    private final Pointer qp;
    private final QpType type;
    private final NativeCompletionQueue sendCq;
    private final NativeCompletionQueue recvCq;
    private final QpCapabilities capabilities;
    private final int qpNum;
    private final long address;
    private final OpsTable ops;
    private final NativeScratch sendScratch = new NativeScratch(SCRATCH_BYTES);
    private final NativeScratch recvScratch = new NativeScratch(SCRATCH_BYTES);

    NativeQueuePair(NativeProtectionDomain pd, Pointer qp, QpType type, NativeCompletionQueue sendCq,
                    NativeCompletionQueue recvCq, QpCapabilities capabilities) {
        super(pd, Kind.QUEUE_PAIR);
        this.pd = pd;
        this.qp = qp;
        this.type = type;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.capabilities = capabilities;
        this.qpNum = QP_QP_NUM.getInt(qp);
        this.address = qp.address();
        this.ops = pd.nativeContext().ops();
    }

    @Override
    public int qpNum() {
        return qpNum;
    }

    @Override
    public QpType type() {
        return type;
    }

    /** {@code qp->state}, which libibverbs updates on every successful modify and query. */
    @Override
    public QpState state() {
        ensureOpen();
        return QpState.of(QP_STATE.getInt(qp));
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public CompletionQueue sendCq() {
        return sendCq;
    }

    @Override
    public CompletionQueue recvCq() {
        return recvCq;
    }

    @Override
    public QpCapabilities capabilities() {
        return capabilities;
    }

    /** {@code struct ibv_qp *} itself. */
    Pointer pointer() {
        return qp;
    }

    private Native library() {
        return pd.nativeContext().library();
    }

    /**
     * {@code ibv_modify_qp}. On EINVAL the QP state table explains what the mask lacks or should
     * not carry, when it sees a reason.
     */
    @Override
    public void modify(QpAttributes attributes, int mask) throws VerbsException {
        ensureOpen();
        QpState from = state();
        Native library = library();
        try (NativeMemory memory = NativeMemory.allocate(library.runtime, StructSize.QP_ATTR.size)) {
            Pointer attr = memory.pointer();
            marshal(attributes, attr);
            int rc = library.verbs.ibv_modify_qp(qp, attr, mask);
            int saved = library.lastError();
            if (rc != 0) {
                int errno = Native.errnoOf(rc, saved);
                QpState to = (mask & QpAttrMask.STATE.value()) != 0 ? attributes.state() : from;
                throw new VerbsException("ibv_modify_qp", errno, explain(errno, from, to, mask), null);
            }
        }
    }

    private String explain(int errno, QpState from, QpState to, int mask) {
        String move = type + " QP 0x" + Integer.toHexString(qpNum) + " " + from + " → " + to + " with mask "
                + QpAttrMask.names(mask);
        if (errno == Errno.EINVAL.value() && (type == QpType.RC || type == QpType.UC
                || type == QpType.UD)) {
            QpTransitions.Check check = QpTransitions.check(type, from, to, mask);
            if (!check.valid()) {
                return move + ": " + check.explanation();
            }
            return move + ": the mask is complete, so the device refused a value (port, MTU, GID index, PSN ...)";
        }
        return move;
    }

    static void marshal(QpAttributes attributes, Pointer attr) {
        QP_ATTR_QP_STATE.put(attr, attributes.state().value());
        QP_ATTR_CUR_QP_STATE.put(attr, attributes.currentState().value());
        QP_ATTR_PATH_MTU.put(attr, attributes.pathMtu().value());
        QP_ATTR_PATH_MIG_STATE.put(attr, attributes.pathMigState().value());
        QP_ATTR_QKEY.put(attr, attributes.qkey());
        QP_ATTR_RQ_PSN.put(attr, attributes.rqPsn());
        QP_ATTR_SQ_PSN.put(attr, attributes.sqPsn());
        QP_ATTR_DEST_QP_NUM.put(attr, attributes.destQpNum());
        QP_ATTR_QP_ACCESS_FLAGS.put(attr, attributes.accessFlags());
        Pointer cap = QP_ATTR_CAP.slice(attr);
        QpCapabilities caps = attributes.capabilities();
        QP_CAP_MAX_SEND_WR.put(cap, caps.maxSendWr());
        QP_CAP_MAX_RECV_WR.put(cap, caps.maxRecvWr());
        QP_CAP_MAX_SEND_SGE.put(cap, caps.maxSendSge());
        QP_CAP_MAX_RECV_SGE.put(cap, caps.maxRecvSge());
        QP_CAP_MAX_INLINE_DATA.put(cap, caps.maxInlineData());
        AddressVector av = attributes.addressVector();
        if (av != null) {
            Pointer ah = QP_ATTR_AH_ATTR.slice(attr);
            AH_ATTR_DLID.put(ah, av.dlid());
            AH_ATTR_SL.put(ah, av.serviceLevel());
            AH_ATTR_SRC_PATH_BITS.put(ah, av.srcPathBits());
            AH_ATTR_STATIC_RATE.put(ah, av.staticRate());
            AH_ATTR_IS_GLOBAL.put(ah, av.isGlobal() ? 1 : 0);
            AH_ATTR_PORT_NUM.put(ah, av.portNum());
            if (av.isGlobal()) {
                Pointer grh = AH_ATTR_GRH.slice(ah);
                GlobalRoute route = av.grh();
                byte[] dgid = route.dgid().raw();
                grh.put(GLOBAL_ROUTE_DGID.offset, dgid, 0, dgid.length);
                GLOBAL_ROUTE_FLOW_LABEL.put(grh, route.flowLabel());
                GLOBAL_ROUTE_SGID_INDEX.put(grh, route.sgidIndex());
                GLOBAL_ROUTE_HOP_LIMIT.put(grh, route.hopLimit());
                GLOBAL_ROUTE_TRAFFIC_CLASS.put(grh, route.trafficClass());
            }
        }
        QP_ATTR_PKEY_INDEX.put(attr, attributes.pkeyIndex());
        QP_ATTR_EN_SQD_ASYNC_NOTIFY.put(attr, attributes.sqdAsyncNotify() ? 1 : 0);
        QP_ATTR_MAX_RD_ATOMIC.put(attr, attributes.maxRdAtomic());
        QP_ATTR_MAX_DEST_RD_ATOMIC.put(attr, attributes.maxDestRdAtomic());
        QP_ATTR_MIN_RNR_TIMER.put(attr, attributes.minRnrTimer());
        QP_ATTR_PORT_NUM.put(attr, attributes.portNum());
        QP_ATTR_TIMEOUT.put(attr, attributes.timeout());
        QP_ATTR_RETRY_CNT.put(attr, attributes.retryCount());
        QP_ATTR_RNR_RETRY.put(attr, attributes.rnrRetry());
    }

    static QpAttributes unmarshal(Pointer attr) {
        QpAttributes attributes = new QpAttributes()
                .state(QpState.of(QP_ATTR_QP_STATE.getInt(attr)))
                .currentState(QpState.of(QP_ATTR_CUR_QP_STATE.getInt(attr)))
                .qkey(QP_ATTR_QKEY.getInt(attr))
                .rqPsn(QP_ATTR_RQ_PSN.getInt(attr))
                .sqPsn(QP_ATTR_SQ_PSN.getInt(attr))
                .destQpNum(QP_ATTR_DEST_QP_NUM.getInt(attr))
                .accessFlags(QP_ATTR_QP_ACCESS_FLAGS.getInt(attr))
                .pkeyIndex(QP_ATTR_PKEY_INDEX.getInt(attr))
                .sqdAsyncNotify(QP_ATTR_EN_SQD_ASYNC_NOTIFY.getInt(attr) != 0)
                .maxRdAtomic(QP_ATTR_MAX_RD_ATOMIC.getInt(attr))
                .maxDestRdAtomic(QP_ATTR_MAX_DEST_RD_ATOMIC.getInt(attr))
                .minRnrTimer(QP_ATTR_MIN_RNR_TIMER.getInt(attr))
                .portNum(QP_ATTR_PORT_NUM.getInt(attr))
                .timeout(QP_ATTR_TIMEOUT.getInt(attr))
                .retryCount(QP_ATTR_RETRY_CNT.getInt(attr))
                .rnrRetry(QP_ATTR_RNR_RETRY.getInt(attr));
        int mtu = QP_ATTR_PATH_MTU.getInt(attr);
        if (mtu >= 1 && mtu <= 5) {
            attributes.pathMtu(Mtu.of(mtu));
        }
        int mig = QP_ATTR_PATH_MIG_STATE.getInt(attr);
        for (MigState state : MigState.values()) {
            if (state.value() == mig) {
                attributes.pathMigState(state);
            }
        }
        Pointer cap = QP_ATTR_CAP.slice(attr);
        attributes.capabilities(new QpCapabilities(QP_CAP_MAX_SEND_WR.getInt(cap), QP_CAP_MAX_RECV_WR.getInt(cap),
                QP_CAP_MAX_SEND_SGE.getInt(cap), QP_CAP_MAX_RECV_SGE.getInt(cap), QP_CAP_MAX_INLINE_DATA.getInt(cap)));
        Pointer ah = QP_ATTR_AH_ATTR.slice(attr);
        boolean global = AH_ATTR_IS_GLOBAL.getInt(ah) != 0;
        int port = AH_ATTR_PORT_NUM.getInt(ah);
        if (global || port != 0 || AH_ATTR_DLID.getInt(ah) != 0) {
            GlobalRoute route = null;
            if (global) {
                Pointer grh = AH_ATTR_GRH.slice(ah);
                byte[] dgid = new byte[16];
                grh.get(GLOBAL_ROUTE_DGID.offset, dgid, 0, dgid.length);
                route = new GlobalRoute(Gid.of(dgid), GLOBAL_ROUTE_FLOW_LABEL.getInt(grh),
                        GLOBAL_ROUTE_SGID_INDEX.getInt(grh), GLOBAL_ROUTE_HOP_LIMIT.getInt(grh),
                        GLOBAL_ROUTE_TRAFFIC_CLASS.getInt(grh));
            }
            attributes.addressVector(new AddressVector(route, AH_ATTR_DLID.getInt(ah), AH_ATTR_SL.getInt(ah),
                    AH_ATTR_SRC_PATH_BITS.getInt(ah), AH_ATTR_STATIC_RATE.getInt(ah), port));
        }
        return attributes;
    }

    /** {@code ibv_query_qp}: unmarshals {@code struct ibv_qp_attr}. */
    @Override
    public QpAttributes query(int mask) throws VerbsException {
        ensureOpen();
        Native library = library();
        try (NativeMemory attrMemory = NativeMemory.allocate(library.runtime, StructSize.QP_ATTR.size);
             NativeMemory initMemory = NativeMemory.allocate(library.runtime, StructSize.QP_INIT_ATTR.size)) {
            int rc = library.verbs.ibv_query_qp(qp, attrMemory.pointer(), mask, initMemory.pointer());
            int saved = library.lastError();
            if (rc != 0) {
                throw NativeContext.failure("ibv_query_qp", rc, saved, "could not query QP 0x"
                        + Integer.toHexString(qpNum));
            }
            return unmarshal(attrMemory.pointer());
        }
    }

    /**
     * {@code ibv_post_send} through {@code context->ops.post_send}; bad_wr becomes the failing
     * request's index. EOPNOTSUPP on a UD QP (no address handles yet).
     */
    @Override
    public void postSend(List<SendWorkRequest> requests) throws VerbsException {
        post(SEND, null, requests, requests.size());
    }

    /** {@code ibv_post_send} of one request, built in the QP's block without a list. */
    @Override
    public void postSend(SendWorkRequest request) throws VerbsException {
        post(SEND, Objects.requireNonNull(request, "request"), null, 1);
    }

    /** {@code ibv_post_recv} through {@code context->ops.post_recv}. */
    @Override
    public void postRecv(List<ReceiveWorkRequest> requests) throws VerbsException {
        post(RECEIVE, null, requests, requests.size());
    }

    /** {@code ibv_post_recv} of one request, built in the QP's block without a list. */
    @Override
    public void postRecv(ReceiveWorkRequest request) throws VerbsException {
        post(RECEIVE, Objects.requireNonNull(request, "request"), null, 1);
    }

    /**
     * Builds the chain of {@code count} requests (the one {@code single}, or those of
     * {@code list}) in the queue's block, or in memory of its own when the block is too small or
     * busy, and hands it to the provider. The block remembers a request posted alone: posted
     * alone again (the same object: a record, so nothing in it can have changed) while the block
     * still holds it, its work request and SGEs are handed over as they are, as a C program
     * reposts the {@code ibv_send_wr} it keeps. Any other post through the block writes over it
     * and forgets it first.
     */
    private <R> void post(Chain<R> kind, R single, List<R> list, int count) throws VerbsException {
        ensureOpen();
        if (count == 0) {
            return;
        }
        kind.check(this);
        int sges = 0;
        for (int i = 0; i < count; i++) {
            sges += kind.sgList(single != null ? single : list.get(i)).size();
        }
        long bytes = chainBytes(count, kind.requestSize, sges);
        NativeScratch scratch = kind == SEND ? sendScratch : recvScratch;
        long block = scratch.acquire(bytes);
        if (block == 0) {
            try (NativeMemory own = NativeMemory.allocate(library().runtime, bytes)) {
                build(kind, single, list, count, own.address());
                hand(kind, single, list, count, own.address(), bytes);
            }
            return;
        }
        try {
            R alone = count == 1 ? (single != null ? single : list.get(0)) : null;
            if (!scratch.holds(alone)) {
                scratch.holding(null);
                build(kind, single, list, count, block);
                scratch.holding(alone);
            }
            hand(kind, single, list, count, block, bytes);
        } catch (VerbsException | RuntimeException e) {
            // A refused post forgets the request: the next post writes the block again rather
            // than rely on what a failing provider left in it.
            scratch.holding(null);
            throw e;
        } finally {
            scratch.release();
        }
    }

    /** Writes the chain of {@code count} requests, then their SGEs, at {@code chain}. */
    private static <R> void build(Chain<R> kind, R single, List<R> list, int count, long chain) {
        int requestSize = kind.requestSize;
        long sge = chain + (long) count * requestSize;
        for (int i = 0; i < count; i++) {
            R request = single != null ? single : list.get(i);
            long wr = chain + (long) i * requestSize;
            // Every byte handed to the provider is written here, so the block is never cleared first.
            MEMORY.putLong(wr + WR_ID, kind.wrId(request));
            MEMORY.putLong(wr + WR_NEXT, i + 1 < count ? wr + requestSize : 0L);
            sge = putSges(sge, kind.sgList(request), wr);
            kind.putFields(wr, request);
        }
    }

    /**
     * Hands the chain of {@code bytes} at {@code chain} to the provider, with {@code bad_wr} in its
     * last 8 bytes; a refusal becomes a VerbsException naming the first request not posted.
     */
    private <R> void hand(Chain<R> kind, R single, List<R> list, int count, long chain, long bytes)
            throws VerbsException {
        long badSlot = chain + bytes - 8;
        MEMORY.putLong(badSlot, 0L);
        int rc = kind.call(ops, address, chain, badSlot);
        if (rc != 0) {
            throw postFailure(kind.verb, rc, chain, badSlot, kind.requestSize, count,
                    index -> kind.wrId(single != null ? single : list.get(index)));
        }
    }

    /** What differs between a chain of {@code ibv_send_wr} and one of {@code ibv_recv_wr}. */
    private abstract static class Chain<R> {
        final String verb;
        final int requestSize;

        Chain(String verb, StructSize size) {
            this.verb = verb;
            this.requestSize = size.size;
        }

        /** Refuses what this backend cannot post on {@code qp} at all. */
        void check(NativeQueuePair qp) throws VerbsException {
        }

        abstract long wrId(R request);

        abstract List<ScatterGatherElement> sgList(R request);

        /**
         * Writes the rest of the request: every byte after {@code num_sge}, zeros where the request
         * has nothing to say.
         */
        abstract void putFields(long wr, R request);

        abstract int call(OpsTable ops, long qp, long chain, long badSlot);
    }

    private static final Chain<SendWorkRequest> SEND = new Chain<>("ibv_post_send", StructSize.SEND_WR) {
        @Override
        void check(NativeQueuePair qp) throws VerbsException {
            if (qp.type == QpType.UD) {
                throw new VerbsException("ibv_post_send", Errno.EOPNOTSUPP, "UD sends need an address "
                        + "handle (ibv_create_ah), which RDMA Lab's native backend does not bind yet; use an RC QP");
            }
        }

        @Override
        long wrId(SendWorkRequest request) {
            return request.wrId();
        }

        @Override
        List<ScatterGatherElement> sgList(SendWorkRequest request) {
            return request.sgList();
        }

        @Override
        void putFields(long wr, SendWorkRequest request) {
            WrOpcode opcode = request.opcode();
            // opcode, send_flags and imm_data fill the bytes up to the wr union; the rest is zeroed
            // first (a constant length, which C2 unrolls into plain stores).
            NativeScratch.clear(wr + WR_RDMA_REMOTE_ADDR, SEND_WR_SIZE - WR_RDMA_REMOTE_ADDR);
            MEMORY.putInt(wr + WR_OPCODE, opcode.value());
            MEMORY.putInt(wr + WR_SEND_FLAGS, request.sendFlags());
            MEMORY.putInt(wr + WR_IMM_DATA, NativeContext.bigEndian(request.immData()));
            if (opcode.isAtomic()) {
                MEMORY.putLong(wr + WR_ATOMIC_REMOTE_ADDR, request.remoteAddress());
                MEMORY.putLong(wr + WR_ATOMIC_COMPARE_ADD, request.compareAdd());
                MEMORY.putLong(wr + WR_ATOMIC_SWAP, request.swap());
                MEMORY.putInt(wr + WR_ATOMIC_RKEY, request.rkey());
            } else {
                MEMORY.putLong(wr + WR_RDMA_REMOTE_ADDR, request.remoteAddress());
                MEMORY.putInt(wr + WR_RDMA_RKEY, request.rkey());
            }
        }

        @Override
        int call(OpsTable ops, long qp, long chain, long badSlot) {
            return ops.postSend(qp, chain, badSlot);
        }
    };

    private static final Chain<ReceiveWorkRequest> RECEIVE = new Chain<>("ibv_post_recv", StructSize.RECV_WR) {
        @Override
        long wrId(ReceiveWorkRequest request) {
            return request.wrId();
        }

        @Override
        List<ScatterGatherElement> sgList(ReceiveWorkRequest request) {
            return request.sgList();
        }

        @Override
        void putFields(long wr, ReceiveWorkRequest request) {
            MEMORY.putInt(wr + RECV_WR_PADDING, 0);
        }

        @Override
        int call(OpsTable ops, long qp, long chain, long badSlot) {
            return ops.postRecv(qp, chain, badSlot);
        }
    };

    /** Work requests, then SGEs, then one pointer-sized slot for {@code bad_wr}. */
    private static long chainBytes(int requests, int requestSize, int sges) {
        return (long) requests * requestSize + (long) sges * StructSize.SGE.size + 8;
    }

    /**
     * Writes {@code sgList} at {@code sge} (every byte of each {@code ibv_sge}) and points the
     * request at it; returns where the next SGE goes.
     */
    private static long putSges(long sge, List<ScatterGatherElement> sgList, long wr) {
        int count = sgList.size();
        MEMORY.putLong(wr + WR_SG_LIST, count > 0 ? sge : 0L);
        MEMORY.putInt(wr + WR_NUM_SGE, count);
        for (int i = 0; i < count; i++) {
            ScatterGatherElement element = sgList.get(i);
            MEMORY.putLong(sge + SGE_ADDRESS, element.address());
            MEMORY.putInt(sge + SGE_BYTES, element.length());
            MEMORY.putInt(sge + SGE_KEY, element.lkey());
            sge += SGE_SIZE;
        }
        return sge;
    }

    private VerbsException postFailure(String verb, int rc, long chain, long badSlot,
                                       int requestSize, int count, IntToLongFunction wrId) {
        int errno = Native.errnoOf(rc, 0);
        long bad = MEMORY.getLong(badSlot);
        long index = bad == 0 ? -1 : (bad - chain) / requestSize;
        String detail;
        if (index >= 0 && index < count) {
            detail = "request #" + index + " (wr_id " + wrId.applyAsLong((int) index)
                    + ") and the ones after it were not posted on QP 0x" + Integer.toHexString(qpNum);
        } else {
            detail = "the requests were not posted on QP 0x" + Integer.toHexString(qpNum);
        }
        return new VerbsException(verb, errno, detail, null);
    }

    @Override
    protected void destroy() {
        Native library = library();
        int rc = library.verbs.ibv_destroy_qp(qp);
        int saved = library.lastError();
        sendScratch.close();
        recvScratch.close();
        if (rc != 0) {
            NativeContext.logDestroyFailure("ibv_destroy_qp", rc, saved);
        }
    }
}
