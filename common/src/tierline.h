/* tierline: the wire format of request-tier aggregates.
 *
 * The extension (php-excimer-sampler's tiers.c) sends, every few seconds,
 * what one process measured since its last flush, one line per (identity,
 * tier) and one status line; arclamp-log validates, merges and stores them
 * (tier tables); arclamp-report reads the tables back. The rules live here
 * once:
 *   tiers/1 agg START END HOST PID IDENTITY TIER CALLS TOTAL_NS HIST
 *   tiers/1 status START END HOST PID REQUESTS TRACED TRIPS RESUMES PAUSED SKIPPED
 * Every number is a decimal integer from 0 to TIERLINE_COUNT_MAX (2^53:
 * the report pages are JSON, whose numbers are doubles, exact only up to
 * 2^53), but TOTAL_NS, a time, which may reach INT64_MAX (the pages show
 * times as fractional microseconds, never as exact counts).
 * START, END: the window, unix seconds (START <= END). HOST: 1-255 bytes,
 * no space or control byte. PID: a process id (0: merged, several). IDENTITY:
 * the request type, 1-255 bytes once decoded, '%', space, control bytes and
 * DEL written %XX (two upper-case hex digits) and no other byte escaped (one
 * spelling per identity: the escaped form is a key), valid UTF-8. TIER: 1-64 bytes
 * of [A-Za-z0-9_.-] ("_total": the whole request). CALLS >= 1; TOTAL_NS the
 * sum of the calls' wall time in nanoseconds; HIST the calls' tierhist
 * (tierhist.h), whose counts add up to CALLS. Status: REQUESTS seen, TRACED
 * (sampled and not paused), breaker TRIPS and RESUMES in the window, PAUSED
 * (processes paused at END: a process sends 0 or 1, a merged line the sum),
 * SKIPPED (tier calls not recorded: the process's tables were full).
 * arclamp-log's merged lines (tier tables) have HOST "*" and PID 0.
 * Both halves live here: tierline_parse() reads a line, tierline_write()
 * writes one (the extension's flush, arclamp-log's merged lines), and
 * tierline_escape() is the one spelling of IDENTITY.
 * tierline.c needs tierhist.c (HIST is checked there) and strbuf.c only. */
#ifndef ARCLAMP_TIERLINE_H
#define ARCLAMP_TIERLINE_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"
#include "tierhist.h"

#define TIERLINE_PREFIX "tiers/1 "
#define TIERLINE_PREFIX_LEN 8
#define TIERLINE_HOST_MAX 255
#define TIERLINE_IDENTITY_MAX 255
#define TIERLINE_TIER_MAX 64
#define TIERLINE_HOST_MERGED "*"   /* HOST of arclamp-log's merged lines (PID 0) */
#define TIERLINE_TOTAL "_total"     /* the TIER of the whole request */
/* The largest count a tier line or a tier table holds (2^53), and what
 * their sums saturate at: every integer up to it is exact in a double, so
 * a reader of the JSON view (a double per number) gets every figure as written. */
#define TIERLINE_COUNT_MAX 9007199254740992LL

enum tierline_kind { TIERLINE_AGG, TIERLINE_STATUS };

/* Why a tier line was refused; the names (tierline_error_name) are metric
 * labels and log words. */
enum tierline_error {
    TIERLINE_OK = 0,
    TIERLINE_BAD_RECORD,   /* not agg or status, a field missing or extra */
    TIERLINE_BAD_NUMBER,   /* a number out of range (above TIERLINE_COUNT_MAX), START > END */
    TIERLINE_BAD_TEXT,     /* HOST, IDENTITY or TIER not as above */
    TIERLINE_BAD_HIST,     /* HIST malformed, or its counts not CALLS */
    TIERLINE_NERRORS
};

struct tierline {
    enum tierline_kind kind;
    int64_t start, end;
    const char *host;           /* points into the line */
    size_t host_len;
    int64_t pid;
    /* agg */
    const char *identity;       /* escaped, as on the line */
    size_t identity_len;
    const char *tier;
    size_t tier_len;
    int64_t calls, total_ns;
    const char *hist;           /* tierhist_parse() accepts it */
    size_t hist_len;
    /* status */
    int64_t requests, traced, trips, resumes, paused, skipped;
};

const char *tierline_error_name(enum tierline_error err);

/* Whether the line is a tier line at all (starts with TIERLINE_PREFIX). */
int tierline_is_tier(const char *line, size_t len);

/* Validates a tier line (len bytes, no newline) and splits it. */
enum tierline_error tierline_parse(const char *line, size_t len, struct tierline *out);

/* Writes s escaped for IDENTITY (out: at least 3 * len bytes); returns the
 * length written. */
size_t tierline_escape(const char *s, size_t len, char *out);
/* Decodes an IDENTITY that passed tierline_parse into out (at least len
 * bytes); returns the decoded length. */
size_t tierline_unescape(const char *s, size_t len, char *out);

/* Appends tl as one line ending with '\n': an agg line (IDENTITY as
 * tl->identity holds it, escaped; HIST from `hist` when given, else
 * tl->hist's text as it is) or a status line (`hist` unused). The caller
 * gives fields tierline_parse would accept (a decoded identity goes
 * through tierline_escape first): then tierline_parse reads the line back
 * to the same fields, and a line tierline_parse accepted is written back
 * to the same bytes. */
void tierline_write(strbuf *out, const struct tierline *tl, const struct tierhist *hist);

/* Whether a decoded identity can be sent: 1-255 bytes of valid UTF-8. */
int tierline_identity_valid(const char *s, size_t len);

/* Whether s is a valid TIER name. */
int tierline_tier_ok(const char *s, size_t len);

#endif
