/* runstate: the counters kept across runs, in one private file. See
 * runstate.h. */
#include "runstate.h"
#include "atomicfile.h"
#include "cli.h"
#include "datadir.h"
#include "log.h"
#include "runlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const command_names[RUNSTATE_NCOMMANDS] = {"generate", "compress"};

/* The file's lines: name, where the value lives, and whether a new value
 * replaces the old one (a time) rather than adds to it (a count). */
static const struct field {
    const char *name;
    size_t offset;
    int latest;
} fields[] = {
    {"skipped_generate", offsetof(struct runstate, skipped[RUNSTATE_GENERATE]), 0},
    {"skipped_compress", offsetof(struct runstate, skipped[RUNSTATE_COMPRESS]), 0},
    {"last_skip_generate", offsetof(struct runstate, last_skip[RUNSTATE_GENERATE]), 1},
    {"last_skip_compress", offsetof(struct runstate, last_skip[RUNSTATE_COMPRESS]), 1},
    {"truncated_graphs", offsetof(struct runstate, truncated_graphs), 0},
    {"truncated_lines", offsetof(struct runstate, truncated_lines), 0},
    {"log_read_limit", offsetof(struct runstate, log_read_limit), 0},
    {"store_uploads", offsetof(struct runstate, store_uploads), 0},
    {"store_upload_bytes", offsetof(struct runstate, store_upload_bytes), 0},
    {"store_failures", offsetof(struct runstate, store_failures), 0},
    {"store_downloads", offsetof(struct runstate, store_downloads), 0},
    {"store_download_bytes", offsetof(struct runstate, store_download_bytes), 0},
    {"store_last_success", offsetof(struct runstate, store_last_success), 1},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static unsigned long long *slot(struct runstate *st, size_t i)
{
    return (unsigned long long *)((char *)st + fields[i].offset);
}

static unsigned long long value_of(const struct runstate *st, size_t i)
{
    return *(const unsigned long long *)((const char *)st + fields[i].offset);
}

/* Unknown or malformed lines are ignored (a torn or foreign file loses
 * counts, never the run). */
static void parse(const char *text, struct runstate *st)
{
    memset(st, 0, sizeof *st);
    for (const char *line = text; line && *line;) {
        char name[32];
        unsigned long long v;
        if (sscanf(line, "%31s %llu", name, &v) == 2) {
            for (size_t i = 0; i < NFIELDS; i++) {
                if (strcmp(name, fields[i].name) == 0)
                    *slot(st, i) = v;
            }
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
}

/* Reads RUNSTATE_FILE in the directory `dirfd` (all 0 when missing). */
static int read_at(int dirfd, struct runstate *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    struct stat sb;
    int fd = datadir_open_regular(dirfd, RUNSTATE_FILE, &sb, err, errlen);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    char buf[RUNSTATE_MAX_BYTES + 1];
    ssize_t n = read(fd, buf, RUNSTATE_MAX_BYTES);
    if (n < 0)
        snprintf(err, errlen, "%s", strerror(errno));
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    parse(buf, st);
    return 0;
}

static int is_zero(const struct runstate *st)
{
    for (size_t i = 0; i < NFIELDS; i++) {
        if (value_of(st, i))
            return 0;
    }
    return 1;
}

static void merge(struct runstate *st, const struct runstate *add)
{
    for (size_t i = 0; i < NFIELDS; i++) {
        unsigned long long a = value_of(add, i);
        if (fields[i].latest && a)
            *slot(st, i) = a;
        else if (!fields[i].latest)
            *slot(st, i) += a;
    }
}

/* Rewrites the file atomically, 0600, in the directory `dirfd`. */
static int write_at(int dirfd, const struct runstate *st, char *err, size_t errlen)
{
    struct atomic_file *af = atomic_openat(dirfd, RUNSTATE_FILE, 0, 0, err, errlen);
    if (!af)
        return -1;
    if (fchmod(atomic_fd(af), 0600) < 0) {
        snprintf(err, errlen, "%s: chmod 0600: %s", RUNSTATE_FILE, strerror(errno));
        atomic_abort(af);
        return -1;
    }
    strbuf text = STRBUF_INIT;
    for (size_t i = 0; i < NFIELDS; i++)
        strbuf_appendf(&text, "%s %llu\n", fields[i].name, value_of(st, i));
    atomic_append(af, text.data, text.len);
    strbuf_free(&text);
    return atomic_commit(af, NULL, err, errlen);
}

/* Under the directory's flock: clean, read, add, write. */
static int add_locked(int dirfd, const char *shown, const struct runstate *add, char *err,
                      size_t errlen)
{
    int rc = runlock_flock_bounded(dirfd, RUNSTATE_LOCK_TIMEOUT);
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", shown,
                 rc > 0 ? "locked by another writer for too long" : strerror(errno));
        return -1;
    }
    atomic_clean_temps(dirfd); /* an interrupted writer's: none is live now */
    struct runstate st;
    char rerr[512];
    if (read_at(dirfd, &st, rerr, sizeof rerr) < 0) {
        snprintf(err, errlen, "%s/" RUNSTATE_FILE ": %s", shown, rerr);
        return -1;
    }
    merge(&st, add);
    char werr[1024];
    if (write_at(dirfd, &st, werr, sizeof werr) < 0) {
        snprintf(err, errlen, "%s: %s", shown, werr);
        return -1;
    }
    return 0;
}

int runstate_add(const char *data_dir, const struct runstate *add, char *err, size_t errlen)
{
    if (is_zero(add))
        return 0; /* nothing to count: no write on a normal run */
    int data_fd = datadir_open_base(data_dir, 0, err, errlen);
    if (data_fd < 0)
        return -1;
    int dirfd = datadir_open_private(data_fd, data_dir, 1, err, errlen);
    close(data_fd);
    if (dirfd < 0)
        return -1;
    strbuf shown = STRBUF_INIT;
    strbuf_appendf(&shown, "%s/" GEN_PRIVATE_DIR, data_dir);
    int rc = add_locked(dirfd, strbuf_cstr(&shown), add, err, errlen);
    strbuf_free(&shown);
    close(dirfd); /* releases the flock */
    return rc;
}

int runstate_read(const char *data_dir, struct runstate *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    char why[512] = "";
    int data_fd = open(data_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int dirfd = data_fd < 0 ? -1
                            : openat(data_fd, GEN_PRIVATE_DIR,
                                     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int saved = errno;
    int rc = dirfd >= 0 ? read_at(dirfd, st, why, sizeof why) : saved == ENOENT ? 0 : -1;
    if (dirfd < 0 && rc < 0)
        snprintf(why, sizeof why, "%s", saved == ELOOP || saved == ENOTDIR
                                            ? "not a directory (a symbolic link?): refused"
                                            : strerror(saved));
    if (dirfd >= 0)
        close(dirfd);
    if (data_fd >= 0)
        close(data_fd);
    if (rc < 0)
        snprintf(err, errlen, "%s/" GEN_PRIVATE_DIR "/" RUNSTATE_FILE ": %s", data_dir, why);
    return rc;
}

static void family(strbuf *out, const char *name, const char *type, const char *help)
{
    strbuf_appendf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void skip_metrics(strbuf *out, const struct runstate *st)
{
    family(out, "arclamp_svg_runs_skipped_total", "counter",
           "Runs of generate or compress that gave up waiting lock_timeout for the lock.");
    for (int c = 0; c < RUNSTATE_NCOMMANDS; c++)
        strbuf_appendf(out, "arclamp_svg_runs_skipped_total{command=\"%s\"} %llu\n",
                       command_names[c], st->skipped[c]);
    family(out, "arclamp_svg_last_skip_timestamp_seconds", "gauge",
           "When a run of the command was last skipped (absent: never).");
    for (int c = 0; c < RUNSTATE_NCOMMANDS; c++) {
        if (st->last_skip[c])
            strbuf_appendf(out, "arclamp_svg_last_skip_timestamp_seconds{command=\"%s\"} %llu\n",
                           command_names[c], st->last_skip[c]);
    }
}

static void limit_metric(strbuf *out, const char *name, const char *help,
                         unsigned long long v)
{
    family(out, name, "counter", help);
    strbuf_appendf(out, "%s %llu\n", name, v);
}

static void store_metrics(strbuf *out, const struct runstate *st)
{
    limit_metric(out, "arclamp_svg_store_uploads_total",
                 "Objects the object store confirmed (ETag checked).", st->store_uploads);
    limit_metric(out, "arclamp_svg_store_upload_bytes_total", "Bytes of those objects.",
                 st->store_upload_bytes);
    limit_metric(out, "arclamp_svg_store_failures_total",
                 "Uploads, listings and downloads that failed (retried next run).",
                 st->store_failures);
    limit_metric(out, "arclamp_svg_store_downloads_total",
                 "Objects fetched from the store to draw every host's logs (from_store).",
                 st->store_downloads);
    limit_metric(out, "arclamp_svg_store_download_bytes_total", "Bytes of those objects.",
                 st->store_download_bytes);
    if (st->store_last_success) {
        family(out, "arclamp_svg_store_last_success_timestamp_seconds", "gauge",
               "When a run last used the object store without a failure (absent: never).");
        strbuf_appendf(out, "arclamp_svg_store_last_success_timestamp_seconds %llu\n",
                       st->store_last_success);
    }
}

int runstate_metrics(const struct gen_config *cfg, strbuf *out, char *err, size_t errlen)
{
    struct runstate st;
    char why[1024];
    if (runstate_read(cfg->data_dir, &st, why, sizeof why) < 0) {
        snprintf(err, errlen, "skipped runs and limit counters unknown (run as the data "
                              "directory's owner or root): %s", why);
        return -1;
    }
    skip_metrics(out, &st);
    limit_metric(out, "arclamp_svg_truncated_graphs_total",
                 "Graphs drawn with the samples of stacks beyond max_stacks, max_frames or "
                 "max_memory_mb shown as [truncated].", st.truncated_graphs);
    limit_metric(out, "arclamp_svg_truncated_lines_total",
                 "Lines whose samples went to [truncated] in those graphs.", st.truncated_lines);
    limit_metric(out, "arclamp_svg_log_read_limit_total",
                 "Logs read only up to max_log_read_mb (the rest of the log not drawn).",
                 st.log_read_limit);
    if (cfg->store.conn.kind != OBJSTORE_NONE) /* no store, no families about one */
        store_metrics(out, &st);
    return 0;
}

void runstate_note_skip(const struct gen_config *cfg, enum runstate_command cmd)
{
    char err[1024];
    log_untrusted(LOG_WARNING, "run_skipped", LOG_NO_FIELDS,
            "%s skipped: another run held the lock %s for lock_timeout (%g s)",
            command_names[cmd], cfg->lock_file, cfg->lock_timeout);
    struct runstate add = {0};
    add.skipped[cmd] = 1;
    add.last_skip[cmd] = (unsigned long long)time(NULL);
    if (runstate_add(cfg->data_dir, &add, err, sizeof err) < 0)
        log_untrusted(LOG_ERR, "skip_not_counted", LOG_NO_FIELDS, "the skip could not be counted: %s",
                err);
}

void runstate_note_limits(const struct gen_config *cfg, unsigned long long truncated_graphs,
                          unsigned long long truncated_lines, unsigned long long cut_logs)
{
    char err[1024];
    struct runstate add = {0};
    add.truncated_graphs = truncated_graphs;
    add.truncated_lines = truncated_lines;
    add.log_read_limit = cut_logs;
    if (runstate_add(cfg->data_dir, &add, err, sizeof err) < 0)
        log_untrusted(LOG_ERR, "counters_failed", LOG_NO_FIELDS, "the limits could not be counted: %s",
                err);
}

void runstate_note_store(const struct gen_config *cfg, unsigned long long uploads,
                         unsigned long long upload_bytes, unsigned long long failures,
                         unsigned long long downloads, unsigned long long download_bytes)
{
    char err[1024];
    struct runstate add = {0};
    add.store_uploads = uploads;
    add.store_upload_bytes = upload_bytes;
    add.store_failures = failures;
    add.store_downloads = downloads;
    add.store_download_bytes = download_bytes;
    add.store_last_success = failures ? 0 : (unsigned long long)time(NULL);
    if (runstate_add(cfg->data_dir, &add, err, sizeof err) < 0)
        log_untrusted(LOG_ERR, "counters_failed", LOG_NO_FIELDS,
                      "the object store's counts could not be kept: %s", err);
}
