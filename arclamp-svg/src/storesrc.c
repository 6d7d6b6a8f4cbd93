/* storesrc: every host's trace logs merged from the object store. See
 * storesrc.h. */
#include "storesrc.h"
#include "datadir.h"
#include "runlock.h"

#include <stdio.h>
#include <unistd.h>

static const struct storemerge_kind trace_logs = {".log.gz", ".log.gz", 0};

int storesrc_enabled(const struct gen_config *cfg)
{
    return cfg->store.conn.kind != OBJSTORE_NONE && cfg->store.from_store;
}

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

/* The merge once the lock is held: 0, or -1 with err. */
static int fetch_locked(const struct gen_config *cfg, int data_fd, struct storemerge_stats *st,
                        char *err, size_t errlen)
{
    char why[1024];
    int logs_fd = datadir_open(data_fd, cfg->data_dir, cfg->logs_dir, 1, why, sizeof why);
    if (logs_fd < 0) {
        snprintf(err, errlen, "logs_dir: %s", why);
        return -1;
    }
    int rc = storesrc_run(cfg, data_fd, logs_fd, st, why, sizeof why);
    close(logs_fd);
    if (rc < 0) {
        snprintf(err, errlen, "fetching the logs from the store: %s", why);
        return -1;
    }
    if (rc > 0 || st->failed) {
        snprintf(err, errlen, "fetching the logs from the store: %zu listings or objects "
                 "failed (see the log)", st->failed);
        return -1;
    }
    return 0;
}

int storesrc_fetch(const struct gen_config *cfg, struct storemerge_stats *st, char *err,
                   size_t errlen)
{
    char why[1024];
    int data_fd = datadir_open_base(cfg->data_dir, 1, why, sizeof why);
    if (data_fd < 0) {
        snprintf(err, errlen, "data_dir: %s", why);
        return -1;
    }
    int lock_fd, rc = -1;
    enum runlock_result lr = runlock_acquire(cfg->lock_file, cfg->lock_timeout, &lock_fd, why,
                                             sizeof why);
    if (lr == RUNLOCK_OK) {
        rc = fetch_locked(cfg, data_fd, st, err, errlen);
        runlock_release(lock_fd);
    } else if (lr == RUNLOCK_BUSY) {
        snprintf(err, errlen, "another run held the lock %s for lock_timeout (%g s)",
                 cfg->lock_file, cfg->lock_timeout);
    } else {
        snprintf(err, errlen, "lock: %s", why);
    }
    close(data_fd);
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
