/* metrics: `arclamp-svg metrics`, a Prometheus text file about the trace
 * logs and graphs (for node_exporter's textfile collector: written
 * atomically with --output, or to standard output).
 *
 * Per period and entry point (logset.h's reading of the file names):
 *   arclamp_trace_log_files, arclamp_trace_log_bytes,
 *   arclamp_trace_log_oldest_timestamp_seconds, ..._newest_timestamp_seconds
 * where a log's timestamp is the start of its time bucket when its name
 * holds one ("2026-11-22_05" -> 2026-11-22T05:00:00Z), else its mtime.
 * Per period: arclamp_flame_graph_files and arclamp_flame_graph_bytes
 * (*.svgz in svgs_dir). And arclamp_svg_index_timestamp_seconds, the mtime
 * of index.html (when generate last finished), if it exists.
 *
 * And the counters kept across runs (runs skipped for the lock, what
 * generate's limits left out), read from runstate's file (runstate.h). */
#ifndef ARCLAMP_SVG_METRICS_H
#define ARCLAMP_SVG_METRICS_H

#include <stddef.h>

#include "gen_config.h"
#include "strbuf.h"

/* Appends the exposition text. Returns 0; 1 with err set to a warning when
 * the counters of runstate.h cannot be read (their families left out, the
 * rest appended); or -1 with err set when the logs cannot be listed. */
int metrics_render(const struct gen_config *cfg, strbuf *out, char *err, size_t errlen);

/* Appends a label value escaped as the text format asks (\\ \" \n), invalid
 * UTF-8 as U+FFFD. */
void prom_label_value(strbuf *out, const char *s);

#endif
