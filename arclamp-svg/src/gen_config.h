/* gen_config: the configuration of arclamp-svg's generator and companions
 * (generate, compress, metrics, top): where the trace logs and graphs live,
 * how graphs are titled and rendered, and the per-function graphs.
 *
 * Every key has a default, so no configuration file is needed at all. The
 * keys, defaults and docs live in one option table (gen_config.c), which
 * `--help` prints. */
#ifndef ARCLAMP_SVG_GEN_CONFIG_H
#define ARCLAMP_SVG_GEN_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "storeconf.h"
#include "strbuf.h"

/* Read when --config is not given, and only if it exists. */
#define GEN_CONFIG_DEFAULT_PATH "/etc/arclamp/arclamp-svg.yaml"
/* Longest per-function graph label (it becomes part of file names). */
#define GEN_LABEL_MAX 64
/* The private directory below data_dir holding the default lock_file. */
#define GEN_PRIVATE_DIR ".arclamp-svg"
/* Most entries of log_formats. */
#define GEN_FORMATS_MAX 32

/* One per-function graph: lines whose stack holds FUNCTION as a frame. */
struct gen_function {
    char *function;   /* frame name, e.g. "MediaWiki\\Actions\\EditAction::show" */
    char *label;      /* file-name-safe label, e.g. "EditAction" ([A-Za-z0-9_-]) */
};

struct gen_config {
    char *path;           /* the file loaded, or NULL when only defaults apply */
    char *data_dir;       /* root of everything: logs/, svgs/, index.html, index.json */
    int data_dir_given;   /* data_dir came from the caller (--data-dir), not the file */
    char *logs_dir;       /* trace logs, <period>/<name>.log[.gz] (arclamp-log's base_path) */
    char *svgs_dir;       /* graphs, <period>/<name>[.reversed].svgz */
    char *lock_file;      /* flock'ed while generate or compress runs (0600, ours) */
    double lock_timeout;  /* seconds a run waits for the lock before it is skipped */
    char **log_formats;   /* arclamp-log's bucket formats: tell a log's bucket from its tag */
    size_t nlog_formats;
    char *title;          /* title template: {period} {time} {name} {entrypoint} {samples} */
    char *font_type;      /* SVG font family */
    double font_size;     /* px */
    double min_width;     /* px; narrower boxes are left out */
    long width;           /* image width, px */
    char *colors;         /* palette of forward graphs */
    char *reversed_colors; /* palette of reversed graphs */
    int palette;          /* enum palette of `colors` (valid after loading) */
    int reversed_palette; /* enum palette of `reversed_colors` */
    long gzip_level;      /* zlib level of .svgz and compressed logs */
    char *log_target;     /* auto | journal | stderr */
    long max_stacks;      /* distinct stacks per graph; later new ones go to [truncated] */
    long max_frames;      /* distinct frame names per graph, the same way */
    long max_memory_mb;   /* MiB of tables for one log's graphs together, the same way */
    long max_svg_mb;      /* MiB of one SVG document: deeper boxes are left out */
    long max_log_read_mb; /* MiB of (decompressed) log read per log; the rest is not read */
    struct gen_function *functions; /* per-function graphs of the "all" logs */
    size_t nfunctions;
    double sample_period; /* seconds one sample stands for; 0: not known (export) */
    char *sample_event;   /* "cpu" or "real": the clock of sample_period */
    struct store_config store; /* object_store: publishing to and drawing from Swift/S3 */
};

/* The longest sample_period (and export --period), seconds: an hour. */
#define GEN_SAMPLE_PERIOD_MAX 3600

/* Loads `path`; NULL means GEN_CONFIG_DEFAULT_PATH if that file exists, else
 * the defaults alone. `data_dir`, when not NULL, overrides the data_dir key
 * (logs_dir, svgs_dir and lock_file not set explicitly follow it). Returns 0,
 * or -1 with "file:LINE: key: why" in err. */
int gen_config_load(const char *path, const char *data_dir, struct gen_config *cfg, char *err,
                    size_t errlen);
/* The same from YAML text (NULL: defaults only); `name` is used in messages. */
int gen_config_load_string(const char *name, const char *text, const char *data_dir,
                           struct gen_config *cfg, char *err, size_t errlen);
void gen_config_free(struct gen_config *cfg);
/* Prints every key with its default and documentation. */
void gen_config_print_help(FILE *out);

/* The values a title template is filled with. */
struct gen_title_vars {
    const char *period;      /* directory name of the log group */
    const char *time;        /* time part of the name ("2026-11-22_05"); shown with ' ' for '_' */
    const char *name;        /* the log name without .log/.log.gz */
    const char *entrypoint;  /* "index", "all", ... */
    const char *label;       /* per-function graph label, or NULL */
    int reversed;            /* appends " - reversed" */
    double samples;          /* the samples the graph is drawn from */
};

/* Appends the file name of a graph of log `name`:
 * "<name>[.fn-<label>][.reversed].svgz" (label NULL: the whole log). */
void gen_graph_name(strbuf *out, const char *name, const char *label, int reversed);
/* Appends the file name of the differential graph of log `name` against
 * the bucket before it: "<name>.diff[.reversed].svgz" ("diff" is a word no
 * tag may hold, stackline_tag_name_ok, so no other graph has that name). */
void gen_diff_graph_name(strbuf *out, const char *name, int reversed);

/* Appends the title: the template with {period} {time} {name} {entrypoint}
 * replaced ({samples}: "12,345 samples", "1 sample"), then " - ENTRYPOINT"
 * unless the template names it ({entrypoint} or {name}), " - LABEL" for a
 * per-function graph, " - reversed", and " (12,345 samples)" unless the
 * template has {samples}: "MediaWiki - hourly - 2026-11-22 05 - index -
 * reversed (12,345 samples)". */
void gen_title(strbuf *out, const char *tmpl, const struct gen_title_vars *vars);

#endif
