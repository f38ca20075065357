/*
 * seed_demo: the seed article's C program, rebuilt from its structure (struct config, struct
 * resources, the packed 34-byte cm_con_data_t, one-byte syncs, poll_completion with
 * MAX_POLL_CQ_TIMEOUT) against the real <infiniband/verbs.h>, for the rxe VM tests. It runs the
 * rc-example sequence of docs/protocol.md: the server SENDs "ServerSend", the client READs the
 * server's buffer and RDMA-WRITEs "HelloWorld" into it, the server prints it.
 *
 *   seed_demo [-g gid_idx] [-p tcp_port] <local_ip> <ib_dev> [<server_ip>]
 *
 * The seed's default gid_idx is -1 (no GRH), which RoCE refuses at RTR; the tests pass -g.
 * Exit 0 when every step worked; each failure prints one line naming the verb and errno.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define MAX_POLL_CQ_TIMEOUT 2000 /* ms, as in the seed */
#define MSG "HelloWorld"
#define MSG_SIZE (strlen(MSG) + 1)
#define SERVER_SEND "ServerSend"

struct config {
    const char *dev;
    const char *local_addr;
    const char *server_name; /* NULL: this is the server */
    int port;
    int ib_port;
    int gid_idx;
} config = { NULL, NULL, NULL, 12025, 1, -1 };

struct cm_con_data_t {
    uint64_t addr;
    uint32_t rkey;
    uint32_t qp_num;
    uint16_t lid;
    uint8_t gid[16];
} __attribute__((packed));

_Static_assert(sizeof(struct cm_con_data_t) == 34, "the seed's block is 34 bytes");

struct resources {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    char *buf;
    int sock;
    struct ibv_port_attr port_attr;
    struct cm_con_data_t remote;
};

static uint64_t swap64(uint64_t v)
{
    if (htonl(1) == 1) {
        return v;
    }
    return ((uint64_t)ntohl((uint32_t)(v & 0xffffffffu)) << 32) | ntohl((uint32_t)(v >> 32));
}

static int fail(const char *what, int err)
{
    fprintf(stderr, "seed_demo: %s failed: %s (%d)\n", what, strerror(err), err);
    return -1;
}

/* Server: listen on local_addr:port and accept one client; client: connect to the server. */
static int sock_connect(void)
{
    struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
    struct addrinfo *res;
    char port[8];
    int fd = -1, one = 1;
    struct timeval tv = { .tv_sec = 600, .tv_usec = 0 }; /* a JVM peer in an emulated VM starts slowly */

    snprintf(port, sizeof port, "%d", config.port);
    if (getaddrinfo(config.server_name ? config.server_name : config.local_addr, port, &hints, &res) != 0) {
        fprintf(stderr, "seed_demo: getaddrinfo failed\n");
        return -1;
    }
    fd = socket(res->ai_family, res->ai_socktype, 0);
    if (fd < 0) {
        freeaddrinfo(res);
        return fail("socket", errno);
    }
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (config.server_name) {
        int tries;
        for (tries = 0; tries < 120; tries++) { /* the server may still be starting */
            if (connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
                break;
            }
            close(fd);
            usleep(500000);
            fd = socket(res->ai_family, res->ai_socktype, 0);
        }
        if (tries == 120) {
            freeaddrinfo(res);
            close(fd);
            return fail("connect", errno);
        }
    } else {
        int listener = fd;
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(listener, res->ai_addr, res->ai_addrlen) || listen(listener, 1)) {
            freeaddrinfo(res);
            close(listener);
            return fail("bind/listen", errno);
        }
        printf("waiting on port %d\n", config.port);
        fflush(stdout);
        fd = accept(listener, NULL, NULL);
        close(listener);
        if (fd < 0) {
            freeaddrinfo(res);
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                fprintf(stderr, "seed_demo: no client connected within %ld s\n", (long)tv.tv_sec);
                return -1;
            }
            return fail("accept", errno);
        }
    }
    freeaddrinfo(res);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    printf("TCP connection was established\n");
    return fd;
}

/* Writes size bytes, then reads size bytes from the peer (the seed's sock_sync_data). */
static int sock_sync_data(int sock, int size, const void *local, void *remote)
{
    int done = 0, n;
    if (write(sock, local, size) != size) {
        return fail("write to the peer", errno);
    }
    while (done < size) {
        n = read(sock, (char *)remote + done, size - done);
        if (n <= 0) {
            return fail("read from the peer", n == 0 ? ECONNRESET : errno);
        }
        done += n;
    }
    return 0;
}

static int sync_byte(struct resources *res, char c)
{
    char got;
    if (sock_sync_data(res->sock, 1, &c, &got)) {
        return -1;
    }
    printf("sync '%c' -> peer sent '%c'\n", c, got);
    return 0;
}

/* Busy-polls one completion for up to MAX_POLL_CQ_TIMEOUT ms, as the seed's poll_completion. */
static int poll_completion(struct resources *res)
{
    struct ibv_wc wc;
    struct timeval tv;
    unsigned long start, now;
    int n;
    gettimeofday(&tv, NULL);
    start = tv.tv_sec * 1000 + tv.tv_usec / 1000;
    do {
        n = ibv_poll_cq(res->cq, 1, &wc);
        gettimeofday(&tv, NULL);
        now = tv.tv_sec * 1000 + tv.tv_usec / 1000;
    } while (n == 0 && now - start < MAX_POLL_CQ_TIMEOUT);
    if (n < 0) {
        return fail("ibv_poll_cq", -n);
    }
    if (n == 0) {
        fprintf(stderr, "seed_demo: completion wasn't found in the CQ after timeout\n");
        return -1;
    }
    printf("completion was found in CQ with status 0x%x (%s) opcode %d byte_len %u\n", wc.status,
           ibv_wc_status_str(wc.status), wc.opcode, wc.byte_len);
    if (wc.status != IBV_WC_SUCCESS) {
        fprintf(stderr, "seed_demo: got bad completion with status 0x%x, vendor syndrome 0x%x\n", wc.status,
                wc.vendor_err);
        return -1;
    }
    return 0;
}

static int post(struct resources *res, enum ibv_wr_opcode opcode)
{
    struct ibv_sge sge = { .addr = (uintptr_t)res->buf, .length = MSG_SIZE, .lkey = res->mr->lkey };
    struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = opcode, .send_flags = IBV_SEND_SIGNALED };
    struct ibv_send_wr *bad;
    int rc;
    if (opcode != IBV_WR_SEND) {
        wr.wr.rdma.remote_addr = res->remote.addr;
        wr.wr.rdma.rkey = res->remote.rkey;
    }
    rc = ibv_post_send(res->qp, &wr, &bad);
    if (rc) {
        return fail("ibv_post_send", rc);
    }
    printf("%s was posted\n", opcode == IBV_WR_SEND ? "Send Request" : opcode == IBV_WR_RDMA_READ
           ? "RDMA Read Request" : "RDMA Write Request");
    return 0;
}

static int post_receive(struct resources *res)
{
    struct ibv_sge sge = { .addr = (uintptr_t)res->buf, .length = MSG_SIZE, .lkey = res->mr->lkey };
    struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
    struct ibv_recv_wr *bad;
    int rc = ibv_post_recv(res->qp, &wr, &bad);
    if (rc) {
        return fail("ibv_post_recv", rc);
    }
    printf("Receive Request was posted\n");
    return 0;
}

static int resources_create(struct resources *res)
{
    struct ibv_device **list;
    int i, count, access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
    struct ibv_qp_init_attr qp_init = { 0 };

    list = ibv_get_device_list(&count);
    if (!list) {
        return fail("ibv_get_device_list", errno);
    }
    for (i = 0; i < count; i++) {
        if (!strcmp(ibv_get_device_name(list[i]), config.dev)) {
            res->ctx = ibv_open_device(list[i]);
            break;
        }
    }
    ibv_free_device_list(list);
    if (!res->ctx) {
        fprintf(stderr, "seed_demo: IB device %s wasn't found or could not be opened\n", config.dev);
        return -1;
    }
    if (ibv_query_port(res->ctx, config.ib_port, &res->port_attr)) {
        return fail("ibv_query_port", errno);
    }
    res->pd = ibv_alloc_pd(res->ctx);
    if (!res->pd) {
        return fail("ibv_alloc_pd", errno);
    }
    res->cq = ibv_create_cq(res->ctx, 1, NULL, NULL, 0);
    if (!res->cq) {
        return fail("ibv_create_cq", errno);
    }
    res->buf = calloc(1, MSG_SIZE);
    if (!res->buf) {
        return fail("calloc", ENOMEM);
    }
    if (!config.server_name) {
        strcpy(res->buf, SERVER_SEND);
    }
    res->mr = ibv_reg_mr(res->pd, res->buf, MSG_SIZE, access);
    if (!res->mr) {
        return fail("ibv_reg_mr", errno);
    }
    qp_init.qp_type = IBV_QPT_RC;
    qp_init.sq_sig_all = 1;
    qp_init.send_cq = res->cq;
    qp_init.recv_cq = res->cq;
    qp_init.cap.max_send_wr = 1;
    qp_init.cap.max_recv_wr = 1;
    qp_init.cap.max_send_sge = 1;
    qp_init.cap.max_recv_sge = 1;
    res->qp = ibv_create_qp(res->pd, &qp_init);
    if (!res->qp) {
        return fail("ibv_create_qp", errno);
    }
    printf("QP was created, QP number=0x%x\n", res->qp->qp_num);
    return 0;
}

static int connect_qp(struct resources *res)
{
    struct cm_con_data_t local = { 0 }, remote;
    union ibv_gid my_gid;
    struct ibv_qp_attr attr;
    int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE, rc;

    memset(&my_gid, 0, sizeof my_gid);
    if (config.gid_idx >= 0 && ibv_query_gid(res->ctx, config.ib_port, config.gid_idx, &my_gid)) {
        return fail("ibv_query_gid", errno);
    }
    local.addr = swap64((uintptr_t)res->buf);
    local.rkey = htonl(res->mr->rkey);
    local.qp_num = htonl(res->qp->qp_num);
    local.lid = htons(res->port_attr.lid);
    memcpy(local.gid, &my_gid, 16);
    if (sock_sync_data(res->sock, sizeof local, &local, &remote)) {
        return -1;
    }
    res->remote.addr = swap64(remote.addr);
    res->remote.rkey = ntohl(remote.rkey);
    res->remote.qp_num = ntohl(remote.qp_num);
    res->remote.lid = ntohs(remote.lid);
    memcpy(res->remote.gid, remote.gid, 16);
    printf("Remote address = 0x%llx\nRemote rkey = 0x%x\nRemote QP number = 0x%x\nRemote LID = 0x%x\n",
           (unsigned long long)res->remote.addr, res->remote.rkey, res->remote.qp_num, res->remote.lid);

    memset(&attr, 0, sizeof attr);
    attr.qp_state = IBV_QPS_INIT;
    attr.port_num = config.ib_port;
    attr.pkey_index = 0;
    attr.qp_access_flags = access;
    rc = ibv_modify_qp(res->qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
    if (rc) {
        return fail("ibv_modify_qp to INIT", rc);
    }
    if (config.server_name && post_receive(res)) {
        return -1;
    }

    memset(&attr, 0, sizeof attr);
    attr.qp_state = IBV_QPS_RTR;
    attr.path_mtu = IBV_MTU_256;
    attr.dest_qp_num = res->remote.qp_num;
    attr.rq_psn = 0;
    attr.max_dest_rd_atomic = 1;
    attr.min_rnr_timer = 0x12;
    attr.ah_attr.is_global = 0;
    attr.ah_attr.dlid = res->remote.lid;
    attr.ah_attr.sl = 0;
    attr.ah_attr.src_path_bits = 0;
    attr.ah_attr.port_num = config.ib_port;
    if (config.gid_idx >= 0) {
        attr.ah_attr.is_global = 1;
        memcpy(&attr.ah_attr.grh.dgid, res->remote.gid, 16);
        attr.ah_attr.grh.flow_label = 0;
        attr.ah_attr.grh.hop_limit = 1;
        attr.ah_attr.grh.sgid_index = config.gid_idx;
        attr.ah_attr.grh.traffic_class = 0;
    }
    rc = ibv_modify_qp(res->qp, &attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN
                       | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
    if (rc) {
        return fail("ibv_modify_qp to RTR", rc);
    }

    memset(&attr, 0, sizeof attr);
    attr.qp_state = IBV_QPS_RTS;
    attr.timeout = 0x12;
    attr.retry_cnt = 6;
    attr.rnr_retry = 0;
    attr.sq_psn = 0;
    attr.max_rd_atomic = 1;
    rc = ibv_modify_qp(res->qp, &attr, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY
                       | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
    if (rc) {
        return fail("ibv_modify_qp to RTS", rc);
    }
    printf("QP state was changed to RTS\n");
    return sync_byte(res, 'Q');
}

/* Tears down in the seed's order: QP, MR, buffer, CQ, PD, device, socket. */
static int resources_destroy(struct resources *res)
{
    int rc = 0;
    if (res->qp && ibv_destroy_qp(res->qp)) {
        rc = fail("ibv_destroy_qp", errno);
    }
    if (res->mr && ibv_dereg_mr(res->mr)) {
        rc = fail("ibv_dereg_mr", errno);
    }
    free(res->buf);
    if (res->cq && ibv_destroy_cq(res->cq)) {
        rc = fail("ibv_destroy_cq", errno);
    }
    if (res->pd && ibv_dealloc_pd(res->pd)) {
        rc = fail("ibv_dealloc_pd", errno);
    }
    if (res->ctx && ibv_close_device(res->ctx)) {
        rc = fail("ibv_close_device", errno);
    }
    if (res->sock >= 0) {
        close(res->sock);
    }
    return rc;
}

static int run(struct resources *res)
{
    res->sock = sock_connect();
    if (res->sock < 0 || resources_create(res) || connect_qp(res)) {
        return -1;
    }
    if (!config.server_name) {
        if (post(res, IBV_WR_SEND) || poll_completion(res) || sync_byte(res, 'R') || sync_byte(res, 'W')) {
            return -1;
        }
        printf("Contents of server buffer: '%s'\n", res->buf);
        return strcmp(res->buf, MSG) == 0 ? 0 : -1;
    }
    if (poll_completion(res)) {
        return -1;
    }
    printf("Message is: '%s'\n", res->buf);
    if (sync_byte(res, 'R') || post(res, IBV_WR_RDMA_READ) || poll_completion(res)) {
        return -1;
    }
    printf("Contents of server's buffer: '%s'\n", res->buf);
    strcpy(res->buf, MSG);
    if (post(res, IBV_WR_RDMA_WRITE) || poll_completion(res)) {
        return -1;
    }
    return sync_byte(res, 'W');
}

int main(int argc, char *argv[])
{
    struct resources res = { .sock = -1 };
    int opt, rc;
    while ((opt = getopt(argc, argv, "g:p:")) != -1) {
        if (opt == 'g') {
            config.gid_idx = atoi(optarg);
        } else if (opt == 'p') {
            config.port = atoi(optarg);
        } else {
            fprintf(stderr, "usage: seed_demo [-g gid_idx] [-p tcp_port] <local_ip> <ib_dev> [<server_ip>]\n");
            return 2;
        }
    }
    if (argc - optind < 2 || argc - optind > 3) {
        fprintf(stderr, "usage: seed_demo [-g gid_idx] [-p tcp_port] <local_ip> <ib_dev> [<server_ip>]\n");
        return 2;
    }
    config.local_addr = argv[optind];
    config.dev = argv[optind + 1];
    config.server_name = argc - optind == 3 ? argv[optind + 2] : NULL;
    rc = run(&res);
    if (resources_destroy(&res)) {
        rc = -1;
    }
    printf("test result is %d\n", rc);
    return rc ? 1 : 0;
}
