/* reportsrc: every host's run logs and tier tables merged from the object
 * store. See reportsrc.h. */
#include "reportsrc.h"
#include "jobfs.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct storemerge_kind kinds[] = {
    {".runs.gz", ".runs", 1},
    {".tiers.gz", ".tiers", 1},
};

int reportsrc_run(const struct store_config *sc, const char *logs_dir, const char *reports_dir,
                  struct storemerge_stats *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    if (mkdir(logs_dir, 0755) < 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", logs_dir, strerror(errno));
        return -1;
    }
    int logs_fd = open(logs_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (logs_fd < 0) {
        snprintf(err, errlen, "%s: %s", logs_dir, strerror(errno));
        return -1;
    }
    int private_fd = jobfs_private_dir(reports_dir, err, errlen);
    struct objstore *store = private_fd < 0 ? NULL : objstore_open(&sc->conn, err, errlen);
    int rc = -1;
    if (store) {
        struct storemerge_args args = {sc, store, private_fd, REPORTSRC_MANIFEST, logs_fd,
                                       kinds, sizeof kinds / sizeof kinds[0]};
        rc = storemerge_run(&args, st);
        objstore_close(store);
    }
    if (private_fd >= 0)
        close(private_fd);
    close(logs_fd);
    return rc;
}

void reportsrc_step(const struct store_config *sc, const char *logs_dir,
                    const char *reports_dir, strbuf *summary)
{
    if (!sc || sc->conn.kind == OBJSTORE_NONE || !sc->from_store)
        return;
    struct storemerge_stats st;
    char why[1024];
    if (reportsrc_run(sc, logs_dir, reports_dir, &st, why, sizeof why) < 0) {
        st.failed++;
        log_untrusted(LOG_WARNING, "store_failed", LOG_NO_FIELDS,
                      "fetching the run logs and tier tables: %s (the files merged before "
                      "are reported)", why);
    }
    storemerge_summary(&st, "files", summary);
}
