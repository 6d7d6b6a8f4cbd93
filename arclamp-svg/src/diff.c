/* diff: `arclamp-svg diff`, a differential flame graph of two sides, each
 * a trace log or a time range of the data directory's logs.
 *
 *   arclamp-svg diff [-o OUT.svg] [--diff-out FILE] [render options]
 *                    [--before RANGE] [--after RANGE] [--config FILE]
 *                    [--data-dir DIR] [--entrypoint E]... [--no-fetch]
 *                    [BEFORE.log] [AFTER.log]
 *
 * What `difffolded.pl -n BEFORE AFTER | flamegraph.pl` draws, in one
 * process: the logs (plain or gzip) are merged and normalised by diffmerge
 * (BEFORE scaled to AFTER's total), and the "STACK BEFORE AFTER" lines go
 * to the renderer (render.h) as if they had been its input: widths from
 * AFTER, red where a stack grew, blue where it shrank. Every render option
 * applies (--reverse, --inverted, --negate, -o, --reversed-output, the
 * limits). --diff-out FILE also writes the merged lines, the text
 * difffolded.pl -n prints (sorted), so they can be checked or drawn again.
 *
 * A side is a log file (a positional argument) or, with --before/--after,
 * a range "T" or "T..T" of the data directory, its logs chosen as export
 * chooses them (logpick.h: hourly and daily logs, no sample twice, every
 * host's logs merged from the store first, once for both sides) and added
 * together. Exactly two sides: the positional logs fill the sides no
 * option took, BEFORE first. These options are taken out of the command
 * line before render parses the rest (its options are flamegraph.pl's). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomicfile.h"
#include "cli.h"
#include "commands.h"
#include "diffmerge.h"
#include "logpick.h"
#include "render.h"
#include "strbuf.h"
#include "vec.h"

struct diff_args {
    const char *diff_out;   /* --diff-out FILE, or NULL */
    strbuf subtitle;        /* the default subtitle: what is compared */
    /* The data directory's sides (text NULL: that side is a log file). */
    const char *range_text[2];          /* --before, --after as given */
    struct logpick_range range[2];
    const char *config, *data_dir;      /* --config, --data-dir */
    int no_fetch;                       /* --no-fetch */
    char **entrypoints;                 /* --entrypoint, in order (pointers into argv) */
    size_t nentrypoints, entrypoints_cap;
};

/* One side's logs: a positional file, or a range's chosen logs. */
struct diff_side {
    char **paths;
    size_t n;
    int owned;              /* paths are logpick's, to free */
    const char *name;       /* for the subtitle: the file or the RANGE */
};

static void diff_usage(FILE *out)
{
    fputs("Usage: arclamp-svg diff [OPTIONS] BEFORE.log AFTER.log > diff.svg\n"
          "       arclamp-svg diff [OPTIONS] --before RANGE --after RANGE [--entrypoint E]...\n"
          "                        [--config FILE] [--data-dir DIR] [--no-fetch] > diff.svg\n"
          "\n"
          "Draws a differential flame graph of two sides (collapsed stacks, plain or\n"
          "gzip'ed), as difffolded.pl -n piped into flamegraph.pl: BEFORE's counts are\n"
          "scaled so that both sides have the same total, box widths are AFTER's, red\n"
          "where a stack grew, blue where it shrank.\n"
          "A side is a trace log, or with --before/--after the logs of the data directory\n"
          "in a time range, chosen as `arclamp-svg export --from --to` chooses them (hourly\n"
          "logs, and the daily log of each day wholly in the range; no sample counted\n"
          "twice) and added together. The two may be mixed (--before RANGE AFTER.log).\n"
          "With object_store.from_store, every host's logs are first merged from the\n"
          "store, once for both sides (a store that cannot be reached fails the diff).\n"
          "\n"
          "  --before RANGE      BEFORE is the data directory's logs of RANGE: T (an hour\n"
          "                      YYYY-MM-DDTHH or a day YYYY-MM-DD, UTC) or T..T (from\n"
          "                      included, to excluded)\n"
          "  --after RANGE       AFTER, the same way\n"
          "  -e, --entrypoint E  logs of entry point E for both ranges (index, api, ...;\n"
          "                      repeatable; default: the all logs)\n"
          "  -c, --config FILE   configuration (default " GEN_CONFIG_DEFAULT_PATH
          " if it exists)\n"
          "  -d, --data-dir DIR  use DIR as data_dir\n"
          "  --no-fetch          with from_store: use the logs merged before\n"
          "  --diff-out FILE     also write the merged \"STACK BEFORE AFTER\" lines to FILE\n"
          "                      (normalised as difffolded.pl -n; sorted by stack)\n"
          "  -o, --output FILE   write the graph to FILE (gzip'ed if *.svgz)\n"
          "  --reverse, --inverted, --negate, --title, ...: every option of\n"
          "                      `arclamp-svg render --help`\n"
          "\n"
          "Exit status: 0 drawn; 1 a log or an output could not be read or written, a\n"
          "range has no logs, or the store could not be reached (nothing is written);\n"
          "2 bad command line (not exactly two sides, a bad RANGE), or no samples in\n"
          "AFTER (the error SVG is written); 78 the configuration is wrong.\n",
          out);
}

/* A line for --diff-out. */
static int append_text(void *arg, const char *line, size_t len)
{
    struct atomic_file *af = arg;
    atomic_append(af, line, len);
    atomic_append(af, "\n", 1);
    return 0;
}

static int write_diff_out(const struct diffmerge *dm, const char *path, char *err,
                          size_t errlen)
{
    /* A failed append is reported by commit, which always frees af. */
    struct atomic_file *af = atomic_open(path, 0, 0, err, errlen);
    if (!af)
        return -1;
    diffmerge_emit(dm, 1, append_text, af);
    return atomic_commit(af, NULL, err, errlen);
}

static const char *const side_label[2] = {"before: ", "after: "};

/* Fills the sides: the ranges' logs chosen (the data directory opened and
 * the store merged once for both), the positional files in the others.
 * Lines about the choice go to stderr now, before the graph's. 0, or the
 * exit status with err set. */
static int fill_sides(struct diff_args *d, char **files, int nfiles, struct diff_side side[2],
                      char *err, size_t errlen)
{
    int ranges = (d->range_text[0] != NULL) + (d->range_text[1] != NULL);
    if (nfiles + ranges != 2) {
        snprintf(err, errlen, "expected two sides, BEFORE and AFTER, each a trace log or "
                 "--before/--after RANGE (got %d)", nfiles + ranges);
        return CLI_EXIT_USAGE;
    }
    int next = 0;
    for (int i = 0; i < 2; i++) {
        if (!d->range_text[i]) {
            side[i] = (struct diff_side){&files[next], 1, 0, files[next]};
            next++;
        } else {
            side[i] = (struct diff_side){NULL, 0, 1, d->range_text[i]};
        }
    }
    if (!ranges)
        return 0;
    struct logpick_source src = {"diff", d->config, d->data_dir, d->no_fetch, "nothing drawn"};
    struct logpick lp;
    strbuf msgs = STRBUF_INIT;
    int rc = logpick_open(&lp, &src, &msgs, err, errlen);
    for (int i = 0; i < 2 && rc == CLI_EXIT_OK; i++) {
        if (d->range_text[i])
            rc = logpick_choose(&lp, &d->range[i], d->entrypoints, d->nentrypoints,
                                side_label[i], &side[i].paths, &side[i].n, &msgs, err, errlen);
    }
    logpick_close(&lp);
    fputs(strbuf_cstr(&msgs), stderr);
    strbuf_free(&msgs);
    return rc;
}

static void free_sides(struct diff_side side[2])
{
    for (int i = 0; i < 2; i++) {
        if (side[i].owned)
            logpick_free_paths(side[i].paths, side[i].n);
    }
}

/* Reads one side's logs into dm, each within --max-input: 0, or -1 with
 * err set. */
static int read_side(struct diffmerge *dm, enum diffmerge_side which, const struct diff_side *s,
                     struct render_feed *feed, char *err, size_t errlen)
{
    for (size_t i = 0; i < s->n; i++) {
        if (diffmerge_read_path(dm, which, s->paths[i], feed->limit, err, errlen) < 0)
            return -1;
        if (feed->limit->reached) {
            /* Said in the subtitle too, as render says it. */
            feed->svg->input_cut_at = feed->limit->max_bytes;
            fprintf(stderr, "arclamp-svg diff: %s: read only the first %llu bytes "
                    "(--max-input)\n", s->paths[i], feed->limit->max_bytes);
        }
    }
    return 0;
}

/* The default subtitle: the sides, and the entry points when a side is a
 * range. */
static void describe(struct diff_args *d, const struct diff_side side[2])
{
    strbuf_appendf(&d->subtitle, "%s (scaled to the same total) \xe2\x86\x92 %s", side[0].name,
                   side[1].name);
    if (d->range_text[0] || d->range_text[1]) {
        strbuf_appendf(&d->subtitle, "; entry point%s ", d->nentrypoints > 1 ? "s" : "");
        logpick_entrypoints_text(d->entrypoints, d->nentrypoints, &d->subtitle);
    }
}

/* render_input's reader: the two sides merged, then drawn. */
static int read_pair(void *arg, char **files, int nfiles, struct render_feed *feed, char *err,
                     size_t errlen)
{
    struct diff_args *d = arg;
    struct diff_side side[2] = {{NULL, 0, 0, NULL}, {NULL, 0, 0, NULL}};
    int status = fill_sides(d, files, nfiles, side, err, errlen);
    if (status != 0) {
        free_sides(side);
        return status;
    }
    struct diffmerge *dm = diffmerge_new(0, 0);
    for (int i = 0; i < 2 && status == 0; i++) {
        if (read_side(dm, (enum diffmerge_side)i, &side[i], feed, err, errlen) < 0)
            status = CLI_EXIT_FAILED;
    }
    if (status == 0 && d->diff_out && write_diff_out(dm, d->diff_out, err, errlen) < 0)
        status = CLI_EXIT_FAILED;
    if (status == 0) {
        diffmerge_emit(dm, 1, feed->add, feed->add_arg);
        feed->ignored = diffmerge_ignored(dm, DIFFMERGE_BEFORE) +
                        diffmerge_ignored(dm, DIFFMERGE_AFTER);
        if (!feed->svg->title)
            feed->svg->title = "Differential Flame Graph";
        if (!feed->svg->subtitle) {
            describe(d, side);
            feed->svg->subtitle = strbuf_cstr(&d->subtitle);
        }
    }
    diffmerge_free(dm);
    free_sides(side);
    return status;
}

/* diff's own options, taken out of render's command line. */
enum diff_option { OPT_DIFF_OUT, OPT_BEFORE, OPT_AFTER, OPT_CONFIG, OPT_DATA_DIR,
                   OPT_ENTRYPOINT, OPT_NO_FETCH };
/* The short names are export's (-c, -d, -e), so that a range is chosen
 * with the same words in both; -e would otherwise abbreviate render's
 * --encoding (getopt_long_only), which is still spelled out. */
static const struct {
    const char *name;
    char short_name;
    int has_value;
} diff_options[] = {
    [OPT_DIFF_OUT] = {"diff-out", 0, 1},     [OPT_BEFORE] = {"before", 0, 1},
    [OPT_AFTER] = {"after", 0, 1},           [OPT_CONFIG] = {"config", 'c', 1},
    [OPT_DATA_DIR] = {"data-dir", 'd', 1},   [OPT_ENTRYPOINT] = {"entrypoint", 'e', 1},
    [OPT_NO_FETCH] = {"no-fetch", 0, 0},
};
#define N_DIFF_OPTIONS (sizeof diff_options / sizeof diff_options[0])

/* Applies one of diff's options: 0, or -1 with err set. */
static int apply_option(enum diff_option o, const char *value, struct diff_args *d, char *err,
                        size_t errlen)
{
    if (diff_options[o].has_value && !value[0]) {
        snprintf(err, errlen, "--%s: a value is needed", diff_options[o].name);
        return -1;
    }
    switch (o) {
    case OPT_DIFF_OUT: d->diff_out = value; return 0;
    case OPT_CONFIG: d->config = value; return 0;
    case OPT_DATA_DIR: d->data_dir = value; return 0;
    case OPT_NO_FETCH: d->no_fetch = 1; return 0;
    case OPT_ENTRYPOINT:
        VEC_RESERVE(d->entrypoints, d->entrypoints_cap, d->nentrypoints + 1, 4);
        d->entrypoints[d->nentrypoints++] = (char *)value;
        return 0;
    case OPT_BEFORE:
    case OPT_AFTER: {
        int i = o == OPT_AFTER;
        if (logpick_parse_range(value, &d->range[i]) < 0) {
            snprintf(err, errlen, "--%s: expected T or T..T, T a UTC day YYYY-MM-DD or hour "
                     "YYYY-MM-DDTHH, the second after the first; got \"%s\"",
                     diff_options[o].name, value);
            return -1;
        }
        d->range_text[i] = value;
        return 0;
    }
    }
    return -1;
}

/* Which of diff's options argument s is (N_DIFF_OPTIONS: none), and where
 * its name ends in s ("=VALUE" may follow). */
static size_t own_option(const char *s, size_t *name_end)
{
    if (s[0] != '-')
        return N_DIFF_OPTIONS;
    const char *name = s[1] == '-' ? s + 2 : s + 1;
    for (size_t k = 0; k < N_DIFF_OPTIONS; k++) {
        size_t len = strlen(diff_options[k].name);
        if (strncmp(name, diff_options[k].name, len) == 0 &&
            (name[len] == '\0' || name[len] == '=')) {
            *name_end = (size_t)(name - s) + len;
            return k;
        }
        if (diff_options[k].short_name && s[1] == diff_options[k].short_name && !s[2]) {
            *name_end = 2;
            return k;
        }
    }
    return N_DIFF_OPTIONS;
}

/* Takes diff's options out of argv (the rest is render's command line), as
 * render reads options: --NAME or -NAME, "=VALUE" or the next argument, up
 * to a "--"; -c, -d, -e with the next argument. Returns the new argc, or -1
 * with err set. */
static int take_own_options(int argc, char **argv, struct diff_args *d, char *err,
                            size_t errlen)
{
    int out = 1;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "--") == 0) {
            while (i < argc)
                argv[out++] = argv[i++];
            break;
        }
        size_t end = 0;
        size_t o = own_option(s, &end);
        if (o == N_DIFF_OPTIONS) {
            argv[out++] = argv[i];
            continue;
        }
        const char *value = NULL;
        if (diff_options[o].has_value) {
            value = s[end] == '=' ? s + end + 1 : i + 1 < argc ? argv[++i] : NULL;
            if (!value) {
                snprintf(err, errlen, "--%s: a value is needed", diff_options[o].name);
                return -1;
            }
        } else if (s[end] == '=') {
            snprintf(err, errlen, "--%s takes no value", diff_options[o].name);
            return -1;
        }
        if (apply_option((enum diff_option)o, value, d, err, errlen) < 0)
            return -1;
    }
    argv[out] = NULL;
    return out;
}

int cmd_diff(int argc, char **argv)
{
    struct diff_args d = {.subtitle = STRBUF_INIT};
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) {
        fprintf(stderr, "arclamp-svg diff: %s\n", strerror(errno));
        return CLI_EXIT_FAILED;
    }
    memcpy(args, argv, (size_t)argc * sizeof *args);
    char err[1024];
    int n = take_own_options(argc, args, &d, err, sizeof err);
    int chooses = d.config || d.data_dir || d.nentrypoints || d.no_fetch;
    if (n >= 0 && chooses && !d.range_text[0] && !d.range_text[1]) {
        snprintf(err, sizeof err, "--config, --data-dir, --entrypoint and --no-fetch choose "
                 "the logs of --before/--after RANGE; no RANGE given");
        n = -1;
    }
    int status;
    if (n < 0) {
        fprintf(stderr, "arclamp-svg diff: %s\nTry 'arclamp-svg diff --help'.\n", err);
        status = CLI_EXIT_USAGE;
    } else {
        struct render_input in = {"diff", diff_usage, read_pair, &d};
        status = render_command(n, args, &in);
    }
    strbuf_free(&d.subtitle);
    free(d.entrypoints);
    free(args);
    return status;
}
