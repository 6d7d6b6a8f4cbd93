/* fixedhash: the project's one unkeyed hash, for the few values that must
 * hash the same in every process and every writer.
 *
 * Hash tables keyed by what a sender chose use keyedhash.h (a per-process
 * secret), so crafted keys cannot pile into one chain. A fixed hash is for
 * what has to be reproducible instead: the mark of a cut name in a run line
 * ("...[#<16 hex digits>]", runline.h), which the extension writes, which
 * arclamp-log and arclamp-report read, and which any other writer must be
 * able to compute. Never use it to index a table of untrusted keys. */
#ifndef ARCLAMP_FIXEDHASH_H
#define ARCLAMP_FIXEDHASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a, 64 bits, of p[0..len). */
uint64_t fixedhash_fnv1a64(const void *p, size_t len);

#endif
