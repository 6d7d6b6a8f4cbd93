/* export: `arclamp-svg export`, trace logs in formats other tools read.
 *
 * arclamp-svg export --format pprof|speedscope|collapsed [-o FILE] LOG...
 *
 * The logs (plain or .gz, read by input.h) are added together: every line
 * is checked by stackline.h's validator, the one arclamp-log applies when it
 * writes them, and a line it refuses is skipped and counted by reason (the
 * summary goes to stderr); the formats need valid UTF-8 without control
 * characters (protobuf strings, JSON), which is what that validator
 * guarantees. Identical stacks are aggregated by flame.h within its limits
 * (--max-stacks, --max-frames, --max-memory, as `render` has them): beyond
 * them a stack's samples go to the frame "[truncated]", so totals stay
 * exact. The document is written by exportfmt.h, to -o FILE atomically
 * (whole or not at all) or to standard output. */
#include "atomicfile.h"
#include "cli.h"
#include "commands.h"
#include "exportfmt.h"
#include "flame.h"
#include "input.h"
#include "stackline.h"
#include "strbuf.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct export_args {
    enum export_format format;
    int have_format;
    const char *output;            /* NULL or "-": standard output */
    struct flame_limits limits;    /* --max-stacks, --max-frames */
    struct flame_budget budget;    /* --max-memory */
};

/* What reading the logs found. */
struct export_reader {
    struct flame *f;
    size_t invalid[STACKLINE_NERRORS];  /* lines refused, by reason */
    size_t too_long;                    /* lines input.h skipped as too long */
};

static void usage(FILE *out)
{
    fputs("Usage: arclamp-svg export --format pprof|speedscope|collapsed [-o FILE]\n"
          "                          [--max-stacks N] [--max-frames N] [--max-memory MB] LOG...\n"
          "\n"
          "Writes the samples of the trace logs (plain or .gz), added together, in a\n"
          "format other tools read:\n"
          "  pprof       gzipped profile.proto (go tool pprof, Pyroscope, ...)\n"
          "  speedscope  speedscope's JSON file format (https://www.speedscope.app)\n"
          "  collapsed   one line \"STACK COUNT\" per distinct stack (flamegraph.pl, inferno)\n"
          "Invalid lines are skipped and counted on stderr.\n"
          "\n"
          "  -f, --format F        the output format (required)\n"
          "  -o, --output FILE     write FILE (whole or not at all); - or none: stdout\n"
          "  --max-stacks N        distinct stacks kept; the samples of later new stacks go\n"
          "                        to one [truncated] frame (1000000)\n"
          "  --max-frames N        distinct frame names kept, the same way (1000000)\n"
          "  --max-memory MB       MiB for the aggregation's tables, the same way (96)\n"
          "  -h, --help            print this help\n",
          out);
}

enum { OPT_MAX_STACKS = 256, OPT_MAX_FRAMES, OPT_MAX_MEMORY };

/* A whole number option from min to max. */
static int whole(const char *opt, const char *arg, double min, double max, size_t *out,
                 char *err, size_t errlen)
{
    double v;
    if (cli_number(opt, arg, min, max, &v, err, errlen) < 0)
        return -1;
    if (v != (double)(size_t)v) {
        snprintf(err, errlen, "--%s: expected a whole number, got \"%s\"", opt, arg);
        return -1;
    }
    *out = (size_t)v;
    return 0;
}

static int apply_option(int c, const char *arg, struct export_args *a, char *err, size_t errlen)
{
    size_t mb;
    switch (c) {
    case 'f':
        if (export_format_from_name(arg, &a->format) < 0) {
            snprintf(err, errlen, "--format: expected pprof, speedscope or collapsed, got \"%s\"",
                     arg);
            return -1;
        }
        a->have_format = 1;
        return 0;
    case 'o': a->output = arg; return 0;
    case OPT_MAX_STACKS:
        return whole("max-stacks", arg, 1, 4e9, &a->limits.max_stacks, err, errlen);
    case OPT_MAX_FRAMES:
        return whole("max-frames", arg, 1, 4e9, &a->limits.max_frames, err, errlen);
    case OPT_MAX_MEMORY:
        if (whole("max-memory", arg, 1, 1 << 20, &mb, err, errlen) < 0)
            return -1;
        a->budget.limit = mb << 20;
        return 0;
    case 'h': return 1;
    default: return -1;
    }
}

/* 0, 1 after --help, -1 for a bad command line (err set, or empty when
 * getopt said it). */
static int parse_args(int argc, char **argv, struct export_args *a, char *err, size_t errlen)
{
    static const struct option options[] = {
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"max-stacks", required_argument, NULL, OPT_MAX_STACKS},
        {"max-frames", required_argument, NULL, OPT_MAX_FRAMES},
        {"max-memory", required_argument, NULL, OPT_MAX_MEMORY},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c, rc;
    err[0] = '\0';
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:o:h", options, NULL)) != -1) {
        if ((rc = apply_option(c, optarg, a, err, errlen)) != 0)
            return rc;
    }
    if (!a->have_format) {
        snprintf(err, errlen, "--format is required (pprof, speedscope or collapsed)");
        return -1;
    }
    if (optind >= argc) {
        snprintf(err, errlen, "no trace log given");
        return -1;
    }
    return 0;
}

static int export_line(void *arg, const char *line, size_t len)
{
    struct export_reader *r = arg;
    struct stackline sl;
    enum stackline_error e = stackline_parse(line, len, 0, &sl);
    if (e != STACKLINE_OK)
        r->invalid[e]++;
    else
        flame_add_stack(r->f, sl.stack, sl.stack_len, sl.count);
    return 0;
}

/* Reads every log into r; a log that cannot be read adds its line to msgs.
 * 0, or -1 when one failed. */
static int read_logs(char *const *paths, size_t n, struct export_reader *r, strbuf *msgs)
{
    char err[1024];
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        struct input_stats st = {0, 0, 0};
        if (input_read_path(paths[i], export_line, r, &st, err, sizeof err) != 0) {
            strbuf_appendf(msgs, "arclamp-svg export: %s\n", err);
            rc = -1;
        }
        r->too_long += st.too_long;
    }
    return rc;
}

/* The summary of what was left out, as lines for stderr. */
static void summarise(const struct export_reader *r, strbuf *msgs)
{
    size_t invalid = r->too_long;
    for (int e = 1; e < STACKLINE_NERRORS; e++)
        invalid += r->invalid[e];
    if (invalid) {
        strbuf_appendf(msgs, "arclamp-svg export: skipped %zu invalid line%s (", invalid,
                       invalid == 1 ? "" : "s");
        const char *sep = "";
        for (int e = 1; e < STACKLINE_NERRORS; e++) {
            if (r->invalid[e]) {
                strbuf_appendf(msgs, "%s%s: %zu", sep,
                               stackline_error_name((enum stackline_error)e), r->invalid[e]);
                sep = ", ";
            }
        }
        if (r->too_long)
            strbuf_appendf(msgs, "%stoo_long: %zu", sep, r->too_long);
        strbuf_appends(msgs, ")\n");
    }
    size_t limit;
    static const char *const names[] = {"", "--max-stacks", "--max-frames", "--max-memory",
                                        "32-bit table size"};
    enum flame_limit why = flame_limit_reached(r->f, &limit);
    if (why != FLAME_LIMIT_NONE)
        strbuf_appendf(msgs, "arclamp-svg export: %zu lines (%.0f samples) beyond the limits "
                       "exported as " FLAME_TRUNCATED_FRAME " (first limit reached: %s)\n",
                       flame_truncated_lines(r->f), flame_truncated_samples(r->f), names[why]);
}

/* Writes doc to a->output: 0, or -1 with the reason in msgs. */
static int write_output(const struct export_args *a, const strbuf *doc, strbuf *msgs)
{
    char err[1024];
    if (a->output && strcmp(a->output, "-") != 0) {
        if (atomic_write(a->output, doc->data, doc->len, 0, err, sizeof err) != 0) {
            strbuf_appendf(msgs, "arclamp-svg export: %s\n", err);
            return -1;
        }
        return 0;
    }
    if ((doc->len && fwrite(doc->data, 1, doc->len, stdout) != doc->len) || fflush(stdout) != 0) {
        strbuf_appends(msgs, "arclamp-svg export: writing standard output failed\n");
        return -1;
    }
    return 0;
}

/* The profile's name: the first log's, and how many more. */
static void profile_name(char *const *paths, int n, strbuf *name)
{
    const char *slash = strrchr(paths[0], '/');
    strbuf_appends(name, slash ? slash + 1 : paths[0]);
    if (n > 1)
        strbuf_appendf(name, " and %d more", n - 1);
}

int cmd_export(int argc, char **argv)
{
    struct export_args a = {.format = EXPORT_PPROF};
    char err[1024];
    int rc = parse_args(argc, argv, &a, err, sizeof err);
    if (rc != 0) {
        if (err[0])
            fprintf(stderr, "arclamp-svg export: %s\n", err);
        usage(rc > 0 ? stdout : stderr);
        return rc > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    }
    if (a.budget.limit)
        a.limits.budget = &a.budget;
    struct export_reader r = {.f = flame_new_limited(&a.limits)};
    strbuf msgs = STRBUF_INIT, doc = STRBUF_INIT, name = STRBUF_INIT;
    rc = read_logs(argv + optind, (size_t)(argc - optind), &r, &msgs) < 0 ? CLI_EXIT_FAILED
                                                                          : CLI_EXIT_OK;
    summarise(&r, &msgs);
    if (rc == CLI_EXIT_OK && flame_total(r.f) <= 0) {
        strbuf_appends(&msgs, "arclamp-svg export: no samples in the input\n");
        rc = CLI_EXIT_FAILED;
    }
    if (rc == CLI_EXIT_OK) {
        flame_finish(r.f);
        profile_name(argv + optind, argc - optind, &name);
        export_write(r.f, a.format, strbuf_cstr(&name), &doc);
        if (write_output(&a, &doc, &msgs) < 0)
            rc = CLI_EXIT_FAILED;
    }
    fputs(strbuf_cstr(&msgs), stderr);
    strbuf_free(&msgs);
    strbuf_free(&doc);
    strbuf_free(&name);
    flame_free(r.f);
    return rc;
}
