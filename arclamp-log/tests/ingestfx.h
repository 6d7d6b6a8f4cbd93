/* ingestfx: the fixture of the unit tests that go through ingest (trace
 * logs, runs, tier tables): a real configuration whose base_path is a
 * temporary directory, and the files written there by relative path. */
#ifndef ARCLAMP_LOG_TEST_INGESTFX_H
#define ARCLAMP_LOG_TEST_INGESTFX_H

#include <time.h>

#include "../src/ingest.h"

struct fx {
    char *tmp;           /* the test's directory (owned) */
    char *base;          /* base_path: tmp/a/b/base (owned) */
    struct config cfg;
    struct stats st;
    struct ingest in;
};

/* base_path is tmp/a/b/base, so a path escaping by "../.." would still land
 * inside tmp, where the tests look for it. fx_prepare makes the directories
 * (for tests that put files there first), fx_start loads the config (the
 * YAML without base_path) and starts ingest; fx_init does both. */
void fx_prepare(struct fx *fx);
void fx_start(struct fx *fx, const char *yaml);
void fx_init(struct fx *fx, const char *yaml);
/* Stops ingest (writing what it holds), frees, removes the directory. */
void fx_free(struct fx *fx);
/* Makes base/<period> (and the directories above). */
void make_dirs(struct fx *fx, const char *period);

void send_msg(struct fx *fx, const char *msg, unsigned long long groups, time_t now,
              double mono);

/* Files under base by relative path: contents (malloc'd, or NULL),
 * written, checked, whether present, entries of a directory. */
char *read_rel(struct fx *fx, const char *rel);
void write_rel(struct fx *fx, const char *rel, const char *data);
/* The same, with the file's mtime set to `mtime` (an old file for retention). */
void write_rel_at(struct fx *fx, const char *rel, const char *data, time_t mtime);
void assert_rel(struct fx *fx, const char *rel, const char *want);
int exists_rel(struct fx *fx, const char *rel);
int count_rel(struct fx *fx, const char *rel);

#endif
