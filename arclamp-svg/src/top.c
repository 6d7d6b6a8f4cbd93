/* top: the leaderboard of functions by share of samples. See top.h.
 *
 * The figures come from the flame graph's own boxes: flame_layout reports
 * them children first; walked backwards they come parents first, so the
 * path from the root to each box is known, and a box adds to its
 * function's inclusive count only when no ancestor is the same function
 * (recursion counted once per stack). A box's self count is its total less
 * its children's. */
#include "top.h"
#include "cli.h"
#include "commands.h"
#include "input.h"
#include "strbuf.h"
#include "xmlesc.h"
#include "vec.h"

#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* --- figures ------------------------------------------------------------ */

/* What the walk needs of a box (half the size of struct flame_box: there is
 * one per node of the graph's tree, and they are all kept). */
struct box {
    uint32_t depth, frame;
    double total;
};

struct boxes {
    struct box *v;
    size_t n, cap;
};

static void collect(void *arg, const struct flame_box *box)
{
    struct boxes *b = arg;
    VEC_RESERVE(b->v, b->cap, b->n + 1, 1024);
    b->v[b->n++] = (struct box){box->depth, box->frame, box->total};
}

/* A box on the path from the root. */
struct open {
    uint32_t frame;
    double remaining;   /* its total less its children seen so far */
};

struct figures {
    double *self, *inclusive;
    uint32_t *active;   /* per frame: boxes of it on the current path */
    struct open *path;  /* path[d]: the open box at depth d */
};

static void close_box(struct figures *fig, uint32_t depth)
{
    if (depth == 0)
        return;
    struct open *o = &fig->path[depth];
    fig->self[o->frame] += o->remaining;
    fig->active[o->frame]--;
}

static void walk(const struct boxes *b, struct figures *fig)
{
    uint32_t top = 0; /* depth of the innermost open box */
    for (size_t i = b->n; i-- > 0;) {
        const struct box *box = &b->v[i];
        if (box->depth == 0) {
            fig->path[0] = (struct open){0, box->total};
            top = 0;
            continue;
        }
        for (; top >= box->depth; top--)
            close_box(fig, top);
        fig->path[top].remaining -= box->total;
        top = box->depth;
        fig->path[top] = (struct open){box->frame, box->total};
        if (fig->active[box->frame]++ == 0)
            fig->inclusive[box->frame] += box->total;
    }
    for (; top > 0; top--)
        close_box(fig, top);
}

struct top_row *top_rows(const struct flame *f, size_t *nrows)
{
    size_t nframes = flame_distinct_frames(f);
    struct boxes b = {NULL, 0, 0};
    flame_layout(f, FLAME_FORWARD, collect, &b);
    struct figures fig = {
        xcalloc(nframes + 1, sizeof(double)), xcalloc(nframes + 1, sizeof(double)),
        xcalloc(nframes + 1, sizeof(uint32_t)),
        xcalloc((size_t)flame_max_depth(f) + 2, sizeof(struct open)),
    };
    walk(&b, &fig);
    struct top_row *rows = xcalloc(nframes + 1, sizeof *rows);
    size_t n = 0;
    for (uint32_t fr = 0; fr < nframes; fr++) {
        if (fig.inclusive[fr] <= 0)
            continue;
        rows[n].name = flame_frame_name(f, fr, &rows[n].len);
        rows[n].self = fig.self[fr];
        rows[n].inclusive = fig.inclusive[fr];
        n++;
    }
    free(b.v);
    free(fig.self);
    free(fig.inclusive);
    free(fig.active);
    free(fig.path);
    top_sort(rows, n, 0);
    *nrows = n;
    return rows;
}

static int cmp_double_desc(double a, double b)
{
    return a > b ? -1 : a < b ? 1 : 0;
}

static int cmp_names(const struct top_row *x, const struct top_row *y)
{
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int cmp_self(const void *a, const void *b)
{
    const struct top_row *x = a, *y = b;
    int c = cmp_double_desc(x->self, y->self);
    c = c ? c : cmp_double_desc(x->inclusive, y->inclusive);
    return c ? c : cmp_names(x, y);
}

static int cmp_inclusive(const void *a, const void *b)
{
    const struct top_row *x = a, *y = b;
    int c = cmp_double_desc(x->inclusive, y->inclusive);
    c = c ? c : cmp_double_desc(x->self, y->self);
    return c ? c : cmp_names(x, y);
}

void top_sort(struct top_row *rows, size_t n, int by_inclusive)
{
    if (n)
        qsort(rows, n, sizeof *rows, by_inclusive ? cmp_inclusive : cmp_self);
}

/* --- choosing logs ------------------------------------------------------ */

/* The log's entry point (its tag, logset.h) is `entrypoint`; "all" takes
 * only true all logs (<bucket>.all), never a tag like "evil.all". */
static int entry_matches(const struct logfile *lf, const char *entrypoint)
{
    if (strcmp(entrypoint, "all") == 0)
        return lf->is_all;
    return strcmp(lf->entrypoint, entrypoint) == 0;
}

/* "last-N": N (>= 1); 0 if the slice is a prefix; -1 if it is malformed. */
static long parse_last(const char *slice)
{
    if (strncasecmp(slice, "last-", 5) != 0)
        return 0;
    char *end;
    errno = 0;
    long n = strtol(slice + 5, &end, 10);
    return errno || end == slice + 5 || *end || n < 1 ? -1 : n;
}

long top_select(const struct logset *set, const struct top_options *opt, size_t **chosen)
{
    const char *slice = opt->slice ? opt->slice : "last-1";
    long last = parse_last(slice);
    if (last < 0)
        return -1;
    size_t *v = xcalloc(set->n + 1, sizeof *v), n = 0;
    /* set->files is newest first within a period. */
    for (size_t i = 0; i < set->n; i++) {
        const struct logfile *lf = &set->files[i];
        if (strcmp(lf->period, opt->period) || !entry_matches(lf, opt->entrypoint))
            continue;
        if (last ? n < (size_t)last : strncmp(lf->name, slice, strlen(slice)) == 0)
            v[n++] = i;
    }
    for (size_t i = 0; i < n / 2; i++) { /* oldest first */
        size_t t = v[i];
        v[i] = v[n - 1 - i];
        v[n - 1 - i] = t;
    }
    *chosen = v;
    return (long)n;
}

/* --- reading ------------------------------------------------------------ */

struct top_reader {
    struct flame *f;
    regex_t *re;          /* NULL: every line */
    double all_samples;   /* samples of every valid-looking line, matching or not */
};

/* The count at the end of a line (0 when there is none). */
static double line_count(const char *line, size_t len, size_t *stack_len)
{
    if (len && line[len - 1] == '\r')
        len--;
    const char *sp = memrchr(line, ' ', len);
    *stack_len = sp ? (size_t)(sp - line) : len;
    if (!sp)
        return 0;
    char num[32];
    size_t n = len - *stack_len - 1;
    if (n == 0 || n >= sizeof num)
        return 0;
    memcpy(num, sp + 1, n);
    num[n] = '\0';
    char *end;
    double v = strtod(num, &end);
    return *end ? 0 : v;
}

static int top_line(void *arg, const char *line, size_t len)
{
    struct top_reader *r = arg;
    size_t slen;
    r->all_samples += line_count(line, len, &slen);
    if (r->re) {
        regmatch_t m = {0, (regoff_t)slen};
        if (regexec(r->re, line, 1, &m, REG_STARTEND) != 0)
            return 0;
    }
    flame_add_line(r->f, line, len);
    return 0;
}

/* --- printing ----------------------------------------------------------- */

/* A frame name for a terminal: valid UTF-8 kept, control bytes and invalid
 * sequences as \xNN (nothing from a log can move the cursor). */
static void printable(strbuf *out, const char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        unsigned cp;
        size_t n = utf8_next(s + i, len - i, &cp);
        unsigned char c = (unsigned char)s[i];
        if ((cp == 0xFFFD && n == 1) || c < 0x20 || c == 0x7f || (cp >= 0x80 && cp < 0xA0))
            for (size_t k = 0; k < n; k++)
                strbuf_appendf(out, "\\x%02x", (unsigned char)s[i + k]);
        else
            strbuf_append(out, s + i, n);
        i += n;
    }
}

static void print_table(FILE *out, const struct top_row *rows, size_t n, double total)
{
    strbuf line = STRBUF_INIT;
    fprintf(out, "%8s %12s %8s %12s  %s\n", "SELF%", "SELF", "INCL%", "INCL", "FUNCTION");
    for (size_t i = 0; i < n; i++) {
        strbuf_reset(&line);
        strbuf_appendf(&line, "%7.2f%% %12.0f %7.2f%% %12.0f  ", 100 * rows[i].self / total,
                       rows[i].self, 100 * rows[i].inclusive / total, rows[i].inclusive);
        printable(&line, rows[i].name, rows[i].len);
        fprintf(out, "%s\n", strbuf_cstr(&line));
    }
    strbuf_free(&line);
}

static void print_header(FILE *out, const struct top_options *opt, const struct logset *set,
                         const size_t *chosen, size_t n, const struct top_reader *r)
{
    strbuf first = STRBUF_INIT, last = STRBUF_INIT;
    printable(&first, set->files[chosen[0]].name, strlen(set->files[chosen[0]].name));
    printable(&last, set->files[chosen[n - 1]].name, strlen(set->files[chosen[n - 1]].name));
    fprintf(out, "%zu log%s of period %s, entry point %s: %s%s%s\n", n, n == 1 ? "" : "s",
            opt->period, opt->entrypoint, strbuf_cstr(&first), n > 1 ? " .. " : "",
            n > 1 ? strbuf_cstr(&last) : "");
    double total = flame_total(r->f);
    if (opt->grep)
        fprintf(out, "%.0f of %.0f samples (%.2f%%) match /%s/\n", total, r->all_samples,
                r->all_samples > 0 ? 100 * total / r->all_samples : 0.0, opt->grep);
    else
        fprintf(out, "%.0f samples\n", total);
    strbuf_free(&first);
    strbuf_free(&last);
}

/* --- the command -------------------------------------------------------- */

static void usage(FILE *out)
{
    fputs("Usage: arclamp-svg top [--config FILE] [--data-dir DIR] [--period P]\n"
          "                       [--entrypoint E] [--grep REGEX] [--slice PREFIX|last-N]\n"
          "                       [--count N] [--sort self|inclusive]\n"
          "       arclamp-svg top [--grep REGEX] [--count N] [--sort KEY] FILE...\n"
          "\n"
          "Lists the functions with the largest share of samples in the chosen trace\n"
          "logs: self (the stack ends there) and inclusive (the stack holds it, once\n"
          "per stack even when it recurses). With FILE arguments, of those trace\n"
          "logs (plain or .gz) instead of the data directory's.\n"
          "\n"
          "  -p, --period P        log group directory (default daily)\n"
          "  -e, --entrypoint E    entry point: index, api, all, ... (default all)\n"
          "  -g, --grep REGEX      only stacks matching this extended regex; shares\n"
          "                        are then of the matching samples\n"
          "  -s, --slice S         logs whose name starts with S (e.g. 2026-11-22), or\n"
          "                        last-N for the N newest (default last-1)\n"
          "  -n, --count N         rows to show (default 20)\n"
          "      --sort KEY        rank by self (default) or inclusive samples\n"
          "  -c, --config FILE     configuration (default " GEN_CONFIG_DEFAULT_PATH
          " if it exists)\n"
          "  -d, --data-dir DIR    use DIR as data_dir\n"
          "  -h, --help            print this help\n",
          out);
}

/* Applies one option: 0, 1 for --help, or -1 for a bad value (err set; left
 * empty when getopt has said it). */
static int apply_option(int c, const char *arg, struct top_options *opt, const char **config,
                        const char **data_dir, char *err, size_t errlen)
{
    double v;
    switch (c) {
    case 'p': opt->period = arg; return 0;
    case 'e': opt->entrypoint = arg; return 0;
    case 'g': opt->grep = arg; return 0;
    case 's': opt->slice = arg; return 0;
    case 'c': *config = arg; return 0;
    case 'd': *data_dir = arg; return 0;
    case 'n':
        if (cli_number("count", arg, 1, 1e9, &v, err, errlen) < 0)
            return -1;
        opt->count = (size_t)v;
        return 0;
    case 'S':
        if (strcmp(arg, "self") && strcmp(arg, "inclusive")) {
            snprintf(err, errlen, "--sort: expected self or inclusive");
            return -1;
        }
        opt->by_inclusive = strcmp(arg, "inclusive") == 0;
        return 0;
    case 'h': return 1;
    default: return -1;
    }
}

/* Reads the options into opt, config and data_dir: 0, 1 after --help, -1
 * for a bad option (err set or, when getopt has said it, empty; the usage
 * follows), or -2 for options that do not go together (err set). */
static int parse_args(int argc, char **argv, struct top_options *opt, const char **config,
                      const char **data_dir, char *err, size_t errlen)
{
    static const struct option options[] = {
        {"config", required_argument, NULL, 'c'}, {"data-dir", required_argument, NULL, 'd'},
        {"period", required_argument, NULL, 'p'}, {"entrypoint", required_argument, NULL, 'e'},
        {"grep", required_argument, NULL, 'g'},   {"slice", required_argument, NULL, 's'},
        {"count", required_argument, NULL, 'n'},  {"sort", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    int c, rc, chooses_logs = 0;
    err[0] = '\0';
    optind = 1;
    while ((c = getopt_long(argc, argv, "c:d:p:e:g:s:n:h", options, NULL)) != -1) {
        if ((rc = apply_option(c, optarg, opt, config, data_dir, err, errlen)) != 0)
            return rc;
        chooses_logs |= strchr("cdpes", c) != NULL;
    }
    if (optind < argc && chooses_logs) {
        snprintf(err, errlen, "give trace log files or choose logs of the data directory "
                              "(--period, --entrypoint, --slice), not both");
        return -2;
    }
    return 0;
}

/* Reads the trace logs into r; every one that cannot be read adds its line
 * "arclamp-svg top: why" to msgs (the others are still read). Returns 0, or
 * -1 when one failed. */
static int read_paths(char *const *paths, size_t n, struct top_reader *r, strbuf *msgs)
{
    struct input_stats st = {0, 0, 0};
    char err[1024];
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (input_read_path(paths[i], top_line, r, &st, err, sizeof err) != 0) {
            strbuf_appendf(msgs, "arclamp-svg top: %s\n", err);
            rc = -1;
        }
    }
    return rc;
}

/* The chosen logs of the data directory: what report() prints. */
struct top_run {
    struct logset set;
    size_t *chosen;         /* indexes into set.files */
    size_t n;               /* how many; 0: none, nothing to report */
    struct top_reader r;    /* r.f is NULL while n is 0 */
};

/* Chooses the logs of the data directory that opt names and reads them into
 * run (free it with top_run_free whatever this returns). Returns
 * CLI_EXIT_OK, or the exit status with the lines to print on stderr in
 * msgs: none could be chosen (run->n is 0), or some could not be read (the
 * others are to be reported). */
static int top_read(const struct gen_config *cfg, const struct top_options *opt, regex_t *re,
                    struct top_run *run, strbuf *msgs)
{
    char err[1024];
    *run = (struct top_run){.r = {NULL, re, 0}};
    if (logset_scan(cfg, opt->period, &run->set, err, sizeof err) < 0) {
        strbuf_appendf(msgs, "arclamp-svg top: %s\n", err);
        return CLI_EXIT_FAILED;
    }
    long n = top_select(&run->set, opt, &run->chosen);
    if (n <= 0) {
        if (n < 0)
            strbuf_appends(msgs, "arclamp-svg top: --slice: expected a name prefix or last-N\n");
        else
            strbuf_appendf(msgs, "arclamp-svg top: no trace logs for period \"%s\", entry "
                                 "point \"%s\" and slice \"%s\" under %s\n", opt->period,
                           opt->entrypoint, opt->slice ? opt->slice : "last-1", cfg->logs_dir);
        return n < 0 ? CLI_EXIT_USAGE : CLI_EXIT_FAILED;
    }
    run->n = (size_t)n;
    run->r.f = flame_new();
    char **paths = xcalloc(run->n, sizeof *paths);
    for (size_t i = 0; i < run->n; i++) {
        const struct logfile *lf = &run->set.files[run->chosen[i]];
        strbuf path = STRBUF_INIT;
        strbuf_appendf(&path, "%s/%s/%s", cfg->logs_dir, lf->period, lf->file);
        strbuf_cstr(&path);
        paths[i] = path.data;   /* owned by paths from here */
    }
    int rc = read_paths(paths, run->n, &run->r, msgs) < 0 ? CLI_EXIT_FAILED : CLI_EXIT_OK;
    for (size_t i = 0; i < run->n; i++)
        free(paths[i]);
    free(paths);
    return rc;
}

static void top_run_free(struct top_run *run)
{
    free(run->chosen);
    logset_free(&run->set);
    flame_free(run->r.f);
}

/* Prints the leaderboard of what top_read read: CLI_EXIT_OK, or
 * CLI_EXIT_FAILED when standard output could not be written. */
static int report(const struct top_options *opt, struct top_run *run)
{
    struct top_reader *r = &run->r;
    flame_finish(r->f);
    size_t nrows;
    struct top_row *rows = top_rows(r->f, &nrows);
    top_sort(rows, nrows, opt->by_inclusive);
    print_header(stdout, opt, &run->set, run->chosen, run->n, r);
    if (flame_total(r->f) > 0)
        print_table(stdout, rows, nrows < opt->count ? nrows : opt->count, flame_total(r->f));
    free(rows);
    return fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILED;
}

/* `top FILE...`: prints the leaderboard of the given trace logs (plain or
 * .gz), no data directory: CLI_EXIT_OK, or CLI_EXIT_FAILED with nothing
 * printed when one could not be read (why in msgs) or standard output
 * could not be written. */
static int report_files(char **paths, int npaths, const struct top_options *opt, regex_t *re,
                        strbuf *msgs)
{
    struct top_reader r = {flame_new(), re, 0};
    int rc = read_paths(paths, (size_t)npaths, &r, msgs) < 0 ? CLI_EXIT_FAILED : CLI_EXIT_OK;
    if (rc == CLI_EXIT_OK) {
        flame_finish(r.f);
        size_t nrows;
        struct top_row *rows = top_rows(r.f, &nrows);
        top_sort(rows, nrows, opt->by_inclusive);
        strbuf name = STRBUF_INIT;
        printable(&name, paths[0], strlen(paths[0]));
        printf("%d file%s: %s%s\n", npaths, npaths == 1 ? "" : "s", strbuf_cstr(&name),
               npaths > 1 ? " .." : "");
        strbuf_free(&name);
        double total = flame_total(r.f);
        if (opt->grep)
            printf("%.0f of %.0f samples (%.2f%%) match /%s/\n", total, r.all_samples,
                   r.all_samples > 0 ? 100 * total / r.all_samples : 0.0, opt->grep);
        else
            printf("%.0f samples\n", total);
        if (total > 0)
            print_table(stdout, rows, nrows < opt->count ? nrows : opt->count, total);
        free(rows);
        if (fflush(stdout) != 0)
            rc = CLI_EXIT_FAILED;
    }
    flame_free(r.f);
    return rc;
}

/* The command: every line on stderr is printed here, the helpers above hand
 * theirs back (err, or msgs for a list), so that errors come before the
 * leaderboard on standard output as they were found. */
int cmd_top(int argc, char **argv)
{
    struct top_options opt = {"daily", "all", NULL, NULL, 20, 0};
    const char *config = NULL, *data_dir = NULL;
    char err[1024];
    int rc = parse_args(argc, argv, &opt, &config, &data_dir, err, sizeof err);
    if (rc != 0) {
        if (err[0])
            fprintf(stderr, "arclamp-svg top: %s\n", err);
        if (rc != -2)
            usage(rc > 0 ? stdout : stderr);
        return rc > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    }
    regex_t re;
    int rerr = opt.grep ? regcomp(&re, opt.grep, REG_EXTENDED | REG_NOSUB) : 0;
    if (rerr) {
        regerror(rerr, &re, err, sizeof err);
        fprintf(stderr, "arclamp-svg top: --grep: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    strbuf msgs = STRBUF_INIT;
    regex_t *rep = opt.grep ? &re : NULL;
    if (optind < argc) {
        rc = report_files(argv + optind, argc - optind, &opt, rep, &msgs);
        fputs(strbuf_cstr(&msgs), stderr);
    } else {
        struct gen_config cfg;
        rc = cli_load_config(config, data_dir, 0, &cfg, err, sizeof err);
        if (err[0])
            fprintf(stderr, "arclamp-svg top: %s\n", err);
        if (rc == 0) {
            struct top_run run;
            rc = top_read(&cfg, &opt, rep, &run, &msgs);
            fputs(strbuf_cstr(&msgs), stderr);   /* before the leaderboard, as found */
            if (run.n > 0 && report(&opt, &run) != CLI_EXIT_OK)
                rc = CLI_EXIT_FAILED;
            top_run_free(&run);
            gen_config_free(&cfg);
        }
    }
    strbuf_free(&msgs);
    if (opt.grep)
        regfree(&re);
    return rc;
}
