/* retention: keeps only the newest `retain` trace logs of a group and tag.
 *
 * Only names the group's own format produces count:
 * <bucket>.<tag>.log and <bucket>.<tag>.log.gz, where <bucket> matches the
 * format's shape. So groups (or daemons) sharing a directory with different
 * formats never delete each other's files. The oldest by mtime go first;
 * a file that vanishes meanwhile is fine. */
#ifndef ARCLAMP_LOG_RETENTION_H
#define ARCLAMP_LOG_RETENTION_H

#include <stddef.h>

/* True if `name` is a trace log of `format` and `tag`. */
int retention_name_matches(const char *format, const char *tag, const char *name);
/* Removes the oldest matching files in `dir` beyond `retain`. Returns how
 * many were removed, or -1 when the directory cannot be read. */
long retention_prune(const char *dir, const char *format, const char *tag, long retain);

#endif
