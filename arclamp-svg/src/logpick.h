/* logpick: the trace logs of a data directory for a time range, as the
 * commands that take ranges instead of files choose them: `export --from
 * --to` and `diff --before/--after`.
 *
 * One place for the steps and their messages, so that every command
 * chooses the same logs and says the same about them:
 *   1. the configuration is loaded (--config, --data-dir; cli.h);
 *   2. when it draws from the object store (object_store.from_store),
 *      every host's logs are merged into logs_dir first (storesrc.h), once
 *      per command however many ranges follow, unless --no-fetch; a store
 *      that cannot be reached is an error, not a silently older selection;
 *   3. logs_dir is scanned once (logset.h);
 *   4. each range is chosen by exportsel.h's rule (hourly and daily logs,
 *      no sample counted twice), and a line says what was chosen, how many
 *      hours have no log and which duplicates were left out.
 * Informational lines go to `msgs`, each "arclamp-svg COMMAND: ..."; the
 * reason a step failed goes to err (without the prefix), so that a command
 * can print it where its other errors go. */
#ifndef ARCLAMP_SVG_LOGPICK_H
#define ARCLAMP_SVG_LOGPICK_H

#include <stddef.h>
#include <stdint.h>

#include "gen_config.h"
#include "logset.h"
#include "strbuf.h"

/* Where the logs come from: the command line's choices. */
struct logpick_source {
    const char *command;      /* "export", "diff": the messages' prefix */
    const char *config;       /* --config, or NULL for the default */
    const char *data_dir;     /* --data-dir, or NULL */
    int no_fetch;             /* --no-fetch: the logs merged before */
    const char *nothing;      /* what a failed store merge means: "nothing exported" */
};

/* An opened data directory: its configuration and its logs, scanned. */
struct logpick {
    const char *command;
    struct gen_config cfg;
    struct logset set;
    int opened;               /* cfg and set hold something to free */
};

/* A time range, [from, to) in seconds since the epoch, and its ends as
 * the user wrote them (or as derived from a lone T), for messages. */
struct logpick_range {
    int64_t from, to;
    char from_text[32], to_text[32];
};

/* Parses RANGE: "T" (an hour YYYY-MM-DDTHH, or a whole day YYYY-MM-DD) or
 * "T..T" (from included, to excluded), each T as export_parse_time reads
 * it. 0, or -1 when the text is no such range or to is not after from. */
int logpick_parse_range(const char *text, struct logpick_range *r);

/* Steps 1-3 (above): CLI_EXIT_OK, or the exit status with err set. Call
 * logpick_close either way. */
int logpick_open(struct logpick *lp, const struct logpick_source *src, strbuf *msgs, char *err,
                 size_t errlen);

/* Step 4 for one range and the entry points (none: the "all" logs), the
 * line about it in msgs after `label` (e.g. "before: ", or ""). On
 * CLI_EXIT_OK, *paths holds *npaths > 0 full paths (logpick_free_paths);
 * else the exit status with err set (no logs in the range). */
int logpick_choose(const struct logpick *lp, const struct logpick_range *r,
                   char *const *entrypoints, size_t nentrypoints, const char *label,
                   char ***paths, size_t *npaths, strbuf *msgs, char *err, size_t errlen);

void logpick_close(struct logpick *lp);
void logpick_free_paths(char **paths, size_t n);

/* The entry points as messages name them: "index, api", or "all". */
void logpick_entrypoints_text(char *const *entrypoints, size_t n, strbuf *out);

#endif
