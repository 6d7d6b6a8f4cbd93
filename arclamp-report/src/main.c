/* arclamp-report: XHProf reports from runs, without PHP (see README.md).
 *   arclamp-report flat [--json] RUN...
 *   arclamp-report diff [--json] RUN_A RUN_B
 *   arclamp-report aggregate [--json] [--weights W1,W2,...] [--sum] RUN...
 *   arclamp-report prune [--json] --percent P RUN
 *   arclamp-report html [--title T] [--diff] [--callgraph-link URL] -o FILE.html RUN...
 *   arclamp-report callgraph [-o FILE.svg] [--threshold F] [--focus FUNCTION] [--dot] RUN
 *   arclamp-report export --format pprof|xhprof [-o FILE] RUNLOG...
 *   arclamp-report generate [--config FILE] [--data-dir DIR] [--logs-dir DIR] [--reports-dir DIR] [--log-format F]...
 *   arclamp-report tiers [--config FILE] [--data-dir DIR] [--logs-dir DIR] [--reports-dir DIR] [--log-format F]...
 * RUN: a serialize()d .xhprof file or json_encode() of the raw array. */
#include "callgraph.h"
#include "export.h"
#include "generate.h"
#include "log.h"
#include "html.h"
#include "jobconf.h"
#include "jsonout.h"
#include "keyedhash.h"
#include "layout.h"
#include "bucket.h"
#include "run.h"
#include "runlog.h"
#include "tiers.h"
#include "xhprof.h"
#include "strbuf.h"

#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct opts {
    int json, sum, diff, dot;
    const char *out, *title, *focus, *callgraph_link, *format;
    double threshold;
    size_t max_arcs, max_bytes, top;
    double percent;
    const char *weights;
    const char *data_dir, *logs_dir, *reports_dir;
    const char *config;
    const char *formats[GENERATE_MAX_FORMATS];
    size_t nformats;
    int quiet;
    int max_arcs_set;
    size_t max_names_mb;
    size_t max_identities, max_tiers, max_table_identities;
};

/* GNU layout, which help2man turns into the manual page: "or:" before each
 * further synopsis, two spaces at least between an option and its text. */
static void usage(FILE *out)
{
    fputs("Usage: arclamp-report flat [--json] [--top N] RUN...\n"
          "  or:  arclamp-report diff [--json] [--top N] RUN_A RUN_B\n"
          "  or:  arclamp-report aggregate [--json] [--weights W1,W2,...] [--sum] RUN...\n"
          "  or:  arclamp-report prune [--json] --percent P RUN\n"
          "  or:  arclamp-report html [--title T] [--diff] [--callgraph-link URL] -o FILE.html RUN...\n"
          "  or:  arclamp-report callgraph [-o FILE.svg] [--threshold F] [--focus FUNCTION] [--dot] RUN\n"
          "  or:  arclamp-report export --format pprof|xhprof [-o FILE] RUNLOG...\n"
          "  or:  arclamp-report generate [--config FILE] [--data-dir DIR] [--logs-dir DIR] "
          "[--reports-dir DIR] [--log-format FORMAT]... [--max-names-mb N] [--quiet]\n"
          "  or:  arclamp-report tiers [--config FILE] [--data-dir DIR] [--logs-dir DIR] "
          "[--reports-dir DIR] "
          "[--log-format FORMAT]... [--max-identities N] [--max-tiers N] [--quiet]\n"
          "\n"
          "RUN: an XHProf run, serialize()d (<runid>.<ns>.xhprof) or json_encode()d.\n"
          "  --json                JSON output (flat: {\"totals\", \"functions\"}; aggregate,\n"
          "                        prune: the raw array)\n"
          "  --top N               functions in the text table (default 100, 0 = all)\n"
          "  --weights W,...       aggregate: weights of the runs (default equal)\n"
          "  --sum                 aggregate: the plain sum (xhprof_lib's result)\n"
          "  --percent P           prune: below P% of main()'s inclusive wt\n"
          "  -o FILE               html: the page to write (one file: data and script in it)\n"
          "  --diff                html: the page of RUN_B - RUN_A, with the invert link\n"
          "  --title T             html: the page's title\n"
          "  --callgraph-link URL  html: a link to the run's callgraph\n"
          "  --threshold F         callgraph: functions above F of the total time (default 0.01)\n"
          "  --focus NAME          callgraph: that function, its parents and children\n"
          "  --dot                 callgraph: the Graphviz input instead of SVG\n"
          "  --format F            export: the mean run of the RUNLOGs (<bucket>.<tag>.runs)\n"
          "                        as pprof (gzipped profile.proto) or xhprof (serialize()d)\n"
          "  --config FILE         generate, tiers: the YAML file holding object_store:\n"
          "                        (default " JOBCONF_DEFAULT_PATH " if it exists)\n"
          "  --data-dir DIR        generate, tiers: logs in DIR/logs, pages in DIR/reports\n"
          "                        (default /srv/arclamp)\n"
          "  --logs-dir DIR        generate, tiers: arclamp-log's base_path (default DIR/logs)\n"
          "  --reports-dir DIR     generate, tiers: where the pages go (default DIR/reports;\n"
          "                        tier pages in DIR/reports/tiers)\n"
          "  --log-format F        generate, tiers: arclamp-log's bucket formats (repeat;\n"
          "                        default arclamp-svg's log_formats)\n"
          "  --quiet               generate, tiers: no summary, no notes on files skipped\n"
          "  --max-identities N    tier pages (tiers, generate): identities per page\n"
          "                        (default 100)\n"
          "  --max-tiers N         tier pages: tiers per identity (default 32)\n"
          "  --max-table-identities N  tier pages: identities a table is read into, the\n"
          "                        rest added up as _other (default 2000)\n"
          "  --max-arcs N          refuse a run of more arcs (default 2000000;\n"
          "                        generate: arcs per report, 50000)\n"
          "  --max-mb N            refuse a run file larger than N MiB (default 1024)\n"
          "  --max-names-mb N      generate: MiB of arc keys (names) per report (default 8)\n"
          "  --version             print the version\n"
          "\n"
          "Exit status of generate, tiers: 0 done (a store that failed included: its\n"
          "uploads are sent next run); 1 a page could not be written; 2 bad command\n"
          "line; 75 another job held the lock; 78 bad configuration file.\n",
          out);
}

static void print_json(json_object *o)
{
    fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
          stdout);
    fputc('\n', stdout);
    json_object_put(o);
}

static json_object *flat_json(const flat *f)
{
    json_object *root = json_object_new_object();
    json_object_object_add(root, "totals", json_metrics(f->totals, f->metrics | 1u, NULL));
    json_object *fns = json_object_new_object();
    for (size_t i = 0; i < f->syms.n; i++) {
        const arc *s = &f->syms.arcs[i];
        json_object_object_add_ex(fns, s->key, json_metrics(s->v, f->metrics | 1u, f->excl[i]),
                                  JSON_C_OBJECT_ADD_KEY_IS_NEW);
    }
    json_object_object_add(root, "functions", fns);
    return root;
}

static json_object *raw_json(const run *r)
{
    json_object *root = json_object_new_object();
    for (size_t i = 0; i < r->n; i++) {
        const arc *a = &r->arcs[i];
        json_object_object_add_ex(root, a->key, json_metrics(a->v, a->present, NULL),
                                  JSON_C_OBJECT_ADD_KEY_IS_NEW);
    }
    return root;
}

/* qsort_r order of function indexes: exclusive wt descending (calls when
 * the run has no wt), then by name. */
static int by_excl_wt(const void *x, const void *y, void *arg)
{
    const flat *f = arg;
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    int m = (f->metrics & (1u << M_WT)) ? M_WT : M_CT;
    double a = m == M_CT ? f->syms.arcs[i].v[M_CT] : f->excl[i][m];
    double b = m == M_CT ? f->syms.arcs[j].v[M_CT] : f->excl[j][m];
    return a < b ? 1 : (a > b ? -1 : strcmp(f->syms.arcs[i].key, f->syms.arcs[j].key));
}

/* The text table: the top functions by exclusive wt (by calls without wt). */
static void print_table(const flat *f, size_t top)
{
    size_t n = f->syms.n, *order = xmalloc((n ? n : 1) * sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof *order, by_excl_wt, (void *)f);
    printf("%-60s %10s", "function", "calls");
    for (int m = 1; m < M_COUNT; m++) {
        if (f->metrics & (1u << m))
            printf(" %12s %12s", metric_names[m], "excl");
    }
    putchar('\n');
    for (size_t k = 0; k < n && (top == 0 || k < top); k++) {
        const arc *s = &f->syms.arcs[order[k]];
        printf("%-60.*s %10.0f", (int)(s->klen < 200 ? s->klen : 200), s->key, s->v[M_CT]);
        for (int m = 1; m < M_COUNT; m++) {
            if (f->metrics & (1u << m))
                printf(" %12.0f %12.0f", s->v[m], f->excl[order[k]][m]);
        }
        putchar('\n');
    }
    free(order);
}

static int load_all(char **paths, int n, run *runs, const struct opts *o)
{
    for (int i = 0; i < n; i++) {
        char err[512];
        run_init(&runs[i], o->max_arcs);
        if (run_load(&runs[i], paths[i], o->max_bytes, err, sizeof err) < 0) {
            fprintf(stderr, "arclamp-report: %s\n", err);
            return -1;
        }
    }
    return 0;
}

/* out += w[i] * run i, one run in memory at a time: memory follows the
 * distinct arcs, not the number of runs. w NULL: all 1. */
static int accumulate(char **paths, int n, const double *w, const struct opts *o, run *out)
{
    for (int i = 0; i < n; i++) {
        char err[512];
        if (run_load_weighted(out, paths[i], o->max_bytes, w ? w[i] : 1.0, err, sizeof err) < 0) {
            fprintf(stderr, "arclamp-report: %s\n", err);
            return -1;
        }
    }
    return 0;
}

static int parse_weights(const char *s, int n, double *w)
{
    for (int i = 0; i < n; i++) {
        char *end;
        errno = 0;
        w[i] = strtod(s, &end);
        if (end == s || errno || !(w[i] >= 0) || !isfinite(w[i]))
            return -1;
        s = end;
        if (i < n - 1 && *s++ != ',')
            return -1;
    }
    return *s ? -1 : 0;
}

static int write_page(const run *data, const flat *f, char **paths, int n, const struct opts *o)
{
    char err[600], title[512], fwd[256], back[256];
    if (o->title)
        snprintf(title, sizeof title, "%s", o->title);
    else if (o->diff)
        snprintf(title, sizeof title, "XHProf diff: %.200s - %.200s", paths[1], paths[0]);
    else
        snprintf(title, sizeof title, "XHProf report: %.200s%s", paths[0], n > 1 ? " and more" : "");
    snprintf(fwd, sizeof fwd, "Showing %.120s - %.120s", paths[1 % n], paths[0]);
    snprintf(back, sizeof back, "Showing %.120s - %.120s", paths[0], paths[1 % n]);
    if (html_write(o->out, title, data, f, o->diff ? fwd : NULL, o->diff ? back : NULL,
                   o->callgraph_link, err, sizeof err) < 0) {
        fprintf(stderr, "arclamp-report: %s\n", err);
        return 1;
    }
    return 0;
}

static int cmd_flat(char **paths, int n, const struct opts *o, int diff)
{
    static const double b_minus_a[2] = {-1.0, 1.0};
    run data;
    int rc = 1;
    run_init(&data, o->max_arcs);
    if (accumulate(paths, n, diff ? b_minus_a : NULL, o, &data) == 0) {
        flat f;
        flat_compute(&data, &f);
        rc = 0;
        if (o->out)
            rc = write_page(&data, &f, paths, n, o);
        else if (o->json)
            print_json(flat_json(&f));
        else
            print_table(&f, o->top);
        flat_free(&f);
    }
    run_free(&data);
    return rc;
}

static int cmd_aggregate(char **paths, int n, const struct opts *o)
{
    double *w = xcalloc((size_t)n, sizeof *w), total = 0;
    if (o->weights ? parse_weights(o->weights, n, w) < 0 : 0) {
        fprintf(stderr, "arclamp-report: --weights needs %d numbers >= 0, comma-separated\n", n);
        free(w);
        return 2;
    }
    run out;
    run_init(&out, o->max_arcs);
    int rc = 1;
    for (int i = 0; i < n; i++)
        total += o->weights ? w[i] : 1.0;
    if (accumulate(paths, n, o->weights ? w : NULL, o, &out) == 0) {
        if (!o->sum && total > 0)
            run_scale(&out, 1.0 / total);
        print_json(raw_json(&out));
        rc = 0;
    }
    free(w);
    run_free(&out);
    return rc;
}

static int cmd_callgraph(char *path, const struct opts *o)
{
    run in;
    int rc = 1;
    if (load_all(&path, 1, &in, o) == 0) {
        flat f;
        flat_compute(&in, &f);
        strbuf out = STRBUF_INIT;
        char err[200];
        if (o->dot)
            callgraph_dot(&in, &f, o->threshold, o->focus, &out);
        if (!o->dot && callgraph_svg(&in, &f, o->threshold, o->focus, &out, err, sizeof err) < 0) {
            fprintf(stderr, "arclamp-report: %s: %s\n", path, err);
        } else if (o->out) {
            FILE *fp = fopen(o->out, "w");
            if (fp && fwrite(out.data, 1, out.len, fp) == out.len && fclose(fp) == 0)
                rc = 0;
            else
                fprintf(stderr, "arclamp-report: %s: %s\n", o->out, strerror(errno));
        } else {
            rc = fwrite(out.data, 1, out.len, stdout) == out.len ? 0 : 1;
        }
        strbuf_free(&out);
        flat_free(&f);
    }
    run_free(&in);
    return rc;
}

static int cmd_prune(char *path, const struct opts *o)
{
    run in, out;
    run_init(&out, o->max_arcs);
    int rc = 1;
    if (load_all(&path, 1, &in, o) == 0) {
        if (run_prune(&in, o->percent, &out) < 0)
            fprintf(stderr, "arclamp-report: %s: main() has neither wt nor samples\n", path);
        else {
            print_json(raw_json(&out));
            rc = 0;
        }
    }
    run_free(&in);
    run_free(&out);
    return rc;
}

/* The mean run of run logs, as generate's reports have it: every complete
 * run once (by its id), summed, over their number. */
static int load_runlogs(char **paths, int n, const struct opts *o, run *mean)
{
    struct runlog_seen seen;
    struct runlog_stats st = {0};
    runlog_seen_init(&seen);
    mean->max_key_bytes = o->max_names_mb << 20;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        char err[700];
        if (runlog_add(mean, paths[i], o->max_bytes, &seen, &st, err, sizeof err) < 0) {
            fprintf(stderr, "arclamp-report: %s\n", err);
            rc = -1;
        }
    }
    runlog_seen_free(&seen);
    if (rc == 0 && st.runs == 0) {
        fprintf(stderr, "arclamp-report: no complete run in the run logs\n");
        rc = -1;
    }
    if (st.runs > 1)
        run_scale(mean, 1.0 / (double)st.runs);
    return rc;
}

static int write_out(const char *path, const strbuf *data)
{
    FILE *fp = path ? fopen(path, "wb") : stdout;
    int ok = fp && fwrite(data->data, 1, data->len, fp) == data->len;
    ok = (path ? fp && fclose(fp) == 0 : fflush(stdout) == 0) && ok;
    if (!ok)
        fprintf(stderr, "arclamp-report: %s: %s\n", path ? path : "stdout", strerror(errno));
    return ok ? 0 : 1;
}

static int cmd_export(char **paths, int n, const struct opts *o)
{
    int pprof = strcmp(o->format, "pprof") == 0;
    if (!pprof && strcmp(o->format, "xhprof") != 0) {
        fprintf(stderr, "arclamp-report: --format: expected pprof or xhprof, got \"%s\"\n",
                o->format);
        return 2;
    }
    run mean;
    run_init(&mean, o->max_arcs);
    int rc = 1;
    if (load_runlogs(paths, n, o, &mean) == 0) {
        strbuf out = STRBUF_INIT;
        if (pprof)
            export_pprof(&mean, &out);
        else
            export_xhprof(&mean, &out);
        rc = write_out(o->out, &out);
        strbuf_free(&out);
    }
    run_free(&mean);
    return rc;
}

/* The options generate and tiers share: where, and which bucket formats. */
static void job_dirs(const struct opts *o, struct generate_opts *g, char *logs, char *reports)
{
    const char *data = o->data_dir ? o->data_dir : LAYOUT_DATA_DIR;
    snprintf(logs, PATH_MAX, "%s/" LAYOUT_LOGS_DIR, data);
    snprintf(reports, PATH_MAX, "%s/" LAYOUT_REPORTS_DIR, data);
    g->logs_dir = o->logs_dir ? o->logs_dir : logs;
    g->reports_dir = o->reports_dir ? o->reports_dir : reports;
    if (o->nformats) {
        memcpy(g->formats, o->formats, sizeof g->formats);
        g->nformats = o->nformats;
    } else {
        generate_default_formats(g);
    }
    g->quiet = o->quiet;
    g->tiers = (struct tiers_opts){
        .logs_dir = g->logs_dir, .reports_dir = g->reports_dir,
        .formats = g->formats, .nformats = g->nformats,
        .max_table_identities = o->max_table_identities,
        .max_identities = o->max_identities, .max_tiers = o->max_tiers, .quiet = o->quiet,
    };
}

/* The jobs' configuration file; 0, or the exit status of a refused one. */
static int load_job_config(const struct opts *o, struct job_config *cfg)
{
    char err[1024];
    if (job_config_load(o->config, cfg, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "arclamp-report: %s\n", err);
    return JOBCONF_EXIT_CONFIG;
}

static int cmd_tiers(const struct opts *o)
{
    struct job_config cfg;
    int rc = load_job_config(o, &cfg);
    if (rc)
        return rc;
    struct generate_opts g = {0};
    char logs[PATH_MAX], reports[PATH_MAX];
    job_dirs(o, &g, logs, reports);
    g.tiers.store = &cfg.store;
    rc = tiers_run(&g.tiers);
    job_config_free(&cfg);
    return rc;
}

static int cmd_generate(const struct opts *o)
{
    struct job_config cfg;
    int rc = load_job_config(o, &cfg);
    if (rc)
        return rc;
    struct generate_opts g = {0};
    char logs[PATH_MAX], reports[PATH_MAX];
    job_dirs(o, &g, logs, reports);
    g.store = &cfg.store;
    g.tiers.store = &cfg.store;
    /* a page's memory follows its arcs (some 5 KB each): a lower default */
    g.max_arcs = o->max_arcs_set ? o->max_arcs : GENERATE_DEFAULT_MAX_ARCS;
    g.max_key_bytes = o->max_names_mb << 20;
    g.max_bytes = o->max_bytes;
    g.threshold = o->threshold;
    rc = generate_run(&g);
    job_config_free(&cfg);
    return rc;
}

int main(int argc, char **argv)
{
    keyedhash_init();   /* the tables' hash key, before any table is filled */
    /* the timer jobs (generate, tiers) report as arclamp-svg's do: events
     * to the journal under systemd, one line each on stderr otherwise;
     * command-line errors are printed here, in main */
    log_setup("arclamp-report", LOG_TARGET_AUTO);
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    /* as the other programs: help2man reads it for the manual page */
    if (strcmp(argv[1], "--version") == 0) {
        puts("arclamp-report " ARCLAMP_VERSION);
        return 0;
    }
    const char *cmd = argv[1];
    struct opts o = {.threshold = 0.01, .max_arcs = 2000000, .max_bytes = (size_t)1024 << 20,
                     .top = 100, .percent = -1,
                     .max_identities = TIERS_DEFAULT_MAX_IDENTITIES,
                     .max_tiers = TIERS_DEFAULT_MAX_TIERS,
                     .max_table_identities = TIERS_DEFAULT_MAX_TABLE_IDENTITIES,
                     .max_names_mb = GENERATE_DEFAULT_MAX_NAMES_MB};
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},       {"sum", no_argument, NULL, 's'},
        {"top", required_argument, NULL, 't'},  {"weights", required_argument, NULL, 'w'},
        {"percent", required_argument, NULL, 'p'}, {"max-arcs", required_argument, NULL, 'a'},
        {"max-mb", required_argument, NULL, 'm'}, {"help", no_argument, NULL, 'h'},
        {"diff", no_argument, NULL, 'd'},       {"title", required_argument, NULL, 'T'},
        {"dot", no_argument, NULL, 'D'},        {"focus", required_argument, NULL, 'F'},
        {"threshold", required_argument, NULL, 'r'},
        {"callgraph-link", required_argument, NULL, 'L'},
        {"data-dir", required_argument, NULL, 'R'}, {"logs-dir", required_argument, NULL, 'l'},
        {"reports-dir", required_argument, NULL, 'P'},
        {"log-format", required_argument, NULL, 'f'}, {"quiet", no_argument, NULL, 'q'},
        {"max-identities", required_argument, NULL, 'I'},
        {"max-tiers", required_argument, NULL, 'N'},
        {"max-table-identities", required_argument, NULL, 'Y'},
        {"max-names-mb", required_argument, NULL, 'K'},
        {"config", required_argument, NULL, 'C'},
        {"format", required_argument, NULL, 'O'},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 2;
    while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
        char *end = NULL;
        switch (c) {
        case 'j': o.json = 1; break;
        case 'd': o.diff = 1; break;
        case 'o': o.out = optarg; break;
        case 'T': o.title = optarg; break;
        case 'D': o.dot = 1; break;
        case 'F': o.focus = optarg; break;
        case 'L': o.callgraph_link = optarg; break;
        case 'r': o.threshold = strtod(optarg, &end); break;
        case 's': o.sum = 1; break;
        case 'w': o.weights = optarg; break;
        case 't': o.top = strtoul(optarg, &end, 10); break;
        case 'a': o.max_arcs = strtoul(optarg, &end, 10); o.max_arcs_set = 1; break;
        case 'm': o.max_bytes = strtoul(optarg, &end, 10) << 20; break;
        case 'I': o.max_identities = strtoul(optarg, &end, 10); break;
        case 'N': o.max_tiers = strtoul(optarg, &end, 10); break;
        case 'Y': o.max_table_identities = strtoul(optarg, &end, 10); break;
        case 'K': o.max_names_mb = strtoul(optarg, &end, 10); break;
        case 'p': o.percent = strtod(optarg, &end); break;
        case 'R': o.data_dir = optarg; break;
        case 'l': o.logs_dir = optarg; break;
        case 'P': o.reports_dir = optarg; break;
        case 'q': o.quiet = 1; break;
        case 'C': o.config = optarg; break;
        case 'O': o.format = optarg; break;
        case 'f':
            if (o.nformats == GENERATE_MAX_FORMATS || bucket_format_check(optarg)) {
                fprintf(stderr, "arclamp-report: --log-format %s: %s\n", optarg,
                        o.nformats == GENERATE_MAX_FORMATS ? "too many formats"
                                                           : bucket_format_check(optarg));
                return 2;
            }
            o.formats[o.nformats++] = optarg;
            break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "arclamp-report: try 'arclamp-report --help'\n");
            return 2;
        }
        if (end && *end) {
            fprintf(stderr, "arclamp-report: not a number: %s\n", optarg);
            return 2;
        }
    }
    int n = argc - optind;
    char **runs = argv + optind;
    if (strcmp(cmd, "flat") == 0 && n >= 1)
        return cmd_flat(runs, n, &o, 0);
    if (strcmp(cmd, "diff") == 0 && n == 2)
        return cmd_flat(runs, n, &o, 1);
    if (strcmp(cmd, "aggregate") == 0 && n >= 1)
        return cmd_aggregate(runs, n, &o);
    if (strcmp(cmd, "html") == 0 && o.out && n >= 1 && (!o.diff || n == 2))
        return cmd_flat(runs, n, &o, o.diff);
    if (strcmp(cmd, "callgraph") == 0 && n == 1 && o.threshold >= 0)
        return cmd_callgraph(runs[0], &o);
    if (strcmp(cmd, "prune") == 0 && n == 1 && o.percent >= 0)
        return cmd_prune(runs[0], &o);
    if (strcmp(cmd, "export") == 0 && o.format && n >= 1)
        return cmd_export(runs, n, &o);
    if (strcmp(cmd, "generate") == 0 && n == 0)
        return cmd_generate(&o);
    if (strcmp(cmd, "tiers") == 0 && n == 0 && o.max_identities && o.max_tiers &&
        o.max_table_identities)
        return cmd_tiers(&o);
    fprintf(stderr, "arclamp-report: %s: wrong command or arguments; try 'arclamp-report --help'\n",
            cmd);
    return 2;
}
