/* namemap: function names (any bytes) numbered in the order they were
 * added, found by hash.
 *
 * The index behind render's --cp (palette.map) and --nameattr: a name maps
 * to its entry number, and the caller keeps what goes with each entry in
 * arrays of its own indexed by that number. Names are copied in. Memory
 * follows what is added; the callers bound it (the files they read are
 * capped, and a graph draws a bounded number of frames). */
#ifndef ARCLAMP_SVG_NAMEMAP_H
#define ARCLAMP_SVG_NAMEMAP_H

#include <stddef.h>

struct namemap;

struct namemap *namemap_new(void);
void namemap_free(struct namemap *m);

/* The entry number of `name` (len bytes), or -1 when it has none. */
long namemap_get(const struct namemap *m, const char *name, size_t len);
/* The entry number of `name`, added when absent (numbered namemap_count()
 * before the call). */
size_t namemap_add(struct namemap *m, const char *name, size_t len);

size_t namemap_count(const struct namemap *m);
/* The name of entry `i` and its length (not NUL-terminated). */
const char *namemap_name(const struct namemap *m, size_t i, size_t *len);

/* Every entry number, in the byte order of the names (a name before its
 * extensions), as Perl's default sort orders strings. malloc'd, with
 * namemap_count() numbers (NULL when there are none). */
size_t *namemap_sorted(const struct namemap *m);

#endif
