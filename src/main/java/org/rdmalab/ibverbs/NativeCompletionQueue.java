package org.rdmalab.ibverbs;

import static org.rdmalab.ibverbs.StructField.*;

import com.kenai.jffi.MemoryIO;
import java.util.ArrayList;
import java.util.List;
import jnr.ffi.Pointer;
import org.rdmalab.verbs.CompletionBuffer;
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
 * ({@code ibv_poll_cq}, {@code ibv_req_notify_cq} are inline in C); a poll allocates no native
 * memory (see {@link NativeScratch}): it hands the provider the CQ's own {@code ibv_wc} array,
 * kept all zeros between polls, so that a field the provider leaves unwritten (in an error
 * completion, verbs.h defines only wr_id, status, vendor_err and qp_num) reads 0. Events taken
 * from the channel and not yet acknowledged are acknowledged before {@code ibv_destroy_cq}, which
 * would otherwise wait.
 */
final class NativeCompletionQueue extends ResourceNode implements CompletionQueue {

    private static final MemoryIO MEMORY = MemoryIO.getInstance();
    /* The ibv_wc offsets a poll reads, as constants that C2 folds (see NativeQueuePair). */
    private static final int WC_ID = offset(WC_WR_ID, 8);
    private static final int STATUS = offset(WC_STATUS, 4);
    private static final int OPCODE = offset(WC_OPCODE, 4);
    private static final int VENDOR_ERR = offset(WC_VENDOR_ERR, 4);
    private static final int BYTE_LEN = offset(WC_BYTE_LEN, 4);
    private static final int IMM_DATA = offset(WC_IMM_DATA, 4);
    private static final int QP_NUM = offset(WC_QP_NUM, 4);
    private static final int SRC_QP = offset(WC_SRC_QP, 4);
    private static final int FLAGS = offset(WC_WC_FLAGS, 4);
    private static final int WC_SIZE = StructSize.WC.size;

    /** Entries of the {@code ibv_wc} array each CQ keeps for its polls. */
    static final int SCRATCH_ENTRIES = 32;

    private final NativeContext context;
    private final Pointer cq;
    private final long address;
    private final OpsTable ops;
    private final NativeCompletionChannel channel;
    private final NativeScratch scratch = new NativeScratch((long) SCRATCH_ENTRIES * StructSize.WC.size);
    private int unackedEvents;

    NativeCompletionQueue(NativeContext context, Pointer cq, NativeCompletionChannel channel) {
        super(context, Kind.COMPLETION_QUEUE);
        this.context = context;
        this.cq = cq;
        this.address = cq.address();
        this.ops = context.ops();
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

    /**
     * {@code ibv_poll_cq} through {@code context->ops.poll_cq}, into the CQ's own {@code ibv_wc}
     * array (up to {@value #SCRATCH_ENTRIES} entries; it belongs to the first thread that polls, and a
     * larger poll, or a poll from another thread, allocates its own).
     */
    @Override
    public List<WorkCompletion> poll(int maxEntries) throws VerbsException {
        ensureOpen();
        if (maxEntries < 1) {
            throw new IllegalArgumentException("poll at least one entry, not " + maxEntries);
        }
        long bytes = (long) maxEntries * WC_SIZE;
        long block = scratch.acquire(bytes);
        if (block == 0) {
            try (NativeMemory own = NativeMemory.allocate(context.library().runtime, bytes)) {
                return pollList(own.address(), maxEntries);
            }
        }
        try {
            return pollList(block, maxEntries);
        } finally {
            scratch.release();
        }
    }

    /** {@link #poll(int)} into the zeroed array at {@code wc}, which it leaves zeroed. */
    private List<WorkCompletion> pollList(long wc, int maxEntries) throws VerbsException {
        int polled = pollZeroed(wc, maxEntries);
        try {
            if (polled == 0) {
                return List.of();
            }
            if (polled == 1) {
                return List.of(completion(wc));
            }
            List<WorkCompletion> completions = new ArrayList<>(polled);
            for (int i = 0; i < polled; i++) {
                completions.add(completion(wc + (long) i * WC_SIZE));
            }
            return completions;
        } finally {
            NativeScratch.clear(wc, (long) polled * WC_SIZE);
        }
    }

    /**
     * {@code ibv_poll_cq} through {@code context->ops.poll_cq} into the caller's buffer: the
     * provider fills the CQ's own {@code ibv_wc} array as in {@link #poll(int)}, and each entry is
     * copied into {@code into} field by field; nothing is allocated for a buffer of up to
     * {@value #SCRATCH_ENTRIES} entries.
     */
    @Override
    public int poll(CompletionBuffer into) throws VerbsException {
        ensureOpen();
        into.clear();
        int maxEntries = into.capacity();
        long bytes = (long) maxEntries * WC_SIZE;
        long block = scratch.acquire(bytes);
        if (block == 0) {
            try (NativeMemory own = NativeMemory.allocate(context.library().runtime, bytes)) {
                return pollBuffer(own.address(), maxEntries, into);
            }
        }
        try {
            return pollBuffer(block, maxEntries, into);
        } finally {
            scratch.release();
        }
    }

    /** {@link #poll(CompletionBuffer)} into the zeroed array at {@code wc}, which it leaves zeroed. */
    private int pollBuffer(long wc, int maxEntries, CompletionBuffer into) throws VerbsException {
        int polled = pollZeroed(wc, maxEntries);
        try {
            for (int i = 0; i < polled; i++) {
                long entry = wc + (long) i * WC_SIZE;
                WcStatus status = status(entry);
                WcOpcode opcode = opcode(entry, status);
                int flags = MEMORY.getInt(entry + FLAGS);
                long wrId = MEMORY.getLong(entry + WC_ID);
                int vendorError = MEMORY.getInt(entry + VENDOR_ERR);
                int byteLength = MEMORY.getInt(entry + BYTE_LEN);
                int immData = immData(entry, flags);
                int qpNum = MEMORY.getInt(entry + QP_NUM);
                int srcQp = MEMORY.getInt(entry + SRC_QP);
                NativeScratch.clear(entry, WC_SIZE);
                into.add(wrId, status, opcode, vendorError, byteLength, immData, qpNum, srcQp, flags);
            }
            return polled;
        } catch (VerbsException | RuntimeException e) {
            into.clear();
            NativeScratch.clear(wc, (long) polled * WC_SIZE);
            throw e;
        }
    }

    /**
     * Polls up to {@code maxEntries} into the array at {@code wc}, all zeros; the count polled. The
     * provider writes only the entries it returns, and the caller zeroes those once it has read
     * them, so the array is all zeros again for the next poll without clearing entries no one
     * wrote: an empty poll writes nothing, where clearing the whole array first cost a store per 8
     * bytes asked for. After a failed poll, or more completions than asked, this zeroes the whole
     * array itself.
     */
    private int pollZeroed(long wc, int maxEntries) throws VerbsException {
        int polled = ops.pollCq(address, maxEntries, wc);
        if (polled < 0 || polled > maxEntries) {
            VerbsException failure = polled < 0
                    ? new VerbsException("ibv_poll_cq", Native.errnoOf(polled, 0),
                            "the provider could not poll the CQ", null)
                    : new VerbsException("ibv_poll_cq", Errno.EPROTO.value(), "the provider returned " + polled
                            + " completions for " + maxEntries + " entries", null);
            NativeScratch.clear(wc, (long) maxEntries * WC_SIZE);
            throw failure;
        }
        return polled;
    }

    private static WorkCompletion completion(long wc) throws VerbsException {
        WcStatus status = status(wc);
        int flags = MEMORY.getInt(wc + FLAGS);
        return new WorkCompletion(MEMORY.getLong(wc + WC_ID), status, opcode(wc, status), MEMORY.getInt(wc + VENDOR_ERR),
                MEMORY.getInt(wc + BYTE_LEN), immData(wc, flags), MEMORY.getInt(wc + QP_NUM), MEMORY.getInt(wc + SRC_QP),
                flags);
    }

    private static WcStatus status(long wc) throws VerbsException {
        try {
            return WcStatus.of(MEMORY.getInt(wc + STATUS));
        } catch (IllegalArgumentException e) {
            throw new VerbsException("ibv_poll_cq", Errno.EPROTO.value(), "unknown completion status "
                    + MEMORY.getInt(wc + STATUS), e);
        }
    }

    private static WcOpcode opcode(long wc, WcStatus status) throws VerbsException {
        try {
            return WcOpcode.of(MEMORY.getInt(wc + OPCODE));
        } catch (IllegalArgumentException e) {
            if (status == WcStatus.SUCCESS) {
                throw new VerbsException("ibv_poll_cq", Errno.EPROTO.value(), "unknown completion opcode "
                        + MEMORY.getInt(wc + OPCODE), e);
            }
            // In an error completion the opcode is undefined (verbs.h); only wr_id, status and qp_num count.
            return WcOpcode.SEND;
        }
    }

    /** {@code imm_data}, in host order, when the flags say it is there; else 0. */
    private static int immData(long wc, int flags) {
        return WcFlag.has(flags, WcFlag.WITH_IMM) ? NativeContext.bigEndian(MEMORY.getInt(wc + IMM_DATA)) : 0;
    }

    /** {@code field}'s offset, after checking its width. */
    private static int offset(StructField field, int width) {
        if (field.width != width) {
            throw new IllegalStateException(field + " is " + field.width + " bytes wide, not " + width);
        }
        return field.offset;
    }

    /** {@code ibv_req_notify_cq} through {@code context->ops.req_notify_cq}. */
    @Override
    public void requestNotify(boolean solicitedOnly) throws VerbsException {
        ensureOpen();
        int rc = ops.reqNotifyCq(address, solicitedOnly);
        if (rc != 0) {
            throw new VerbsException("ibv_req_notify_cq", Native.errnoOf(rc, OpsTable.savedErrno()),
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
        scratch.close();
        if (rc != 0) {
            NativeContext.logDestroyFailure("ibv_destroy_cq", rc, saved);
        }
        context.forget(this);
    }
}
