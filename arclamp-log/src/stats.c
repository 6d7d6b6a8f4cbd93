/* stats: the Prometheus text file of arclamp-log's counters. */
#include "stats.h"
#include "log.h"
#include "strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const input_names[INPUT_NKINDS] = {"redis", "socket"};

const char *refusal_name(enum refusal why)
{
    static const char *const names[REFUSED_NREASONS] = {"none", "tag_limit", "file_limit",
                                                        "disk_floor"};
    return (unsigned)why < REFUSED_NREASONS ? names[why] : "unknown";
}

const char *run_drop_name(enum run_drop why)
{
    static const char *const names[RUN_DROP_NREASONS] = {
        "duplicate", "no_begin", "arcs_missing", "bad_ids", "too_big",
        "pending_limit", "timeout", "write_error", "stopped",
    };
    return (unsigned)why < RUN_DROP_NREASONS ? names[why] : "unknown";
}

const char *run_line_invalid_name(int why)
{
    return why == RUN_LINE_TOO_LONG ? "too_long" : runline_error_name((enum runline_error)why);
}

const char *tier_line_invalid_name(int why)
{
    return why == TIER_LINE_TOO_LONG ? "too_long" : tierline_error_name((enum tierline_error)why);
}

const char *tier_drop_name(enum tier_drop why)
{
    static const char *const names[TIER_DROP_NREASONS] = {"tier_limit", "memory"};
    return (unsigned)why < TIER_DROP_NREASONS ? names[why] : "unknown";
}

uint64_t stats_format_counts(char *out, size_t len, const uint64_t *counts, int first, int n,
                             const char *(*name)(int))
{
    size_t used = 0;
    uint64_t total = 0;
    int full = 0; /* a pair did not fit: the text stops before it */
    out[0] = '\0';
    for (int r = first; r < n; r++) {
        if (!counts[r])
            continue;
        total += counts[r];
        if (full)
            continue;
        int w = snprintf(out + used, len - used, "%s%s=%llu", used ? " " : "", name(r),
                         (unsigned long long)counts[r]);
        if (w > 0 && (size_t)w < len - used) {
            used += (size_t)w;
        } else {
            out[used] = '\0';
            full = 1;
        }
    }
    return total;
}

int stats_log_counts(const struct count_report *how, uint64_t *unreported, char *example)
{
    char counts[512], total_text[24];
    uint64_t total = stats_format_counts(counts, sizeof counts, unreported, how->first, how->n,
                                         how->name);
    if (total == 0)
        return 0;
    snprintf(total_text, sizeof total_text, "%llu", (unsigned long long)total);
    log_event(LOG_WARNING, how->event,
              LOG_FIELDS({"ARCLAMP_COUNT", total_text}, {"ARCLAMP_REASON", counts},
                         {"ARCLAMP_EXAMPLE", example}),
              "dropped %s %s (%s), e.g. %s%s%s", total_text, how->what, counts,
              how->example_open, example, how->example_close);
    memset(unreported, 0, (size_t)how->n * sizeof *unreported);
    example[0] = '\0';
    return 1;
}

uint64_t stats_messages_total(const struct stats *st)
{
    uint64_t n = 0;
    for (int i = 0; i < INPUT_NKINDS; i++)
        n += st->messages_received[i];
    return n;
}

static void header(strbuf *out, const char *name, const char *type, const char *help)
{
    strbuf_appendf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void counter(strbuf *out, const char *name, const char *help, uint64_t value)
{
    header(out, name, "counter", help);
    strbuf_appendf(out, "%s %llu\n", name, (unsigned long long)value);
}

/* Label values come from configuration; escape as the text format asks. */
static void label_value(strbuf *out, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            strbuf_appendc(out, '\\');
        if (*v == '\n')
            strbuf_appends(out, "\\n");
        else
            strbuf_appendc(out, *v);
    }
}

/* One counter per log group, labelled with the group's period. */
static void per_group(strbuf *out, const char *name, const uint64_t *values,
                      const struct config *cfg)
{
    for (size_t g = 0; g < cfg->ngroups; g++) {
        strbuf_appendf(out, "%s{group=\"", name);
        label_value(out, cfg->groups[g].period);
        strbuf_appendf(out, "\"} %llu\n", (unsigned long long)values[g]);
    }
}

/* One counter per reason in [first, n), labelled with the reason's name. */
static void per_reason(strbuf *out, const char *name, const char *help, const uint64_t *values,
                       int first, int n, const char *(*reason)(int))
{
    header(out, name, "counter", help);
    for (int r = first; r < n; r++)
        strbuf_appendf(out, "%s{reason=\"%s\"} %llu\n", name, reason(r),
                       (unsigned long long)values[r]);
}

const char *stackline_reason(int r)
{
    return stackline_error_name((enum stackline_error)r);
}

/* The reason names as per_reason() takes them. */
static const char *refusal_reason(int r)
{
    return refusal_name((enum refusal)r);
}

const char *run_drop_reason(int r)
{
    return run_drop_name((enum run_drop)r);
}

static const char *tier_drop_reason(int r)
{
    return tier_drop_name((enum tier_drop)r);
}

static void format_cluster_metrics(strbuf *out, const struct stats *st)
{
    counter(out, "arclamp_log_cluster_map_reads_total", "Redis Cluster slot maps read.",
            st->cluster_map_reads);
    counter(out, "arclamp_log_cluster_shard_moves_total",
            "Shards read from another master after a failover or a migration.",
            st->cluster_shard_moves);
    header(out, "arclamp_log_cluster_shards", "gauge", "Shards this instance reads.");
    strbuf_appendf(out, "arclamp_log_cluster_shards %llu\n",
                   (unsigned long long)st->cluster_shards_read);
    header(out, "arclamp_log_cluster_shards_connected", "gauge",
           "Shards subscribed to or read now.");
    strbuf_appendf(out, "arclamp_log_cluster_shards_connected %llu\n",
                   (unsigned long long)st->cluster_shards_connected);
}

static void format_run_metrics(strbuf *out, const struct stats *st, const struct config *cfg)
{
    per_reason(out, "arclamp_log_run_lines_invalid_total",
               "Hierarchical run lines refused, per reason.", st->run_lines_invalid, 1,
               RUN_LINE_NREASONS, run_line_invalid_name);
    counter(out, "arclamp_log_runs_received_total", "Hierarchical runs begun (valid begin lines).",
            st->runs_received);
    header(out, "arclamp_log_runs_written_total", "counter",
           "Complete runs written to each log group's run logs (once each).");
    per_group(out, "arclamp_log_runs_written_total", st->runs_written, cfg);
    per_reason(out, "arclamp_log_runs_dropped_total", "Runs not written, per reason.",
               st->runs_dropped, 0, RUN_DROP_NREASONS, run_drop_reason);
    per_reason(out, "arclamp_log_runs_refused_total",
               "Complete runs (or their tag files) not written by policy, per reason.",
               st->runs_refused, 1, REFUSED_NREASONS, refusal_reason);
    header(out, "arclamp_log_runs_pending", "gauge", "Runs waiting for their end line.");
    strbuf_appendf(out, "arclamp_log_runs_pending %llu\n", (unsigned long long)st->runs_pending);
}

static void format_tier_metrics(strbuf *out, const struct stats *st, const struct config *cfg)
{
    counter(out, "arclamp_log_tier_lines_received_total", "Request tier lines received.",
            st->tier_lines_received);
    per_reason(out, "arclamp_log_tier_lines_invalid_total",
               "Request tier lines refused, per reason.", st->tier_lines_invalid, 1,
               TIER_LINE_NREASONS, tier_line_invalid_name);
    counter(out, "arclamp_log_tier_lines_clock_skew_total",
            "Tier lines whose END was too far from the daemon's clock (its minute used).",
            st->tier_lines_clock_skew);
    counter(out, "arclamp_log_tier_lines_late_total",
            "Tier lines for a minute already due (past the grace period), written with the "
            "next write.", st->tier_lines_late);
    counter(out, "arclamp_log_tier_views_written_total",
            "Tier table views (.tiers.json and .tiers.txt) rewritten, at most once per tick "
            "and bucket.", st->tier_views_written);
    header(out, "arclamp_log_tier_minutes_written_total", "counter",
           "Merged minutes appended to each log group's tier table.");
    per_group(out, "arclamp_log_tier_minutes_written_total", st->tier_minutes_written, cfg);
    per_reason(out, "arclamp_log_tier_minutes_refused_total",
               "Merged minutes not written by policy, per reason.", st->tier_minutes_refused,
               REFUSED_DISK_FLOOR, REFUSED_DISK_FLOOR + 1, refusal_reason);
    counter(out, "arclamp_log_tier_identities_overflow_total",
            "Tier lines whose identity was past max_tier_identities (counted as _other).",
            st->tier_identities_overflow);
    per_reason(out, "arclamp_log_tier_tiers_dropped_total",
               "Tier lines not kept in a tier table, per reason.", st->tier_tiers_dropped, 0,
               TIER_DROP_NREASONS, tier_drop_reason);
    counter(out, "arclamp_log_tier_write_errors_total", "Tier table files not written.",
            st->tier_write_errors);
}

static void format_metrics(strbuf *out, const struct stats *st, const struct config *cfg)
{
    header(out, "arclamp_log_messages_received_total", "counter", "Messages received per input.");
    for (int i = 0; i < INPUT_NKINDS; i++)
        strbuf_appendf(out, "arclamp_log_messages_received_total{input=\"%s\"} %llu\n",
                       input_names[i], (unsigned long long)st->messages_received[i]);
    counter(out, "arclamp_log_lines_received_total", "Sample lines received.", st->lines_received);
    per_reason(out, "arclamp_log_lines_invalid_total", "Sample lines refused, per reason.",
               st->lines_invalid, 1, STACKLINE_NERRORS, stackline_reason);
    header(out, "arclamp_log_lines_written_total", "counter",
           "Lines written to each log group's all file.");
    per_group(out, "arclamp_log_lines_written_total", st->lines_written, cfg);
    header(out, "arclamp_log_lines_dropped_total", "counter", "Lines lost, per reason.");
    strbuf_appendf(out, "arclamp_log_lines_dropped_total{reason=\"write_error\"} %llu\n",
                   (unsigned long long)st->lines_dropped_write_error);
    per_reason(out, "arclamp_log_lines_refused_total",
               "Valid lines (or their tag copies) not written by policy, per reason.",
               st->lines_refused, 1, REFUSED_NREASONS, refusal_reason);
    counter(out, "arclamp_log_tags_refused_total",
            "Lines whose .php entry point is not a valid tag name (written to all only).",
            st->tags_refused);
    counter(out, "arclamp_log_lines_deferred_total",
            "Stream lines that could not be written yet, left in Redis to be read again.",
            st->lines_deferred);
    counter(out, "arclamp_log_bytes_written_total", "Bytes written to trace logs and run logs.",
            st->bytes_written);
    counter(out, "arclamp_log_write_errors_total", "Failed or short writes and failed opens.",
            st->write_errors);
    counter(out, "arclamp_log_files_pruned_total", "Files removed by retention.",
            st->files_pruned);
    counter(out, "arclamp_log_torn_lines_repaired_total",
            "Partial last lines cut when a file was opened.", st->torn_lines_repaired);
    counter(out, "arclamp_log_datagrams_dropped_total",
            "Datagrams the kernel dropped because the receive buffer was full.",
            st->datagrams_dropped);
    counter(out, "arclamp_log_redis_reconnects_total", "Redis connections lost or refused.",
            st->redis_reconnects);
    header(out, "arclamp_log_redis_connected", "gauge", "1 while reading from Redis.");
    strbuf_appendf(out, "arclamp_log_redis_connected %d\n", st->redis_connected);
    counter(out, "arclamp_log_redis_claimed_total",
            "Stream entries taken over from a consumer that left them pending (XAUTOCLAIM).",
            st->redis_claimed);
    counter(out, "arclamp_log_redis_reread_total",
            "Stream entries read again from a pending list (after a reconnect, a failover, a "
            "takeover or a deferral); an entry already written before is written twice.",
            st->redis_reread);
    if (st->cluster)
        format_cluster_metrics(out, st);
    header(out, "arclamp_log_open_files", "gauge", "Trace log and run log files open.");
    strbuf_appendf(out, "arclamp_log_open_files %llu\n", (unsigned long long)st->open_files);
    format_run_metrics(out, st, cfg);
    format_tier_metrics(out, st, cfg);
}

int stats_write_prometheus(const struct stats *st, const struct config *cfg, const char *path)
{
    strbuf text = STRBUF_INIT, tmp = STRBUF_INIT;
    format_metrics(&text, st, cfg);
    strbuf_appendf(&tmp, "%s.tmp.%ld", path, (long)getpid());
    const char *tmp_path = strbuf_cstr(&tmp);
    int rc = -1;
    int fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd >= 0) {
        ssize_t n = write(fd, text.data, text.len);
        int saved = errno;
        if (close(fd) == 0 && n == (ssize_t)text.len && rename(tmp_path, path) == 0)
            rc = 0;
        else
            errno = n < 0 ? saved : (errno ? errno : EIO);
        if (rc < 0)
            unlink(tmp_path);
    }
    strbuf_free(&text);
    strbuf_free(&tmp);
    return rc;
}
