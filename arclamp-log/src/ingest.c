/* ingest: message splitting, validation, routing of sample lines and
 * complete runs, and retention triggers. */
#include "ingest.h"
#include "layout.h"
#include "log.h"
#include "retention.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void ingest_init(struct ingest *in, const struct config *cfg, struct stats *stats)
{
    memset(in, 0, sizeof *in);
    in->cfg = cfg;
    in->stats = stats;
    fileset_init(&in->files, stats, (size_t)cfg->max_open_files, (size_t)cfg->max_buffer_bytes);
    in->groups = xcalloc(cfg->ngroups, sizeof *in->groups);
    for (size_t g = 0; g < cfg->ngroups; g++) {
        struct group_state *gs = &in->groups[g];
        snprintf(gs->dir, sizeof gs->dir, "%s/%s", cfg->base_path, cfg->groups[g].period);
        gs->bucket_time = (time_t)-1;
        tracefile_recover_dir(gs->dir, cfg->groups[g].format, stats);
        struct admission *shares_dir = NULL;
        for (size_t e = 0; e < g && !shares_dir; e++) {
            if (strcmp(in->groups[e].dir, gs->dir) == 0)
                shares_dir = &in->groups[e].admission;
        }
        admission_init(&gs->admission, cfg, stats, gs->dir, cfg->groups[g].period, gs->bucket,
                       shares_dir);
    }
    tiers_init(&in->tiers, cfg, stats);
    for (size_t g = 0; g < cfg->ngroups; g++)
        tiers_attach_group(&in->tiers, g, in->groups[g].dir, &in->groups[g].admission);
    in->last_report = -1e9;
    in->last_tag_report = -1e9;
    in->last_run_report = -1e9;
    struct runs_limits lim = {
        .max_pending = (size_t)cfg->max_pending_runs,
        .max_run_bytes = (size_t)cfg->max_run_bytes,
        .max_pending_bytes = (size_t)cfg->max_pending_run_bytes,
        .timeout = cfg->run_timeout,
        .report_interval = cfg->invalid_report_interval,
    };
    runs_init(&in->runs, &lim, stats);
}

void ingest_free(struct ingest *in)
{
    ingest_report_invalid(in, 0, 1);
    runs_free(&in->runs, 0);
    tiers_free(&in->tiers, 0); /* a clean stop writes the pending minutes */
    for (size_t g = 0; g < in->cfg->ngroups; g++)
        admission_end_bucket(&in->groups[g].admission);
    fileset_free(&in->files);
    free(in->groups);
    in->groups = NULL;
}

static void prune(struct ingest *in, const struct tracefile *tf)
{
    const struct log_group *g = &in->cfg->groups[tf->group];
    fileset_close_siblings(&in->files, tf);
    const char *suffix =
        tf->kind == TRACEFILE_RUNS ? LAYOUT_RUNS_SUFFIX : LAYOUT_LOG_SUFFIX;
    long removed =
        retention_prune(in->groups[tf->group].dir, g->format, tf->tag, suffix, g->retain);
    if (removed > 0)
        in->stats->files_pruned += (uint64_t)removed;
    admission_pruned(&in->groups[tf->group].admission, removed);
}

static struct tracefile *cached_file(struct ingest *in, struct group_state *gs, const char *tag)
{
    if (gs->cache_generation != in->files.generation) {
        gs->ncached = 0;
        gs->cache_generation = in->files.generation;
        return NULL;
    }
    for (size_t i = 0; i < gs->ncached; i++) {
        if (strcmp(gs->cache[i].tag, tag) == 0)
            return gs->cache[i].file;
    }
    return NULL;
}

static void remember_file(struct group_state *gs, const char *tag, struct tracefile *tf)
{
    size_t slot = gs->ncached < GROUP_FILE_CACHE ? gs->ncached++
                                                : gs->next_evict++ % GROUP_FILE_CACHE;
    snprintf(gs->cache[slot].tag, sizeof gs->cache[slot].tag, "%s", tag);
    gs->cache[slot].file = tf;
}

/* Whether a tag file that is not open may be opened now (admission.h);
 * counts and logs the refusal when not. */
static int tag_file_allowed(struct ingest *in, struct group_state *gs, const char *path,
                            const char *tag, enum tracefile_kind kind, double mono)
{
    struct stat st;
    int exists = fileset_find(&in->files, path) != NULL ||
                 fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
    enum refusal why = admission_tag_file(&gs->admission, exists, mono);
    if (why == REFUSED_NONE)
        return 1;
    if (kind == TRACEFILE_RUNS)
        admission_refuse_run(&gs->admission, why, tag);
    else
        admission_refuse(&gs->admission, why, tag);
    return 0;
}

/* The file of the current bucket for `tag` and `kind` in a group, opened
 * (created, pruning its older siblings) if need be. NULL with *refused set
 * when policy refused a new tag file (counted, final), NULL alone when it
 * cannot be opened now. */
static struct tracefile *group_file(struct ingest *in, int group, const char *tag,
                                    enum tracefile_kind kind, double mono, int *refused)
{
    struct group_state *gs = &in->groups[group];
    char path[PATH_MAX];
    *refused = 0;
    int n = snprintf(path, sizeof path, "%s/%s.%s%s", gs->dir, gs->bucket, tag,
                     kind == TRACEFILE_RUNS ? LAYOUT_RUNS_SUFFIX : LAYOUT_LOG_SUFFIX);
    if (n < 0 || n >= (int)sizeof path)
        return NULL; /* cannot happen: tags and buckets are short, dir was checked */
    int is_tag = strcmp(tag, LAYOUT_TAG_ALL) != 0;
    if (is_tag && !tag_file_allowed(in, gs, path, tag, kind, mono)) {
        *refused = 1;
        return NULL;
    }
    int created;
    struct tracefile *tf =
        fileset_open(&in->files, gs->dir, path, group, tag, kind, mono, &created);
    if (tf && created) {
        admission_created(&gs->admission, is_tag);
        prune(in, tf);
    }
    return tf;
}

/* Queues the line in one file. 0 when queued; 1 when policy refused the
 * file (counted, final); -1 when it cannot be queued now (the file cannot
 * be opened, or its buffer is full of lines the disk refused). */
static int append_to(struct ingest *in, int group, const char *tag, const char *line,
                     size_t len, double mono)
{
    struct group_state *gs = &in->groups[group];
    struct tracefile *cached = cached_file(in, gs, tag);
    if (cached) {
        fileset_touch(&in->files, cached);
        return tracefile_append(&in->files, cached, line, len, mono);
    }
    int refused;
    struct tracefile *tf = group_file(in, group, tag, TRACEFILE_LOG, mono, &refused);
    if (!tf)
        return refused ? 1 : -1;
    if (gs->cache_generation == in->files.generation)
        remember_file(gs, tag, tf);
    return tracefile_append(&in->files, tf, line, len, mono);
}

/* Queues a complete run in one run log, as append_to. Runs are rare next
 * to sample lines, so they do without the file cache. */
static int append_run_to(struct ingest *in, int group, const char *tag, const struct run *run,
                         double mono)
{
    int refused;
    struct tracefile *tf = group_file(in, group, tag, TRACEFILE_RUNS, mono, &refused);
    if (!tf)
        return refused ? 1 : -1;
    return tracefile_append_record(&in->files, tf, run->lines.data, run->lines.len, mono);
}

static int update_bucket(struct ingest *in, struct group_state *gs, size_t g, time_t now)
{
    char name[BUCKET_NAME_MAX + 1];
    if (bucket_name(in->cfg->groups[g].format, now, name, sizeof name) == 0)
        return -1; /* format was checked at load; a time beyond gmtime's range */
    if (strcmp(name, gs->bucket) != 0) {
        admission_end_bucket(&gs->admission); /* reports under the old name */
        memcpy(gs->bucket, name, sizeof name);
        gs->ncached = 0; /* a new bucket: other files */
    }
    gs->bucket_time = now;
    return 0;
}

/* Counts a line whose first frame names a .php file that cannot be a tag
 * (it could collide with another log's name); it goes to the all files. */
static void count_refused_tag(struct ingest *in, const struct stackline *sl, double mono)
{
    in->stats->tags_refused++;
    in->tags_unreported++;
    if (!in->tag_example[0]) {
        const char *semi = memchr(sl->stack, ';', sl->stack_len);
        size_t first = semi ? (size_t)(semi - sl->stack) : sl->stack_len;
        log_quote(in->tag_example, sl->stack, first, STACKLINE_TAG_MAX);
    }
    ingest_report_invalid(in, mono, 0);
}

/* Queues a valid line in every file it belongs to. Returns how many of
 * those files could not take it now (refusals by policy are not counted:
 * they are final). */
static int route_line(struct ingest *in, const char *line, size_t len,
                      const struct stackline *sl, unsigned long long groups, time_t now,
                      double mono)
{
    char tag[STACKLINE_TAG_MAX + 1];
    enum stackline_tag_result tag_result;
    size_t tag_len = stackline_tag(sl->stack, sl->stack_len, tag, &tag_result);
    if (tag_result == STACKLINE_TAG_REFUSED)
        count_refused_tag(in, sl, mono);
    int failed = 0;
    for (size_t g = 0; g < in->cfg->ngroups; g++) {
        if (!(groups & (1ULL << g)))
            continue;
        struct group_state *gs = &in->groups[g];
        if (gs->pop_counter++ % (unsigned long)in->cfg->groups[g].sample_pop != 0)
            continue;
        if (gs->bucket_time != now && update_bucket(in, gs, g, now) < 0)
            continue;
        if (!admission_disk_ok(&gs->admission, mono)) {
            admission_refuse(&gs->admission, REFUSED_DISK_FLOOR, tag_len ? tag : NULL);
            continue;
        }
        failed += append_to(in, (int)g, LAYOUT_TAG_ALL, line, len, mono) < 0;
        if (tag_len)
            failed += append_to(in, (int)g, tag, line, len, mono) < 0;
    }
    return failed;
}

/* Writes a complete run once to every group its begin line's channel
 * feeds: to the run log of its entry point's tag, or to `all` when it has
 * none or policy refused its tag file (counted there, as for samples).
 * Readers make the `all` view of a bucket from all of its run logs. A run
 * some file could not take is counted once as dropped (there is no
 * deferring: its other lines were acknowledged when they were taken, see
 * redis_stream.c). */
static void write_run(struct ingest *in, const struct run *run, time_t now, double mono)
{
    const char *tag = run->tag[0] ? run->tag : NULL;
    int failed = 0;
    for (size_t g = 0; g < in->cfg->ngroups; g++) {
        if (!(run->groups & (1ULL << g)))
            continue;
        struct group_state *gs = &in->groups[g];
        if (gs->bucket_time != now && update_bucket(in, gs, g, now) < 0)
            continue;
        if (!admission_disk_ok(&gs->admission, mono)) {
            admission_refuse_run(&gs->admission, REFUSED_DISK_FLOOR, tag);
            continue;
        }
        int rc = tag ? append_run_to(in, (int)g, tag, run, mono) : 1;
        if (rc == 1) /* no tag, or its tag file refused */
            rc = append_run_to(in, (int)g, LAYOUT_TAG_ALL, run, mono);
        failed += rc < 0;
    }
    if (failed)
        runs_count_drop(&in->runs, RUN_DROP_WRITE_ERROR, run->runid, mono);
}

static void count_invalid_run_line(struct ingest *in, int why, const char *line, size_t len,
                                   double mono)
{
    in->stats->run_lines_invalid[why]++;
    in->runs_unreported[why]++;
    if (!in->run_example[0])
        log_quote(in->run_example, line, len, 60);
    ingest_report_invalid(in, mono, 0);
}

/* A run line: validated like a sample line, then collected; the run it
 * completes is written. */
static void take_run_line(struct ingest *in, const char *line, size_t len,
                          unsigned long long groups, time_t now, double mono)
{
    struct runline rl;
    int err = len > (size_t)in->cfg->max_line_bytes ? RUN_LINE_TOO_LONG
                                                    : (int)runline_parse(line, len, &rl);
    if (err != RUNLINE_OK) {
        count_invalid_run_line(in, err, line, len, mono);
        return;
    }
    struct run *done = runs_take(&in->runs, line, len, &rl, groups, mono);
    if (done) {
        write_run(in, done, now, mono);
        runs_release(&in->runs, done);
    }
}

static void count_invalid(struct ingest *in, enum stackline_error why, const char *line,
                          size_t len, double mono)
{
    in->stats->lines_invalid[why]++;
    in->unreported[why]++;
    if (!in->example[0])
        log_quote(in->example, line, len, 60);
    ingest_report_invalid(in, mono, 0);
}

/* A sample line: validated, then routed. Returns 1 when a file could not
 * take it now (ingest_message decides: deferred or dropped). */
static int take_sample_line(struct ingest *in, const char *line, size_t len,
                            unsigned long long groups, time_t now, double mono)
{
    struct stackline sl;
    in->stats->lines_received++;
    enum stackline_error err = stackline_parse(line, len, (size_t)in->cfg->max_line_bytes, &sl);
    if (err != STACKLINE_OK) {
        count_invalid(in, err, line, len, mono);
        return 0;
    }
    return route_line(in, line, len, &sl, groups, now, mono) != 0;
}

size_t ingest_message(struct ingest *in, const char *msg, size_t len, unsigned long long groups,
                      enum input_kind kind, time_t now, double mono, int redeliverable)
{
    size_t deferred = 0;
    in->stats->messages_received[kind]++;
    if (len > (size_t)in->cfg->max_message_bytes) {
        in->stats->lines_received++;
        count_invalid(in, STACKLINE_TOO_LONG, msg, len, mono);
        return 0;
    }
    if (len > 0 && msg[len - 1] == '\n')
        len--; /* one trailing newline ends the last line */
    const char *end = msg + len;
    const char *line = msg;
    for (;;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t line_len = nl ? (size_t)(nl - line) : (size_t)(end - line);
        if (runline_is_run(line, line_len))
            take_run_line(in, line, line_len, groups, now, mono);
        else if (tierline_is_tier(line, line_len))
            tiers_take(&in->tiers, line, line_len, groups, now, mono);
        else if (!take_sample_line(in, line, line_len, groups, now, mono))
            ;
        else if (redeliverable)
            deferred++;
        else
            in->stats->lines_dropped_write_error++;
        if (!nl)
            break;
        line = nl + 1;
    }
    in->stats->lines_deferred += deferred;
    return deferred;
}

size_t ingest_flush(struct ingest *in, double mono)
{
    return fileset_flush(&in->files, mono);
}

void ingest_close_idle(struct ingest *in, double mono)
{
    fileset_close_idle(&in->files, mono, in->cfg->close_idle_after);
}

void ingest_expire_runs(struct ingest *in, double mono)
{
    runs_expire(&in->runs, mono);
}

void ingest_tick_tiers(struct ingest *in, time_t now, double mono)
{
    tiers_tick(&in->tiers, now, mono);
}

uint64_t ingest_lines_lost(const struct ingest *in)
{
    return in->stats->lines_dropped_write_error;
}

void ingest_refuse_message(struct ingest *in, enum stackline_error why, enum input_kind kind,
                           double mono)
{
    in->stats->messages_received[kind]++;
    in->stats->lines_received++;
    count_invalid(in, why, "", 0, mono);
}

/* At most one log entry per invalid_report_interval about lines whose entry
 * point name was refused as a tag. */
static void report_refused_tags(struct ingest *in, double mono, int force)
{
    if (!in->tags_unreported ||
        (!force && mono - in->last_tag_report < in->cfg->invalid_report_interval))
        return;
    char count[24];
    snprintf(count, sizeof count, "%llu", (unsigned long long)in->tags_unreported);
    log_event(LOG_WARNING, "tags_refused",
              LOG_FIELDS({"ARCLAMP_COUNT", count}, {"ARCLAMP_EXAMPLE", in->tag_example}),
              "%s lines name an entry point that cannot be a tag (it could collide with "
              "another log's or graph's name), e.g. \"%s\"; written to the all logs only",
              count, in->tag_example);
    in->tags_unreported = 0;
    in->tag_example[0] = '\0';
    in->last_tag_report = mono;
}

static const struct count_report invalid_samples = {
    "invalid_lines", "invalid sample lines", "\"", "\"", 1, STACKLINE_NERRORS, stackline_reason,
};
static const struct count_report invalid_run_lines = {
    "invalid_run_lines", "invalid run lines", "\"", "\"", 1, RUN_LINE_NREASONS,
    run_line_invalid_name,
};

/* Invalid sample, run and tier lines: at most one log entry each per
 * invalid_report_interval. */
void ingest_report_invalid(struct ingest *in, double mono, int force)
{
    double interval = in->cfg->invalid_report_interval;
    report_refused_tags(in, mono, force);
    if ((force || mono - in->last_run_report >= interval) &&
        stats_log_counts(&invalid_run_lines, in->runs_unreported, in->run_example))
        in->last_run_report = mono;
    runs_report(&in->runs, mono, force);
    tiers_report(&in->tiers, mono, force);
    if ((force || mono - in->last_report >= interval) &&
        stats_log_counts(&invalid_samples, in->unreported, in->example))
        in->last_report = mono;
}
