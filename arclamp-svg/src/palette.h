/* palette: box colours, as flamegraph.pl's palettes, from a stable hash of
 * the function name (so a function keeps its colour in every graph, every
 * day), and the colours of differential graphs. */
#ifndef ARCLAMP_SVG_PALETTE_H
#define ARCLAMP_SVG_PALETTE_H

#include <stddef.h>

enum palette {
    PALETTE_HOT, PALETTE_MEM, PALETTE_IO, PALETTE_WAKEUP, PALETTE_CHAIN, PALETTE_JAVA,
    PALETTE_JS, PALETTE_PERL, PALETTE_RED, PALETTE_GREEN, PALETTE_BLUE, PALETTE_AQUA,
    PALETTE_YELLOW, PALETTE_PURPLE, PALETTE_ORANGE,
    PALETTE_COUNT
};

enum background { BG_AUTO, BG_YELLOW, BG_BLUE, BG_GREEN, BG_GREY, BG_COUNT };

struct rgb {
    unsigned char r, g, b;
};

/* "hot" -> PALETTE_HOT; -1 for an unknown name. */
int palette_from_name(const char *name);
const char *palette_name(enum palette p);
int background_from_name(const char *name);

/* The colour of a box for function `name` (len bytes, annotations such as
 * "_[k]" included: they select variants in some palettes): the formula of
 * its hue with values from a hash of the name. */
struct rgb palette_color(enum palette p, const char *name, size_t len);

/* The palette whose formula colours `name`: for java, js, perl, wakeup and
 * chain the flat hue flamegraph.pl picks by the name (red, green, aqua,
 * yellow, orange or blue); any other palette is its own. */
enum palette palette_hue(enum palette p, const char *name, size_t len);

/* flamegraph.pl's formula of palette `p` (hot, mem, io or a flat hue) for
 * the values v1..v3 in [0, 1) it would draw; the flat hues use v1 only. */
struct rgb palette_formula(enum palette p, double v1, double v2, double v3);

/* The colour of a differential box: `delta` = second - first column,
 * `max_delta` the largest |delta| in the graph. */
struct rgb palette_diff_color(double delta, double max_delta, int negate);

/* The two gradient stops of the background ("#eeeeee", "#eeeeb0"). */
void background_stops(enum background bg, enum palette p, const char **top,
                      const char **bottom);

#endif
