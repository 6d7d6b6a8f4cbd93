/* html: the self-contained report page — the run's data as JSON in the page
 * and report.js (embedded at build time) to draw it: the flat table sortable
 * by every column, top 100 or all, search, a function's parent/child view,
 * and for a diff the summary of both directions with the invert link. No
 * server code; names reach the page only as escaped JSON and textContent. */
#ifndef ARCLAMP_REPORT_HTML_H
#define ARCLAMP_REPORT_HTML_H

#include "run.h"
#include "xhprof.h"

/* Writes the page of `data` (its flat profile `f`) to path, atomically
 * (common/src/atomicfile.c).
 * diff_forward/backward: the labels of a diff ("B - A" / "A - B"), NULL for
 * a plain report. callgraph_link: the URL of the run's callgraph, or NULL.
 * Returns 0, or -1 with a message in err. */
int html_write(const char *path, const char *title, const run *data, const flat *f,
               const char *diff_forward, const char *diff_backward, const char *callgraph_link,
               char *err, size_t errlen);

#endif
