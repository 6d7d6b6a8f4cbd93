/* svg: a flame graph tree rendered as an interactive SVG document.
 *
 * Geometry, fonts, palettes, tooltips and interactions follow flamegraph.pl
 * (see ../shared/spec/flamegraph-svg.md); the script that makes the graph
 * interactive is flamegraph.js, embedded at build time. Everything taken
 * from the input or the options is escaped (xmlesc.h), so the document is
 * well-formed XML whatever bytes it is given, and output is deterministic:
 * the same tree and options always give the same bytes.
 *
 * The document, which flamegraph.js relies on:
 *   <svg ...> <defs>background gradient</defs> <style/>
 *   <script type="application/json" id="arclamp-settings"> {fontsize, fontwidth,
 *            xpad, inverted, searchcolor, nametype, countname, total}
 *            (JSON on a line of its own, every string \u-escaped; data, never run) </script>
 *   <script> flamegraph.js, nothing before or after it </script>
 *   (no event handler attributes: flamegraph.js starts itself on load, so the
 *   web front's Content-Security-Policy can allow that one script by its hash)
 *   <rect background/> <text id="title"/> [<text id="subtitle"/>]
 *   <text id="details"/> <text id="unzoom" class="hide"/> <text id="search"/>
 *   <text id="ignorecase"/> <text id="matched"/>
 *   <g id="frames"> one <g> per box: <title>NAME (N samples, P%)</title>
 *       <rect x y width height fill rx ry/> <text x y>LABEL</text> </g> ... </g>
 *   (with --nameattr, a box's <g> may carry more attributes, or be an <a>)
 *
 * What a graph does not show is said in its subtitle (after the given one):
 * samples folded into [truncated] by the aggregation's limits (flame.h),
 * input not read past its reader's limit, boxes left out to keep the
 * document under max_bytes. A graph within every limit has none of these,
 * so it is byte for byte what it was without them.
 */
#ifndef ARCLAMP_SVG_H
#define ARCLAMP_SVG_H

#include "flame.h"
#include "nameattr.h"
#include "palette.h"
#include "palmap.h"
#include "strbuf.h"

struct svg_options {
    const char *title;       /* default "Flame Graph" ("Icicle Graph" when inverted) */
    const char *subtitle;    /* NULL: none */
    const char *notes;       /* NULL: none; goes into a <desc> element */
    double width;            /* image width in px (1200) */
    double frame_height;     /* px per frame (16) */
    double min_width;        /* boxes narrower than this are dropped (0.1 px) */
    int min_width_is_percent; /* min_width is a percentage of the total */
    const char *font_type;   /* "Verdana" */
    double font_size;        /* 12 */
    double font_width;       /* average glyph width as a fraction of font_size (0.59) */
    const char *count_name;  /* "samples" */
    const char *name_type;   /* "Function:" */
    enum palette palette;    /* PALETTE_HOT */
    enum background background; /* BG_AUTO: chosen by the palette */
    char background_flat[8];  /* "#rrggbb": a flat background instead (--bgcolors) */
    int inverted;            /* icicle graph: the root at the top, growing down */
    int negate;              /* differential: swap the meaning of red and blue */
    double factor;           /* counts are multiplied by this (1) */
    double total;            /* > 0: --total, the counts (before factor) spanning the full
                                width, when not below the real total */
    size_t max_bytes;        /* the document stays about this small: boxes deeper than
                                what fits are left out, and the subtitle says so
                                (SVG_DEFAULT_MAX_BYTES; 0: no limit) */
    unsigned long long input_cut_at; /* > 0: the input was read only this far (its reader's
                                limit); the subtitle says so */
    struct palmap *palette_map;  /* --cp: colours taken from it, and those of other drawn
                                boxes added to it; NULL: none */
    const struct nameattr *name_attrs; /* --nameattr: tags and tooltips by function; NULL */
    const char *encoding;    /* --encoding: declared in <?xml?>; NULL: none. Other than
                                UTF-8, every non-ASCII character is written as a character
                                reference, so the bytes read the same in any encoding that
                                keeps ASCII as it is */
};

/* Far above a normal graph (about 1 MB at 1 px, 10 MB at 0.1 px). */
#define SVG_DEFAULT_MAX_BYTES (32u << 20)

void svg_options_init(struct svg_options *opt);

/* Appends the graph of `f` (finished) in direction `dir` to `out`. */
void svg_render(const struct flame *f, enum flame_direction dir,
                const struct svg_options *opt, strbuf *out);

/* The line of the document's head that holds its settings for the script
 * (between START and END), and the key of the count spanning the full width
 * in it (the samples of the graph, times --factor, or --total when wider).
 * START begins inside the element's start tag: nothing escaped can fake it. */
#define SVG_SETTINGS_START "id=\"arclamp-settings\"><![CDATA[\n{"
#define SVG_SETTINGS_END "}\n"
#define SVG_TOTAL_KEY ",\"total\":"

/* Reads that count back from the first `len` bytes of a document
 * svg_render wrote (or an earlier arclamp-svg wrote, whose settings were a
 * script: `var arclamp = {...};`): 0 with *total set, or -1 when they do
 * not hold it (another document, or cut before the end of that line). The timer job's
 * index reads it from each graph's first kilobytes instead of the log. */
int svg_head_total(const char *head, size_t len, double *total);

#endif
