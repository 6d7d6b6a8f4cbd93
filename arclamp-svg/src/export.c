/* export: `arclamp-svg export`, trace logs in formats other tools read.
 *
 * arclamp-svg export --format pprof|speedscope|collapsed [-o FILE] LOG...
 * arclamp-svg export --format F [-o FILE] [--data-dir D] --from T --to T
 *                    [--entrypoint E]... [--no-fetch]
 *
 * The logs are the files given, or those of the data directory that cover
 * [from, to) (exportsel.h: hours from hourly logs, whole days from daily
 * ones, no sample twice). When the configuration draws from the object
 * store (object_store.from_store), every host's logs are first merged into
 * logs_dir as generate merges them (storesrc.h), unless --no-fetch; a
 * store that cannot be reached is an error, not a silently older export.
 * They (plain or .gz, read by input.h) are added
 * together, optionally only the stacks matching --grep: every line
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
#include "exportsel.h"
#include "flame.h"
#include "input.h"
#include "logpick.h"
#include "stackline.h"
#include "strbuf.h"
#include "vec.h"

#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct export_args {
    enum export_format format;
    int have_format;
    const char *output;            /* NULL or "-": standard output */
    struct flame_limits limits;    /* --max-stacks, --max-frames */
    struct flame_budget budget;    /* --max-memory */
    const char *grep;              /* extended regex on the stack, or NULL */
    /* The data directory form (all NULL/0 in the file form). */
    const char *config, *data_dir;
    const char *from_text, *to_text;
    int64_t from, to;
    int no_fetch;                  /* --no-fetch: the logs merged before */
    double period;                 /* --period or sample_period: seconds per sample, 0 unknown */
    int wall;                      /* --event or sample_event is real (wall-clock) */
    int period_given, event_given;
    char **entrypoints;            /* --entrypoint, in order (pointers into argv) */
    size_t nentrypoints, entrypoints_cap;
};

/* What reading the logs found. */
struct export_reader {
    struct flame *f;
    regex_t *re;                        /* --grep, or NULL */
    size_t unmatched;                   /* valid lines --grep left out */
    size_t invalid[STACKLINE_NERRORS];  /* lines refused, by reason */
    size_t too_long;                    /* lines input.h skipped as too long */
};

static void usage(FILE *out)
{
    fputs("Usage: arclamp-svg export --format pprof|speedscope|collapsed [-o FILE]\n"
          "                          [--grep REGEX] [--period S [--event cpu|real]]\n"
          "                          [--config FILE] [LIMITS] LOG...\n"
          "       arclamp-svg export --format F [-o FILE] [--config FILE] [--data-dir DIR]\n"
          "                          --from T --to T [--entrypoint E]... [--no-fetch]\n"
          "                          [--grep REGEX] [LIMITS]\n"
          "\n"
          "Writes the samples of the trace logs (plain or .gz), added together, in a\n"
          "format other tools read:\n"
          "  pprof       gzipped profile.proto (go tool pprof, Pyroscope, ...)\n"
          "  speedscope  speedscope's JSON file format (https://www.speedscope.app)\n"
          "  collapsed   one line \"STACK COUNT\" per distinct stack (flamegraph.pl, inferno)\n"
          "The logs are the LOG files, or those of the data directory between --from\n"
          "(included) and --to (excluded): hourly logs, and the daily log of each day\n"
          "wholly in the range; no sample is counted twice. Invalid lines are skipped\n"
          "and counted on stderr. With object_store.from_store, every host's logs are\n"
          "first merged from the store, as generate does (a store that cannot be\n"
          "reached fails the export).\n"
          "\n"
          "  -f, --format F        the output format (required)\n"
          "  -o, --output FILE     write FILE (whole or not at all); - or none: stdout\n"
          "  -g, --grep REGEX      only stacks matching this extended regex\n"
          "      --from T, --to T  UTC times YYYY-MM-DD or YYYY-MM-DDTHH (also _HH)\n"
          "  -e, --entrypoint E    logs of entry point E (index, api, ...; repeatable;\n"
          "                        default: the all logs)\n"
          "  -c, --config FILE     configuration (default " GEN_CONFIG_DEFAULT_PATH
          " if it exists)\n"
          "  -d, --data-dir DIR    use DIR as data_dir\n"
          "      --no-fetch        with from_store: use the logs merged before\n"
          "      --period SECONDS  what one sample stands for (default: the configuration's\n"
          "                        sample_period; 0: not known, counts only)\n"
          "      --event cpu|real  that period's clock (default: sample_event, cpu)\n"
          "LIMITS:\n"
          "  --max-stacks N        distinct stacks kept; the samples of later new stacks go\n"
          "                        to one [truncated] frame (1000000)\n"
          "  --max-frames N        distinct frame names kept, the same way (1000000)\n"
          "  --max-memory MB       MiB for the aggregation's tables, the same way (96)\n"
          "  -h, --help            print this help\n",
          out);
}

enum { OPT_MAX_STACKS = 256, OPT_MAX_FRAMES, OPT_MAX_MEMORY, OPT_FROM, OPT_TO,
       OPT_NO_FETCH, OPT_PERIOD, OPT_EVENT };

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
    case 'g': a->grep = arg; return 0;
    case 'c': a->config = arg; return 0;
    case 'd': a->data_dir = arg; return 0;
    case 'e':
        VEC_RESERVE(a->entrypoints, a->entrypoints_cap, a->nentrypoints + 1, 4);
        a->entrypoints[a->nentrypoints++] = (char *)arg;
        return 0;
    case OPT_FROM:
    case OPT_TO:
        if (export_parse_time(arg, c == OPT_FROM ? &a->from : &a->to) < 0) {
            snprintf(err, errlen, "--%s: expected YYYY-MM-DD or YYYY-MM-DDTHH (UTC), got \"%s\"",
                     c == OPT_FROM ? "from" : "to", arg);
            return -1;
        }
        *(c == OPT_FROM ? &a->from_text : &a->to_text) = arg;
        return 0;
    case OPT_MAX_STACKS:
        return whole("max-stacks", arg, 1, 4e9, &a->limits.max_stacks, err, errlen);
    case OPT_MAX_FRAMES:
        return whole("max-frames", arg, 1, 4e9, &a->limits.max_frames, err, errlen);
    case OPT_MAX_MEMORY:
        if (whole("max-memory", arg, 1, 1 << 20, &mb, err, errlen) < 0)
            return -1;
        a->budget.limit = mb << 20;
        return 0;
    case OPT_NO_FETCH: a->no_fetch = 1; return 0;
    case OPT_PERIOD:
        a->period_given = 1;
        return cli_number("period", arg, 0, GEN_SAMPLE_PERIOD_MAX, &a->period, err, errlen);
    case OPT_EVENT:
        if (strcmp(arg, "cpu") != 0 && strcmp(arg, "real") != 0) {
            snprintf(err, errlen, "--event: expected cpu or real, got \"%s\"", arg);
            return -1;
        }
        a->event_given = 1;
        a->wall = strcmp(arg, "real") == 0;
        return 0;
    case 'h': return 1;
    default: return -1;
    }
}

/* 0, 1 after --help, -1 for a bad option (err set, or empty when getopt
 * said it; the usage follows), -2 for options missing or not going
 * together (err set). */
static int parse_args(int argc, char **argv, struct export_args *a, char *err, size_t errlen)
{
    static const struct option options[] = {
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"max-stacks", required_argument, NULL, OPT_MAX_STACKS},
        {"max-frames", required_argument, NULL, OPT_MAX_FRAMES},
        {"max-memory", required_argument, NULL, OPT_MAX_MEMORY},
        {"grep", required_argument, NULL, 'g'},
        {"config", required_argument, NULL, 'c'},
        {"data-dir", required_argument, NULL, 'd'},
        {"from", required_argument, NULL, OPT_FROM},
        {"to", required_argument, NULL, OPT_TO},
        {"entrypoint", required_argument, NULL, 'e'},
        {"no-fetch", no_argument, NULL, OPT_NO_FETCH},
        {"period", required_argument, NULL, OPT_PERIOD},
        {"event", required_argument, NULL, OPT_EVENT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c, rc;
    err[0] = '\0';
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:o:g:c:d:e:h", options, NULL)) != -1) {
        if ((rc = apply_option(c, optarg, a, err, errlen)) != 0)
            return rc;
    }
    if (!a->have_format) {
        snprintf(err, errlen, "--format is required (pprof, speedscope or collapsed)");
        return -2;
    }
    /* --config alone goes with log files too: it gives the sample clock. */
    int chooses = a->data_dir || a->from_text || a->to_text || a->nentrypoints || a->no_fetch;
    if (optind < argc && chooses) {
        snprintf(err, errlen, "give trace log files or choose logs of the data directory "
                              "(--from, --to, --entrypoint, --data-dir, --no-fetch), not both");
        return -2;
    }
    if (optind >= argc && !chooses) {
        snprintf(err, errlen, "no trace log given (LOG..., or --from and --to)");
        return -2;
    }
    if (chooses && (!a->from_text || !a->to_text || a->from >= a->to)) {
        snprintf(err, errlen, "choosing logs needs --from and --to, --from before --to");
        return -2;
    }
    return 0;
}

static int export_line(void *arg, const char *line, size_t len)
{
    struct export_reader *r = arg;
    struct stackline sl;
    enum stackline_error e = stackline_parse(line, len, 0, &sl);
    if (e != STACKLINE_OK) {
        r->invalid[e]++;
        return 0;
    }
    if (r->re) {
        regmatch_t m = {0, (regoff_t)sl.stack_len};
        if (regexec(r->re, sl.stack, 1, &m, REG_STARTEND) != 0) {
            r->unmatched++;
            return 0;
        }
    }
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
    if (r->re)
        strbuf_appendf(msgs, "arclamp-svg export: %zu line%s did not match --grep\n",
                       r->unmatched, r->unmatched == 1 ? "" : "s");
    size_t limit;
    static const char *const names[] = {"", "--max-stacks", "--max-frames", "--max-memory",
                                        "32-bit table size"};
    enum flame_limit why = flame_limit_reached(r->f, &limit);
    if (why != FLAME_LIMIT_NONE)
        strbuf_appendf(msgs, "arclamp-svg export: %zu lines (%.0f samples) beyond the limits "
                       "exported as " FLAME_TRUNCATED_FRAME " (first limit reached: %s)\n",
                       flame_truncated_lines(r->f), flame_truncated_samples(r->f), names[why]);
}

/* The sink's write to standard output. */
static int write_stdout(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    return fwrite(data, 1, len, stdout) == len ? 0 : -1;
}

/* The sink's write to -o FILE (atomicfile.h remembers a failure). */
static int write_file(void *ctx, const char *data, size_t len)
{
    return atomic_append(ctx, data, len);
}

/* Writes the document to a->output (whole or not at all) or standard
 * output, as exportfmt produces it: 0, or -1 with the reason in msgs. */
static int write_output(const struct export_args *a, const struct flame *f,
                        const struct export_meta *m, strbuf *msgs)
{
    char err[1024];
    struct export_sink sink = {write_stdout, NULL, STRBUF_INIT, 0};
    struct atomic_file *af = NULL;
    if (a->output && strcmp(a->output, "-") != 0) {
        if (!(af = atomic_open(a->output, 0, 0, err, sizeof err))) {
            strbuf_appendf(msgs, "arclamp-svg export: %s\n", err);
            return -1;
        }
        sink.write = write_file;
        sink.ctx = af;
    }
    int rc = export_write(f, a->format, m, &sink);
    if (af) {   /* commit reports a write that failed */
        if (atomic_commit(af, NULL, err, sizeof err) != 0) {
            strbuf_appendf(msgs, "arclamp-svg export: %s\n", err);
            return -1;
        }
        return 0;
    }
    if (rc < 0 || fflush(stdout) != 0) {
        strbuf_appends(msgs, "arclamp-svg export: writing standard output failed\n");
        return -1;
    }
    return 0;
}

/* The profile's name: the first log's, and how many more. */
static void profile_name(char *const *paths, size_t n, strbuf *name)
{
    const char *slash = strrchr(paths[0], '/');
    strbuf_appends(name, slash ? slash + 1 : paths[0]);
    if (n > 1)
        strbuf_appendf(name, " and %zu more", n - 1);
}

/* The sample clock not given on the command line (--period, --event):
 * the configuration's sample_period and sample_event. */
static void clock_from_config(struct export_args *a, const struct gen_config *cfg)
{
    if (!a->period_given)
        a->period = cfg->sample_period;
    if (!a->event_given)
        a->wall = strcmp(cfg->sample_event, "real") == 0;
}

/* The logs of the data directory for a's range, as paths (free each and
 * the array), chosen by logpick.h, and the sample clock from the same
 * configuration. CLI_EXIT_OK with *npaths > 0, or the exit status with its
 * lines in msgs. */
static int choose_logs(struct export_args *a, char ***paths, size_t *npaths, strbuf *msgs)
{
    struct logpick_source src = {"export", a->config, a->data_dir, a->no_fetch,
                                 "nothing exported"};
    struct logpick_range r = {a->from, a->to, "", ""};
    snprintf(r.from_text, sizeof r.from_text, "%s", a->from_text);
    snprintf(r.to_text, sizeof r.to_text, "%s", a->to_text);
    char err[8192];   /* room for a path */
    struct logpick lp;
    int rc = logpick_open(&lp, &src, msgs, err, sizeof err);
    if (rc == CLI_EXIT_OK) {
        clock_from_config(a, &lp.cfg);
        rc = logpick_choose(&lp, &r, a->entrypoints, a->nentrypoints, "", paths, npaths, msgs,
                            err, sizeof err);
    }
    if (rc != CLI_EXIT_OK)
        strbuf_appendf(msgs, "arclamp-svg export: %s\n", err);
    logpick_close(&lp);
    return rc;
}

/* Reads the logs and writes the document: the exit status, lines for
 * stderr in msgs. */
static int export_paths(const struct export_args *a, char *const *paths, size_t npaths,
                        regex_t *re, strbuf *msgs)
{
    struct export_reader r = {.f = flame_new_limited(&a->limits), .re = re};
    strbuf name = STRBUF_INIT;
    int rc = read_logs(paths, npaths, &r, msgs) < 0 ? CLI_EXIT_FAILED : CLI_EXIT_OK;
    summarise(&r, msgs);
    if (rc == CLI_EXIT_OK && flame_total(r.f) <= 0) {
        strbuf_appends(msgs, "arclamp-svg export: no samples in the input\n");
        rc = CLI_EXIT_FAILED;
    }
    if (rc == CLI_EXIT_OK) {
        flame_finish(r.f);
        profile_name(paths, npaths, &name);
        struct export_meta m = {strbuf_cstr(&name), a->period, a->wall};
        if (write_output(a, r.f, &m, msgs) < 0)
            rc = CLI_EXIT_FAILED;
    }
    strbuf_free(&name);
    flame_free(r.f);
    return rc;
}

/* For log files given with --config: the sample clock from it (the data
 * directory form takes it in choose_logs). CLI_EXIT_OK, or the status
 * with msgs. */
static int clock_from_config_file(struct export_args *a, strbuf *msgs)
{
    if (!a->config || (a->period_given && a->event_given))
        return CLI_EXIT_OK;
    char err[1024];
    struct gen_config cfg;
    int rc = cli_load_config(a->config, NULL, 0, &cfg, err, sizeof err);
    if (rc != 0) {
        strbuf_appendf(msgs, "arclamp-svg export: %s\n", err);
        return rc;
    }
    clock_from_config(a, &cfg);
    gen_config_free(&cfg);
    return CLI_EXIT_OK;
}

/* The command: every line on stderr is printed here, in the order found. */
int cmd_export(int argc, char **argv)
{
    struct export_args a = {.format = EXPORT_PPROF};
    char err[1024];
    int rc = parse_args(argc, argv, &a, err, sizeof err);
    if (rc != 0) {
        if (err[0])
            fprintf(stderr, "arclamp-svg export: %s\n", err);
        if (rc != -2)
            usage(rc > 0 ? stdout : stderr);
        free(a.entrypoints);
        return rc > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    }
    if (a.budget.limit)
        a.limits.budget = &a.budget;
    regex_t re;
    int rerr = a.grep ? regcomp(&re, a.grep, REG_EXTENDED | REG_NOSUB) : 0;
    if (rerr) {
        regerror(rerr, &re, err, sizeof err);
        fprintf(stderr, "arclamp-svg export: --grep: %s\n", err);
        free(a.entrypoints);
        return CLI_EXIT_USAGE;
    }
    strbuf msgs = STRBUF_INIT;
    if (optind < argc) {
        rc = clock_from_config_file(&a, &msgs);
        if (rc == CLI_EXIT_OK)
            rc = export_paths(&a, argv + optind, (size_t)(argc - optind), a.grep ? &re : NULL,
                              &msgs);
    } else {
        char **paths = NULL;
        size_t npaths = 0;
        rc = choose_logs(&a, &paths, &npaths, &msgs);
        if (rc == CLI_EXIT_OK)
            rc = export_paths(&a, paths, npaths, a.grep ? &re : NULL, &msgs);
        for (size_t i = 0; i < npaths; i++)
            free(paths[i]);
        free(paths);
    }
    fputs(strbuf_cstr(&msgs), stderr);
    strbuf_free(&msgs);
    if (a.grep)
        regfree(&re);
    free(a.entrypoints);
    return rc;
}
