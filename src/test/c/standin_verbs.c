/*
 * A stand-in for libibverbs, compiled against the real <infiniband/verbs.h>, so the native
 * backend can be tested on machines without RDMA. It offers two devices and the functions the
 * backend binds, with the inline verbs (post_send, post_recv, poll_cq, req_notify_cq) reached
 * through the context's ops table as in the real library. Its QPs form an in-process loopback:
 * a send-queue request reaches the QP named by dest_qp_num, RDMA WRITE/READ copy between
 * registered buffers (rkey and range checked), SEND consumes a posted receive, and completions are
 * pushed to the CQs. Every created object is counted; standin_live_objects() tells how many live.
 * One lock serializes every entry point (two peers in one process call it from two threads).
 * RDMALAB_STANDIN_ERRNO makes ibv_get_device_list fail with that errno. standin_sparse_errors(1)
 * makes poll_cq write only the fields verbs.h defines for an error completion.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <infiniband/verbs.h>

/* One lock over the whole stand-in: two peers in one process call it from two threads. LOCKED
 * holds it until the function returns. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void unlock(int *unused)
{
    (void) unused;
    pthread_mutex_unlock(&lock);
}

#define LOCKED pthread_mutex_lock(&lock); __attribute__((cleanup(unlock))) int held_ = 1; (void) held_

#undef ibv_query_port
#undef ibv_reg_mr

#define MAX_OBJECTS 64

struct standin_cq {
    struct ibv_cq cq;
    struct ibv_wc *entries;
    int head;
    int count;
    int armed;
    int unacked;
};

struct standin_qp {
    struct ibv_qp qp;
    struct ibv_qp_attr attr;
    struct ibv_qp_cap cap;
    int sq_sig_all;
    struct ibv_recv_wr recvs[16];
    struct ibv_sge recv_sges[16];
    int recv_count;
};

static struct ibv_device devices[2];
static struct ibv_device *list[3];
static int live;
static struct ibv_mr *mrs[MAX_OBJECTS];
static struct standin_qp *qps[MAX_OBJECTS];
static uint32_t next_qp_num = 0x11;
static uint32_t next_key = 0x100;

int standin_live_objects(void)
{
    LOCKED;
    return live;
}

struct ibv_device **ibv_get_device_list(int *num_devices)
{
    LOCKED;
    const char *fail = getenv("RDMALAB_STANDIN_ERRNO");
    if (fail != NULL) {
        errno = atoi(fail);
        return NULL;
    }
    strcpy(devices[0].name, "rxe0");
    strcpy(devices[1].name, "mlx5_0");
    list[0] = &devices[0];
    list[1] = &devices[1];
    list[2] = NULL;
    if (num_devices != NULL) {
        *num_devices = 2;
    }
    return list;
}

void ibv_free_device_list(struct ibv_device **l)
{
    LOCKED;
    (void) l;
}

const char *ibv_get_device_name(struct ibv_device *device)
{
    LOCKED;
    return device->name;
}

/* ---- the ops table ------------------------------------------------------------------------ */

static int raise_event(struct ibv_cq *cq);

static int push(struct ibv_cq *cq, const struct ibv_wc *wc)
{
    struct standin_cq *s = (struct standin_cq *) cq;
    if (s->count == cq->cqe) {
        return ENOSPC;
    }
    s->entries[(s->head + s->count) % cq->cqe] = *wc;
    s->count++;
    if (s->armed && cq->channel != NULL) {
        s->armed = 0;
        return raise_event(cq);
    }
    return 0;
}

/* Set by standin_sparse_errors: error completions are written field by field. */
static int sparse_errors;

/*
 * With on set, poll_cq writes an error completion's wr_id, status, vendor_err and qp_num only
 * (what verbs.h defines for one) and leaves the rest of the caller's ibv_wc as it was, as a
 * provider may; a successful completion is still written whole.
 */
void standin_sparse_errors(int on)
{
    LOCKED;
    sparse_errors = on;
}

static int standin_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
    LOCKED;
    struct standin_cq *s = (struct standin_cq *) cq;
    int n = 0;
    while (n < num_entries && s->count > 0) {
        const struct ibv_wc *next = &s->entries[s->head];
        if (sparse_errors && next->status != IBV_WC_SUCCESS) {
            wc[n].wr_id = next->wr_id;
            wc[n].status = next->status;
            wc[n].vendor_err = next->vendor_err;
            wc[n].qp_num = next->qp_num;
        } else {
            wc[n] = *next;
        }
        n++;
        s->head = (s->head + 1) % cq->cqe;
        s->count--;
    }
    return n;
}

static int standin_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
    LOCKED;
    (void) solicited_only;
    ((struct standin_cq *) cq)->armed = 1;
    return 0;
}

static struct ibv_mr *mr_by_key(uint32_t key, uint64_t addr, uint64_t length, int remote)
{
    for (int i = 0; i < MAX_OBJECTS; i++) {
        struct ibv_mr *mr = mrs[i];
        if (mr != NULL && (remote ? mr->rkey : mr->lkey) == key) {
            uint64_t start = (uintptr_t) mr->addr;
            return addr >= start && addr + length <= start + mr->length ? mr : NULL;
        }
    }
    return NULL;
}

static struct standin_qp *qp_by_num(uint32_t num)
{
    for (int i = 0; i < MAX_OBJECTS; i++) {
        if (qps[i] != NULL && qps[i]->qp.qp_num == num) {
            return qps[i];
        }
    }
    return NULL;
}

/* Copies the gather list to (or, for READ, from) dest, checking every lkey. */
static int gather(const struct ibv_send_wr *wr, char *dest, int to_dest, uint32_t *length)
{
    uint32_t done = 0;
    for (int i = 0; i < wr->num_sge; i++) {
        const struct ibv_sge *sge = &wr->sg_list[i];
        if (mr_by_key(sge->lkey, sge->addr, sge->length, 0) == NULL) {
            return IBV_WC_LOC_PROT_ERR;
        }
        if (to_dest) {
            memcpy(dest + done, (void *) (uintptr_t) sge->addr, sge->length);
        } else {
            memcpy((void *) (uintptr_t) sge->addr, dest + done, sge->length);
        }
        done += sge->length;
    }
    *length = done;
    return IBV_WC_SUCCESS;
}

static uint32_t total(const struct ibv_send_wr *wr)
{
    uint32_t sum = 0;
    for (int i = 0; i < wr->num_sge; i++) {
        sum += wr->sg_list[i].length;
    }
    return sum;
}

/* Delivers a SEND or WRITE_WITH_IMM to the peer's first posted receive. */
static int receive(struct standin_qp *peer, const struct ibv_send_wr *wr, uint32_t length, int with_payload)
{
    struct ibv_wc wc;
    if (peer->recv_count == 0) {
        return IBV_WC_RNR_RETRY_EXC_ERR;
    }
    struct ibv_recv_wr recv = peer->recvs[0];
    struct ibv_sge sge = peer->recv_sges[0];
    memmove(&peer->recvs[0], &peer->recvs[1], sizeof(peer->recvs[0]) * (peer->recv_count - 1));
    memmove(&peer->recv_sges[0], &peer->recv_sges[1], sizeof(peer->recv_sges[0]) * (peer->recv_count - 1));
    peer->recv_count--;
    memset(&wc, 0, sizeof(wc));
    wc.wr_id = recv.wr_id;
    wc.qp_num = peer->qp.qp_num;
    wc.byte_len = length;
    if (with_payload) {
        if (length > sge.length) {
            wc.status = IBV_WC_LOC_LEN_ERR;
            push(peer->qp.recv_cq, &wc);
            return IBV_WC_REM_INV_REQ_ERR;
        }
        uint32_t copied;
        int status = gather(wr, (char *) (uintptr_t) sge.addr, 1, &copied);
        if (status != IBV_WC_SUCCESS) {
            return status;
        }
    }
    wc.opcode = with_payload ? IBV_WC_RECV : IBV_WC_RECV_RDMA_WITH_IMM;
    if (wr->opcode == IBV_WR_SEND_WITH_IMM || wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
        wc.wc_flags = IBV_WC_WITH_IMM;
        wc.imm_data = wr->imm_data;
    }
    push(peer->qp.recv_cq, &wc);
    return IBV_WC_SUCCESS;
}

static int execute(struct standin_qp *self, const struct ibv_send_wr *wr, struct ibv_wc *wc)
{
    struct standin_qp *peer = qp_by_num(self->attr.dest_qp_num);
    uint32_t length = total(wr);
    wc->byte_len = length;
    if (peer == NULL || peer->qp.state < IBV_QPS_RTR) {
        return IBV_WC_RETRY_EXC_ERR;
    }
    switch (wr->opcode) {
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM: {
        wc->opcode = IBV_WC_RDMA_WRITE;
        struct ibv_mr *target = mr_by_key(wr->wr.rdma.rkey, wr->wr.rdma.remote_addr, length, 1);
        if (target == NULL || !(target->handle & IBV_ACCESS_REMOTE_WRITE)) {
            return IBV_WC_REM_ACCESS_ERR;
        }
        uint32_t copied;
        int status = gather(wr, (char *) (uintptr_t) wr->wr.rdma.remote_addr, 1, &copied);
        if (status != IBV_WC_SUCCESS || wr->opcode == IBV_WR_RDMA_WRITE) {
            return status;
        }
        return receive(peer, wr, length, 0);
    }
    case IBV_WR_RDMA_READ: {
        wc->opcode = IBV_WC_RDMA_READ;
        struct ibv_mr *source = mr_by_key(wr->wr.rdma.rkey, wr->wr.rdma.remote_addr, length, 1);
        if (source == NULL || !(source->handle & IBV_ACCESS_REMOTE_READ)) {
            return IBV_WC_REM_ACCESS_ERR;
        }
        uint32_t copied;
        return gather(wr, (char *) (uintptr_t) wr->wr.rdma.remote_addr, 0, &copied);
    }
    case IBV_WR_SEND:
    case IBV_WR_SEND_WITH_IMM:
        wc->opcode = IBV_WC_SEND;
        return receive(peer, wr, length, 1);
    default:
        return IBV_WC_REM_INV_REQ_ERR;
    }
}

static int standin_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
    LOCKED;
    struct standin_qp *self = (struct standin_qp *) qp;
    for (; wr != NULL; wr = wr->next) {
        if (qp->state != IBV_QPS_RTS || wr->num_sge > (int) self->cap.max_send_sge) {
            *bad_wr = wr;
            return EINVAL;
        }
        struct ibv_wc wc;
        memset(&wc, 0, sizeof(wc));
        wc.wr_id = wr->wr_id;
        wc.qp_num = qp->qp_num;
        wc.status = execute(self, wr, &wc);
        if (wc.status != IBV_WC_SUCCESS || self->sq_sig_all || (wr->send_flags & IBV_SEND_SIGNALED)) {
            push(qp->send_cq, &wc);
        }
        if (wc.status != IBV_WC_SUCCESS) {
            qp->state = IBV_QPS_ERR;
        }
    }
    return 0;
}

static int standin_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
    LOCKED;
    struct standin_qp *self = (struct standin_qp *) qp;
    for (; wr != NULL; wr = wr->next) {
        if (qp->state == IBV_QPS_RESET || self->recv_count == 16 || wr->num_sge != 1
                || self->recv_count >= (int) self->cap.max_recv_wr) {
            *bad_wr = wr;
            return self->recv_count >= (int) self->cap.max_recv_wr ? ENOMEM : EINVAL;
        }
        self->recvs[self->recv_count] = *wr;
        self->recv_sges[self->recv_count] = wr->sg_list[0];
        self->recv_count++;
    }
    return 0;
}

/* ---- device, port, GID ---------------------------------------------------------------------- */

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
    LOCKED;
    struct ibv_context *context = calloc(1, sizeof(*context));
    if (context == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    context->device = device;
    context->num_comp_vectors = 1;
    context->ops.poll_cq = standin_poll_cq;
    context->ops.req_notify_cq = standin_req_notify_cq;
    context->ops.post_send = standin_post_send;
    context->ops.post_recv = standin_post_recv;
    live++;
    return context;
}

int ibv_close_device(struct ibv_context *context)
{
    LOCKED;
    free(context);
    live--;
    return 0;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
    LOCKED;
    memset(attr, 0, sizeof(*attr));
    strcpy(attr->fw_ver, "44.0.0");
    attr->node_guid = htobe64(0x02007ffffe000001ULL);
    attr->sys_image_guid = attr->node_guid;
    attr->max_mr_size = 1ULL << 40;
    attr->vendor_id = 0xffffff;
    attr->max_qp = 1024;
    attr->max_qp_wr = 16;
    attr->max_sge = 4;
    attr->max_cq = 64;
    attr->max_cqe = 256;
    attr->max_mr = MAX_OBJECTS;
    attr->max_pd = 64;
    attr->max_qp_rd_atom = 16;
    attr->max_qp_init_rd_atom = 16;
    attr->phys_port_cnt = strcmp(context->device->name, "rxe0") == 0 ? 1 : 2;
    return 0;
}

/* The exported symbol fills the first 48 bytes (up to port_cap_flags2), as libibverbs does. */
int ibv_query_port(struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *attr)
{
    LOCKED;
    struct ibv_port_attr full;
    int ports = strcmp(context->device->name, "rxe0") == 0 ? 1 : 2;
    if (port_num < 1 || port_num > ports) {
        return EINVAL;
    }
    memset(&full, 0, sizeof(full));
    if (port_num == 2) {
        /* mlx5_0's second port: an InfiniBand port that is down, with an empty GID table */
        full.state = IBV_PORT_DOWN;
        full.max_mtu = IBV_MTU_4096;
        full.active_mtu = IBV_MTU_4096;
        full.lid = 7;
        full.phys_state = 3;
        full.link_layer = IBV_LINK_LAYER_INFINIBAND;
        memcpy(attr, &full, offsetof(struct ibv_port_attr, port_cap_flags2));
        return 0;
    }
    full.state = IBV_PORT_ACTIVE;
    full.max_mtu = IBV_MTU_4096;
    full.active_mtu = IBV_MTU_1024;
    full.gid_tbl_len = 4;
    full.max_msg_sz = 0x80000000u;
    full.pkey_tbl_len = 1;
    full.active_width = 1;
    full.active_speed = 2;
    full.phys_state = 5;
    full.link_layer = IBV_LINK_LAYER_ETHERNET;
    memcpy(attr, &full, offsetof(struct ibv_port_attr, port_cap_flags2));
    return 0;
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
                      struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
    LOCKED;
    static const uint8_t link_local[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x00, 0xff, 0xfe, 0, 0, 1};
    static const uint8_t mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 100};
    (void) context;
    if (flags != 0 || entry_size != sizeof(*entry) || port_num != 1 || gid_index >= 4) {
        return EINVAL;
    }
    if (gid_index == 2) {
        return ENODATA;
    }
    memset(entry, 0, sizeof(*entry));
    memcpy(entry->gid.raw, gid_index == 3 ? mapped : link_local, 16);
    entry->gid_index = gid_index;
    entry->port_num = port_num;
    entry->gid_type = gid_index == 0 ? IBV_GID_TYPE_ROCE_V1 : IBV_GID_TYPE_ROCE_V2;
    entry->ndev_ifindex = 1;
    return 0;
}

/* The older entry point, as libibverbs keeps it: an empty entry reads as a zero GID. */
int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
    struct ibv_gid_entry entry;
    int rc;
    if (index < 0) {
        errno = EINVAL;
        return -1;
    }
    rc = _ibv_query_gid_ex(context, port_num, (uint32_t) index, &entry, 0, sizeof(entry));
    if (rc == ENODATA) {
        memset(gid, 0, sizeof(*gid));
        return 0;
    }
    if (rc) {
        errno = rc;
        return -1;
    }
    *gid = entry.gid;
    return 0;
}

/* ---- PD, MR -------------------------------------------------------------------------------- */

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
    LOCKED;
    static uint32_t next_handle = 1;
    struct ibv_pd *pd = calloc(1, sizeof(*pd));
    pd->context = context;
    pd->handle = next_handle++;
    live++;
    return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
    LOCKED;
    for (int i = 0; i < MAX_OBJECTS; i++) {
        if ((mrs[i] != NULL && mrs[i]->pd == pd) || (qps[i] != NULL && qps[i]->qp.pd == pd)) {
            return EBUSY;
        }
    }
    free(pd);
    live--;
    return 0;
}

/* The MR's handle keeps the access flags, so a remote access can be checked. */
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
    LOCKED;
    if ((access & IBV_ACCESS_REMOTE_WRITE) && !(access & IBV_ACCESS_LOCAL_WRITE)) {
        errno = EINVAL;
        return NULL;
    }
    for (int i = 0; i < MAX_OBJECTS; i++) {
        if (mrs[i] == NULL) {
            struct ibv_mr *mr = calloc(1, sizeof(*mr));
            mr->context = pd->context;
            mr->pd = pd;
            mr->addr = addr;
            mr->length = length;
            mr->handle = (uint32_t) access;
            mr->lkey = next_key++;
            mr->rkey = next_key++;
            mrs[i] = mr;
            live++;
            return mr;
        }
    }
    errno = ENOMEM;
    return NULL;
}

/* What the ibv_reg_mr macro calls when the access flags are not a compile-time constant. */
struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access)
{
    if (iova != (uintptr_t) addr) {
        errno = EINVAL; /* the stand-in maps no virtual offsets */
        return NULL;
    }
    return ibv_reg_mr(pd, addr, length, (int) access);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
    LOCKED;
    for (int i = 0; i < MAX_OBJECTS; i++) {
        if (mrs[i] == mr) {
            mrs[i] = NULL;
            free(mr);
            live--;
            return 0;
        }
    }
    return EINVAL;
}

/* ---- channel, CQ --------------------------------------------------------------------------- */

/* The channel is a pipe: channel->fd is its read end (what callers poll), and each event is the
 * ibv_cq pointer written to the write end, kept just after the struct. */
static int *write_end(struct ibv_comp_channel *channel)
{
    return (int *) (channel + 1);
}

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
    LOCKED;
    int fds[2];
    if (pipe(fds) != 0) {
        return NULL;
    }
    struct ibv_comp_channel *channel = calloc(1, sizeof(*channel) + sizeof(int));
    channel->context = context;
    channel->fd = fds[0];
    *write_end(channel) = fds[1];
    live++;
    return channel;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
    LOCKED;
    close(channel->fd);
    close(*write_end(channel));
    free(channel);
    live--;
    return 0;
}

static int raise_event(struct ibv_cq *cq)
{
    return write(*write_end(cq->channel), &cq, sizeof(cq)) == sizeof(cq) ? 0 : EIO;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
                             struct ibv_comp_channel *channel, int comp_vector)
{
    LOCKED;
    if (cqe < 1 || cqe > 256 || comp_vector != 0) {
        errno = EINVAL;
        return NULL;
    }
    struct standin_cq *s = calloc(1, sizeof(*s));
    s->cq.context = context;
    s->cq.channel = channel;
    s->cq.cq_context = cq_context;
    s->cq.cqe = cqe + 1; /* like real providers, grant at least what was asked */
    s->entries = calloc(s->cq.cqe, sizeof(struct ibv_wc));
    live++;
    return &s->cq;
}

/* Refuses while a QP uses the CQ or events are unacknowledged (libibverbs would wait forever). */
int ibv_destroy_cq(struct ibv_cq *cq)
{
    LOCKED;
    for (int i = 0; i < MAX_OBJECTS; i++) {
        if (qps[i] != NULL && (qps[i]->qp.send_cq == cq || qps[i]->qp.recv_cq == cq)) {
            return EBUSY;
        }
    }
    if (((struct standin_cq *) cq)->unacked != 0) {
        return EBUSY;
    }
    free(((struct standin_cq *) cq)->entries);
    free(cq);
    live--;
    return 0;
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
    struct ibv_cq *event;
    if (read(channel->fd, &event, sizeof(event)) != sizeof(event)) {
        return -1;
    }
    LOCKED;
    ((struct standin_cq *) event)->unacked++;
    *cq = event;
    *cq_context = event->cq_context;
    return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
    LOCKED;
    ((struct standin_cq *) cq)->unacked -= (int) nevents;
}

/* ---- QP -------------------------------------------------------------------------------------- */

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *init)
{
    LOCKED;
    if (init->send_cq == NULL || init->recv_cq == NULL || init->srq != NULL
            || (init->qp_type != IBV_QPT_RC && init->qp_type != IBV_QPT_UD)
            || init->cap.max_send_wr > 16 || init->cap.max_recv_wr > 16 || init->cap.max_send_sge > 4
            || init->cap.max_recv_sge > 4) {
        errno = EINVAL;
        return NULL;
    }
    for (int i = 0; i < MAX_OBJECTS; i++) {
        if (qps[i] == NULL) {
            struct standin_qp *s = calloc(1, sizeof(*s));
            s->qp.context = pd->context;
            s->qp.qp_context = init->qp_context;
            s->qp.pd = pd;
            s->qp.send_cq = init->send_cq;
            s->qp.recv_cq = init->recv_cq;
            s->qp.handle = (uint32_t) i;
            s->qp.qp_num = next_qp_num++;
            s->qp.state = IBV_QPS_RESET;
            s->qp.qp_type = init->qp_type;
            s->sq_sig_all = init->sq_sig_all;
            init->cap.max_inline_data = 64; /* granted capabilities are written back */
            s->cap = init->cap;
            s->attr.cap = init->cap;
            qps[i] = s;
            live++;
            return &s->qp;
        }
    }
    errno = ENOMEM;
    return NULL;
}

/* The RC column of the QP state table, reduced to what the tests need. */
static int required(enum ibv_qp_state from, enum ibv_qp_state to)
{
    if (to == IBV_QPS_RESET || to == IBV_QPS_ERR) {
        return 0;
    }
    if (from == IBV_QPS_RESET && to == IBV_QPS_INIT) {
        return IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
    }
    if (from == IBV_QPS_INIT && to == IBV_QPS_RTR) {
        return IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC
                | IBV_QP_MIN_RNR_TIMER;
    }
    if (from == IBV_QPS_RTR && to == IBV_QPS_RTS) {
        return IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
    }
    return -1;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
    LOCKED;
    struct standin_qp *s = (struct standin_qp *) qp;
    enum ibv_qp_state to = (mask & IBV_QP_STATE) ? attr->qp_state : qp->state;
    int need = required(qp->state, to);
    if (need < 0 || (mask & need) != need) {
        return EINVAL;
    }
    if ((mask & IBV_QP_PORT) && attr->port_num != 1) {
        return EINVAL;
    }
    /* RoCE: an address vector needs a GRH with a GID index the table has. */
    if ((mask & IBV_QP_AV) && (!attr->ah_attr.is_global || attr->ah_attr.grh.sgid_index >= 4
            || attr->ah_attr.grh.sgid_index == 2 || attr->ah_attr.port_num != 1)) {
        return EINVAL;
    }
    if ((mask & IBV_QP_PATH_MTU) && attr->path_mtu > IBV_MTU_1024) {
        return EINVAL;
    }
    if (mask & IBV_QP_ACCESS_FLAGS) s->attr.qp_access_flags = attr->qp_access_flags;
    if (mask & IBV_QP_PKEY_INDEX) s->attr.pkey_index = attr->pkey_index;
    if (mask & IBV_QP_PORT) s->attr.port_num = attr->port_num;
    if (mask & IBV_QP_AV) s->attr.ah_attr = attr->ah_attr;
    if (mask & IBV_QP_PATH_MTU) s->attr.path_mtu = attr->path_mtu;
    if (mask & IBV_QP_DEST_QPN) s->attr.dest_qp_num = attr->dest_qp_num;
    if (mask & IBV_QP_RQ_PSN) s->attr.rq_psn = attr->rq_psn;
    if (mask & IBV_QP_MAX_DEST_RD_ATOMIC) s->attr.max_dest_rd_atomic = attr->max_dest_rd_atomic;
    if (mask & IBV_QP_MIN_RNR_TIMER) s->attr.min_rnr_timer = attr->min_rnr_timer;
    if (mask & IBV_QP_TIMEOUT) s->attr.timeout = attr->timeout;
    if (mask & IBV_QP_RETRY_CNT) s->attr.retry_cnt = attr->retry_cnt;
    if (mask & IBV_QP_RNR_RETRY) s->attr.rnr_retry = attr->rnr_retry;
    if (mask & IBV_QP_SQ_PSN) s->attr.sq_psn = attr->sq_psn;
    if (mask & IBV_QP_MAX_QP_RD_ATOMIC) s->attr.max_rd_atomic = attr->max_rd_atomic;
    if (to == IBV_QPS_RESET) {
        s->recv_count = 0;
    }
    qp->state = to;
    return 0;
}

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask, struct ibv_qp_init_attr *init)
{
    LOCKED;
    struct standin_qp *s = (struct standin_qp *) qp;
    (void) mask;
    *attr = s->attr;
    attr->qp_state = qp->state;
    attr->cur_qp_state = qp->state;
    attr->cap = s->cap;
    memset(init, 0, sizeof(*init));
    init->send_cq = qp->send_cq;
    init->recv_cq = qp->recv_cq;
    init->cap = s->cap;
    init->qp_type = qp->qp_type;
    init->sq_sig_all = s->sq_sig_all;
    return 0;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
    LOCKED;
    for (int i = 0; i < MAX_OBJECTS; i++) {
        if (qps[i] == (struct standin_qp *) qp) {
            qps[i] = NULL;
            free(qp);
            live--;
            return 0;
        }
    }
    return EINVAL;
}
