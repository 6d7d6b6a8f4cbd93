/* metrics: the Prometheus text file of the trace logs. See metrics.h. */
#include "metrics.h"
#include "atomicfile.h"
#include "cli.h"
#include "commands.h"
#include "layout.h"
#include "log.h"
#include "logset.h"
#include "runstate.h"
#include "xmlesc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The logs of one period and entry point. */
struct group {
    const char *period;
    const char *entrypoint;
    size_t files;
    unsigned long long bytes;
    int64_t oldest, newest;
};

/* The graphs of one period. */
struct graphs {
    size_t files;
    unsigned long long bytes;
};

void prom_label_value(strbuf *out, const char *s)
{
    size_t len = strlen(s);
    for (size_t i = 0; i < len;) {
        unsigned cp;
        size_t n = utf8_next(s + i, len - i, &cp);
        if (s[i] == '\\')
            strbuf_appends(out, "\\\\");
        else if (s[i] == '"')
            strbuf_appends(out, "\\\"");
        else if (s[i] == '\n')
            strbuf_appends(out, "\\n");
        else if (cp == 0xFFFD && n == 1)
            strbuf_appends(out, "\xEF\xBF\xBD");
        else
            strbuf_append(out, s + i, n);
        i += n;
    }
}

static void header(strbuf *out, const char *name, const char *help)
{
    strbuf_appendf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static void labels(strbuf *out, const char *name, const char *period, const char *entrypoint)
{
    strbuf_appendf(out, "%s{period=\"", name);
    prom_label_value(out, period);
    if (entrypoint) {
        strbuf_appends(out, "\",entrypoint=\"");
        prom_label_value(out, entrypoint);
    }
    strbuf_appends(out, "\"} ");
}

static int cmp_by_group(const void *a, const void *b)
{
    const struct logfile *x = *(const struct logfile *const *)a;
    const struct logfile *y = *(const struct logfile *const *)b;
    int c = strcmp(x->period, y->period);
    return c ? c : strcmp(x->entrypoint, y->entrypoint);
}

/* One group per (period, entry point), in that order. */
static struct group *make_groups(const struct logset *set, size_t *ngroups)
{
    const struct logfile **v = xcalloc(set->n + 1, sizeof *v);
    for (size_t i = 0; i < set->n; i++)
        v[i] = &set->files[i];
    if (set->n)
        qsort(v, set->n, sizeof *v, cmp_by_group);
    struct group *g = xcalloc(set->n + 1, sizeof *g);
    size_t n = 0;
    for (size_t i = 0; i < set->n; i++) {
        const struct logfile *lf = v[i];
        if (i == 0 || cmp_by_group(&v[i - 1], &v[i]) != 0)
            g[n++] = (struct group){lf->period, lf->entrypoint, 0, 0, lf->timestamp,
                                    lf->timestamp};
        struct group *cur = &g[n - 1];
        cur->files++;
        cur->bytes += (unsigned long long)lf->size;
        if (lf->timestamp < cur->oldest)
            cur->oldest = lf->timestamp;
        if (lf->timestamp > cur->newest)
            cur->newest = lf->timestamp;
    }
    free(v);
    *ngroups = n;
    return g;
}

static void log_metrics(strbuf *out, const struct group *g, size_t n)
{
    static const char *const names[] = {
        "arclamp_trace_log_files", "arclamp_trace_log_bytes",
        "arclamp_trace_log_oldest_timestamp_seconds", "arclamp_trace_log_newest_timestamp_seconds",
    };
    static const char *const helps[] = {
        "Trace log files (.log and .log.gz) per period and entry point.",
        "Bytes on disk of the trace logs per period and entry point.",
        "Time bucket of the oldest trace log (from its name, else its mtime).",
        "Time bucket of the newest trace log (from its name, else its mtime).",
    };
    for (int m = 0; m < 4; m++) {
        header(out, names[m], helps[m]);
        for (size_t i = 0; i < n; i++) {
            labels(out, names[m], g[i].period, g[i].entrypoint);
            long long v = m == 0   ? (long long)g[i].files
                          : m == 1 ? (long long)g[i].bytes
                          : m == 2 ? (long long)g[i].oldest
                                   : (long long)g[i].newest;
            strbuf_appendf(out, "%lld\n", v);
        }
    }
}

static struct graphs count_graphs(int svgs_fd, const char *period)
{
    struct graphs gr = {0, 0};
    int fd = openat(svgs_fd, period, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return gr;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        struct stat st;
        if (de->d_name[0] == '.' || !layout_has_suffix(de->d_name, len, LAYOUT_SVGZ_SUFFIX) ||
            fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
            continue;
        gr.files++;
        gr.bytes += (unsigned long long)st.st_size;
    }
    closedir(d);
    return gr;
}

static void graph_metrics(strbuf *out, const struct gen_config *cfg, const struct logset *set)
{
    int svgs_fd = open(cfg->svgs_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct graphs *gr = xcalloc(set->nperiods + 1, sizeof *gr);
    for (size_t p = 0; svgs_fd >= 0 && p < set->nperiods; p++)
        gr[p] = count_graphs(svgs_fd, set->periods[p]);
    header(out, "arclamp_flame_graph_files", "Flame graph files (.svgz) per period.");
    for (size_t p = 0; p < set->nperiods; p++) {
        labels(out, "arclamp_flame_graph_files", set->periods[p], NULL);
        strbuf_appendf(out, "%zu\n", gr[p].files);
    }
    header(out, "arclamp_flame_graph_bytes", "Bytes on disk of the flame graphs per period.");
    for (size_t p = 0; p < set->nperiods; p++) {
        labels(out, "arclamp_flame_graph_bytes", set->periods[p], NULL);
        strbuf_appendf(out, "%llu\n", gr[p].bytes);
    }
    free(gr);
    if (svgs_fd >= 0)
        close(svgs_fd);
}

static void index_metric(strbuf *out, const struct gen_config *cfg)
{
    strbuf path = STRBUF_INIT;
    strbuf_appendf(&path, "%s/index.html", cfg->data_dir);
    struct stat st;
    if (stat(strbuf_cstr(&path), &st) == 0) {
        header(out, "arclamp_svg_index_timestamp_seconds",
               "When index.html was last written (the end of the last generate run).");
        strbuf_appendf(out, "arclamp_svg_index_timestamp_seconds %lld\n",
                       (long long)st.st_mtim.tv_sec);
    }
    strbuf_free(&path);
}

/* Logs left out because their names could collide (logset.h), per period. */
static void refused_metric(strbuf *out, const struct logset *set)
{
    header(out, "arclamp_trace_log_refused_files",
           "Trace logs not drawn: their tag could collide with another graph.");
    for (size_t p = 0; p < set->nperiods; p++) {
        size_t n = 0;
        for (size_t i = 0; i < set->nrefused; i++)
            n += strcmp(set->refused[i].period, set->periods[p]) == 0;
        labels(out, "arclamp_trace_log_refused_files", set->periods[p], NULL);
        strbuf_appendf(out, "%zu\n", n);
    }
}

int metrics_render(const struct gen_config *cfg, strbuf *out, char *err, size_t errlen)
{
    struct logset set;
    if (logset_scan(cfg, NULL, &set, err, errlen) < 0)
        return -1;
    size_t n;
    struct group *g = make_groups(&set, &n);
    log_metrics(out, g, n);
    refused_metric(out, &set);
    graph_metrics(out, cfg, &set);
    index_metric(out, cfg);
    int rc = runstate_metrics(cfg, out, err, errlen) < 0 ? 1 : 0;
    free(g);
    logset_free(&set);
    return rc;
}

/* --- the command -------------------------------------------------------- */

static void usage(FILE *out)
{
    fputs("Usage: arclamp-svg metrics [--config FILE] [--data-dir DIR] [--output FILE]\n"
          "\n"
          "Prints Prometheus metrics about the trace logs (per period and entry point:\n"
          "files, bytes, oldest and newest time bucket) and graphs, or writes them\n"
          "atomically to FILE (node_exporter textfile collector: a *.prom file).\n"
          "\n"
          "  -c, --config FILE    configuration (default " GEN_CONFIG_DEFAULT_PATH
          " if it exists)\n"
          "  -d, --data-dir DIR   use DIR as data_dir\n"
          "  -o, --output FILE    write to FILE instead of standard output\n"
          "  -h, --help           print this help\n",
          out);
}

/* Writes the text to standard output or FILE: 0, or -1 with err set. */
static int emit(const char *output, const strbuf *text, char *err, size_t errlen)
{
    if (!output) {
        if (fwrite(text->data, 1, text->len, stdout) != text->len || fflush(stdout) != 0) {
            snprintf(err, errlen, "standard output: %s", strerror(errno));
            return -1;
        }
        return 0;
    }
    return atomic_write(output, text->data, text->len, 0, err, errlen) < 0 ? -1 : 0;
}

int cmd_metrics(int argc, char **argv)
{
    static const struct option options[] = {
        {"config", required_argument, NULL, 'c'}, {"data-dir", required_argument, NULL, 'd'},
        {"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *config = NULL, *data_dir = NULL, *output = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "c:d:o:h", options, NULL)) != -1) {
        switch (c) {
        case 'c': config = optarg; break;
        case 'd': data_dir = optarg; break;
        case 'o': output = optarg; break;
        case 'h': usage(stdout); return CLI_EXIT_OK;
        default: usage(stderr); return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "arclamp-svg metrics: unexpected argument \"%s\"\n", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    struct gen_config cfg;
    char msg[1024];
    int rc = cli_load_config(config, data_dir, 0, &cfg, msg, sizeof msg);
    if (msg[0])
        fprintf(stderr, "arclamp-svg metrics: %s\n", msg);
    if (rc)
        return rc;
    strbuf text = STRBUF_INIT;
    char err[2048];
    int made = metrics_render(&cfg, &text, err, sizeof err);
    if (made != 0)   /* an error, or the warning of counters left out: before the text */
        fprintf(stderr, "arclamp-svg metrics: %s\n", err);
    rc = made < 0 ? CLI_EXIT_FAILED : CLI_EXIT_OK;
    if (made >= 0 && emit(output, &text, err, sizeof err) < 0) {
        fprintf(stderr, "arclamp-svg metrics: %s\n", err);
        rc = CLI_EXIT_FAILED;
    }
    strbuf_free(&text);
    gen_config_free(&cfg);
    return rc;
}
