/* stack_store: the data model of an ExcimerLog, and its output formats.
 *
 * Samples share structure, so a log stores:
 *   frames  — each distinct (function, file, line) once, names as zend_strings
 *   nodes   — a trie of stacks: node = (frame, parent node); a stack is the
 *             node of its leaf frame, so a sample costs one node lookup per
 *             frame and no string work
 *   entries — one per sample: leaf node, event count, timestamp
 * Lookups use open-addressing hash tables keyed by pointers and integers,
 * never by formatted strings; names are only formatted on output.
 * Memory is bounded: at `max_entries` (INI excimer.max_log_entries) a sample
 * is folded into the newest entry with the same stack (its event count grows)
 * or, for a stack not seen before, dropped and counted in `dropped_events`. */
#ifndef EXCIMER_STACK_STORE_H
#define EXCIMER_STACK_STORE_H

#include <stdint.h>

#include "php.h"

/* A frame as getTrace() reports it. */
typedef struct excimer_frame {
    zend_string *filename;       /* script path; NULL for internal functions */
    zend_string *class_name;     /* declaring/called class, or NULL */
    zend_string *function_name;  /* NULL for file-scope code; "{closure}" for closures */
    uint32_t lineno;             /* line being executed in this frame (0 for internal) */
    uint32_t closure_line;       /* first line of a closure, else 0 */
    uintptr_t key_code;          /* lookup key: op_array opcodes or internal function */
} excimer_frame;

typedef struct stack_node {
    uint32_t frame;              /* index in frames */
    uint32_t parent;             /* parent node, 0 = the root (nodes[0] is a sentinel) */
    uint32_t last_entry;         /* newest entry with this leaf + 1, 0 = none (for folding) */
} stack_node;

typedef struct stack_entry {
    uint32_t node;               /* leaf node of the sampled stack */
    zend_long event_count;       /* timer expirations this sample stands for */
    double timestamp;            /* seconds since the log's epoch */
} stack_entry;

/* One open-addressing table: 64-bit keys to 32-bit values (index + 1). */
typedef struct stack_hash {
    uint64_t *keys;
    uint32_t *values;            /* 0 = empty slot */
    uint32_t size;               /* power of two */
    uint32_t used;
} stack_hash;

typedef struct excimer_log_data {
    excimer_frame *frames;       /* distinct frames */
    uint32_t nframes, frames_cap;
    stack_hash frame_index;      /* (key_code, lineno) -> frame */
    stack_node *nodes;           /* the stack trie; nodes[0] is the root sentinel */
    uint32_t nnodes, nodes_cap;
    stack_hash node_index;       /* (parent, frame) -> node */
    stack_entry *entries;        /* samples in arrival order */
    uint32_t nentries, entries_cap;
    zend_long max_depth;         /* levels kept above the leaf, 0 = all, < 0 the leaf only */
    zend_long max_entries;       /* entries kept at most, 0 = no limit */
    zend_long dropped_events;    /* events of samples dropped at max_entries */
    double period;               /* seconds per event (speedscope weights) */
    double epoch;                /* clock_mono() when the profiler was created */
    uint32_t *scratch;           /* frame indexes of the sample being recorded */
    uint32_t scratch_cap;
} excimer_log_data;

void stack_store_init(excimer_log_data *log, zend_long max_depth, zend_long max_entries,
                      double period, double epoch);
void stack_store_destroy(excimer_log_data *log);
/* dst becomes an independent copy of src (for clone). */
void stack_store_copy(excimer_log_data *dst, const excimer_log_data *src);

/* Records the stack that starts at `ex` (the leaf; walks prev_execute_data
 * iteratively, so any depth is fine). Frames beyond max_depth are replaced
 * by one root frame "excimer_truncated" (file "excimer fake file", line 1). */
void stack_store_add_sample(excimer_log_data *log, zend_execute_data *ex, zend_long event_count,
                            double timestamp);

/* Sum of the event counts of all entries, plus dropped_events: every event
 * the log was given. */
zend_long stack_store_event_count(const excimer_log_data *log);

/* Output formats (see the Excimer API spec). */
zend_string *stack_store_format_collapsed(const excimer_log_data *log);
void stack_store_speedscope(const excimer_log_data *log, zval *return_value);
void stack_store_aggregate_by_function(const excimer_log_data *log, zval *return_value);
/* getTrace() of entry `index`: leaf first. */
void stack_store_entry_trace(const excimer_log_data *log, uint32_t index, zval *return_value);

#endif
