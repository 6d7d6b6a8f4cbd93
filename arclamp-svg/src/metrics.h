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
 * What generate runs left out, as counters kept across runs in
 * <data_dir>/.arclamp-svg.counters ("NAME VALUE" lines, rewritten
 * atomically by each generate under its lock; metrics only reads it):
 *   arclamp_svg_truncated_graphs_total, arclamp_svg_truncated_lines_total
 *   (samples beyond max_stacks / max_frames / max_memory_mb), and
 *   arclamp_svg_log_read_limit_total (logs read only up to max_log_read_mb). */
#ifndef ARCLAMP_SVG_METRICS_H
#define ARCLAMP_SVG_METRICS_H

#include <stddef.h>

#include "gen_config.h"
#include "generate.h"
#include "strbuf.h"

/* Appends the exposition text. Returns 0, or -1 with err set when the logs
 * cannot be listed. */
int metrics_render(const struct gen_config *cfg, strbuf *out, char *err, size_t errlen);

/* Adds a generate run's figures to the counters file; a failure is logged
 * (the graphs matter more than the count). */
void metrics_count_run(const struct gen_config *cfg, const struct generate_stats *st);

/* Appends a label value escaped as the text format asks (\\ \" \n), invalid
 * UTF-8 as U+FFFD. */
void prom_label_value(strbuf *out, const char *s);

#endif
