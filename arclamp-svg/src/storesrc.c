/* storesrc: every host's trace logs merged from the object store. See
 * storesrc.h. */
#include "storesrc.h"
#include "datadir.h"
#include "datarun.h"

#include <stdio.h>
#include <string.h>
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

/* The whole fetch as datarun_in_child's job: begins a run (root becomes
 * data_dir's owner), merges, ends it. */
static int fetch_job(const struct gen_config *cfg, void *result, char *err, size_t errlen)
{
    struct datarun run;
    if (datarun_begin(cfg, 0, &run, err, errlen) != DATARUN_OK)
        return -1;
    int rc = fetch_locked(cfg, run.data_fd, result, err, errlen);
    datarun_end(&run);
    return rc;
}

int storesrc_fetch(const struct gen_config *cfg, struct storemerge_stats *st, char *err,
                   size_t errlen)
{
    memset(st, 0, sizeof *st);
    return datarun_in_child(cfg, fetch_job, st, sizeof *st, err, errlen);
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
