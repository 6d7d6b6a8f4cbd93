/* diff: `arclamp-svg diff`, a differential flame graph of two trace logs.
 *
 *   arclamp-svg diff [-o OUT.svg] [--diff-out FILE] [render options] BEFORE.log AFTER.log
 *
 * What `difffolded.pl -n BEFORE AFTER | flamegraph.pl` draws, in one
 * process: the logs (plain or gzip) are merged and normalised by diffmerge
 * (BEFORE scaled to AFTER's total), and the "STACK BEFORE AFTER" lines go
 * to the renderer (render.h) as if they had been its input: widths from
 * AFTER, red where a stack grew, blue where it shrank. Every render option
 * applies (--reverse, --inverted, --negate, -o, --reversed-output, the
 * limits). --diff-out FILE also writes the merged lines, the text
 * difffolded.pl -n prints (sorted), so they can be checked or drawn again. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomicfile.h"
#include "commands.h"
#include "diffmerge.h"
#include "render.h"
#include "strbuf.h"

struct diff_args {
    const char *diff_out;   /* --diff-out FILE, or NULL */
    strbuf subtitle;        /* the default subtitle: what is compared */
};

static void diff_usage(FILE *out)
{
    fputs("Usage: arclamp-svg diff [OPTIONS] BEFORE.log AFTER.log > diff.svg\n"
          "\n"
          "Draws a differential flame graph of two trace logs (collapsed stacks, plain or\n"
          "gzip'ed), as difffolded.pl -n piped into flamegraph.pl: BEFORE's counts are\n"
          "scaled so that both logs have the same total, box widths are AFTER's, red\n"
          "where a stack grew, blue where it shrank.\n"
          "\n"
          "  --diff-out FILE     also write the merged \"STACK BEFORE AFTER\" lines to FILE\n"
          "                      (normalised as difffolded.pl -n; sorted by stack)\n"
          "  -o, --output FILE   write the graph to FILE (gzip'ed if *.svgz)\n"
          "  --reverse, --inverted, --negate, --title, ...: every option of\n"
          "                      `arclamp-svg render --help`\n"
          "\n"
          "Exit status: 0 drawn; 1 a log or an output could not be read or written;\n"
          "2 bad command line, or no samples in AFTER (the error SVG is written).\n",
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

/* render_input's reader: the two logs merged, then drawn. */
static int read_pair(void *arg, char **files, int nfiles, struct render_feed *feed, char *err,
                     size_t errlen)
{
    struct diff_args *d = arg;
    if (nfiles != 2) {
        snprintf(err, errlen, "expected two trace logs, BEFORE and AFTER (got %d)", nfiles);
        return 2;
    }
    struct diffmerge *dm = diffmerge_new(0, 0);
    int status = 0;
    for (int side = 0; side < 2 && status == 0; side++) {
        if (diffmerge_read_path(dm, (enum diffmerge_side)side, files[side], feed->limit, err,
                                errlen) < 0)
            status = 1;
        else if (feed->limit->reached) {
            /* Said in the subtitle too, as render says it. */
            feed->svg->input_cut_at = feed->limit->max_bytes;
            fprintf(stderr, "arclamp-svg diff: %s: read only the first %llu bytes "
                    "(--max-input)\n", files[side], feed->limit->max_bytes);
        }
    }
    if (status == 0 && d->diff_out && write_diff_out(dm, d->diff_out, err, errlen) < 0)
        status = 1;
    if (status == 0) {
        diffmerge_emit(dm, 1, feed->add, feed->add_arg);
        feed->ignored = diffmerge_ignored(dm, DIFFMERGE_BEFORE) +
                        diffmerge_ignored(dm, DIFFMERGE_AFTER);
        if (!feed->svg->title)
            feed->svg->title = "Differential Flame Graph";
        if (!feed->svg->subtitle) {
            strbuf_appendf(&d->subtitle, "%s (scaled to the same total) \xe2\x86\x92 %s",
                           files[0], files[1]);
            feed->svg->subtitle = strbuf_cstr(&d->subtitle);
        }
    }
    diffmerge_free(dm);
    return status;
}

/* Takes --diff-out out of argv (the rest is render's command line), as
 * render reads options: --diff-out or -diff-out, "=FILE" or the next
 * argument, up to a "--". Returns the new argc, or -1 when FILE is missing. */
static int take_diff_out(int argc, char **argv, struct diff_args *d)
{
    int out = 1;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "--") == 0) {
            while (i < argc)
                argv[out++] = argv[i++];
            break;
        }
        const char *name = s[0] == '-' ? (s[1] == '-' ? s + 2 : s + 1) : NULL;
        if (name && strncmp(name, "diff-out", 8) == 0 && (name[8] == '\0' || name[8] == '=')) {
            if (name[8] == '=')
                d->diff_out = name + 9;
            else if (i + 1 < argc)
                d->diff_out = argv[++i];
            else
                return -1;
            continue;
        }
        argv[out++] = argv[i];
    }
    argv[out] = NULL;
    return out;
}

int cmd_diff(int argc, char **argv)
{
    struct diff_args d = {NULL, STRBUF_INIT};
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) {
        fprintf(stderr, "arclamp-svg diff: %s\n", strerror(errno));
        return 1;
    }
    memcpy(args, argv, (size_t)argc * sizeof *args);
    int n = take_diff_out(argc, args, &d);
    int status;
    if (n < 0 || (d.diff_out && !d.diff_out[0])) {
        fputs("arclamp-svg diff: --diff-out: a file name is needed\n"
              "Try 'arclamp-svg diff --help'.\n", stderr);
        status = 2;
    } else {
        struct render_input in = {"diff", diff_usage, read_pair, &d};
        status = render_command(n, args, &in);
    }
    strbuf_free(&d.subtitle);
    free(args);
    return status;
}
