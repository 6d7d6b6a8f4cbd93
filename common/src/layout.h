/* layout: the names every wing agrees on, in one place.
 *
 * arclamp-log writes <data_dir>/logs/<period>/<bucket>.<tag>.log and .runs
 * (later .log.gz), arclamp-svg reads the logs and writes
 * <data_dir>/svgs/<period>/<name>[.fn-<Label>][.reversed].svgz and the
 * index, arclamp-report reads the .runs and writes <data_dir>/reports; the
 * extension sends to channels arclamp-log listens on by default. A name one
 * wing writes and another reads is spelled here once, so that renaming it
 * cannot leave a reader behind. Names only one program uses stay in it. */
#ifndef ARCLAMP_LAYOUT_H
#define ARCLAMP_LAYOUT_H

#include <stddef.h>
#include <string.h>

/* ---- directories -------------------------------------------------------- */

/* The default data directory: logs/, svgs/ and reports/ below it. */
#define LAYOUT_DATA_DIR "/srv/arclamp"
#define LAYOUT_LOGS_DIR "logs"         /* arclamp-log's base_path */
#define LAYOUT_SVGS_DIR "svgs"         /* arclamp-svg's graphs */
#define LAYOUT_REPORTS_DIR "reports"   /* arclamp-report's pages */
/* Below reports/<period>/: one directory per kind of page; the index of
 * arclamp-svg links to the reports. */
#define LAYOUT_REPORT_PAGES_DIR "report"
/* Below reports/: the request tier pages (arclamp-report tiers). */
#define LAYOUT_REPORT_TIERS_DIR "tiers"

/* ---- file names ------------------------------------------------------------ */

#define LAYOUT_LOG_SUFFIX ".log"       /* trace logs: collapsed stacks */
#define LAYOUT_RUNS_SUFFIX ".runs"     /* run logs: hierarchical runs */
#define LAYOUT_GZ_SUFFIX ".gz"         /* a compressed log keeps its name */
#define LAYOUT_SVGZ_SUFFIX ".svgz"     /* a flame graph */
#define LAYOUT_REVERSED ".reversed"    /* before .svgz: the icicle graph */
#define LAYOUT_FN_PREFIX ".fn-"        /* before a label: a function's graph */
#define LAYOUT_DIFF ".diff"            /* after a log's name: its differential graph
                                          against the bucket before */
/* The tag of the log every line goes to (besides its entry point's). */
#define LAYOUT_TAG_ALL "all"

/* A bucket's tier table: "<bucket>" LAYOUT_TIERS_SUFFIX holds the tier
 * lines (common/src/tiertable.c writes and reads it), with two views next
 * to it. Retention counts them as the tag LAYOUT_TIERS_TAG and the
 * suffixes after it. */
#define LAYOUT_TIERS_TAG "tiers"
#define LAYOUT_TIERS_SUFFIX "." LAYOUT_TIERS_TAG
#define LAYOUT_TIERS_JSON_VIEW ".json"
#define LAYOUT_TIERS_TEXT_VIEW ".txt"
#define LAYOUT_TIERS_JSON_SUFFIX LAYOUT_TIERS_SUFFIX LAYOUT_TIERS_JSON_VIEW
#define LAYOUT_TIERS_TEXT_SUFFIX LAYOUT_TIERS_SUFFIX LAYOUT_TIERS_TEXT_VIEW
#define LAYOUT_TIERS_JSON_FORMAT "arclamp-tiers/1" /* the JSON view's format name */

/* The bucket formats (strftime) of the packaged arclamp-log.yaml, of
 * Wikimedia's wall-clock groups and of arclamp-log's examples, hourly then
 * daily: what arclamp-svg and arclamp-report assume when not told. As an
 * initializer list: `static const char *const f[] = {LAYOUT_DEFAULT_FORMATS};`. */
#define LAYOUT_DEFAULT_FORMATS                                                   \
    "%Y-%m-%d_%H.excimer", "%Y-%m-%d.excimer", "%Y-%m-%d_%H.excimer-wall",       \
        "%Y-%m-%d.excimer-wall", "%Y-%m-%d_%H", "%Y-%m-%d"

/* True if s[0..len) ends in `suffix` and has more before it. */
static inline int layout_has_suffix(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len > n && memcmp(s + len - n, suffix, n) == 0;
}

/* ---- channels (Redis pub/sub or stream keys) --------------------------------- */

#define LAYOUT_CHANNEL_SAMPLES "excimer"  /* collapsed stack lines */
#define LAYOUT_CHANNEL_RUNS "xhprof"      /* run lines (hierarchical profiles) */
#define LAYOUT_CHANNEL_TIERS "tiers"      /* request tier lines */

#endif
