/* generate: the timer job. For every run log arclamp-log wrote
 * (<logs_dir>/<period>/<bucket>.<tag>.runs), the report of the mean run
 * of its bucket, its callgraph, the diff against the previous bucket of
 * the same entry point and format (hour over hour, day over day) and a
 * summary, under <reports_dir>/<period>/:
 *     report/<bucket>.<tag>.html      callgraph/<bucket>.<tag>.svg
 *     diff/<bucket>.<tag>.html        summary/<bucket>.<tag>.json
 * (one directory per kind, so no tag can name another kind's file), and
 * <reports_dir>/index.html listing them. A page is rewritten only when its
 * inputs changed (it carries their mtime); pages whose run log is gone are
 * removed. A run log that cannot be reported (unreadable, or the job died
 * reading it) is marked under <reports_dir>/.arclamp-report.marks and
 * skipped until it changes (generate.c, "skip marks"), so it never holds
 * back the others. The request-tier pages (tiers.h) are brought up to date in the
 * same run, under the same lock. Started as root, it first becomes the
 * reports directory's owner (common/src/dropowner.c), as arclamp-svg does
 * with data_dir. */
#ifndef ARCLAMP_REPORT_GENERATE_H
#define ARCLAMP_REPORT_GENERATE_H

#include <stddef.h>

#include "tiers.h"

#define GENERATE_MAX_FORMATS 32
/* Distinct arcs per report unless --max-arcs says otherwise: a page takes
 * some 5 KB of memory per arc while it is made (250 MB at this many). */
#define GENERATE_DEFAULT_MAX_ARCS 50000
/* Bytes of the distinct arcs' keys (function names) per report unless
 * --max-names-mb says otherwise: a name is copied into the flat profile,
 * the page's data (escaped, up to 6 bytes a byte) and the diff, so this
 * many MiB cost some 15 times as much at the peak. A report of MediaWiki
 * (5,000 arcs of some 100 bytes) holds 0.5 MiB; 50,000 arcs of 160 bytes
 * fill it. */
#define GENERATE_DEFAULT_MAX_NAMES_MB 8

struct generate_opts {
    const char *logs_dir;      /* arclamp-log's base_path */
    const char *reports_dir;   /* where the pages go; created when missing */
    const char *formats[GENERATE_MAX_FORMATS]; /* arclamp-log's bucket formats */
    size_t nformats;
    size_t max_arcs;           /* distinct arcs per report */
    size_t max_key_bytes;      /* bytes of their keys per report (0: no limit) */
    size_t max_bytes;          /* bytes read per run log */
    double threshold;          /* callgraph: share of the total time */
    int quiet;
    struct tiers_opts tiers;   /* the tier pages, made first (tiers.h) */
    const struct store_config *store; /* object_store (jobconf.h); NULL: none */
};

/* The formats of arclamp-svg's log_formats default (Wikimedia's and
 * arclamp-log's examples). */
void generate_default_formats(struct generate_opts *o);

/* Runs the job: with object_store.from_store every host's run logs and
 * tier tables are merged first (reportsrc.h); after the pages, they and
 * this host's files are published (reportpub.h). Returns the exit status
 * (0, 1 when a page could not be written, 75 when another generate holds
 * the lock); a store that failed does not change it (counted in
 * run_finished, logged as store_failed). */
int generate_run(const struct generate_opts *o);

#endif
