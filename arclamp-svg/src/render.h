/* render: the renderer's command line, shared by `render` and `diff`.
 *
 * cmd_render reads its files as they are; `diff` (diff.c) hands the same
 * command line — flamegraph.pl's options, -o, --reversed-output, the
 * limits — to render_command with an input of its own: the two logs
 * merged into differential lines, drawn by the same code in-process. */
#ifndef ARCLAMP_SVG_RENDER_H
#define ARCLAMP_SVG_RENDER_H

#include <stdio.h>

#include "input.h"
#include "svg.h"

/* What an input reader is given, and tells back. */
struct render_feed {
    input_line_fn add;          /* where its lines go */
    void *add_arg;
    struct input_limit *limit;  /* --max-input, for each file */
    struct svg_options *svg;    /* to set a default title or subtitle (unset ones only) */
    size_t ignored;             /* set by the reader: lines it refused itself */
};

/* Another command's input in place of render's files. */
struct render_input {
    const char *command;        /* "diff": messages read "arclamp-svg diff: ..." */
    void (*usage)(FILE *out);   /* its --help */
    /* Reads the inputs named by the positional arguments into feed: 0; 1
     * when one could not be read (no SVG is written); 2 for a bad command
     * line. err says why. */
    int (*read)(void *arg, char **files, int nfiles, struct render_feed *feed, char *err,
                size_t errlen);
    void *arg;
};

/* The command with the renderer's options; `in` NULL reads the files (or
 * standard input) as `render` does. Returns the exit status. */
int render_command(int argc, char **argv, const struct render_input *in);

#endif
