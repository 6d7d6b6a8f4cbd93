/* datarun: how every arclamp-svg job that writes into data_dir begins and
 * ends — generate, publish, and export's merge from the object store.
 *
 * The three steps are always the same and always in this order, so they
 * live here once:
 *   1. run as root, become the owner of data_dir for good (dropowner.h),
 *      before anything is opened or created: a run by hand then does what
 *      the timer's run would do and leaves no root-owned file behind;
 *   2. open data_dir as a trusted base (datadir.h), creating it;
 *   3. take the run lock (runlock.h), waiting at most lock_timeout, so two
 *      jobs never write the same files at once.
 * A job that must not become another user for good (export, whose output
 * file belongs to whoever ran it) does its writing part in a child
 * process: datarun_in_child. */
#ifndef ARCLAMP_SVG_DATARUN_H
#define ARCLAMP_SVG_DATARUN_H

#include <stddef.h>

#include "gen_config.h"

enum datarun_status {
    DATARUN_OK = 0,     /* begun: data_fd open, the lock held */
    DATARUN_BUSY = 1,   /* another run held the lock for lock_timeout; err says so */
    DATARUN_ERROR = -1  /* nothing done; err says why */
};

struct datarun {
    int data_fd;   /* data_dir, opened by datarun_begin */
    int lock_fd;   /* holds the run lock until datarun_end */
};

/* Steps 1-3 above. With `need_logs`, a logs_dir that does not exist is an
 * error and data_dir is not created (nothing to draw: a wrong --data-dir
 * should not appear on disk). DATARUN_OK: call datarun_end. */
enum datarun_status datarun_begin(const struct gen_config *cfg, int need_logs,
                                  struct datarun *run, char *err, size_t errlen);
/* Releases the lock and closes data_dir. */
void datarun_end(struct datarun *run);

/* Runs job(cfg, arg, err, errlen) — which returns 0 or -1 with err — as
 * data_dir's owner: in a child process when the caller is root and root
 * does not own data_dir (the caller keeps its own rights), else directly.
 * `result` (result_len bytes, plain data) is what the job filled in; it is
 * copied back from the child. 0, or -1 with err (the job's, or why the
 * child failed). */
int datarun_in_child(const struct gen_config *cfg,
                     int (*job)(const struct gen_config *cfg, void *result, char *err,
                                size_t errlen),
                     void *result, size_t result_len, char *err, size_t errlen);

#endif
