/* runline: the line format of hierarchical runs, both halves — the writer
 * the extension sends with and the parser arclamp-log and arclamp-report
 * read with — and the per-run name table that turns a version 2 run's arcs
 * back into XHProf keys.
 *
 * The extension's zero-code collection sends each XHProf run as lines, every
 * line tagged with its run so a run split over messages goes back together.
 * Version 2 (written by runline_write_run) names each function once per run
 * and gives arcs by number:
 *   xhprof/2 RUNID begin UNIXTIME HOST FLAGS ENTRY
 *   xhprof/2 RUNID fn ID NAME
 *   xhprof/2 RUNID arc CT WT CPU MU PMU CALLER CALLEE
 *   xhprof/2 RUNID end ARCS_SENT ARCS_LEFT_OUT
 * Version 1 (older senders; still read everywhere) spells every arc's key:
 *   xhprof/1 RUNID begin UNIXTIME HOST FLAGS ENTRY
 *   xhprof/1 RUNID arc CT WT CPU MU PMU KEY
 *   xhprof/1 RUNID end ARCS_SENT ARCS_LEFT_OUT
 *
 * KEY, ENTRY and NAME are the rest of the line, not empty, printable valid
 * UTF-8 once '%XX' escapes are counted as bytes: the writer writes '%',
 * every control byte (0x00-0x1f), DEL and every byte that is not part of
 * valid UTF-8 (overlong forms, surrogates, past U+10FFFF, cut sequences)
 * as %XX, so any name survives, and leaves valid UTF-8 as it is. Decoded,
 * NAME and ENTRY are at most RUNLINE_MAX_NAME_BYTES, KEY at most
 * RUNLINE_MAX_KEY_BYTES: the writer shortens a longer name
 * (runline_shorten_name), readers refuse it (RUNLINE_LONG_NAME). HOST is
 * written with '_' for any byte the field cannot carry. A metric the run
 * did not measure is "-". In version 2, ID is
 * decimal 0..2^31-1, defined by one fn line before any arc uses it; CALLER
 * is "-" on the run's root line (main(): CALLEE is its id), else ID or
 * ID@LEVEL (LEVEL >= 1, the recursion level); CALLEE is ID or ID@LEVEL. The
 * key such an arc stands for is name(CALLER)[@L]==>name(CALLEE)[@L], or
 * name(CALLEE)[@L] alone on the root line: exactly version 1's KEY.
 *
 * libc only (with linefields, stackline and strbuf): the extension compiles
 * this file too. */
#ifndef ARCLAMP_RUNLINE_H
#define ARCLAMP_RUNLINE_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

#define RUNLINE_PREFIX "xhprof/1 "    /* version 1 */
#define RUNLINE_PREFIX_V2 "xhprof/2 " /* version 2 */
#define RUNLINE_PREFIX_LEN 9          /* of either */
#define RUNLINE_RUNID_MAX 64
#define RUNLINE_HOST_MAX 255
#define RUNLINE_ID_MAX INT32_MAX      /* largest function id and recursion level */
/* The longest function name a run may carry: bytes once decoded, without
 * a recursion level's "@LEVEL". One limit for the whole pipeline (the
 * extension's names, arclamp-log's ingest, arclamp-report's reading), so a
 * run one side accepts the others accept too; what a reader holds per
 * name, and per arc key (two names), is bounded by it. 4 KiB: far past
 * any PHP name (a long closure's "{closure:/path/file.php:123}"), far
 * below what a 200 KB name repeated over a run costs a report page. */
#define RUNLINE_MAX_NAME_BYTES 4096

/* The longest name a line carries, in bytes once decoded: a version 2 fn
 * line's NAME, a begin line's ENTRY. It bounds what one arc can cost a
 * reader (arclamp-report keeps a run's names). PHP's long names are the
 * ones that hold a path (load::, run_init::, closures, anonymous classes),
 * which the kernel bounds to PATH_MAX (4096) bytes: only a path within a
 * few bytes of that limit, or a name written to be huge, is shortened. */
#define RUNLINE_MAX_NAME_BYTES 4096
/* A version 1 KEY, decoded: two names, "==>" and two "@LEVEL". */
#define RUNLINE_MAX_KEY_BYTES (2 * RUNLINE_MAX_NAME_BYTES + 3 + 2 * 11)
/* What ends a shortened name: "…[cut:" (U+2026 in UTF-8), 16 lower-case
 * hex digits of the FNV-1a 64-bit hash of the whole name, "]". */
#define RUNLINE_CUT_MARK "\xe2\x80\xa6[cut:"
#define RUNLINE_CUT_SUFFIX_LEN (sizeof RUNLINE_CUT_MARK - 1 + 16 + 1)

enum runline_kind { RUNLINE_BEGIN, RUNLINE_ARC, RUNLINE_END, RUNLINE_FN };

/* The metrics of an arc line, in its order. */
enum runline_metric { RL_CT, RL_WT, RL_CPU, RL_MU, RL_PMU, RL_NMETRICS };

/* Why a run line was refused; the names (runline_error_name) are metric
 * labels and log words. */
enum runline_error {
    RUNLINE_OK = 0,
    RUNLINE_BAD_RUNID,    /* not 1-64 bytes of [A-Za-z0-9_-] */
    RUNLINE_BAD_RECORD,   /* not begin, arc, end (or fn in version 2), or a field
                             missing or extra */
    RUNLINE_BAD_NUMBER,   /* a number (or function id, or level) out of range, or "-"
                             where one is needed */
    RUNLINE_BAD_TEXT,     /* HOST, FLAGS, KEY, NAME or ENTRY empty, badly escaped,
                             with control bytes or invalid UTF-8 */
    RUNLINE_LONG_NAME,    /* NAME or ENTRY past RUNLINE_MAX_NAME_BYTES, KEY past
                             RUNLINE_MAX_KEY_BYTES (decoded) */
    RUNLINE_NERRORS
};

/* Caller of the root arc (main()): there is none. */
#define RUNLINE_NO_CALLER UINT32_MAX

/* One line, split (runline_parse). Pointers point into the line. */
struct runline {
    int version;                  /* 1 or 2 */
    enum runline_kind kind;
    const char *runid;
    size_t runid_len;
    /* begin */
    int64_t time;                 /* UNIXTIME */
    const char *host;
    size_t host_len;
    unsigned metrics;             /* bit m: metric m measured (FLAGS; ct always) */
    /* arc */
    int64_t v[RL_NMETRICS];
    unsigned present;             /* bit m: v[m] given (not "-") */
    uint32_t caller, caller_level; /* version 2: RUNLINE_NO_CALLER on the root line */
    uint32_t callee, callee_level; /* version 2; a level of 0: none */
    /* fn (version 2) */
    uint32_t id;
    /* begin: ENTRY, version 1 arc: KEY, fn: NAME; escaped, as on the line.
     * Empty (NULL, 0) for a version 2 arc. */
    const char *text;
    size_t text_len;
    /* end */
    int64_t sent, left_out;
};

const char *runline_error_name(enum runline_error err);

/* Whether the line is a run line at all (starts with RUNLINE_PREFIX or
 * RUNLINE_PREFIX_V2). */
int runline_is_run(const char *line, size_t len);

/* Validates a run line (len bytes, no newline; runline_is_run() true) and
 * splits it into its fields. Whether a version 2 run's ids are defined is
 * a question about the whole run: runline_names. */
enum runline_error runline_parse(const char *line, size_t len, struct runline *out);

/* Decodes the escapes of KEY, NAME or ENTRY into out (at least len bytes;
 * the result may hold NULs). Returns the decoded length. The text must have
 * passed runline_parse. */
size_t runline_unescape(const char *text, size_t len, char *out);

/* The entry point tag of a run: ENTRY's file name (after the last '/')
 * without ".php", when that is a valid tag (stackline_tag_name_ok). Writes
 * it NUL-terminated to tag (at least STACKLINE_TAG_MAX + 1 bytes) and
 * returns its length; 0: no tag. */
size_t runline_entry_tag(const char *entry, size_t len, char *tag);

/* ---- the name table of one run (runnames.c) ------------------------------ */

/* The functions a version 2 run defined so far (fn lines), by id: what
 * its arcs are resolved against, in the order of the lines. Used by every
 * reader (arclamp-log checks runs with it, arclamp-report sums them), so a
 * run means the same to both. Memory follows the fn lines given (each at
 * least a few bytes of a run whose size the caller bounds). */
struct runline_names {
    struct hashidx *ids;          /* the entries by their id's keyed hash (NULL until
                                     the first; a pointer so that this header, which the
                                     PHP extension compiles, needs no hashidx.h) */
    struct runline_name_entry {
        uint32_t id;              /* the fn line's ID */
        size_t off, len;          /* the decoded name in `text` (keep_text) */
    } *entries;                   /* in the order defined */
    size_t n, cap;                /* entries used, allocated */
    strbuf text;                  /* the decoded names, one after another */
    int keep_text;                /* whether names are kept (a checker needs ids only) */
};

/* keep_text 0: only which ids are defined (runline_names_key then fails). */
void runline_names_init(struct runline_names *t, int keep_text);
/* Forgets every name (a new run begins); keeps a modest amount of memory. */
void runline_names_clear(struct runline_names *t);
void runline_names_free(struct runline_names *t);

/* Takes an fn line (runline_parse's result). 0, or -1 when its id is
 * defined already (the run is bad). */
int runline_names_define(struct runline_names *t, const struct runline *rl);

/* Whether every id a version 2 arc line uses is defined (1) or not (0).
 * Always 1 for a version 1 arc. */
int runline_names_resolves(const struct runline_names *t, const struct runline *rl);

/* Sets *key to the decoded XHProf key of an arc line of either version
 * ("parent==>child", "f@1", "main()"; may hold NULs). 0, or -1 when a
 * version 2 arc uses an undefined id. */
int runline_names_key(const struct runline_names *t, const struct runline *rl, strbuf *key);

/* The longest stretch of occupied slots: what a lookup may probe. The
 * tests' measure that ids crafted to share a slot do not pile up. */
size_t runline_names_longest_probe(const struct runline_names *t);

/* ---- the writer ------------------------------------------------------------ */

/* The name a line carries for a raw name longer than RUNLINE_MAX_NAME_BYTES:
 * its first bytes (cut before a UTF-8 sequence, never inside one), then
 * RUNLINE_CUT_MARK, the hash of the whole name and "]" — exactly
 * RUNLINE_MAX_NAME_BYTES or a few bytes less. Two long names that differ
 * only past the cut stay two names; the same name is cut the same way by
 * every process. Writes to out (RUNLINE_MAX_NAME_BYTES bytes) and returns
 * the length; len must be above RUNLINE_MAX_NAME_BYTES. */
size_t runline_shorten_name(const char *s, size_t len, char *out);

/* One function's printed name, raw (unescaped; any bytes). */
struct runline_name {
    const char *s;
    size_t len;
};

/* One arc of a run, by index into the run's names. */
struct runline_arc {
    uint32_t caller, caller_level; /* caller RUNLINE_NO_CALLER: the root (main()) line */
    uint32_t callee, callee_level; /* a level of 0: none; >= 1 written as "@LEVEL" */
    int64_t v[RL_NMETRICS];        /* ct, wt µs, cpu µs, mu, pmu bytes */
};

struct runline_run {
    const char *runid;             /* 1-64 bytes of [A-Za-z0-9_-] (caller guarantees;
                                      a longer one is cut at 64) */
    int64_t time;                  /* begin's UNIXTIME */
    const char *host;              /* NULL or "" is written "-"; a space, control byte,
                                      DEL or invalid UTF-8 byte as '_', cut to 255 bytes */
    unsigned metrics;              /* bit RL_x set: metric measured (RL_CT, RL_WT always) */
    const char *entry;             /* the script's path, raw (shortened past
                                      RUNLINE_MAX_NAME_BYTES); empty: written "unknown" */
    size_t entry_len;
    const struct runline_name *names; /* ids are the indexes into this */
    size_t nnames;
};

/* Appends the run as xhprof/2 lines to sb, joined by '\n', no newline after
 * the last (the sender's convention): begin, then arcs heaviest wt first
 * (sorts `arcs` in place, stable: ties keep the order given), each arc
 * preceded by the fn lines of the names it uses that were not written yet
 * (ids are the indexes given), then end. An arc whose line (with its new
 * fn lines) would take the run's bytes past max_bytes (0 = no cap; room
 * for the end line is kept) is left out and counted — later, smaller arcs
 * may still fit; so is an arc whose index is past nnames or above
 * RUNLINE_ID_MAX, or that uses an empty name (which no line can carry).
 * A name longer than RUNLINE_MAX_NAME_BYTES goes as runline_shorten_name's.
 * Negative ct, wt or cpu are written 0 (the format has none). Returns the
 * number of lines; *left_out the arcs left out. Every line passes
 * runline_parse, and the run is one that runline_names resolves. */
size_t runline_write_run(strbuf *sb, const struct runline_run *run, struct runline_arc *arcs,
                         size_t narcs, size_t max_bytes, uint64_t *left_out);

#endif
