/* indexpage: <data_dir>/index.html and index.json, the lists of graphs.
 *
 * index.html is one static page without external resources: graphs grouped
 * by period, then date (newest first), then entry point ("all" first, then
 * by name), then newest first, each with its forward, reversed and
 * per-function links, and the XHProf report of the same bucket and entry
 * point when arclamp-report wrote one, and arclamp-report's indexes (XHProf
 * reports, request tiers) when they exist, and the command lines that open
 * them in pprof or speedscope or compare two logs (indexcmds.h), with each
 * log's path on the server. Links are relative to data_dir and percent-encoded
 * byte by byte, so the page works from file:// and from any static web
 * server whatever bytes the file names hold; every name shown is
 * HTML-escaped (invalid UTF-8 shown as U+FFFD).
 *
 * index.json holds the same list for programs (see indexpage.c for the
 * fields). Paths in it are relative to data_dir and not URL-encoded; file
 * names that are not valid UTF-8 keep their bytes as the lone surrogates
 * \udc80-\udcff (PEP 383, as Python's os functions read them).
 * Both are written atomically. */
#ifndef ARCLAMP_SVG_INDEXPAGE_H
#define ARCLAMP_SVG_INDEXPAGE_H

#include <stddef.h>
#include <time.h>

#include "gen_config.h"
#include "indexcmds.h"
#include "layout.h"
#include "logset.h"
#include "strbuf.h"

#define INDEX_FORWARD 1u   /* the forward graph exists */
#define INDEX_REVERSED 2u  /* the reversed graph exists */
#define INDEX_DIFF 4u      /* the differential graph against the bucket before exists */
#define INDEX_DIFF_REVERSED 8u /* and its reversed graph */

/* One log and the graphs it has on disk. Counts are < 0 when unknown. */
struct index_entry {
    const struct logfile *log;
    unsigned graphs;        /* INDEX_FORWARD | INDEX_REVERSED */
    double samples;         /* samples its graphs are drawn from (read from the graph) */
    unsigned char *fn;      /* per cfg->functions[i]: INDEX_* bits; NULL for none */
    double *fn_samples;     /* per cfg->functions[i]: the samples of its graphs; NULL
                               with fn */
    int failed;             /* drawing its graphs failed in this run */
    int report;             /* arclamp-report's page of the same bucket and entry point
                               exists (reports/<period>/report/<name>.html) */
    long long report_runs;  /* the runs (profiled requests) that page is the mean of,
                               from arclamp-report's summary beside it */
    const char *hosts;      /* drawn from the object store: the hosts its log merges,
                               "a,b" ("-" for objects without a host prefix); else NULL */
};

/* arclamp-report's indexes, relative to data_dir (where arclamp-report
 * generate writes by default), linked from the top of the page (and named
 * in index.json) when they exist. */
#define INDEX_REPORTS_INDEX LAYOUT_REPORTS_DIR "/index.html"
#define INDEX_TIERS_INDEX LAYOUT_REPORTS_DIR "/" LAYOUT_REPORT_TIERS_DIR "/index.html"
#define INDEX_HAS_REPORTS 1u  /* INDEX_REPORTS_INDEX exists */
#define INDEX_HAS_TIERS 2u    /* INDEX_TIERS_INDEX exists */

/* Writes index.html and index.json into the directory `data_fd` (which is
 * cfg->data_dir). `now` is shown as the generation time. Returns 0, or -1
 * with err set. */
int index_write(int data_fd, const struct gen_config *cfg, const struct index_entry *entries,
                size_t n, time_t now, char *err, size_t errlen);

/* The building blocks, for tests. `indexes`: INDEX_HAS_* bits. */
void index_render_html(strbuf *out, const struct gen_config *cfg, const struct index_cmds *cmds,
                       const struct index_entry *entries, size_t n, const char *svgs_rel,
                       const char *logs_rel, unsigned indexes, time_t now);
void index_render_json(strbuf *out, const struct gen_config *cfg, const struct index_cmds *cmds,
                       const struct index_entry *entries, size_t n, const char *svgs_rel,
                       const char *logs_rel, unsigned indexes, time_t now);
/* Appends `s` with every byte outside [A-Za-z0-9._~-] as %XX ('/' kept). */
void url_encode_path(strbuf *out, const char *s);
/* The path of `to` relative to the directory `from` (both absolute, no
 * "." or ".." components, no trailing '/'), malloc'd; "." when equal. */
char *relative_path(const char *from, const char *to);

#endif
