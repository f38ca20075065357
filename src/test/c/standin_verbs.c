/*
 * A stand-in for libibverbs, compiled against the real <infiniband/verbs.h>, so the native
 * backend can be tested on machines without RDMA. It offers two devices and the functions the
 * backend binds; RDMALAB_STANDIN_ERRNO makes ibv_get_device_list fail with that errno.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

static struct ibv_device devices[2];
static struct ibv_device *list[3];

struct ibv_device **ibv_get_device_list(int *num_devices)
{
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
    (void) l;
}

const char *ibv_get_device_name(struct ibv_device *device)
{
    return device->name;
}
