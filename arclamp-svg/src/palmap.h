/* palmap: flamegraph.pl's consistent palette (render --cp), the file
 * palette.map.
 *
 * The file holds "NAME->rgb(R,G,B)" lines. As flamegraph.pl does, render
 * reads it from the current directory when it exists, draws the functions
 * it names in its colours, adds the colour it gives every other function
 * it draws, and writes the whole map back sorted by name. Unlike
 * flamegraph.pl, a value that is not rgb(R,G,B) with R, G and B from 0 to
 * 255 is ignored (flamegraph.pl writes any text into the SVG's fill
 * attribute) and not written back; the name is what precedes the LAST "->",
 * so names holding "->" survive the round trip (flamegraph.pl splits at
 * each); and the file is replaced atomically, never left half written. */
#ifndef ARCLAMP_SVG_PALMAP_H
#define ARCLAMP_SVG_PALMAP_H

#include <stddef.h>

#include "palette.h"

/* A palette.map larger than this is refused rather than read (its names
 * are kept in memory). */
#define PALMAP_MAX_BYTES (64u << 20)

struct palmap;

struct palmap *palmap_new(void);
void palmap_free(struct palmap *m);

/* Reads `path` into the map: 0 (also when the file does not exist), or -1
 * with a message in err (unreadable, or larger than PALMAP_MAX_BYTES). */
int palmap_load(struct palmap *m, const char *path, char *err, size_t errlen);

/* The colour of `name`: the map's, or else `computed`, which the map then
 * keeps for it when `keep` is set (a box drawn; not one only measured). */
struct rgb palmap_color(struct palmap *m, const char *name, size_t len, struct rgb computed,
                        int keep);

/* Entries in the map. */
size_t palmap_count(const struct palmap *m);

/* Writes the map to `path` atomically, one "NAME->rgb(R,G,B)" line per
 * entry in the byte order of the names: 0, or -1 with a message in err. */
int palmap_save(const struct palmap *m, const char *path, char *err, size_t errlen);

#endif
