package org.rdmalab.ibverbs;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.LastError;
import com.kenai.jffi.Type;
import jnr.ffi.Pointer;

/**
 * The inline verbs, which libibverbs does not export: their function pointers sit in the
 * {@code struct ibv_context_ops} embedded in every context, and jffi calls them (jnr-ffi has no
 * public way to call a function pointer). Each returns what the provider's function returns.
 * {@code post_send}, {@code post_recv} and {@code poll_cq} report a failure by what they return
 * alone (an errno, or a negative number: their man pages promise nothing about errno), so their
 * calls do not save errno, which costs jffi about 2 ns a call on the hot path;
 * {@code req_notify_cq}'s call saves it, and {@link #savedErrno()} reads it after a failure.
 */
final class OpsTable {

    /** {@code int (*)(struct ibv_cq *, int, struct ibv_wc *)}: poll_cq, errno not saved. */
    private static final CallContext POINTER_INT_POINTER = CallContext.getCallContext(Type.SINT32,
            new Type[] {Type.POINTER, Type.SINT32, Type.POINTER}, CallingConvention.DEFAULT, false);
    /** {@code int (*)(void *, void *, void **)}: post_send and post_recv, errno not saved. */
    private static final CallContext POINTER_POINTER_POINTER = CallContext.getCallContext(Type.SINT32,
            new Type[] {Type.POINTER, Type.POINTER, Type.POINTER}, CallingConvention.DEFAULT, false);
    /** {@code int (*)(struct ibv_cq *, int)}: req_notify_cq. */
    private static final CallContext POINTER_INT = CallContext.getCallContext(Type.SINT32,
            new Type[] {Type.POINTER, Type.SINT32}, CallingConvention.DEFAULT, true);

    private final long pollCq;
    private final long reqNotifyCq;
    private final long postSend;
    private final long postRecv;

    /** Reads the four function pointers from {@code context->ops}. */
    OpsTable(Pointer context) {
        pollCq = StructField.CONTEXT_OPS_POLL_CQ.getLong(context);
        reqNotifyCq = StructField.CONTEXT_OPS_REQ_NOTIFY_CQ.getLong(context);
        postSend = StructField.CONTEXT_OPS_POST_SEND.getLong(context);
        postRecv = StructField.CONTEXT_OPS_POST_RECV.getLong(context);
    }

    /** {@code ibv_poll_cq(cq, num_entries, wc)}: the number of completions, or negative. */
    int pollCq(long cq, int entries, long wc) {
        check(pollCq, "poll_cq");
        return (int) Invoker.getInstance().invokeN3(POINTER_INT_POINTER, pollCq, cq, entries, wc);
    }

    /** {@code ibv_req_notify_cq(cq, solicited_only)}: 0 or an errno. */
    int reqNotifyCq(long cq, boolean solicitedOnly) {
        check(reqNotifyCq, "req_notify_cq");
        return (int) Invoker.getInstance().invokeN2(POINTER_INT, reqNotifyCq, cq, solicitedOnly ? 1 : 0);
    }

    /** {@code ibv_post_send(qp, wr, bad_wr)}: 0 or an errno, with {@code *bad_wr} set. */
    int postSend(long qp, long wr, long badWr) {
        check(postSend, "post_send");
        return (int) Invoker.getInstance().invokeN3(POINTER_POINTER_POINTER, postSend, qp, wr, badWr);
    }

    /** {@code ibv_post_recv(qp, wr, bad_wr)}: 0 or an errno, with {@code *bad_wr} set. */
    int postRecv(long qp, long wr, long badWr) {
        check(postRecv, "post_recv");
        return (int) Invoker.getInstance().invokeN3(POINTER_POINTER_POINTER, postRecv, qp, wr, badWr);
    }

    /**
     * The errno jffi saved right after this thread's last {@link #reqNotifyCq}. Read it only when
     * that call failed and before this thread makes another: a success costs no second native call.
     */
    static int savedErrno() {
        return LastError.getInstance().get();
    }

    private static void check(long function, String name) {
        if (function == 0) {
            throw new IllegalStateException("the provider's ops table has no " + name);
        }
    }
}
