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
 *   entrypoint the tag: what follows "<bucket>." where the bucket is a name
 *              one of the configured log_formats produces (the longest
 *              such reading wins). A name whose tag fails
 *              stackline_tag_name_ok() (and is not "all") is REFUSED: it
 *              was written by an older daemon or the Python original, and
 *              its graphs could overwrite another log's ("index.reversed",
 *              "all.fn-EditAction") or pass for an "all" log ("evil.all").
 *              A name no format matches keeps the old reading (the part
 *              after the last '.'), is never an "all" log, and is refused
 *              when that part is "all", "reversed", "diff" or "fn-*".
 * Only regular files count (symlinks and others are ignored), and names
 * starting with '.' (temporary files) are skipped. When both X.log and
 * X.log.gz exist (a compression stopped between rename and unlink), X.log
 * is taken: it is the original. */
#ifndef ARCLAMP_SVG_LOGSET_H
#define ARCLAMP_SVG_LOGSET_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "gen_config.h"

struct logfile {
    char *period;          /* directory name under logs_dir */
    char *file;            /* file name in that directory (with .log / .log.gz) */
    char *name;            /* file name without .log / .log.gz */
    const char *entrypoint; /* points into name: the tag (see above) */
    int is_all;            /* exactly <bucket>.all for a configured format */
    char time[16];         /* "2026-11-22_05" from the name, or "" */
    char date[11];         /* "YYYY-MM-DD": from the name, else from the mtime (UTC) */
    int64_t timestamp;     /* time bucket start from the name (UTC), else mtime seconds */
    int time_from_name;    /* the name held a valid time */
    int gz;                /* the file ends in .log.gz */
    long long size;        /* bytes on disk */
    struct timespec mtime;
};

/* A log left out, and why (static text). */
struct logset_refusal {
    char *period;
    char *file;
    const char *why;
};

/* A period directory that could not be read completely. */
struct logset_failure {
    char *period;
    char *why;             /* "Permission denied", ... */
};

struct logset {
    struct logfile *files; /* sorted: period, then timestamp newest first, then name */
    size_t n;
    char **periods;        /* every period directory, sorted (some may hold no log) */
    size_t nperiods;
    struct logset_refusal *refused; /* names refused (see above), in scan order */
    size_t nrefused;
    struct logset_failure *failed;  /* periods whose scan failed: none of their logs are in
                                       files, and nothing of theirs may be removed */
    size_t nfailed, failed_cap;
};

/* Scans <logs_dir>/<period>/ for every period directory, or only `period`
 * when not NULL. A missing logs_dir is an empty set. Returns 0, or -1 with
 * a message in err and an empty set when logs_dir or any period directory
 * could not be read completely (opendir, readdir or stat failed). */
int logset_scan(const struct gen_config *cfg, const char *period, struct logset *set,
                char *err, size_t errlen);
/* The same for every period of the directory open as logs_fd, keeping what
 * could be read: returns -1 (err set) only when logs_fd itself cannot be
 * listed; a period that fails is in set->failed. With `check_owner`, a
 * period directory not owned by the running user or root fails too. */
int logset_scan_at(const struct gen_config *cfg, int logs_fd, int check_owner,
                   struct logset *set, char *err, size_t errlen);
/* 1 when `period` is in set->failed. */
int logset_period_failed(const struct logset *set, const char *period);
void logset_free(struct logset *set);

/* Reads the entry point of lf (name parsed) with the configured formats as
 * described above: NULL, or why the name is refused. */
const char *logset_classify(struct logfile *lf, char *const *formats, size_t nformats);

/* Splits a log name (without .log/.log.gz) as described above; fills
 * time, date (when the name has one), timestamp, time_from_name and
 * entrypoint of `lf` (whose name is set). */
void logset_parse_name(struct logfile *lf);

/* The name of a log file without .log / .log.gz, malloc'd; NULL when
 * `file` is not a log name. */
char *logset_log_name(const char *file, int *gz);

#endif
