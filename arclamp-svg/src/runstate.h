/* runstate: skipped runs, remembered for the metrics.
 *
 * A generate or compress that waited lock_timeout seconds for the lock and
 * gave up is "skipped": it logs one warning (run_skipped) and adds itself
 * to <lock_file>.skips, a small text file next to the lock (same private
 * directory, 0600, owned by the running user):
 *     generate COUNT LAST_SKIP_UNIX_TIME
 *     compress COUNT LAST_SKIP_UNIX_TIME
 * updated in place under its own flock (held for microseconds, waited for
 * at most RUNSTATE_LOCK_TIMEOUT). `arclamp-svg metrics` turns it into
 * arclamp_svg_runs_skipped_total{command} and
 * arclamp_svg_last_skip_timestamp_seconds{command}. */
#ifndef ARCLAMP_SVG_RUNSTATE_H
#define ARCLAMP_SVG_RUNSTATE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "gen_config.h"
#include "strbuf.h"

#define RUNSTATE_SUFFIX ".skips"
#define RUNSTATE_LOCK_TIMEOUT 2.0

enum runstate_command { RUNSTATE_GENERATE = 0, RUNSTATE_COMPRESS = 1, RUNSTATE_NCOMMANDS };

struct runstate {
    unsigned long long skipped[RUNSTATE_NCOMMANDS]; /* runs skipped, ever */
    int64_t last_skip[RUNSTATE_NCOMMANDS];          /* unix time of the last, 0: never */
};

/* Adds one skip of `cmd` at `now`. Returns 0, or -1 with err set. */
int runstate_record_skip(const char *lock_file, enum runstate_command cmd, time_t now,
                         char *err, size_t errlen);
/* Reads the counts (all 0 when the file does not exist yet). Returns 0, or
 * -1 with err set (e.g. not readable by this user). */
int runstate_read(const char *lock_file, struct runstate *st, char *err, size_t errlen);
/* Appends the two metric families; a file that cannot be read is reported
 * on stderr and its families left out (never shown as 0). */
void runstate_metrics(const struct gen_config *cfg, strbuf *out);

/* Logs the skip (warning, ARCLAMP_EVENT=run_skipped) and records it. */
void runstate_note_skip(const struct gen_config *cfg, enum runstate_command cmd);

#endif
