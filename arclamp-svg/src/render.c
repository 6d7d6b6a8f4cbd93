/* render: `arclamp-svg render`, a drop-in for flamegraph.pl.
 *
 *   arclamp-svg render [flamegraph.pl options] [FILE...] > graph.svg
 *
 * Reads collapsed stacks from the files (plain or gzip) or standard input,
 * aggregates them once and writes the SVG to standard output, or with
 * --output / --reversed-output to files (both graphs from one read; written
 * atomically, gzip'ed when the name ends in .svgz).
 *
 * Options are read as flamegraph.pl's Getopt::Long reads them: --opt or
 * -opt, "=value" or the next argument, any unambiguous prefix.
 *
 * Memory is bounded whatever the input (flame.h's limits, --max-stacks,
 * --max-frames, --max-memory; the document by --max-svg), and so can the
 * input read be (--max-input). */
#include <errno.h>
#include <getopt.h>
#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomicfile.h"
#include "commands.h"
#include "flame.h"
#include "input.h"
#include "layout.h"
#include "render.h"
#include "svg.h"

struct render_args {
    const char *cmd;              /* "arclamp-svg render" (or diff): starts its messages */
    struct svg_options svg;
    int reverse;                  /* --reverse: the graph of reversed stacks */
    int flamechart;               /* --flamechart: input order, no sorting */
    const char *output;           /* --output FILE, else standard output */
    const char *reversed_output;  /* --reversed-output FILE: also the reversed graph */
    const char *total_text;       /* --total as given, for its warning */
    const char *nameattr;         /* --nameattr FILE */
    int cp;                       /* --cp: palette.map in the current directory */
    int quiet;
    struct flame_limits limits;   /* --max-stacks, --max-frames */
    struct flame_budget budget;   /* --max-memory */
    struct input_limit input;     /* --max-input */
};

enum {
    OPT_TITLE = 256, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT, OPT_MINWIDTH, OPT_FONTTYPE,
    OPT_FONTSIZE, OPT_FONTWIDTH, OPT_COUNTNAME, OPT_NAMETYPE, OPT_COLORS, OPT_BGCOLORS,
    OPT_HASH, OPT_REVERSE, OPT_INVERTED, OPT_NEGATE, OPT_NOTES, OPT_TOTAL, OPT_FACTOR,
    OPT_OUTPUT, OPT_REVERSED_OUTPUT, OPT_QUIET, OPT_HELP, OPT_FLAMECHART, OPT_MAX_STACKS,
    OPT_MAX_FRAMES, OPT_MAX_MEMORY, OPT_MAX_SVG, OPT_MAX_INPUT, OPT_RANDOM, OPT_CP,
    OPT_NAMEATTR, OPT_ENCODING,
};

/* --cp's file, in the current directory as flamegraph.pl has it. */
#define PALETTE_FILE "palette.map"

static const struct option render_options[] = {
    {"title", required_argument, NULL, OPT_TITLE},
    {"subtitle", required_argument, NULL, OPT_SUBTITLE},
    {"width", required_argument, NULL, OPT_WIDTH},
    {"height", required_argument, NULL, OPT_HEIGHT},
    {"minwidth", required_argument, NULL, OPT_MINWIDTH},
    {"fonttype", required_argument, NULL, OPT_FONTTYPE},
    {"fontsize", required_argument, NULL, OPT_FONTSIZE},
    {"fontwidth", required_argument, NULL, OPT_FONTWIDTH},
    {"countname", required_argument, NULL, OPT_COUNTNAME},
    {"nametype", required_argument, NULL, OPT_NAMETYPE},
    {"colors", required_argument, NULL, OPT_COLORS},
    {"bgcolors", required_argument, NULL, OPT_BGCOLORS},
    {"hash", no_argument, NULL, OPT_HASH},
    {"random", no_argument, NULL, OPT_RANDOM},
    {"cp", no_argument, NULL, OPT_CP},
    {"nameattr", required_argument, NULL, OPT_NAMEATTR},
    {"encoding", required_argument, NULL, OPT_ENCODING},
    {"reverse", no_argument, NULL, OPT_REVERSE},
    {"inverted", no_argument, NULL, OPT_INVERTED},
    {"negate", no_argument, NULL, OPT_NEGATE},
    {"notes", required_argument, NULL, OPT_NOTES},
    {"total", required_argument, NULL, OPT_TOTAL},
    {"factor", required_argument, NULL, OPT_FACTOR},
    {"flamechart", no_argument, NULL, OPT_FLAMECHART},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"reversed-output", required_argument, NULL, OPT_REVERSED_OUTPUT},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"max-stacks", required_argument, NULL, OPT_MAX_STACKS},
    {"max-frames", required_argument, NULL, OPT_MAX_FRAMES},
    {"max-memory", required_argument, NULL, OPT_MAX_MEMORY},
    {"max-svg", required_argument, NULL, OPT_MAX_SVG},
    {"max-input", required_argument, NULL, OPT_MAX_INPUT},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

static void render_usage(FILE *out)
{
    fputs("Usage: arclamp-svg render [OPTIONS] [FILE...] > graph.svg\n"
          "\n"
          "Draws a flame graph from collapsed stacks (\"a;b;c COUNT\" lines; files may be\n"
          "gzip'ed; no FILE or \"-\" reads standard input). Options as flamegraph.pl (also\n"
          "-opt, -opt=value and unambiguous prefixes):\n"
          "  --title TEXT        title (default \"Flame Graph\")\n"
          "  --subtitle TEXT     second title line\n"
          "  --width PX          image width (1200)\n"
          "  --height PX         height of each frame (16)\n"
          "  --minwidth PX|N%    drop boxes narrower than this (0.1)\n"
          "  --fonttype FONT     font family (Verdana)\n"
          "  --fontsize N        font size (12)\n"
          "  --fontwidth F       average glyph width / font size (0.59)\n"
          "  --countname TEXT    what counts are (samples)\n"
          "  --nametype TEXT     label of the details line (Function:)\n"
          "  --colors PALETTE    hot (default), mem, io, wakeup, chain, java, js, perl,\n"
          "                      red, green, blue, aqua, yellow, purple, orange\n"
          "  --bgcolors NAME     yellow, blue, green, grey or #rrggbb (default: by palette)\n"
          "  --hash, --random    accepted; colours always come from a hash of the name\n"
          "  --cp                consistent palette: colours from ./palette.map, which is\n"
          "                      written back with those of the functions drawn\n"
          "  --nameattr FILE     per-function attributes: FUNC<TAB>key=value<TAB>... (title,\n"
          "                      id, class, g_extra, href, target, a_extra)\n"
          "  --encoding ENC      declared in <?xml?>; other than UTF-8, the SVG is ASCII\n"
          "  --reverse           reverse each stack (leaf frames at the bottom)\n"
          "  --inverted          icicle graph (grows downwards)\n"
          "  --flamechart        keep the input order (time left to right): only\n"
          "                      adjacent lines with the same frames share a box\n"
          "  --negate            differential: swap red and blue\n"
          "  --notes TEXT        a note stored in the SVG's <desc>\n"
          "  --total N           counts (before --factor) that span the full width, to\n"
          "                      compare graphs at one scale\n"
          "  --factor F          multiply every count by F\n"
          "Ours:\n"
          "  -o, --output FILE   write the graph to FILE (atomically; gzip'ed if *.svgz)\n"
          "  --reversed-output FILE  also write the reversed graph, from the same read\n"
          "  -q, --quiet         no summary line on standard error (warnings stay)\n"
          "Limits (what passes them is said in the subtitle):\n"
          "  --max-stacks N      distinct stacks kept; the samples of later new stacks go\n"
          "                      to one [truncated] frame (1000000)\n"
          "  --max-frames N      distinct frame names kept, the same way (1000000)\n"
          "  --max-memory MB     MiB for the aggregation's tables, the same way (96)\n"
          "  --max-svg MB        MiB of SVG: deeper boxes are left out (32; 0: none)\n"
          "  --max-input MB      stop reading after MiB of (decompressed) input (0: none)\n",
          out);
}

/* The option helpers below return -1 with err set to the message (without
 * "arclamp-svg render: "), which cmd_render prints. */

static int parse_number(const char *text, const char *what, double min, double *out, char *err,
                        size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v >= min) || v > 1e9) {
        snprintf(err, errlen, "--%s: invalid value \"%s\"", what, text);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_minwidth(const char *text, struct svg_options *svg, char *err, size_t errlen)
{
    size_t n = strlen(text);
    char buf[64];
    svg->min_width_is_percent = n > 0 && text[n - 1] == '%';
    if (n >= sizeof(buf))
        n = sizeof(buf) - 1;
    memcpy(buf, text, n);
    buf[n - (svg->min_width_is_percent ? 1 : 0)] = '\0';
    return parse_number(buf, "minwidth", 0, &svg->min_width, err, errlen);
}

/* A count option: a whole number from min to max. */
static int parse_size(const char *text, const char *what, double min, double max, size_t *out,
                      char *err, size_t errlen)
{
    double v;
    if (parse_number(text, what, min, &v, err, errlen) < 0)
        return -1;
    if (v != (double)(size_t)v || v > max) {
        snprintf(err, errlen, "--%s: invalid value \"%s\" (a whole number up to %.0f)", what, text,
                 max);
        return -1;
    }
    *out = (size_t)v;
    return 0;
}

/* "#rrggbb": a flat background colour, as flamegraph.pl accepts. */
static int is_hex_color(const char *text)
{
    return strlen(text) == 7 && text[0] == '#' && strspn(text + 1, "0123456789abcdefABCDEF") == 6;
}

/* The limits' options: counts, and sizes in MiB (up to 1 TiB). */
static int apply_limit(int opt, const char *arg, struct render_args *a, char *err,
                       size_t errlen)
{
    size_t mb;
    switch (opt) {
    case OPT_MAX_STACKS:
        return parse_size(arg, "max-stacks", 1, 4e9, &a->limits.max_stacks, err, errlen);
    case OPT_MAX_FRAMES:
        return parse_size(arg, "max-frames", 1, 4e9, &a->limits.max_frames, err, errlen);
    case OPT_MAX_MEMORY:
        if (parse_size(arg, "max-memory", 1, 1 << 20, &mb, err, errlen) < 0)
            return -1;
        a->budget.limit = mb << 20;
        return 0;
    case OPT_MAX_SVG:
        if (parse_size(arg, "max-svg", 0, 1 << 20, &mb, err, errlen) < 0)
            return -1;
        a->svg.max_bytes = mb << 20;
        return 0;
    case OPT_MAX_INPUT:
        if (parse_size(arg, "max-input", 0, 1 << 20, &mb, err, errlen) < 0)
            return -1;
        a->input.max_bytes = (unsigned long long)mb << 20;
        return 0;
    default: return -1;
    }
}

/* --encoding: a name of the characters encoding names have, that iconv
 * knows and that reads ASCII as ASCII. svg_render then writes the document
 * as pure ASCII, which such an encoding reads as meant whatever it is; an
 * encoding such as UTF-16 would make it unreadable. */
static int check_encoding(const char *enc, char *err, size_t errlen)
{
    static const char ascii[] = "\t\n !\"#$%&'()*+,-./0123456789:;<=>?@"
                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";
    const char *why = NULL;
    if (!*enc || strlen(enc) > 64 ||
        strspn(enc, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
            strlen(enc)) {
        why = "not an encoding name ([A-Za-z0-9._-])";
    } else {
        iconv_t cd = iconv_open("UTF-8", enc);
        char out[sizeof(ascii) * 4], *in = (char *)ascii, *o = out;
        size_t inleft = sizeof(ascii) - 1, outleft = sizeof(out);
        if (cd == (iconv_t)-1)
            why = "unknown encoding";
        else if (iconv(cd, &in, &inleft, &o, &outleft) == (size_t)-1 || inleft ||
                 (size_t)(o - out) != sizeof(ascii) - 1 || memcmp(out, ascii, sizeof(ascii) - 1))
            why = "does not keep ASCII as it is";
        if (cd != (iconv_t)-1)
            iconv_close(cd);
    }
    if (why)
        snprintf(err, errlen, "--encoding: \"%s\": %s", enc, why);
    return why ? -1 : 0;
}

/* Applies one option; returns 0, 1 for --help, or -1 for a bad value. */
static int apply_option(int opt, const char *arg, struct render_args *a, char *err,
                        size_t errlen)
{
    struct svg_options *s = &a->svg;
    int v;
    switch (opt) {
    case OPT_TITLE: s->title = arg; return 0;
    case OPT_SUBTITLE: s->subtitle = arg; return 0;
    case OPT_WIDTH: return parse_number(arg, "width", 50, &s->width, err, errlen);
    case OPT_HEIGHT: return parse_number(arg, "height", 1, &s->frame_height, err, errlen);
    case OPT_MINWIDTH: return parse_minwidth(arg, s, err, errlen);
    case OPT_FONTTYPE: s->font_type = arg; return 0;
    case OPT_FONTSIZE: return parse_number(arg, "fontsize", 1, &s->font_size, err, errlen);
    case OPT_FONTWIDTH: return parse_number(arg, "fontwidth", 0.01, &s->font_width, err, errlen);
    case OPT_COUNTNAME: s->count_name = arg; return 0;
    case OPT_NAMETYPE: s->name_type = arg; return 0;
    case OPT_COLORS:
        if ((v = palette_from_name(arg)) < 0) {
            snprintf(err, errlen, "--colors: unknown palette \"%s\"", arg);
            return -1;
        }
        s->palette = (enum palette)v;
        return 0;
    case OPT_BGCOLORS:
        if (is_hex_color(arg)) {
            memcpy(s->background_flat, arg, 8);
            return 0;
        }
        if ((v = background_from_name(arg)) < 0) {
            snprintf(err, errlen, "--bgcolors: unknown background \"%s\"", arg);
            return -1;
        }
        s->background = (enum background)v;
        return 0;
    case OPT_HASH: case OPT_RANDOM: return 0;   /* colours are always the name's */
    case OPT_CP: a->cp = 1; return 0;
    case OPT_NAMEATTR: a->nameattr = arg; return 0;
    case OPT_ENCODING: s->encoding = arg; return check_encoding(arg, err, errlen);
    case OPT_REVERSE: a->reverse = 1; return 0;
    case OPT_INVERTED: s->inverted = 1; return 0;
    case OPT_NEGATE: s->negate = 1; return 0;
    case OPT_NOTES: s->notes = arg; return 0;
    case OPT_TOTAL:
        a->total_text = arg;
        return parse_number(arg, "total", 0, &s->total, err, errlen);
    case OPT_FACTOR: return parse_number(arg, "factor", 1e-9, &s->factor, err, errlen);
    case OPT_OUTPUT: a->output = arg; return 0;
    case OPT_REVERSED_OUTPUT: a->reversed_output = arg; return 0;
    case OPT_QUIET: a->quiet = 1; return 0;
    case OPT_HELP: return 1;
    case OPT_FLAMECHART: a->flamechart = 1; return 0;
    default: return apply_limit(opt, arg, a, err, errlen);
    }
}

/* The aggregations one read fills. */
struct graphs {
    struct flame *main;      /* the graph; with --reverse, of the reversed stacks */
    struct flame *reversed;  /* --reversed-output with --colors chain (and no --reverse):
                                the reversed graph's own, as its waker frames are marked
                                from the leaf; otherwise NULL (main has both orders) */
};

static int add_line(void *arg, const char *line, size_t len)
{
    struct graphs *g = arg;
    flame_add_line(g->main, line, len);
    if (g->reversed)
        flame_add_line(g->reversed, line, len);
    return 0;
}

/* Reads one input within --max-input (each file its own limit): 0; 1 when
 * it was cut there, with err saying so; -1 with err set when it could not
 * be read. */
static int read_input(const char *path, struct graphs *g, struct render_args *a,
                      struct input_stats *st, char *err, size_t errlen)
{
    if (input_read_path_limited(path, &a->input, add_line, g, st, err, errlen) != 0)
        return -1;
    if (a->input.reached) {
        snprintf(err, errlen, "%s: read only the first %llu bytes (--max-input)", path,
                 a->input.max_bytes);
        a->svg.input_cut_at = a->input.max_bytes;
        return 1;
    }
    return 0;
}

/* A new aggregation for the graph drawn in direction `dir`. */
static struct flame *new_graph(const struct render_args *a, enum flame_direction dir)
{
    struct flame *f = flame_new_limited(&a->limits);
    if (a->flamechart)
        flame_keep_order(f);
    if (a->svg.palette == PALETTE_CHAIN)
        flame_chain(f, dir);
    return f;
}

static void make_graphs(struct render_args *a, struct graphs *g)
{
    g->main = new_graph(a, a->reverse ? FLAME_REVERSED : FLAME_FORWARD);
    g->reversed = a->reversed_output && !a->reverse && a->svg.palette == PALETTE_CHAIN
                      ? new_graph(a, FLAME_REVERSED) : NULL;
    if (a->flamechart && !a->svg.title)
        a->svg.title = "Flame Chart";   /* flamegraph.pl's default there */
}

static void free_graphs(struct graphs *g)
{
    flame_free(g->main);
    flame_free(g->reversed);
}

/* Adds to msgs the line saying what went to [truncated] (the graph says it
 * too). */
static void warn_truncated(const char *cmd, const struct flame *f, strbuf *msgs)
{
    size_t limit;
    enum flame_limit why = flame_limit_reached(f, &limit);
    static const char *const names[] = {"", "--max-stacks", "--max-frames", "--max-memory",
                                        "32-bit table size"};
    if (why != FLAME_LIMIT_NONE)
        strbuf_appendf(msgs, "%s: %zu lines (%g samples) beyond the limits "
                       "shown as " FLAME_TRUNCATED_FRAME " (first limit reached: %s)\n",
                       cmd, flame_truncated_lines(f), flame_truncated_samples(f), names[why]);
}

/* Draws one graph to path (standard output for NULL or "-"): 0, or -1 with
 * its line "arclamp-svg render: why" added to msgs. */
static int write_graph(const char *cmd, const struct flame *f, enum flame_direction dir,
                       const struct svg_options *svg, const char *path, strbuf *msgs)
{
    strbuf doc = STRBUF_INIT;
    svg_render(f, dir, svg, &doc);
    int rc = 0;
    if (!path || strcmp(path, "-") == 0) {
        if (fwrite(doc.data, 1, doc.len, stdout) != doc.len || fflush(stdout) != 0) {
            strbuf_appendf(msgs, "%s: writing standard output: %s\n", cmd, strerror(errno));
            rc = -1;
        }
    } else {
        char err[512];
        size_t n = strlen(path);
        unsigned flags = layout_has_suffix(path, n, LAYOUT_SVGZ_SUFFIX) ? ATOMIC_GZIP : 0;
        /* A failed append is reported by commit, which always frees af. */
        struct atomic_file *af = atomic_open(path, flags, 6, err, sizeof(err));
        if (af)
            atomic_append(af, doc.data, doc.len);
        if (!af || atomic_commit(af, NULL, err, sizeof(err)) != 0) {
            strbuf_appendf(msgs, "%s: %s\n", cmd, err);
            rc = -1;
        }
    }
    strbuf_free(&doc);
    return rc;
}

/* Reads the command line into `a`: 0, 1 for --help, or -1 for a bad option
 * (err set, or empty when getopt has said it). */
static int parse_args(int argc, char **argv, struct render_args *a, char *err, size_t errlen)
{
    int opt, rc;
    err[0] = '\0';
    optind = 1;
    while ((opt = getopt_long_only(argc, argv, "o:qh", render_options, NULL)) != -1) {
        if (opt == 'o' || opt == 'q' || opt == 'h')
            opt = opt == 'o' ? OPT_OUTPUT : opt == 'q' ? OPT_QUIET : OPT_HELP;
        if (opt == '?')
            return -1;
        if ((rc = apply_option(opt, optarg, a, err, errlen)) != 0)
            return rc;
    }
    return 0;
}

/* --nameattr and --cp's palette.map, read before the input: 0, or the exit
 * status with err saying what went wrong (2 for a refused --nameattr file,
 * 1 for a palette.map that cannot be read). */
static int load_extras(struct render_args *a, char *err, size_t errlen)
{
    char why[1024];
    if (a->nameattr && !(a->svg.name_attrs = nameattr_load(a->nameattr, why, sizeof(why)))) {
        snprintf(err, errlen, "%s", why);
        return 2;
    }
    if (a->cp) {
        a->svg.palette_map = palmap_new();
        if (palmap_load(a->svg.palette_map, PALETTE_FILE, why, sizeof(why)) != 0) {
            snprintf(err, errlen, "--cp: %s", why);
            return 1;
        }
    }
    return 0;
}

static void free_extras(struct render_args *a)
{
    nameattr_free((struct nameattr *)a->svg.name_attrs);
    palmap_free(a->svg.palette_map);
}

/* Adds to msgs the warnings and the summary of a finished read, whole lines
 * in flamegraph.pl's words and order; 2 when there is nothing to draw, else
 * 0. */
static int report(const struct render_args *a, const struct flame *f, size_t too_long,
                  strbuf *msgs)
{
    warn_truncated(a->cmd, f, msgs);
    size_t ignored = flame_ignored(f) + too_long;
    if (ignored > 0)
        strbuf_appendf(msgs, "Ignored %zu lines with invalid format\n", ignored);
    /* svg_render never lets --total shrink the graph below its samples; say
     * so unless the given total is under 2% of the real one, where
     * flamegraph.pl stays quiet too. Both in the input's units (--factor
     * applies to neither), the real one as Perl prints a number. */
    double actual = flame_total(f);
    if (a->svg.total > 0 && a->svg.total < actual && a->svg.total / actual > 0.02)
        strbuf_appendf(msgs, "Specified --total %s is less than actual total %.15g, so ignored\n",
                       a->total_text, actual);
    if (!a->quiet && (a->output || a->reversed_output))
        strbuf_appendf(msgs, "%s: %zu lines, %zu distinct stacks, %zu frames\n", a->cmd,
                       flame_lines(f), flame_distinct_stacks(f), flame_distinct_frames(f));
    /* As flamegraph.pl: nothing to draw is exit status 2, with the error
     * SVG still written for tools that always expect a document. */
    if (flame_total(f) <= 0) {
        strbuf_appends(msgs, "ERROR: No stack counts found\n");
        return 2;
    }
    return 0;
}

/* Draws the graphs asked for; 0, or 1 when one could not be written (a
 * line for each failure added to msgs). With --cp, palette.map gets the
 * colours of what was drawn, as flamegraph.pl writes it after drawing (not
 * after its error document). */
static int write_all(const struct render_args *a, const struct graphs *g, int drawn,
                     strbuf *msgs)
{
    int status = 0;
    if (write_graph(a->cmd, g->main, a->reverse ? FLAME_REVERSED : FLAME_FORWARD, &a->svg, a->output,
                    msgs) != 0)
        status = 1;
    if (a->reversed_output &&
        write_graph(a->cmd, g->reversed ? g->reversed : g->main, FLAME_REVERSED, &a->svg,
                    a->reversed_output, msgs) != 0)
        status = 1;
    char err[1024];
    if (a->cp && drawn && palmap_save(a->svg.palette_map, PALETTE_FILE, err, sizeof(err)) != 0) {
        strbuf_appendf(msgs, "%s: --cp: %s\n", a->cmd, err);
        status = 1;
    }
    return status;
}

/* Reads the inputs: the files (or standard input) into g, or what `in`
 * reads from them. Returns 0, or the exit status (1: an input could not be
 * read; 2: a bad command line for `in`). `ignored` gets the lines the
 * reader refused on its own, `st` the files' statistics. */
static int read_inputs(struct render_args *a, struct graphs *g, const struct render_input *in,
                       char **files, int nfiles, struct input_stats *st, size_t *ignored)
{
    char err[8192];   /* room for a path */
    int status = 0;
    if (in) {
        struct render_feed feed = {add_line, g, &a->input, &a->svg, 0};
        status = in->read(in->arg, files, nfiles, &feed, err, sizeof err);
        if (status != 0)
            fprintf(stderr, "%s: %s\n", a->cmd, err);
        if (status == 2)
            fprintf(stderr, "Try 'arclamp-svg %s --help'.\n", in->command);
        *ignored = feed.ignored;
        return status;
    }
    for (int i = 0; i < (nfiles ? nfiles : 1); i++) {
        int rc = read_input(nfiles ? files[i] : "-", g, a, st, err, sizeof err);
        if (rc != 0)   /* could not be read, or cut at --max-input */
            fprintf(stderr, "%s: %s\n", a->cmd, err);
        if (rc < 0)
            status = 1;
    }
    return status;
}

/* The command. Every line on stderr is printed here: the helpers hand theirs
 * back (err, or msgs when there can be several), and flamegraph.pl's
 * warnings go out before the SVG goes to stdout, as it prints them. */
int render_command(int argc, char **argv, const struct render_input *in)
{
    struct render_args a = {0};
    char cmd[64];
    snprintf(cmd, sizeof cmd, "arclamp-svg %s", in ? in->command : "render");
    a.cmd = cmd;
    svg_options_init(&a.svg);
    a.budget.limit = FLAME_DEFAULT_MAX_MEMORY;
    a.limits.budget = &a.budget;
    char err[8192];   /* room for a path or an option's value */
    int status = parse_args(argc, argv, &a, err, sizeof err);
    if (status > 0) {
        if (in)
            in->usage(stdout);
        else
            render_usage(stdout);
        return 0;
    }
    if (status < 0) {
        if (err[0])
            fprintf(stderr, "%s: %s\n", cmd, err);
        fprintf(stderr, "Try '%s --help'.\n", cmd);
        return 2;
    }
    if ((status = load_extras(&a, err, sizeof err)) != 0) {
        fprintf(stderr, "%s: %s\n", cmd, err);
        free_extras(&a);
        return status;
    }
    struct graphs g;
    make_graphs(&a, &g);
    struct input_stats st = {0};
    size_t refused = 0;
    status = read_inputs(&a, &g, in, argv + optind, argc - optind, &st, &refused);
    /* An input that could not be read is an error of the command line, not
     * an empty graph: no SVG is written. */
    strbuf msgs = STRBUF_INIT;
    if (status == 0) {
        flame_finish(g.main);
        if (g.reversed)
            flame_finish(g.reversed);
        status = report(&a, g.main, st.too_long + refused, &msgs);
        fputs(strbuf_cstr(&msgs), stderr);   /* before the SVG, as flamegraph.pl */
        strbuf_reset(&msgs);
        if (write_all(&a, &g, status == 0, &msgs) != 0)
            status = 1;
        fputs(strbuf_cstr(&msgs), stderr);
    }
    strbuf_free(&msgs);
    free_graphs(&g);
    free_extras(&a);
    return status;
}

int cmd_render(int argc, char **argv)
{
    return render_command(argc, argv, NULL);
}
