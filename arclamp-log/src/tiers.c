/* tiers: the per-minute merge of tier lines and the tier table files. See
 * tiers.h. */
#include "tiers.h"
#include "atomicfile.h"
#include "layout.h"
#include "log.h"
#include "retention.h"
#include "tracefile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A table of this daemon's limits and reserved identities. */
static void table_init(struct tiers *t, struct tiertable *table)
{
    tiertable_init(table, (size_t)t->cfg->max_tier_identities);
    tiertable_reserve(table, &t->reserved);
}

void tiers_init(struct tiers *t, const struct config *cfg, struct stats *stats)
{
    memset(t, 0, sizeof *t);
    t->cfg = cfg;
    t->stats = stats;
    tier_names_init(&t->reserved, cfg->reserved_tier_identities, cfg->nreserved_tier_identities);
    for (size_t i = 0; i < TIERS_PENDING_MAX; i++)
        table_init(t, &t->pending[i].table);
    t->groups = xcalloc(cfg->ngroups ? cfg->ngroups : 1, sizeof *t->groups);
    for (size_t g = 0; g < cfg->ngroups; g++) {
        for (size_t b = 0; b < TIERS_OPEN_BUCKETS; b++)
            table_init(t, &t->groups[g].open[b].table);
    }
    t->last_report = -1e9;
}

void tiers_attach_group(struct tiers *t, size_t g, const char *dir, struct admission *adm)
{
    t->groups[g].dir = dir;
    t->groups[g].admission = adm;
}

int tiers_path(char *out, size_t len, const char *dir, const char *bucket, const char *suffix)
{
    int n = snprintf(out, len, "%s/%s%s", dir, bucket, suffix);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

static void count_drops(struct tiers *t, const struct tier_drops *d)
{
    t->stats->tier_identities_overflow += d->overflow;
    t->stats->tier_tiers_dropped[TIER_DROP_TIER_LIMIT] += d->tier_limit;
    t->stats->tier_tiers_dropped[TIER_DROP_MEMORY] += d->memory;
}

/* --- a bucket's table: minutes folded in, and reading it back --------------------- */

static void bucket_clear(struct tier_bucket *b)
{
    tiertable_reset(&b->table);
    free(b->minutes);
    b->minutes = NULL;
    b->nminutes = 0;
    b->minutes_folded = 0;
    b->name[0] = '\0';
    strbuf_free(&b->queued);
    b->queued_minutes = 0;
    b->dirty = 0;
    b->created = 0;
}

/* Notes that the minute starting at `start` is in the table. */
static void bucket_mark(struct tier_bucket *b, time_t start)
{
    if (start < b->start || start >= b->end)
        return;
    size_t i = (size_t)(start - b->start) / TIERS_MINUTE;
    if (i >= b->nminutes || (b->minutes[i / 8] & (1u << (i % 8))))
        return;
    b->minutes[i / 8] |= (unsigned char)(1u << (i % 8));
    b->minutes_folded++;
}

/* Starts the table of bucket `name`, the bucket of `t0` in `format`. */
static void bucket_start(struct tier_bucket *b, const char *format, const char *name, time_t t0)
{
    bucket_clear(b);
    snprintf(b->name, sizeof b->name, "%s", name);
    if (bucket_span(format, t0, &b->start, &b->end) < 0)
        b->start = b->end = t0;
    b->nminutes = (size_t)((b->end - b->start + TIERS_MINUTE - 1) / TIERS_MINUTE);
    b->minutes = xcalloc(b->nminutes / 8 + 1, 1);
    b->views_at = -1e9;
}

/* Lines being added to a bucket, and what its table could not take. */
struct bucket_adding {
    struct tier_bucket *b;
    struct tier_drops drops;
};

/* A line of the bucket's .tiers file (or of its queue) into its table. */
static void bucket_add_line(void *arg, const struct tierline *tl)
{
    struct bucket_adding *a = arg;
    tiertable_add_line(&a->b->table, tl, &a->drops);
    bucket_mark(a->b, (time_t)tl->start);
}

/* Reads a .tiers file into the bucket (common/src/tiertable.c: a line
 * too long for any writer and a torn last line are skipped). Returns the
 * lines skipped, or -1 when the file cannot be opened or read to its end
 * (the lines read before stay; a missing file is empty). Drops are not
 * counted: they were when the minutes came in. */
static long long bucket_read(struct tier_bucket *b, const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    struct bucket_adding a = {b, {0}};
    long long bad = tiertable_read_fd(fd, bucket_add_line, &a);
    int saved = errno;
    close(fd);
    errno = saved;
    return bad;
}

/* Opens bucket `name` in slot b: its table read from its file. */
static void bucket_load(struct tiers *t, size_t g, struct tier_bucket *b, const char *name,
                        time_t t0)
{
    struct tier_group *tg = &t->groups[g];
    char path[PATH_MAX];
    bucket_start(b, t->cfg->groups[g].format, name, t0);
    if (tiers_path(path, sizeof path, tg->dir, name, LAYOUT_TIERS_SUFFIX) < 0)
        return;
    long long bad = bucket_read(b, path);
    if (bad < 0)
        log_event(LOG_WARNING, "tiers_read_failed", LOG_FIELDS({"ARCLAMP_FILE", path}),
                  "cannot read %s back: %s; its table has only what was read of it", path,
                  strerror(errno));
    else if (bad > 0)
        log_event(LOG_WARNING, "tiers_read_skipped", LOG_FIELDS({"ARCLAMP_FILE", path}),
                  "%s: skipped %lld lines that are no tier lines", path, bad);
}

/* --- writing a minute ---------------------------------------------------------------- */

static void write_failed(struct tiers *t, struct tier_group *tg, const char *path,
                         const char *why)
{
    t->stats->tier_write_errors++;
    if (!tg->failing)
        log_event(LOG_ERR, "tiers_write_failed", LOG_FIELDS({"ARCLAMP_FILE", path}),
                  "cannot write %s: %s", path, why);
    tg->failing = 1;
}

/* Prunes the group's tier files to `retain` per suffix, counted apart from
 * its trace logs and run logs. */
static void prune_tier_files(struct tiers *t, size_t g)
{
    /* after the tag: the table itself, its views */
    static const char *const suffixes[] = {"", LAYOUT_TIERS_JSON_VIEW, LAYOUT_TIERS_TEXT_VIEW};
    const struct log_group *lg = &t->cfg->groups[g];
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        long removed = retention_prune(t->groups[g].dir, lg->format, LAYOUT_TIERS_TAG, suffixes[i],
                                       lg->retain);
        if (removed > 0)
            t->stats->files_pruned += (uint64_t)removed;
        admission_pruned(t->groups[g].admission, removed);
    }
}

/* Rewrites the bucket's JSON and text views from its table. */
static void write_views(struct tiers *t, size_t g, struct tier_bucket *b)
{
    struct tier_group *tg = &t->groups[g];
    struct tier_header h = {t->cfg->groups[g].period, b->name, b->start, b->end,
                            b->minutes_folded};
    strbuf text = STRBUF_INIT;
    char path[PATH_MAX], err[512] = "path too long";
    for (int json = 1; json >= 0; json--) {
        strbuf_reset(&text);
        if (json)
            tiertable_format_json(&b->table, &h, &text);
        else
            tiertable_format_text(&b->table, &h, &text);
        if (tiers_path(path, sizeof path, tg->dir, b->name,
                       json ? LAYOUT_TIERS_JSON_SUFFIX : LAYOUT_TIERS_TEXT_SUFFIX) < 0 ||
            atomic_write(path, text.data, text.len, 0, err, sizeof err) < 0)
            write_failed(t, tg, path, err);
        else
            t->stats->bytes_written += text.len;
    }
    t->stats->tier_views_written++;
    strbuf_free(&text);
}

/* Appends the bucket's queued lines to its .tiers file, then folds them
 * into its table. Only what reached the file is folded in: the views
 * never say more than a restart would. Lines the disk or the free-disk
 * floor refused are dropped (counted). */
static void append_queued(struct tiers *t, size_t g, struct tier_bucket *b, double mono)
{
    struct tier_group *tg = &t->groups[g];
    char path[PATH_MAX];
    int created;
    if (b->queued.len == 0)
        return;
    if (tiers_path(path, sizeof path, tg->dir, b->name, LAYOUT_TIERS_SUFFIX) < 0) {
        write_failed(t, tg, b->name, "path too long");
    } else if (!admission_disk_ok(tg->admission, mono)) {
        admission_refuse_tiers(tg->admission, REFUSED_DISK_FLOOR, NULL);
    } else if (tracefile_write_once(t->stats, tg->dir, path, b->queued.data, b->queued.len,
                                    &created) < 0) {
        write_failed(t, tg, path, strerror(errno));
    } else {
        if (tg->failing)
            log_event(LOG_NOTICE, "tiers_write_resumed", LOG_FIELDS({"ARCLAMP_FILE", path}),
                      "writing %s again", path);
        tg->failing = 0;
        t->stats->tier_minutes_written[g] += b->queued_minutes;
        struct bucket_adding a = {b, {0}};
        tiertable_each_line(b->queued.data, b->queued.len, bucket_add_line, &a);
        count_drops(t, &a.drops);
        b->dirty = 1;
        b->created |= created;
    }
    strbuf_reset(&b->queued);
    b->queued_minutes = 0;
}

/* Appends what is queued and, when the table changed, rewrites the views:
 * at once when `force`, else once TIERS_VIEWS_INTERVAL has passed since
 * the last time. */
static void flush_bucket(struct tiers *t, size_t g, struct tier_bucket *b, double mono,
                         int force)
{
    if (!b->name[0])
        return;
    append_queued(t, g, b, mono);
    if (b->dirty && (force || mono - b->views_at >= TIERS_VIEWS_INTERVAL)) {
        write_views(t, g, b);
        b->dirty = 0;
        b->views_at = mono;
    }
    if (b->created && !b->dirty) { /* a new bucket: the file and its two views are new */
        for (int i = 0; i < 3; i++)
            admission_created(t->groups[g].admission, 0);
        prune_tier_files(t, g);
        b->created = 0;
    }
}

/* The open bucket of group g named `name` (the bucket of `t0`): found, or
 * opened in a free slot or in that of the bucket least recently used,
 * which is written out first. */
static struct tier_bucket *open_bucket(struct tiers *t, size_t g, const char *name, time_t t0,
                                       double mono)
{
    struct tier_group *tg = &t->groups[g];
    struct tier_bucket *slot = NULL;
    for (size_t i = 0; i < TIERS_OPEN_BUCKETS; i++) {
        struct tier_bucket *b = &tg->open[i];
        if (b->name[0] && strcmp(b->name, name) == 0) {
            b->used = ++t->uses;
            return b;
        }
        if (!slot || (slot->name[0] && (!b->name[0] || b->used < slot->used)))
            slot = b;
    }
    if (slot->name[0])
        flush_bucket(t, g, slot, mono, 1);
    bucket_load(t, g, slot, name, t0);
    slot->used = ++t->uses;
    return slot;
}

/* Queues merged lines of the minute starting at `start` for group g:
 * `minutes` is 1 for a pending minute's lines, 0 for a late line. */
static void queue_lines(struct tiers *t, size_t g, time_t start, const strbuf *lines,
                        uint64_t minutes, double mono)
{
    char name[BUCKET_NAME_MAX + 1];
    if (bucket_name(t->cfg->groups[g].format, start, name, sizeof name) == 0)
        return;
    struct tier_bucket *b = open_bucket(t, g, name, start, mono);
    strbuf_append(&b->queued, lines->data, lines->len);
    b->queued_minutes += minutes;
    if (b->queued.len >= TIERS_QUEUE_MAX)
        append_queued(t, g, b, mono);
}

static void write_minute(struct tiers *t, struct tier_minute *m, double mono)
{
    strbuf lines = STRBUF_INIT;
    tiertable_format_lines(&m->table, m->start, m->start + TIERS_MINUTE, &lines);
    for (size_t g = 0; g < t->cfg->ngroups && lines.len; g++) {
        if (m->groups & (1ULL << g))
            queue_lines(t, g, m->start, &lines, 1, mono);
    }
    strbuf_free(&lines);
    tiertable_reset(&m->table);
    m->groups = 0;
}

void tiers_tick(struct tiers *t, time_t now, double mono)
{
    for (size_t i = 0; i < TIERS_PENDING_MAX; i++) {
        struct tier_minute *m = &t->pending[i];
        if (m->groups && now >= m->start + TIERS_MINUTE + TIERS_GRACE)
            write_minute(t, m, mono);
    }
    for (size_t g = 0; g < t->cfg->ngroups; g++) {
        for (size_t b = 0; b < TIERS_OPEN_BUCKETS; b++)
            flush_bucket(t, g, &t->groups[g].open[b], mono, 0);
    }
}

/* --- taking lines ----------------------------------------------------------------- */

/* The pending minute for (start, groups), or NULL. */
static struct tier_minute *find_minute(struct tiers *t, time_t start, unsigned long long groups)
{
    for (size_t i = 0; i < TIERS_PENDING_MAX; i++) {
        struct tier_minute *m = &t->pending[i];
        if (m->groups == groups && m->start == start)
            return m;
    }
    return NULL;
}

/* A new pending minute for (start, groups): a free slot, or (unless
 * `free_only`: NULL then) the oldest one's, whose lines are queued (not
 * written: that waits for the tick). */
static struct tier_minute *new_minute(struct tiers *t, time_t start, unsigned long long groups,
                                      int free_only, double mono)
{
    struct tier_minute *free_slot = NULL, *oldest = NULL;
    for (size_t i = 0; i < TIERS_PENDING_MAX; i++) {
        struct tier_minute *m = &t->pending[i];
        if (!m->groups && !free_slot)
            free_slot = m;
        if (m->groups && (!oldest || m->start < oldest->start))
            oldest = m;
    }
    if (!free_slot && free_only)
        return NULL;
    if (!free_slot) {
        write_minute(t, oldest, mono);
        free_slot = oldest;
    }
    free_slot->start = start;
    free_slot->groups = groups;
    return free_slot;
}

/* A line of a minute already due (written, or about to be on the tick)
 * when no slot is free: queued as it came, as a merged line of its
 * minute, to be appended with the next write; no pending minute is pushed
 * out for it. */
static void take_late(struct tiers *t, const struct tierline *tl, time_t start,
                      unsigned long long groups, double mono)
{
    strbuf line = STRBUF_INIT;
    tiertable_format_line(tl, start, start + TIERS_MINUTE, &line);
    for (size_t g = 0; g < t->cfg->ngroups; g++) {
        if (groups & (1ULL << g))
            queue_lines(t, g, start, &line, 0, mono);
    }
    strbuf_free(&line);
}

static void count_invalid(struct tiers *t, int why, const char *line, size_t len, double mono)
{
    t->stats->tier_lines_invalid[why]++;
    t->unreported[why]++;
    if (!t->example[0])
        log_quote(t->example, line, len, 60);
    tiers_report(t, mono, 0);
}

void tiers_take(struct tiers *t, const char *line, size_t len, unsigned long long groups,
                time_t now, double mono)
{
    struct tierline tl;
    t->stats->tier_lines_received++;
    int err = len > (size_t)t->cfg->max_line_bytes ? TIER_LINE_TOO_LONG
                                                   : (int)tierline_parse(line, len, &tl);
    if (err != TIERLINE_OK) {
        count_invalid(t, err, line, len, mono);
        return;
    }
    if (groups == 0)
        return; /* no group takes this channel */
    time_t end = (time_t)tl.end;
    if (end > now + TIERS_MAX_SKEW || end < now - TIERS_MAX_SKEW) {
        t->stats->tier_lines_clock_skew++;
        end = now;
    }
    time_t start = end - end % TIERS_MINUTE;
    /* a minute already due takes a free slot (merged, written on the
     * tick), but pushes no other minute out */
    int late = now >= start + TIERS_MINUTE + TIERS_GRACE;
    t->stats->tier_lines_late += (uint64_t)late;
    struct tier_minute *m = find_minute(t, start, groups);
    if (!m)
        m = new_minute(t, start, groups, late, mono);
    if (!m) {
        take_late(t, &tl, start, groups, mono);
        return;
    }
    struct tier_drops drops = {0};
    tiertable_add_line(&m->table, &tl, &drops);
    count_drops(t, &drops);
}

/* --- reports and the end ---------------------------------------------------------- */

static const struct count_report invalid_tier_lines = {
    "invalid_tier_lines", "invalid tier lines", "\"", "\"", 1, TIER_LINE_NREASONS,
    tier_line_invalid_name,
};

void tiers_report(struct tiers *t, double mono, int force)
{
    if ((force || mono - t->last_report >= t->cfg->invalid_report_interval) &&
        stats_log_counts(&invalid_tier_lines, t->unreported, t->example))
        t->last_report = mono;
}

void tiers_free(struct tiers *t, double mono)
{
    for (size_t i = 0; i < TIERS_PENDING_MAX; i++) {
        if (t->pending[i].groups)
            write_minute(t, &t->pending[i], mono);
        tiertable_reset(&t->pending[i].table);
    }
    for (size_t g = 0; g < t->cfg->ngroups; g++) {
        for (size_t b = 0; b < TIERS_OPEN_BUCKETS; b++) {
            flush_bucket(t, g, &t->groups[g].open[b], mono, 1);
            bucket_clear(&t->groups[g].open[b]);
        }
    }
    tiers_report(t, mono, 1);
    free(t->groups);
    t->groups = NULL;
    tier_names_free(&t->reserved);
}
