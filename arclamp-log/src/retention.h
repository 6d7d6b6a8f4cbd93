/* retention: keeps only the newest `retain` files of a group, tag and kind.
 *
 * Only names the group's own format produces count:
 * <bucket>.<tag><suffix> and <bucket>.<tag><suffix>.gz, where <bucket>
 * matches the format's shape and the suffix is the kind's (".log" for
 * trace logs, ".runs" for run logs, which are thus kept apart). So groups
 * (or daemons) sharing a directory with different formats never delete
 * each other's files. The oldest by mtime go first; a file that vanishes
 * meanwhile is fine. */
#ifndef ARCLAMP_LOG_RETENTION_H
#define ARCLAMP_LOG_RETENTION_H

#include <stddef.h>

/* True if `name` is a file of `format`, `tag` and `suffix`. */
int retention_name_matches(const char *format, const char *tag, const char *suffix,
                           const char *name);
/* Removes the oldest matching files in `dir` beyond `retain`. Returns how
 * many were removed, or -1 when the directory cannot be read. */
long retention_prune(const char *dir, const char *format, const char *tag, const char *suffix,
                     long retain);

#endif
