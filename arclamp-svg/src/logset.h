/* logset: the trace logs under <logs_dir>/<period>/, found and named.
 *
 * arclamp-log writes <period>/<bucket>.<tag>.log, where the bucket is a
 * strftime time ("2026-11-22_05", production: "2026-11-22_05.excimer") and
 * the tag the entry point ("index", "api", "all"); old logs may have been
 * compressed to .log.gz. The generator, compress, metrics and top all start
 * from this list. A name is read as:
 *   time       "YYYY-MM-DD" or "YYYY-MM-DD_HH" at its start, when it is a
 *              valid date (then `timestamp` is that UTC time bucket's start);
 *              otherwise the file's mtime stands in for it
 *   entrypoint the part after the last '.' (the whole name if it has none)
 * Only regular files count (symlinks and others are ignored), and names
 * starting with '.' (temporary files) are skipped. When both X.log and
 * X.log.gz exist (a compression stopped between rename and unlink), X.log
 * is taken: it is the original. */
#ifndef ARCLAMP_SVG_LOGSET_H
#define ARCLAMP_SVG_LOGSET_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct logfile {
    char *period;          /* directory name under logs_dir */
    char *file;            /* file name in that directory (with .log / .log.gz) */
    char *name;            /* file name without .log / .log.gz */
    const char *entrypoint; /* points into name: after its last '.' */
    char time[16];         /* "2026-11-22_05" from the name, or "" */
    char date[11];         /* "YYYY-MM-DD": from the name, else from the mtime (UTC) */
    int64_t timestamp;     /* time bucket start from the name (UTC), else mtime seconds */
    int time_from_name;    /* the name held a valid time */
    int gz;                /* the file ends in .log.gz */
    long long size;        /* bytes on disk */
    struct timespec mtime;
};

struct logset {
    struct logfile *files; /* sorted: period, then timestamp newest first, then name */
    size_t n;
    char **periods;        /* every period directory, sorted (some may hold no log) */
    size_t nperiods;
};

/* Scans <logs_dir>/<period>/ for every period directory, or only `period`
 * when not NULL. A missing logs_dir (or period) is an empty set. Returns 0,
 * or -1 with a message in err (logs_dir unreadable). */
int logset_scan(const char *logs_dir, const char *period, struct logset *set, char *err,
                size_t errlen);
void logset_free(struct logset *set);

/* Splits a log name (without .log/.log.gz) as described above; fills
 * time, date (when the name has one), timestamp, time_from_name and
 * entrypoint of `lf` (whose name is set). */
void logset_parse_name(struct logfile *lf);

/* The name of a log file without .log / .log.gz, malloc'd; NULL when
 * `file` is not a log name. */
char *logset_log_name(const char *file, int *gz);

#endif
