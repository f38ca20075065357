package org.rdmalab.lab;

/**
 * The fixed C text of {@link CExport}'s program: the prelude (includes, the seed's structs and
 * helpers, its TCP exchange and syncs, perftest's GID choice when asked), the completion check
 * after a poll, and {@code main}, which picks the role from the command line as the seed does.
 * The steps' own code is theirs ({@link Step#cCode}); this is what surrounds it.
 */
final class CProgramText {

    private CProgramText() {
    }

    /** The TCP port of the exported program (the seed's). */
    static final int TCP_PORT = 12025;

    static final String POLL_CHECK = """

            if (poll_result < 0) {
                fprintf(stderr, "poll CQ failed\\n");
                return 1;
            }
            if (poll_result == 0) {
                fprintf(stderr, "completion wasn't found in the CQ after timeout\\n");
                return 1;
            }
            if (wc.status != IBV_WC_SUCCESS) {
                fprintf(stderr, "got bad completion with status: 0x%x, vendor syndrome: 0x%x\\n", wc.status, wc.vendor_err);
                return 1;
            }
            fprintf(stdout, "completion was found in CQ with status 0x%x\\n", wc.status);
            """;

    static String prelude(boolean bestGid) {
        String best = !bestGid ? "" : """

                /* gid_idx auto: the entry perftest would pick (+100 IPv4-mapped, +10 not link-local, +2 RoCE v2, +1 v1). */
                static int best_gid_index(struct ibv_context *ctx, int port, int table_length)
                {
                    struct ibv_gid_entry entry;
                    int index, score, best = -1, best_score = -1;

                    for (index = 0; index < table_length; index++) {
                        const uint8_t *raw = entry.gid.raw;
                        static const uint8_t mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

                        if (ibv_query_gid_ex(ctx, port, index, &entry, 0))
                            continue; /* an empty entry */
                        score = 0;
                        if (!memcmp(raw, mapped_prefix, sizeof mapped_prefix))
                            score += 100;
                        if (!(raw[0] == 0xfe && (raw[1] & 0xc0) == 0x80))
                            score += 10;
                        if (entry.gid_type == IBV_GID_TYPE_ROCE_V2)
                            score += 2;
                        else if (entry.gid_type == IBV_GID_TYPE_ROCE_V1)
                            score += 1;
                        if (score > best_score) {
                            best = index;
                            best_score = score;
                        }
                    }
                    return best;
                }
                """;
        return """
                #include <arpa/inet.h>
                #include <endian.h>
                #include <errno.h>
                #include <netinet/in.h>
                #include <stdint.h>
                #include <stdio.h>
                #include <stdlib.h>
                #include <string.h>
                #include <sys/socket.h>
                #include <sys/time.h>
                #include <unistd.h>
                #include <infiniband/verbs.h>

                #ifndef TCP_PORT
                #define TCP_PORT %d /* the seed's; -DTCP_PORT=N to change it */
                #endif
                /* A client retries a refused connection this long (the server may start later). */
                #define CONNECT_RETRY_MS 30000

                struct config_t {
                    const char *dev_name;    /* argv[2] */
                    const char *local_addr;  /* argv[1] */
                    const char *server_name; /* argv[3]; NULL on the server */
                    int port;                /* TCP port */
                    int gid_idx;             /* set by the query-port step; -1: no GRH */
                };

                /* The seed's exchange: 34 bytes, packed, integers in network byte order. */
                struct cm_con_data_t {
                    uint64_t addr;   /* buffer address */
                    uint32_t rkey;   /* its remote key */
                    uint32_t qp_num; /* QP number */
                    uint16_t lid;    /* LID of the port (0 on RoCE) */
                    uint8_t gid[16]; /* GID (all zero with gid_idx -1) */
                } __attribute__((packed));

                struct resources {
                    struct ibv_context *ctx;
                    struct ibv_port_attr port_attr;
                    struct ibv_pd *pd;
                    struct ibv_cq *cq;
                    struct ibv_mr *mr;
                    char *buf;
                    struct ibv_qp *qp;
                    struct cm_con_data_t remote_props; /* the peer's, in host order */
                    int sock;
                };

                static uint64_t htonll(uint64_t value)
                {
                    return htobe64(value);
                }

                static uint64_t ntohll(uint64_t value)
                {
                    return be64toh(value);
                }

                /* Server (server_name NULL): listen on local_addr:port and accept one client.
                 * Client: connect from local_addr to server_name:port, retrying while refused. */
                static int sock_connect(const char *local_addr, int port, const char *server_name)
                {
                    struct sockaddr_in local, remote;
                    int fd, client, one = 1, waited_ms = 0;

                    memset(&local, 0, sizeof local);
                    local.sin_family = AF_INET;
                    local.sin_port = htons(server_name ? 0 : port);
                    if (inet_pton(AF_INET, local_addr, &local.sin_addr) != 1) {
                        fprintf(stderr, "%%s is not an IPv4 address\\n", local_addr);
                        return -1;
                    }
                    if (!server_name) {
                        fd = socket(AF_INET, SOCK_STREAM, 0);
                        if (fd < 0)
                            return -1;
                        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
                        if (bind(fd, (struct sockaddr *) &local, sizeof local) || listen(fd, 1)) {
                            fprintf(stderr, "cannot listen on %%s:%%d: %%s\\n", local_addr, port, strerror(errno));
                            close(fd);
                            return -1;
                        }
                        client = accept(fd, NULL, NULL);
                        close(fd);
                        return client;
                    }
                    memset(&remote, 0, sizeof remote);
                    remote.sin_family = AF_INET;
                    remote.sin_port = htons(port);
                    if (inet_pton(AF_INET, server_name, &remote.sin_addr) != 1) {
                        fprintf(stderr, "%%s is not an IPv4 address\\n", server_name);
                        return -1;
                    }
                    for (;;) {
                        fd = socket(AF_INET, SOCK_STREAM, 0);
                        if (fd < 0)
                            return -1;
                        if (bind(fd, (struct sockaddr *) &local, sizeof local)) {
                            fprintf(stderr, "cannot use %%s: %%s\\n", local_addr, strerror(errno));
                            close(fd);
                            return -1;
                        }
                        if (!connect(fd, (struct sockaddr *) &remote, sizeof remote))
                            return fd;
                        close(fd);
                        if (errno != ECONNREFUSED || waited_ms >= CONNECT_RETRY_MS) {
                            fprintf(stderr, "nothing listens on %%s:%%d (%%s): start the server side first\\n",
                                    server_name, port, strerror(errno));
                            return -1;
                        }
                        usleep(100 * 1000);
                        waited_ms += 100;
                    }
                }

                /* Writes size bytes of local, then reads size bytes into remote: both sides write first. */
                static int sock_sync_data(int sock, int size, const char *local, char *remote)
                {
                    ssize_t n;
                    int done;

                    for (done = 0; done < size; done += (int) n) {
                        n = write(sock, local + done, size - done);
                        if (n <= 0)
                            return -1;
                    }
                    for (done = 0; done < size; done += (int) n) {
                        n = read(sock, remote + done, size - done);
                        if (n <= 0)
                            return -1;
                    }
                    return 0;
                }

                /* Releases whatever is still held; the teardown step leaves nothing. */
                static void resources_destroy(struct resources *res)
                {
                    if (res->qp)
                        ibv_destroy_qp(res->qp);
                    if (res->mr)
                        ibv_dereg_mr(res->mr);
                    free(res->buf);
                    if (res->cq)
                        ibv_destroy_cq(res->cq);
                    if (res->pd)
                        ibv_dealloc_pd(res->pd);
                    if (res->ctx)
                        ibv_close_device(res->ctx);
                    if (res->sock >= 0)
                        close(res->sock);
                    memset(res, 0, sizeof *res);
                    res->sock = -1;
                }
                """.formatted(TCP_PORT) + best;
    }

    static final String MAIN = """

            int main(int argc, char *argv[])
            {
                struct config_t config;
                struct resources res;
                int rc;

                if (argc < 3 || argc > 4) {
                    fprintf(stderr, "usage: %s <local_ip> <ib_dev> [<server_ip>]\\n", argv[0]);
                    return 2;
                }
                memset(&config, 0, sizeof config);
                config.local_addr = argv[1];
                config.dev_name = argv[2];
                config.server_name = argc == 4 ? argv[3] : NULL;
                config.port = TCP_PORT;
                config.gid_idx = -1;
                memset(&res, 0, sizeof res);
                res.sock = -1;
                rc = config.server_name ? run_client(&res, config) : run_server(&res, config);
                resources_destroy(&res);
                fprintf(stdout, "test result is %d\\n", rc);
                return rc;
            }
            """;
}
