/* hprof_run.h: the tables of a hierarchical run, shared by the two files
 * of the profiler (hprof.c fills them, hprof_output.c reads them out).
 *
 * A run keeps:
 *   names  — one per printed name ("Class::method", "main()",
 *            "load::file", ...), interned by its text: two functions
 *            printed alike (distinct closures "App\{closure}") are one name,
 *            so their arcs add up and their recursion levels count together,
 *            as in the originals
 *   frames — the calls in progress, a pool of records linked to their
 *            caller; a Fiber's calls hang below the call that started it,
 *            and a switch swaps which chain is current (fiber observer)
 *   arcs   — (parent name, its recursion level, child name, its level) ->
 *            sums of ct, wt, cpu, mu, pmu, allocations; at most
 *            excimer.hprof_max_arcs, past which calls add to the one arc
 *            "main()==>(arcs over excimer.hprof_max_arcs)"
 * Nothing else grows with the number of calls. The tables are malloc'd,
 * not emalloc'd: the profiler's own memory stays out of the mu and pmu it
 * measures (and out of memory_limit; excimer.hprof_max_arcs bounds it). */
#ifndef EXCIMER_HPROF_RUN_H
#define EXCIMER_HPROF_RUN_H

#include "php.h"

#include "cpuclock.h"
#include "hooks.h"

#define NO_FRAME 0u               /* frames[0]: the parent of main() */
#define NO_NAME UINT32_MAX        /* its name: an arc from it is "main()" itself */

typedef struct hprof_name {
    zend_string *name;
    const zend_class_entry *scope; /* of the function it was first made for (see name_cached) */
    uint32_t active;             /* calls of it in progress (its recursion level) */
    bool ignored;
    /* the arc it was last the child of: most calls repeat their caller */
    uint32_t last_arc, last_pname, last_plevel, last_level;
} hprof_name;

typedef struct hprof_frame {
    const zend_execute_data *ex; /* the call observed (NULL: main(), load::) */
    uint32_t parent;             /* the caller's frame, NO_FRAME for main() */
    uint32_t name, level;
    uint32_t pname, plevel;      /* the caller's, kept: a Fiber's first call outlives
                                    the frame of the Fiber::start() that began it */
    uint64_t t0, c0;             /* ticks, CPU ns at entry */
    int64_t mu0, pmu0, na0, nf0, aa0;
} hprof_frame;

typedef struct hprof_arc {
    uint32_t pname, plevel, cname, clevel;   /* pname NO_NAME: "main()" itself */
    int64_t ct, wt, cpu, mu, pmu, na, nf, aa;
} hprof_arc;

typedef struct hprof_table {     /* open addressing: 64-bit key -> index + 1 */
    uint64_t *keys;
    uint32_t *values;
    uint32_t size, used;
} hprof_table;

typedef struct hprof_fiber {     /* a suspended chain of calls */
    zend_fiber_context *context;
    uint32_t top;
} hprof_fiber;

struct hprof {
    bool running, sampling;
    uint32_t generation;         /* tokens of an earlier run are ignored */
    uint32_t run;                /* run_number at start: tags the names cached in functions */
    unsigned flags;
    HashTable *ignored;          /* names made transparent, or NULL */
    hprof_name *names;
    uint32_t nnames, names_cap;
    hprof_table name_index;      /* by the name's hash */
    hprof_frame *frames;         /* frames[0] unused */
    uint32_t nframes, frames_cap, free_frame;
    uint32_t top;                /* the current call's frame */
    uint32_t main_name;
    hprof_arc *arcs;
    uint32_t narcs, arcs_cap, max_arcs, overflow_arc;
    hprof_table arc_index;
    hprof_fiber *fibers;
    uint32_t nfibers, fibers_cap;
    uint64_t start_ticks;
    double start_mono, start_wall;
    cpuclock cpu;
    excimer_alloc_counts alloc;  /* allocations so far (HPROF_ALLOC) */
    /* sampling mode: grid points on CLOCK_MONOTONIC, in seconds */
    double next_sample, sample_every;
    zend_long sample_depth;
    zval samples;
};

/* hprof.c: closes every call still in progress (main() last) now. */
void hprof_close_open_calls(struct hprof *h);

/* hprof_output.c: the run (closed) as XHProf's raw array; as wire lines. */
void hprof_result_array(const struct hprof *h, zval *rv);
struct strbuf;
size_t hprof_result_lines(const struct hprof *h, struct strbuf *sb, const char *runid,
                          const char *entry, size_t max_bytes, uint64_t *left_out);

#endif
