/* runline: parsing and validation of the lines of hierarchical runs.
 *
 * The extension's zero-code collection (php-excimer-sampler's
 * hprof_collect.c) sends each XHProf run as lines of this format, every
 * line tagged with its run so a run split over messages goes back together:
 *   xhprof/1 RUNID begin UNIXTIME HOST FLAGS ENTRY
 *   xhprof/1 RUNID arc CT WT CPU MU PMU KEY
 *   xhprof/1 RUNID end ARCS_SENT ARCS_LEFT_OUT
 * arclamp-log validates and stores them (run logs), arclamp-report reads
 * them back: the rules live here once. KEY and ENTRY are the rest of the
 * line, '%', CR, LF and NUL written %25, %0D, %0A, %00; a metric the run
 * did not measure is "-". */
#ifndef ARCLAMP_RUNLINE_H
#define ARCLAMP_RUNLINE_H

#include <stddef.h>
#include <stdint.h>

#define RUNLINE_PREFIX "xhprof/1 "
#define RUNLINE_PREFIX_LEN 9
#define RUNLINE_RUNID_MAX 64
#define RUNLINE_HOST_MAX 255

enum runline_kind { RUNLINE_BEGIN, RUNLINE_ARC, RUNLINE_END };

/* The metrics of an arc line, in its order. */
enum runline_metric { RL_CT, RL_WT, RL_CPU, RL_MU, RL_PMU, RL_NMETRICS };

/* Why a run line was refused; the names (runline_error_name) are metric
 * labels and log words. */
enum runline_error {
    RUNLINE_OK = 0,
    RUNLINE_BAD_RUNID,    /* not 1-64 bytes of [A-Za-z0-9_-] */
    RUNLINE_BAD_RECORD,   /* not begin, arc or end, or a field missing */
    RUNLINE_BAD_NUMBER,   /* a number out of range, or "-" where one is needed */
    RUNLINE_BAD_TEXT,     /* HOST, FLAGS, KEY or ENTRY empty, badly escaped,
                             with control bytes or invalid UTF-8 */
    RUNLINE_NERRORS
};

struct runline {
    enum runline_kind kind;
    const char *runid;            /* points into the line */
    size_t runid_len;
    /* begin */
    int64_t time;                 /* UNIXTIME */
    const char *host;
    size_t host_len;
    unsigned metrics;             /* bit m: metric m measured (FLAGS; ct always) */
    /* arc */
    int64_t v[RL_NMETRICS];
    unsigned present;             /* bit m: v[m] given (not "-") */
    /* begin: ENTRY, arc: KEY; escaped, as on the line */
    const char *text;
    size_t text_len;
    /* end */
    int64_t sent, left_out;
};

const char *runline_error_name(enum runline_error err);

/* Whether the line is a run line at all (starts with RUNLINE_PREFIX). */
int runline_is_run(const char *line, size_t len);

/* Validates a run line (len bytes, no newline; runline_is_run() true) and
 * splits it into its fields. */
enum runline_error runline_parse(const char *line, size_t len, struct runline *out);

/* Decodes the escapes of KEY or ENTRY into out (at least len bytes; the
 * result may hold NULs). Returns the decoded length. The text must have
 * passed runline_parse. */
size_t runline_unescape(const char *text, size_t len, char *out);

/* The entry point tag of a run: ENTRY's file name (after the last '/')
 * without ".php", when that is a valid tag (stackline_tag_name_ok). Writes
 * it NUL-terminated to tag (at least STACKLINE_TAG_MAX + 1 bytes) and
 * returns its length; 0: no tag (the run goes to "all" only). */
size_t runline_entry_tag(const char *entry, size_t len, char *tag);

#endif
