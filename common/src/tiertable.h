/* tiertable: request-tier aggregates in memory, the tier table file
 * (<bucket>.tiers) and its derived views.
 *
 * A table is what one minute (tiers.c, before it is written) or one bucket
 * of a tier table holds: per identity and tier the calls, their total time
 * and their histogram (tierhist.h), and the sums of the status lines. The
 * identity is kept as it is escaped on the wire: tierline.h gives each
 * identity one spelling, so it is the key as it is.
 *
 * Memory is bounded whatever senders do: at most `max_identities`
 * identities (the lines of further ones are added to the identity
 * "_other"), at most TIERTABLE_MAX_TIERS tiers per identity and
 * TIERTABLE_CELLS_PER_IDENTITY per allowed identity in the whole table (a
 * cell is about 600 bytes), and at most TIERTABLE_BLOCKS_PER_IDENTITY
 * histogram blocks (512 bytes each; a tier typically needs 5-10) per
 * allowed identity in the whole table: about 21 KB per identity at most.
 * What did not fit is counted in the caller's struct tier_drops.
 *
 * Identities an operator listed (reserved_tier_identities, struct
 * tier_names) are never "_other": they take no slot of max_identities
 * and have budgets of their own (TIERTABLE_CELLS_PER_IDENTITY cells and
 * TIERTABLE_BLOCKS_PER_IDENTITY blocks each), so identities sent before
 * them, however many, cannot push them out.
 *
 * Every count (calls, the status sums) is at most TIERLINE_COUNT_MAX
 * (2^53, tierline.h): the status sums saturate there, and a line that
 * would take a cell's calls past it is dropped (its histogram must add up
 * to the calls). Times (total_ns) saturate at INT64_MAX.
 *
 * The tier table of a bucket is the file <bucket>.tiers: merged tier lines
 * (tierline.h: HOST "*", PID 0, START and END a minute), appended by
 * arclamp-log, one or more per minute; a reader adds them all up (a
 * minute may be there more than once). Both halves are here: the writer
 * (tiertable_format_lines) and the reader (tiertable_read_fd,
 * tiertable_each_line; arclamp-log reads a bucket's file back after a
 * restart, arclamp-report reads it for the tier pages). Derived from it
 * for people and scripts: the JSON view (<bucket>.tiers.json, format
 * "arclamp-tiers/1") and the human table (<bucket>.tiers.txt).
 *
 * A table is used by one thread at a time (arclamp-log's ingest thread,
 * arclamp-report's job). */
#ifndef ARCLAMP_TIERTABLE_H
#define ARCLAMP_TIERTABLE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "strbuf.h"
#include "layout.h"
#include "tierhist.h"
#include "tierline.h"

#define TIERTABLE_MAX_TIERS 64
#define TIERTABLE_CELLS_PER_IDENTITY 8
#define TIERTABLE_BLOCKS_PER_IDENTITY 32
#define TIERTABLE_OTHER "_other"

/* The table's file names and the JSON view's format name are in layout.h
 * (LAYOUT_TIERS_*), with the other files' names. */
/* The longest line a reader takes from a .tiers file: an agg line with
 * every histogram bucket used is under 100 KB. */
#define TIERTABLE_LINE_MAX (256 * 1024)

/* One tier of one identity. */
struct tier_cell {
    char tier[TIERLINE_TIER_MAX + 1];
    uint64_t calls;              /* at most TIERLINE_COUNT_MAX, so it can go on a line */
    uint64_t total_ns;           /* saturates at INT64_MAX */
    struct tierhist hist;        /* counts add up to calls */
};

struct tier_identity {
    char *name;                  /* escaped as on the wire (owned) */
    size_t name_len;
    struct tier_cell *cells;     /* at most TIERTABLE_MAX_TIERS (owned) */
    size_t ncells, cap;
    struct tier_identity *hnext; /* hash chain */
    int reserved;                /* listed by the operator: never "_other" */
};

/* The identities an operator listed, escaped as on the wire, sorted (by
 * bytes, then length) and without repeats, for a binary search. */
struct tier_names {
    char **v;                    /* owned */
    size_t *len;                 /* owned */
    size_t n;
};

/* Builds the set from decoded identities (each tierline_identity_valid). */
void tier_names_init(struct tier_names *r, char *const *decoded, size_t n);
void tier_names_free(struct tier_names *r);
int tier_names_has(const struct tier_names *r, const char *escaped, size_t len);

/* The sums of status lines; each saturates at TIERLINE_COUNT_MAX. */
struct tier_status {
    uint64_t requests, traced, trips, resumes, paused, skipped;
};

/* What a table could not take, added up by the add functions. */
struct tier_drops {
    uint64_t overflow;           /* agg lines whose identity became "_other" */
    uint64_t tier_limit;         /* agg lines dropped: their identity had 64 tiers, or
                                    the table its cells */
    uint64_t memory;             /* agg lines dropped: the histogram budget was spent */
};

struct tiertable {
    struct tier_identity **ids;  /* in the order they came (owned) */
    size_t nids, cap;
    struct tier_identity **hash; /* by name, hash_size buckets (a power of two) */
    size_t hash_size;
    size_t max_identities;       /* not counting "_other" */
    size_t cells, max_cells;     /* (identity, tier) cells held, and the budget */
    size_t blocks, max_blocks;   /* histogram blocks held, and the budget */
    const struct tier_names *reserved; /* the operator's identities, or NULL (borrowed) */
    size_t nreserved;            /* of them, identities in the table */
    size_t kept_cells, kept_blocks; /* cells and blocks the reserved identities hold */
    struct tier_status status;
    uint64_t status_lines;       /* status lines added */
};

void tiertable_init(struct tiertable *t, size_t max_identities);
/* Gives the table the operator's identities (borrowed: they outlive it);
 * before anything is added. */
void tiertable_reserve(struct tiertable *t, const struct tier_names *reserved);
/* Frees everything; the table is empty and reusable (its limits and
 * reserved identities stay). */
void tiertable_reset(struct tiertable *t);
int tiertable_empty(const struct tiertable *t);

/* Adds `calls` calls of a tier (total_ns, hist: their time; hist's counts
 * are `calls`) to an identity (escaped, as on the wire). */
void tiertable_add(struct tiertable *t, const char *identity, size_t len, const char *tier,
                   size_t tier_len, uint64_t calls, uint64_t total_ns,
                   const struct tierhist *hist, struct tier_drops *drops);
void tiertable_add_status(struct tiertable *t, const struct tier_status *s);
/* Adds a line tierline_parse accepted. */
void tiertable_add_line(struct tiertable *t, const struct tierline *tl, struct tier_drops *drops);
/* Adds all of src to dst. */
void tiertable_merge(struct tiertable *dst, const struct tiertable *src,
                     struct tier_drops *drops);

const struct tier_identity *tiertable_find(const struct tiertable *t, const char *identity,
                                           size_t len);
const struct tier_cell *tier_identity_cell(const struct tier_identity *id, const char *tier);

/* Appends the table as tier lines of the window [start, end): one agg line
 * per identity and tier, and a status line when status lines were added. */
void tiertable_format_lines(const struct tiertable *t, time_t start, time_t end, strbuf *out);
/* Appends one line tierline_parse accepted as a merged line (HOST "*",
 * PID 0) of the window [start, end). */
void tiertable_format_line(const struct tierline *tl, time_t start, time_t end, strbuf *out);

/* --- reading a .tiers file ------------------------------------------------- */

/* What the readers call for each valid tier line. */
typedef void tiertable_line_fn(void *arg, const struct tierline *tl);

/* Calls fn for each valid tier line of buf[0..len) (whole lines, each
 * ending with '\n'); returns the lines that are no valid tier line. */
uint64_t tiertable_each_line(const char *buf, size_t len, tiertable_line_fn *fn, void *arg);

/* Reads a .tiers file from fd to its end, a chunk at a time (memory:
 * TIERTABLE_LINE_MAX, whatever the file's size), calling fn for each valid
 * tier line; a line longer than TIERTABLE_LINE_MAX and a last line without
 * its newline (torn) are skipped. Returns the lines skipped (no valid
 * tier line), or -1 (errno set) when the file cannot be read. The caller
 * opens and closes fd. */
long long tiertable_read_fd(int fd, tiertable_line_fn *fn, void *arg);

/* --- what a table shows ------------------------------------------------------ */

/* The identities heaviest first (their _total's time, then by name as
 * escaped): the order of the views. An array of t->nids the caller frees. */
const struct tier_identity **tiertable_sorted_identities(const struct tiertable *t);
/* An identity's cells in the views' order (_total first, then by time,
 * then by name) into cells[TIERTABLE_MAX_TIERS]. */
void tier_identity_sorted_cells(const struct tier_identity *id, const struct tier_cell **cells);

/* A cell's times as the views and the report's pages show them, in
 * microseconds: the total, the mean rounded to the nanosecond (the JSON
 * view's three decimals) and the percentiles of its histogram. */
struct tier_cell_us {
    double total, mean, p50, p90, p99;
};
void tier_cell_us(const struct tier_cell *cell, struct tier_cell_us *out);

/* --- the views --------------------------------------------------------------- */

/* What a tier table's JSON and text say about themselves. */
struct tier_header {
    const char *period;          /* the log group's period */
    const char *bucket;          /* the bucket's name */
    time_t start, end;           /* the bucket's seconds [start, end) */
    uint64_t minutes;            /* distinct minutes folded in */
};

/* The JSON view (LAYOUT_TIERS_JSON_FORMAT, see arclamp-log's README). */
void tiertable_format_json(const struct tiertable *t, const struct tier_header *h, strbuf *out);
/* The human table. */
void tiertable_format_text(const struct tiertable *t, const struct tier_header *h, strbuf *out);

#endif
