/* storesrc: every host's trace logs merged from the object store. See
 * storesrc.h. */
#include "storesrc.h"
#include "datadir.h"

#include <stdio.h>
#include <unistd.h>

static const struct storemerge_kind trace_logs = {".log.gz", ".log.gz", 0};

int storesrc_run(const struct gen_config *cfg, int data_fd, int logs_fd,
                 struct storemerge_stats *st, char *err, size_t errlen)
{
    int private_fd = datadir_open_private(data_fd, cfg->data_dir, 1, err, errlen);
    if (private_fd < 0)
        return -1;
    struct objstore *store = objstore_open(&cfg->store.conn, err, errlen);
    if (!store) {
        close(private_fd);
        return -1;
    }
    struct storemerge_args args = {&cfg->store, store, private_fd, STORESRC_MANIFEST, logs_fd,
                                   &trace_logs, 1};
    int rc = storemerge_run(&args, st);
    objstore_close(store);
    close(private_fd);
    return rc;
}

struct storemerge_hosts *storesrc_hosts_load(const struct gen_config *cfg, int data_fd)
{
    char why[512];
    int fd = datadir_open_private(data_fd, cfg->data_dir, 0, why, sizeof why);
    if (fd < 0)
        return NULL;
    struct storemerge_hosts *h = storemerge_hosts_load(fd, STORESRC_MANIFEST);
    close(fd);
    return h;
}
