/* runstate: the count of skipped runs, for the metrics. See runstate.h. */
#include "runstate.h"
#include "cli.h"
#include "log.h"
#include "runlock.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const command_names[RUNSTATE_NCOMMANDS] = {"generate", "compress"};

static char *state_path(const char *lock_file)
{
    strbuf sb = STRBUF_INIT;
    strbuf_appendf(&sb, "%s" RUNSTATE_SUFFIX, lock_file);
    return (char *)strbuf_cstr(&sb);
}

/* Parses the file's text; unknown or malformed lines are ignored (a torn
 * write loses counts, never the run). */
static void parse(const char *text, struct runstate *st)
{
    memset(st, 0, sizeof *st);
    for (const char *line = text; line && *line;) {
        char name[16];
        unsigned long long count;
        long long last;
        if (sscanf(line, "%15s %llu %lld", name, &count, &last) == 3) {
            for (int c = 0; c < RUNSTATE_NCOMMANDS; c++) {
                if (strcmp(name, command_names[c]) == 0) {
                    st->skipped[c] = count;
                    st->last_skip[c] = last;
                }
            }
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
}

static int read_fd(int fd, struct runstate *st)
{
    char buf[1024];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    parse(buf, st);
    return 0;
}

static int write_fd(int fd, const struct runstate *st)
{
    strbuf sb = STRBUF_INIT;
    for (int c = 0; c < RUNSTATE_NCOMMANDS; c++)
        strbuf_appendf(&sb, "%s %llu %" PRId64 "\n", command_names[c], st->skipped[c],
                       st->last_skip[c]);
    int rc = pwrite(fd, sb.data, sb.len, 0) == (ssize_t)sb.len &&
                     ftruncate(fd, (off_t)sb.len) == 0
                 ? 0
                 : -1;
    strbuf_free(&sb);
    return rc;
}

int runstate_record_skip(const char *lock_file, enum runstate_command cmd, time_t now,
                         char *err, size_t errlen)
{
    char *path = state_path(lock_file);
    int fd = runlock_open_private(AT_FDCWD, path, path, 1, err, errlen);
    int rc = -1;
    if (fd >= 0) {
        struct runstate st;
        if (runlock_flock_bounded(fd, RUNSTATE_LOCK_TIMEOUT) != 0 || read_fd(fd, &st) < 0) {
            snprintf(err, errlen, "%s: %s", path, errno ? strerror(errno) : "lock timed out");
        } else {
            st.skipped[cmd]++;
            st.last_skip[cmd] = (int64_t)now;
            rc = write_fd(fd, &st);
            if (rc < 0)
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
        }
        close(fd);
    }
    free(path);
    return rc;
}

int runstate_read(const char *lock_file, struct runstate *st, char *err, size_t errlen)
{
    char *path = state_path(lock_file);
    memset(st, 0, sizeof *st);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    int rc = 0;
    if (fd < 0 && errno != ENOENT) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        rc = -1;
    } else if (fd >= 0 && read_fd(fd, st) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    if (fd >= 0)
        close(fd);
    free(path);
    return rc;
}

void runstate_metrics(const struct gen_config *cfg, strbuf *out)
{
    struct runstate st;
    char err[1024];
    if (runstate_read(cfg->lock_file, &st, err, sizeof err) < 0) {
        fprintf(stderr, "arclamp-svg metrics: skipped runs unknown (run as the data "
                        "directory's owner): %s\n", err);
        return;
    }
    strbuf_appends(out, "# HELP arclamp_svg_runs_skipped_total Runs of generate or compress "
                        "that gave up waiting lock_timeout for the lock.\n"
                        "# TYPE arclamp_svg_runs_skipped_total counter\n");
    for (int c = 0; c < RUNSTATE_NCOMMANDS; c++)
        strbuf_appendf(out, "arclamp_svg_runs_skipped_total{command=\"%s\"} %llu\n",
                       command_names[c], st.skipped[c]);
    strbuf_appends(out, "# HELP arclamp_svg_last_skip_timestamp_seconds When a run of the "
                        "command was last skipped (absent: never).\n"
                        "# TYPE arclamp_svg_last_skip_timestamp_seconds gauge\n");
    for (int c = 0; c < RUNSTATE_NCOMMANDS; c++) {
        if (st.last_skip[c])
            strbuf_appendf(out, "arclamp_svg_last_skip_timestamp_seconds{command=\"%s\"} %" PRId64
                                "\n", command_names[c], st.last_skip[c]);
    }
}

void runstate_note_skip(const struct gen_config *cfg, enum runstate_command cmd)
{
    char err[1024];
    cli_log(LOG_WARNING, "run_skipped", LOG_NO_FIELDS,
            "%s skipped: another run held the lock %s for lock_timeout (%g s)",
            command_names[cmd], cfg->lock_file, cfg->lock_timeout);
    if (runstate_record_skip(cfg->lock_file, cmd, time(NULL), err, sizeof err) < 0)
        cli_log(LOG_ERR, "skip_not_counted", LOG_NO_FIELDS, "the skip could not be counted: %s",
                err);
}
