/*
 * seed_peer: a stand-in for the seed demo's TCP control plane, used by SeedInteropTest.
 *
 * It declares the connection block the way the seed's C program does (packed, 34 bytes, integers
 * in network byte order), writes its own block in one write, reads the peer's 34 bytes, then runs
 * one-byte sync rounds ('Q', 'R', 'W'), printing what it received.
 *
 *   seed_peer server <local_ip> <port> <addr> <rkey> <qp_num> <lid> <gid_hex> [sync_rounds]
 *   seed_peer client <server_ip> <port> <addr> <rkey> <qp_num> <lid> <gid_hex> [sync_rounds]
 *
 * Numbers may be decimal or 0x-hex; gid_hex is 32 hex digits. A server started with port 0 prints
 * "listening <port>" once it listens. Output lines:
 *   received addr=0x... rkey=0x... qp_num=0x... lid=0x... gid=<32 hex digits>
 *   syncs=<the sync bytes received>
 * Every socket read and write gives up after 10 s, and the whole program after 30 s.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

struct cm_con_data_t {
    uint64_t addr;   /* buffer address */
    uint32_t rkey;   /* remote key */
    uint32_t qp_num; /* QP number */
    uint16_t lid;    /* LID of the IB port */
    uint8_t gid[16]; /* GID */
} __attribute__((packed));

_Static_assert(sizeof(struct cm_con_data_t) == 34, "the packed block is 34 bytes");

static uint64_t htonll(uint64_t value)
{
    uint32_t high = htonl((uint32_t)(value >> 32));
    uint32_t low = htonl((uint32_t)(value & 0xffffffffu));
    if (htonl(1) == 1) {
        return value; /* big-endian host: already in network order */
    }
    return ((uint64_t)low << 32) | high;
}

static uint64_t ntohll(uint64_t value)
{
    return htonll(value); /* the swap is its own inverse */
}

static void die(const char *what)
{
    fprintf(stderr, "seed_peer: %s: %s\n", what, errno ? strerror(errno) : "failed");
    exit(2);
}

static int parse_gid(const char *hex, uint8_t gid[16])
{
    if (strlen(hex) != 32) {
        return -1;
    }
    for (int i = 0; i < 16; i++) {
        unsigned int byte;
        if (sscanf(hex + 2 * i, "%2x", &byte) != 1) {
            return -1;
        }
        gid[i] = (uint8_t)byte;
    }
    return 0;
}

static void set_timeouts(int fd)
{
    struct timeval tv = { .tv_sec = 10, .tv_usec = 0 };
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) || setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv)) {
        die("setsockopt");
    }
}

/* Reads exactly len bytes; returns how many arrived before EOF. */
static size_t read_exact(int fd, void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = read(fd, (char *)buf + done, len - done);
        if (n == 0) {
            break;
        }
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            die("read");
        }
        done += (size_t)n;
    }
    return done;
}

static int open_connection(int server, const char *ip, int port)
{
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, ip, &address.sin_addr) != 1) {
        errno = 0;
        die("not an IPv4 address");
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        die("socket");
    }
    if (!server) {
        if (connect(fd, (struct sockaddr *)&address, sizeof address)) {
            die("connect");
        }
        set_timeouts(fd);
        return fd;
    }
    int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (bind(fd, (struct sockaddr *)&address, sizeof address) || listen(fd, 1)) {
        die("bind/listen");
    }
    socklen_t size = sizeof address;
    if (getsockname(fd, (struct sockaddr *)&address, &size)) {
        die("getsockname");
    }
    printf("listening %d\n", ntohs(address.sin_port));
    fflush(stdout);
    int client = accept(fd, NULL, NULL);
    if (client < 0) {
        die("accept");
    }
    close(fd); /* exactly one client, like the seed */
    set_timeouts(client);
    return client;
}

int main(int argc, char **argv)
{
    if (argc < 9 || argc > 10 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
        fprintf(stderr, "usage: seed_peer server|client <ip> <port> <addr> <rkey> <qp_num> <lid> <gid_hex> [sync_rounds]\n");
        return 1;
    }
    alarm(30);
    int server = strcmp(argv[1], "server") == 0;
    int rounds = argc == 10 ? atoi(argv[9]) : 3;
    struct cm_con_data_t local;
    memset(&local, 0, sizeof local);
    local.addr = htonll(strtoull(argv[4], NULL, 0));
    local.rkey = htonl((uint32_t)strtoul(argv[5], NULL, 0));
    local.qp_num = htonl((uint32_t)strtoul(argv[6], NULL, 0));
    local.lid = htons((uint16_t)strtoul(argv[7], NULL, 0));
    if (parse_gid(argv[8], local.gid)) {
        fprintf(stderr, "seed_peer: gid must be 32 hex digits\n");
        return 1;
    }

    int fd = open_connection(server, argv[2], atoi(argv[3]));

    if (write(fd, &local, sizeof local) != (ssize_t)sizeof local) {
        die("write block");
    }
    struct cm_con_data_t remote;
    size_t got = read_exact(fd, &remote, sizeof remote);
    if (got != sizeof remote) {
        fprintf(stderr, "seed_peer: peer closed after %zu of %zu bytes\n", got, sizeof remote);
        return 3;
    }
    printf("received addr=0x%016llx rkey=0x%08x qp_num=0x%08x lid=0x%04x gid=",
           (unsigned long long)ntohll(remote.addr), ntohl(remote.rkey), ntohl(remote.qp_num), ntohs(remote.lid));
    for (int i = 0; i < 16; i++) {
        printf("%02x", remote.gid[i]);
    }
    printf("\n");

    static const char labels[] = { 'Q', 'R', 'W' };
    char received[4] = { 0 };
    for (int i = 0; i < rounds && i < 3; i++) {
        char mine = rounds == 2 && i == 1 ? 'W' : labels[i];
        if (write(fd, &mine, 1) != 1) {
            die("write sync");
        }
        if (read_exact(fd, &received[i], 1) != 1) {
            fprintf(stderr, "seed_peer: peer closed before sync %d\n", i + 1);
            return 4;
        }
    }
    printf("syncs=%s\n", received);
    fflush(stdout);
    close(fd);
    return 0;
}
