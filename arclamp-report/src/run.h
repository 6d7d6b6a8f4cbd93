/* run: one XHProf run in memory — the raw array's arcs ("parent==>child",
 * or "main()") with the metrics each has — read from a serialize()d
 * .xhprof file (common/src/phpser.c) or from json_encode() of the same
 * array (.json, json-c), and the arrays the commands produce.
 *
 * Memory: one record per arc (at most `max_arcs`, refused beyond) and its
 * key; nothing grows with the values or the number of runs loaded.
 * Loading keeps, per arc, the arc that came after it in the last file read:
 * consecutive runs of the same code list their arcs in the same order, so
 * each key is first compared with that prediction, and hashed only when it
 * differs. */
#ifndef ARCLAMP_REPORT_RUN_H
#define ARCLAMP_REPORT_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "hashidx.h"

/* The metrics XHProf tools know, in the order reports show them. */
enum metric { M_CT, M_WT, M_UT, M_ST, M_CPU, M_MU, M_PMU, M_SAMPLES, M_NA, M_NF, M_AA, M_COUNT };

extern const char *const metric_names[M_COUNT];
int metric_of_name(const char *name, size_t len); /* -1 when unknown */

typedef struct arc {
    char *key;                 /* "parent==>child" or "main()" (NUL-terminated, may hold NULs) */
    size_t klen;
    double v[M_COUNT];
    unsigned present;          /* bit m: metric m is in this arc */
    uint32_t next;             /* loading: the arc after this one in the last file (index + 1, 0 = none) */
} arc;

typedef struct run {
    arc *arcs;
    size_t n, cap;
    struct hashidx index;      /* arcs by the keyed hash of their key */
    size_t max_arcs;
    size_t key_bytes;          /* the bytes of every arc's key held */
    size_t max_key_bytes;      /* past it no arc is created (0: no limit); a long name
                                  costs memory in every copy made of it (page, diff) */
    unsigned metrics;          /* bit m: main() has metric m (what the run measured) */
    size_t unknown_metrics;    /* metric names we do not know, skipped */
    uint32_t first;            /* loading: the last file's first arc (index + 1, 0 = none) */
} run;

void run_init(run *r, size_t max_arcs);
void run_free(run *r);
/* The arc of key, created (all zero) when absent and `create`; NULL when
 * absent, or when creating would pass max_arcs or max_key_bytes. */
arc *run_arc(run *r, const char *key, size_t klen, int create);
/* Reads a run file (.xhprof serialize() or .json, told apart by the first
 * byte). Returns 0, or -1 with a message in err. */
int run_load(run *r, const char *path, size_t max_bytes, char *err, size_t errlen);
/* The same, adding `weight` times each value into r (which may hold arcs
 * already: runs are summed this way, one file in memory at a time). */
int run_load_weighted(run *r, const char *path, size_t max_bytes, double weight, char *err,
                      size_t errlen);

/* The same from bytes in memory (the file's content; `err` without the
 * path). */
int run_load_bytes(run *r, const char *buf, size_t len, double weight, char *err, size_t errlen);

/* "parent==>child" split: *parent NULL (and plen 0) for "main()". */
void arc_split(const arc *a, const char **parent, size_t *plen, const char **child, size_t *clen);

#endif
