/* tierpage: the HTML of the request-tier pages: one per bucket (a table's
 * figures, a summary of its identities, then per identity its tiers with
 * the trend of the last buckets) and the index of them all.
 *
 * Pages are static and self-contained, with no script: the nginx snippet's
 * Content-Security-Policy lets a page have its own inline style and
 * nothing from elsewhere, so the trends are inline SVG drawn here. Every
 * text from a table (identities, tier names) is escaped by xml_escape;
 * period and bucket names come from file names of [A-Za-z0-9_.-] and are
 * escaped all the same. */
#ifndef ARCLAMP_REPORT_TIERPAGE_H
#define ARCLAMP_REPORT_TIERPAGE_H

#include <stddef.h>

#include "strbuf.h"
#include "tierrank.h"

/* What a page says besides its table. */
struct tier_page {
    const char *period;
    const char *bucket;
    const char *previous;                  /* the previous bucket with a page, or NULL */
    const char *slot_bucket[TIERS_SLOTS];  /* the bucket of each trend point, NULL: none */
    int slot_unreadable[TIERS_SLOTS];      /* that bucket's table could not be read */
};

void tier_page_render(strbuf *out, const struct tier_table *t, const struct tier_page *p);

/* One bucket in the index. */
struct tier_index_row {
    const char *period;
    const char *bucket;
    int has_page;                          /* <period>/<bucket>.html exists */
    const char *error;                     /* why this run could not write it, or NULL */
};

/* The index of the pages: rows in order of period, then time; shown newest
 * first within a period. `reports_index`: link ../index.html (XHProf). */
void tier_index_render(strbuf *out, const struct tier_index_row *rows, size_t n,
                       int reports_index);

/* Durations as people read them: "850 µs", "12.3 ms", "4.56 s", "2.5 h";
 * NaN as "–". */
void tier_format_us(strbuf *out, double us);

#endif
