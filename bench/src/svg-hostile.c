/* svg-hostile: hostile trace logs for the arclamp-svg memory benchmark.
 *
 *   svg-hostile --shape SHAPE --bytes N [--output FILE]
 *
 * Writes about N bytes of collapsed stacks shaped to make a flame graph
 * generator's memory follow the input, as an attacker who can send lines
 * would (issue 14, item 2):
 *   unique      short lines, every stack new ("main;f17;g17;h17 1"): the
 *               per-stack overhead of the tables dominates (the issue's
 *               "285 MB log of unique stacks")
 *   hugeframes  one 15 MB line after another, each stack new and made of
 *               distinct 4 KB frame names: the name table grows with the input
 *   deep        15 MB lines of 3-byte frames ("x12;x12;..."), each stack new:
 *               millions of frames per stack (path table, layout depth)
 *   wide        1,000 distinct stacks 2,000 frames deep with distinct
 *               frames, repeated: every box is wide enough to draw, so the
 *               SVG document itself grows (two million boxes)
 * Deterministic (no randomness). Exit status: 0, 1 on a write error, 64 for
 * bad usage. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define EX_USAGE_CODE 64
#define BIG_LINE (15u << 20)     /* below arclamp-svg's 16 MiB line limit */

static unsigned long long written;

static void out(FILE *f, const char *s, size_t n)
{
    if (fwrite(s, 1, n, f) != n) {
        perror("svg-hostile: write");
        exit(1);
    }
    written += n;
}

static void shape_unique(FILE *f, unsigned long long bytes)
{
    char line[128];
    for (unsigned long long i = 0; written < bytes; i++) {
        int n = snprintf(line, sizeof line, "main;f%llu;g%llu;h%llu 1\n", i, i % 1000, i % 7);
        out(f, line, (size_t)n);
    }
}

static void shape_hugeframes(FILE *f, unsigned long long bytes)
{
    char frame[4096 + 32];
    memset(frame, 'F', sizeof frame);
    for (unsigned long long i = 0; written < bytes; i++) {
        size_t len = 0;
        for (unsigned j = 0; len < BIG_LINE - sizeof frame; j++) {
            int n = snprintf(frame + 4064, 32, "%llu.%u;", i, j);
            out(f, frame, 4064 + (size_t)n);
            len += 4064 + (size_t)n;
        }
        out(f, "leaf 1\n", 7);
    }
}

static void shape_deep(FILE *f, unsigned long long bytes)
{
    static char line[BIG_LINE + 64];
    for (unsigned long long i = 0; written < bytes; i++) {
        size_t len = 0;
        while (len < BIG_LINE) {
            memcpy(line + len, "x1;", 3);
            len += 3;
        }
        len += (size_t)snprintf(line + len, 64, "leaf%llu 1\n", i);
        out(f, line, len);
    }
}

static void shape_wide(FILE *f, unsigned long long bytes)
{
    char frame[64];
    for (unsigned long long round = 0; written < bytes; round++) {
        for (unsigned s = 0; s < 1000 && written < bytes; s++) {
            for (unsigned d = 0; d < 2000; d++) {
                int n = snprintf(frame, sizeof frame, "s%u_d%u;", s, d);
                out(f, frame, (size_t)n);
            }
            out(f, "leaf 1\n", 7);
        }
    }
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"shape", required_argument, NULL, 's'},
        {"bytes", required_argument, NULL, 'b'},
        {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    const char *shape = NULL, *output = NULL;
    double bytes = 0;
    int c;
    while ((c = getopt_long(argc, argv, "s:b:o:", opts, NULL)) != -1) {
        if (c == 's')
            shape = optarg;
        else if (c == 'o')
            output = optarg;
        else if (c != 'b' || parse_num(optarg, 1, 1e12, &bytes) < 0)
            goto usage;
    }
    if (!shape || bytes <= 0)
        goto usage;
    FILE *f = output ? fopen(output, "w") : stdout;
    if (!f) {
        perror(output);
        return 1;
    }
    unsigned long long n = (unsigned long long)bytes;
    if (strcmp(shape, "unique") == 0)
        shape_unique(f, n);
    else if (strcmp(shape, "hugeframes") == 0)
        shape_hugeframes(f, n);
    else if (strcmp(shape, "deep") == 0)
        shape_deep(f, n);
    else if (strcmp(shape, "wide") == 0)
        shape_wide(f, n);
    else
        goto usage;
    if (fclose(f) != 0) {
        perror("svg-hostile: close");
        return 1;
    }
    return 0;
usage:
    fputs("usage: svg-hostile --shape unique|hugeframes|deep|wide --bytes N [--output FILE]\n",
          stderr);
    return EX_USAGE_CODE;
}
