package org.rdmalab.ibverbs;

import static org.rdmalab.ibverbs.StructField.*;

import jnr.ffi.Pointer;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpInitAttributes;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.ResourceNode;

/** {@code struct ibv_pd *}. Closing it closes its QPs, then its MRs, then {@code ibv_dealloc_pd}. */
final class NativeProtectionDomain extends ResourceNode implements ProtectionDomain {

    private final NativeContext context;
    private final Pointer pd;

    NativeProtectionDomain(NativeContext context, Pointer pd) {
        super(context, Kind.PROTECTION_DOMAIN);
        this.context = context;
        this.pd = pd;
    }

    @Override
    public Context context() {
        return context;
    }

    @Override
    public int handle() {
        return PD_HANDLE.getInt(pd);
    }

    Pointer pointer() {
        return pd;
    }

    /** Zeroed native memory of {@code length} bytes registered with {@code ibv_reg_mr}. */
    @Override
    public MemoryRegion registerMemory(int length, int accessFlags) throws VerbsException {
        ensureOpen();
        if (length < 0) {
            throw new IllegalArgumentException("a region cannot have " + length + " bytes");
        }
        Native library = context.library();
        NativeMemory buffer = NativeMemory.allocate(library.runtime, length);
        Pointer mr = library.verbs.ibv_reg_mr(pd, buffer.pointer(), length, accessFlags);
        int saved = library.lastError();
        if (mr == null) {
            buffer.close();
            throw NativeContext.failure("ibv_reg_mr", -1, saved, "could not register " + length
                    + " bytes with access 0x" + Integer.toHexString(accessFlags));
        }
        return new NativeMemoryRegion(this, mr, buffer, length, accessFlags);
    }

    /** {@code ibv_create_qp}: marshals {@code struct ibv_qp_init_attr}; the granted capabilities come back in it. */
    @Override
    public QueuePair createQp(QpInitAttributes attributes) throws VerbsException {
        ensureOpen();
        NativeCompletionQueue sendCq = ownQueue(attributes.sendCq());
        NativeCompletionQueue recvCq = ownQueue(attributes.recvCq());
        Native library = context.library();
        try (NativeMemory memory = NativeMemory.allocate(library.runtime, StructSize.QP_INIT_ATTR.size)) {
            Pointer init = memory.pointer();
            init.putPointer(QP_INIT_ATTR_SEND_CQ.offset, sendCq.pointer());
            init.putPointer(QP_INIT_ATTR_RECV_CQ.offset, recvCq.pointer());
            Pointer cap = QP_INIT_ATTR_CAP.slice(init);
            QpCapabilities wanted = attributes.capabilities();
            QP_CAP_MAX_SEND_WR.put(cap, wanted.maxSendWr());
            QP_CAP_MAX_RECV_WR.put(cap, wanted.maxRecvWr());
            QP_CAP_MAX_SEND_SGE.put(cap, wanted.maxSendSge());
            QP_CAP_MAX_RECV_SGE.put(cap, wanted.maxRecvSge());
            QP_CAP_MAX_INLINE_DATA.put(cap, wanted.maxInlineData());
            QP_INIT_ATTR_QP_TYPE.put(init, attributes.type().value());
            QP_INIT_ATTR_SQ_SIG_ALL.put(init, attributes.sqSigAll() ? 1 : 0);
            Pointer qp = library.verbs.ibv_create_qp(pd, init);
            int saved = library.lastError();
            if (qp == null) {
                throw NativeContext.failure("ibv_create_qp", -1, saved, "could not create a " + attributes.type()
                        + " QP with " + wanted);
            }
            QpCapabilities granted = new QpCapabilities(QP_CAP_MAX_SEND_WR.getInt(cap), QP_CAP_MAX_RECV_WR.getInt(cap),
                    QP_CAP_MAX_SEND_SGE.getInt(cap), QP_CAP_MAX_RECV_SGE.getInt(cap),
                    QP_CAP_MAX_INLINE_DATA.getInt(cap));
            return new NativeQueuePair(this, qp, attributes.type(), sendCq, recvCq, granted);
        }
    }

    private NativeCompletionQueue ownQueue(Object queue) throws VerbsException {
        if (!(queue instanceof NativeCompletionQueue q) || q.context() != context) {
            throw new VerbsException("ibv_create_qp", Errno.EINVAL, "the CQ belongs to another context");
        }
        return q;
    }

    NativeContext nativeContext() {
        return context;
    }

    @Override
    protected void destroy() {
        Native library = context.library();
        int rc = library.verbs.ibv_dealloc_pd(pd);
        int saved = library.lastError();
        if (rc != 0) {
            NativeContext.logDestroyFailure("ibv_dealloc_pd", rc, saved);
        }
    }
}
