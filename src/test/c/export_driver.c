/*
 * Runs an exported RDMA Lab program's server and client in one process, as two threads, so both
 * can use the libibverbs stand-in (its QPs reach each other only inside one process). The export
 * is compiled with -Dmain=rdmalab_export_main; the TCP exchange between the threads is real.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

int rdmalab_export_main(int argc, char *argv[]);

struct peer {
    int argc;
    char **argv;
    int rc;
};

static void *run(void *arg)
{
    struct peer *peer = arg;
    peer->rc = rdmalab_export_main(peer->argc, peer->argv);
    return NULL;
}

int main(void)
{
    char *server_argv[] = {"server", "127.0.0.1", "rxe0", NULL};
    char *client_argv[] = {"client", "127.0.0.2", "rxe0", "127.0.0.1", NULL};
    struct peer server = {3, server_argv, -1};
    struct peer client = {4, client_argv, -1};
    pthread_t server_thread, client_thread;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (pthread_create(&server_thread, NULL, run, &server) || pthread_create(&client_thread, NULL, run, &client)) {
        fprintf(stderr, "cannot start the two peers\n");
        return 3;
    }
    pthread_join(client_thread, NULL);
    pthread_join(server_thread, NULL);
    printf("driver: server %d, client %d\n", server.rc, client.rc);
    return server.rc != 0 || client.rc != 0;
}
