/* admission: tag, file and free-space limits per log group. See admission.h. */
#include "admission.h"
#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

/* Entries of `dir` other than . and ..; 0 when it does not exist yet, -1
 * when it cannot be read (then the limit is not enforced until it can). */
static long count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    long n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            n++;
    }
    closedir(d);
    return n;
}

void admission_init(struct admission *a, const struct config *cfg, struct stats *stats,
                    const char *dir, const char *period, const char *bucket,
                    struct admission *shares_dir)
{
    memset(a, 0, sizeof *a);
    a->counter = shares_dir ? shares_dir->counter : a;
    a->cfg = cfg;
    a->stats = stats;
    a->dir = dir;
    a->period = period;
    a->bucket = bucket;
    a->dir_entries = a->counter == a ? count_entries(dir) : 0;
    a->counted_at = -1e9; /* at the limit, look again at once */
    a->disk_checked_at = -1e9;
}

static const char *limit_text(const struct admission *a, enum refusal why, char *buf,
                              size_t len)
{
    switch (why) {
    case REFUSED_TAG_LIMIT:
        snprintf(buf, len, "%lu new tag files in this bucket already (max_tags_per_bucket: "
                 "%ld); their lines still go to the all log", a->tags_in_bucket,
                 a->cfg->max_tags_per_bucket);
        break;
    case REFUSED_FILE_LIMIT:
        snprintf(buf, len, "%s holds %ld entries (max_files_per_period: %ld); the lines "
                 "still go to the all log", a->dir, a->counter->dir_entries,
                 a->cfg->max_files_per_period);
        break;
    default:
        snprintf(buf, len, "%s; lines are not written", a->floor_text);
        break;
    }
    return buf;
}

static const char *const kind_words[REFUSED_NKINDS] = {"lines", "runs", "tier_minutes"};

/* Logs the first refusal of a kind and reason in this bucket; counts the
 * others for admission_end_bucket. */
static void note_refusal(struct admission *a, enum refused_kind kind, enum refusal why,
                         const char *example)
{
    if (a->logged[kind][why]) {
        a->refused[kind][why]++;
        return;
    }
    a->logged[kind][why] = 1;
    char detail[512], event[24];
    snprintf(event, sizeof event, "%s_refused", kind_words[kind]);
    log_event(LOG_WARNING, event,
              LOG_FIELDS({"ARCLAMP_REASON", refusal_name(why)}, {"ARCLAMP_FILE", a->dir},
                         {"ARCLAMP_EXAMPLE", example}),
              "%s: refusing %s until bucket %s ends (e.g. tag \"%s\"): %s", a->period,
              why == REFUSED_DISK_FLOOR ? kind_words[kind]
              : kind == REFUSED_RUNS    ? "new run log tag files"
                                        : "new tag files",
              a->bucket, example ? example : "", limit_text(a, why, detail, sizeof detail));
}

void admission_refuse(struct admission *a, enum refusal why, const char *example)
{
    a->stats->lines_refused[why]++;
    note_refusal(a, REFUSED_LINES, why, example);
}

void admission_refuse_run(struct admission *a, enum refusal why, const char *example)
{
    a->stats->runs_refused[why]++;
    note_refusal(a, REFUSED_RUNS, why, example);
}

void admission_refuse_tiers(struct admission *a, enum refusal why, const char *example)
{
    a->stats->tier_minutes_refused[why]++;
    note_refusal(a, REFUSED_TIERS, why, example);
}

void admission_end_bucket(struct admission *a)
{
    for (int k = 0; k < REFUSED_NKINDS; k++) {
        for (int r = 1; r < REFUSED_NREASONS; r++) {
            if (a->refused[k][r]) {
                char count[24], event[24];
                snprintf(count, sizeof count, "%llu", (unsigned long long)a->refused[k][r]);
                snprintf(event, sizeof event, "%s_refused", kind_words[k]);
                log_event(LOG_WARNING, event,
                          LOG_FIELDS({"ARCLAMP_REASON", refusal_name(r)},
                                     {"ARCLAMP_FILE", a->dir}, {"ARCLAMP_COUNT", count}),
                          "%s: %s more %s refused in bucket %s (%s)", a->period, count,
                          kind_words[k], a->bucket, refusal_name(r));
            }
            a->refused[k][r] = 0;
            a->logged[k][r] = 0;
        }
    }
    a->tags_in_bucket = 0;
}

/* Free space of the directory's file system; while it (or base_path) does
 * not exist yet, of the nearest existing parent, where it will be made.
 * 0 with `st` filled, or -1. */
static int dir_statvfs(const struct admission *a, struct statvfs *st)
{
    if (statvfs(a->dir, st) == 0)
        return 0;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", a->dir);
    for (char *slash; (slash = strrchr(path, '/')) != NULL && slash != path;) {
        *slash = '\0';
        if (statvfs(path, st) == 0)
            return 0;
    }
    return statvfs("/", st);
}

int admission_disk_ok(struct admission *a, double mono)
{
    if (mono - a->disk_checked_at < ADMISSION_DISK_CHECK_INTERVAL)
        return !a->below_floor;
    a->disk_checked_at = mono;
    struct statvfs st;
    if (dir_statvfs(a, &st) < 0) {
        a->below_floor = 0; /* cannot tell: the writes will say */
        return 1;
    }
    unsigned long long unit = st.f_frsize ? st.f_frsize : st.f_bsize;
    unsigned long long free_bytes = (unsigned long long)st.f_bavail * unit;
    unsigned long long total = (unsigned long long)st.f_blocks * unit;
    long pct = a->cfg->min_free_disk_percent;
    int bytes_low = free_bytes < (unsigned long long)a->cfg->min_free_disk_bytes ||
                    (pct > 0 && free_bytes * 100 < total * (unsigned long long)pct);
    /* File systems without inode counts (btrfs) report 0 files. */
    int inodes_low = pct > 0 && st.f_files > 0 &&
                     (unsigned long long)st.f_favail * 100 <
                         (unsigned long long)st.f_files * (unsigned long long)pct;
    a->below_floor = bytes_low || inodes_low;
    if (a->below_floor)
        snprintf(a->floor_text, sizeof a->floor_text,
                 "%llu of %llu bytes and %llu of %llu inodes free, below the floor "
                 "(min_free_disk_bytes: %ld, min_free_disk_percent: %ld)",
                 free_bytes, total, (unsigned long long)st.f_favail,
                 (unsigned long long)st.f_files, a->cfg->min_free_disk_bytes, pct);
    return !a->below_floor;
}

enum refusal admission_tag_file(struct admission *a, int exists, double mono)
{
    if (exists)
        return REFUSED_NONE; /* not a new tag, and no new entry */
    if (a->tags_in_bucket >= (unsigned long)a->cfg->max_tags_per_bucket)
        return REFUSED_TAG_LIMIT;
    struct admission *c = a->counter;
    long max = a->cfg->max_files_per_period;
    /* Unknown (unreadable) or full: look again, at most every few seconds. */
    if ((c->dir_entries < 0 || c->dir_entries >= max) &&
        mono - c->counted_at >= ADMISSION_RECOUNT_INTERVAL) {
        c->dir_entries = count_entries(c->dir);
        c->counted_at = mono;
    }
    if (c->dir_entries >= max)
        return REFUSED_FILE_LIMIT;
    return REFUSED_NONE;
}

void admission_created(struct admission *a, int is_tag)
{
    if (is_tag)
        a->tags_in_bucket++;
    if (a->counter->dir_entries >= 0)
        a->counter->dir_entries++;
}

void admission_pruned(struct admission *a, long removed)
{
    struct admission *c = a->counter;
    if (removed > 0 && c->dir_entries >= 0)
        c->dir_entries = c->dir_entries > removed ? c->dir_entries - removed : 0;
}
