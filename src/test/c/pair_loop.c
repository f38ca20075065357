/*
 * The C side of the native binding's benchmark (NativePairBenchmark): what one ibv_post_send +
 * ibv_poll_cq pair costs when a C program makes the calls. The QP, the CQ and the memory regions
 * are the ones the Java side created through the binding, so both sides reach the very same
 * provider functions (the library's ops table, as verbs.h's inline verbs do) on the same objects.
 * Nothing is linked: ibv_post_send and ibv_poll_cq are inline in <infiniband/verbs.h>.
 */
#include <stdint.h>
#include <string.h>
#include <infiniband/verbs.h>

/*
 * Posts one signaled RDMA WRITE of length bytes (local/lkey to remote/rkey) and polls its
 * completion from cq, count times, reusing one work request as perftest does. Returns count, or
 * -1 - i when pair i failed (the post was refused, no completion came, or it was not a success).
 */
long pair_loop(struct ibv_qp *qp, struct ibv_cq *cq, uint64_t local, uint32_t lkey, uint32_t length,
               uint64_t remote, uint32_t rkey, long count)
{
    struct ibv_sge sge;
    struct ibv_send_wr wr;
    struct ibv_send_wr *bad = NULL;
    struct ibv_wc wc;

    memset(&sge, 0, sizeof(sge));
    sge.addr = local;
    sge.length = length;
    sge.lkey = lkey;
    memset(&wr, 0, sizeof(wr));
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = remote;
    wr.wr.rdma.rkey = rkey;
    for (long i = 0; i < count; i++) {
        wr.wr_id = (uint64_t) i;
        if (ibv_post_send(qp, &wr, &bad) != 0) {
            return -1 - i;
        }
        if (ibv_poll_cq(cq, 1, &wc) != 1 || wc.status != IBV_WC_SUCCESS || wc.wr_id != (uint64_t) i) {
            return -1 - i;
        }
    }
    return count;
}

/* Does nothing: what a call from Java through jffi costs by itself, with post_send's signature. */
int pair_noop(void *qp, void *wr, void *bad_wr)
{
    (void) qp;
    (void) wr;
    (void) bad_wr;
    return 0;
}
