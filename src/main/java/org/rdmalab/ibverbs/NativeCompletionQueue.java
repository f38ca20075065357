package org.rdmalab.ibverbs;

import static org.rdmalab.ibverbs.StructField.*;

import java.util.ArrayList;
import java.util.List;
import jnr.ffi.Pointer;
import org.rdmalab.verbs.CompletionChannel;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcFlag;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.ResourceNode;

/**
 * {@code struct ibv_cq *}. Polling and arming go through the context's ops table
 * ({@code ibv_poll_cq}, {@code ibv_req_notify_cq} are inline in C). Events taken from the channel
 * and not yet acknowledged are acknowledged before {@code ibv_destroy_cq}, which would otherwise wait.
 */
final class NativeCompletionQueue extends ResourceNode implements CompletionQueue {

    private final NativeContext context;
    private final Pointer cq;
    private final NativeCompletionChannel channel;
    private int unackedEvents;

    NativeCompletionQueue(NativeContext context, Pointer cq, NativeCompletionChannel channel) {
        super(context, Kind.COMPLETION_QUEUE);
        this.context = context;
        this.cq = cq;
        this.channel = channel;
    }

    NativeContext context() {
        return context;
    }

    Pointer pointer() {
        return cq;
    }

    /** {@code cq->cqe}: what the provider granted (at least what was asked). */
    @Override
    public int capacity() {
        return CQ_CQE.getInt(cq);
    }

    @Override
    public CompletionChannel channel() {
        return channel;
    }

    /** {@code ibv_poll_cq} through {@code context->ops.poll_cq}. */
    @Override
    public List<WorkCompletion> poll(int maxEntries) throws VerbsException {
        ensureOpen();
        if (maxEntries < 1) {
            throw new IllegalArgumentException("poll at least one entry, not " + maxEntries);
        }
        try (NativeMemory memory = NativeMemory.allocate(context.library().runtime,
                (long) maxEntries * StructSize.WC.size)) {
            OpsTable.Result result = context.ops().pollCq(cq.address(), maxEntries, memory.address());
            if (result.value() < 0) {
                throw new VerbsException("ibv_poll_cq", Native.errnoOf(result.value(), result.errno()),
                        "the provider could not poll the CQ", null);
            }
            List<WorkCompletion> completions = new ArrayList<>(result.value());
            for (int i = 0; i < result.value(); i++) {
                completions.add(completion(memory.pointer().slice((long) i * StructSize.WC.size, StructSize.WC.size)));
            }
            return completions;
        }
    }

    private static WorkCompletion completion(Pointer wc) throws VerbsException {
        WcStatus status;
        try {
            status = WcStatus.of(WC_STATUS.getInt(wc));
        } catch (IllegalArgumentException e) {
            throw new VerbsException("ibv_poll_cq", Errno.EPROTO.value(), "unknown completion status "
                    + WC_STATUS.getInt(wc), e);
        }
        WcOpcode opcode;
        try {
            opcode = WcOpcode.of(WC_OPCODE.getInt(wc));
        } catch (IllegalArgumentException e) {
            if (status == WcStatus.SUCCESS) {
                throw new VerbsException("ibv_poll_cq", Errno.EPROTO.value(), "unknown completion opcode "
                        + WC_OPCODE.getInt(wc), e);
            }
            // In an error completion the opcode is undefined (verbs.h); only wr_id, status and qp_num count.
            opcode = WcOpcode.SEND;
        }
        int flags = WC_WC_FLAGS.getInt(wc);
        int imm = WcFlag.has(flags, WcFlag.WITH_IMM) ? NativeContext.bigEndian(WC_IMM_DATA.getInt(wc)) : 0;
        return new WorkCompletion(WC_WR_ID.getLong(wc), status, opcode, WC_VENDOR_ERR.getInt(wc),
                WC_BYTE_LEN.getInt(wc), imm, WC_QP_NUM.getInt(wc), WC_SRC_QP.getInt(wc), flags);
    }

    /** {@code ibv_req_notify_cq} through {@code context->ops.req_notify_cq}. */
    @Override
    public void requestNotify(boolean solicitedOnly) throws VerbsException {
        ensureOpen();
        OpsTable.Result result = context.ops().reqNotifyCq(cq.address(), solicitedOnly);
        if (result.value() != 0) {
            throw new VerbsException("ibv_req_notify_cq", Native.errnoOf(result.value(), result.errno()),
                    "could not arm the CQ", null);
        }
    }

    synchronized void eventDelivered() {
        unackedEvents++;
    }

    /** {@code ibv_ack_cq_events}. */
    @Override
    public void ackEvents(int count) {
        ensureOpen();
        if (count <= 0) {
            return;
        }
        synchronized (this) {
            unackedEvents = Math.max(0, unackedEvents - count);
        }
        context.library().verbs.ibv_ack_cq_events(cq, count);
    }

    @Override
    protected void destroy() {
        Native library = context.library();
        int pending;
        synchronized (this) {
            pending = unackedEvents;
            unackedEvents = 0;
        }
        if (pending > 0) {
            library.verbs.ibv_ack_cq_events(cq, pending);
        }
        int rc = library.verbs.ibv_destroy_cq(cq);
        int saved = library.lastError();
        if (rc != 0) {
            NativeContext.logDestroyFailure("ibv_destroy_cq", rc, saved);
        }
        context.forget(this);
    }
}
