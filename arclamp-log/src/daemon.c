/* daemon: inputs, timers, signals and sd_notify around the event loop. */
#include "daemon.h"
#include "clock.h"
#include "ingest.h"
#include "log.h"
#include "redis_cluster.h"
#include "redis_input.h"
#include "socket_input.h"
#include "stats.h"
#include "strbuf.h"
#include "vec.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#define STATUS_INTERVAL 5.0

struct daemon {
    const char *config_path;
    struct config cfg;                   /* owned; replaced on reload */
    struct stats stats;                  /* survives reloads */
    struct ingest ingest;                /* rebuilt on reload */
    sd_event *loop;
    struct redis_input *redis;           /* NULL without redis: or with a cluster */
    struct redis_cluster *cluster;       /* NULL without redis.cluster */
    struct socket_input **sockets;
    size_t nsockets, sockets_cap;
    struct activated_fd *activated;      /* from systemd, kept for the process' life */
    int nactivated;
    sd_event_source *flush_timer;
    sd_event_source *status_timer;
    sd_event_source *metrics_timer;
    uint64_t status_messages;            /* messages at the last STATUS */
    double status_time;                  /* monotonic time of the last STATUS */
};

static double mono_now(sd_event *loop)
{
    uint64_t usec;
    sd_event_now(loop, CLOCK_MONOTONIC, &usec);
    return (double)usec / 1e6;
}

static void rearm(sd_event_source *s, double seconds)
{
    uint64_t usec;
    sd_event_now(sd_event_source_get_event(s), CLOCK_MONOTONIC, &usec);
    sd_event_source_set_time(s, usec + (uint64_t)(seconds * 1e6));
    sd_event_source_set_enabled(s, SD_EVENT_ON);
}

static int add_timer(struct daemon *d, sd_event_source **s, double seconds,
                     sd_event_time_handler_t handler)
{
    int r = sd_event_add_time(d->loop, s, CLOCK_MONOTONIC, 0, 0, handler, d);
    if (r >= 0)
        rearm(*s, seconds);
    return r;
}

static void send_status(struct daemon *d)
{
    double now = mono_now(d->loop);
    uint64_t messages = stats_messages_total(&d->stats);
    double elapsed = now - d->status_time;
    double rate = elapsed > 0 ? (double)(messages - d->status_messages) / elapsed : 0;
    uint64_t invalid = 0;
    for (int r = 1; r < STACKLINE_NERRORS; r++)
        invalid += d->stats.lines_invalid[r];
    uint64_t runs_written = 0;
    for (size_t g = 0; g < d->cfg.ngroups; g++)
        runs_written += d->stats.runs_written[g];
    sd_notifyf(0, "STATUS=%.0f msg/s, %llu files open, %s, %llu invalid lines, "
               "%llu runs written, %llu pending", rate,
               (unsigned long long)d->stats.open_files,
               d->redis     ? redis_input_state(d->redis)
               : d->cluster ? redis_cluster_state(d->cluster)
                            : "no redis",
               (unsigned long long)invalid, (unsigned long long)runs_written,
               (unsigned long long)d->stats.runs_pending);
    d->status_messages = messages;
    d->status_time = now;
}

static void write_metrics(struct daemon *d)
{
    if (!d->cfg.metrics_file)
        return;
    if (stats_write_prometheus(&d->stats, &d->cfg, d->cfg.metrics_file) < 0)
        log_event(LOG_WARNING, "metrics_failed", LOG_FIELDS({"ARCLAMP_FILE", d->cfg.metrics_file}),
                  "cannot write %s: %s", d->cfg.metrics_file, strerror(errno));
}

static int on_flush(sd_event_source *s, uint64_t usec, void *userdata)
{
    struct daemon *d = userdata;
    double now = (double)usec / 1e6;
    ingest_flush(&d->ingest, now);
    ingest_close_idle(&d->ingest, now);
    ingest_expire_runs(&d->ingest, now);
    ingest_tick_tiers(&d->ingest, (time_t)clock_wall_seconds(), now);
    ingest_report_invalid(&d->ingest, now, 0);
    rearm(s, d->cfg.flush_interval);
    return 0;
}

static int on_status(sd_event_source *s, uint64_t usec, void *userdata)
{
    (void)usec;
    send_status(userdata);
    rearm(s, STATUS_INTERVAL);
    return 0;
}

static int on_metrics(sd_event_source *s, uint64_t usec, void *userdata)
{
    struct daemon *d = userdata;
    (void)usec;
    write_metrics(d);
    rearm(s, d->cfg.metrics_interval);
    return 0;
}

static void add_socket(struct daemon *d, struct socket_input *si)
{
    VEC_RESERVE(d->sockets, d->sockets_cap, d->nsockets + 1, 4);
    d->sockets[d->nsockets++] = si;
}

/* Opens every input of d->cfg. Returns -1 (logged) when one cannot be opened
 * or there is none at all. */
static int start_inputs(struct daemon *d)
{
    char err[512];
    ingest_init(&d->ingest, &d->cfg, &d->stats);
    for (int i = 0; i < d->nactivated; i++) {
        struct socket_input *si = socket_input_adopt(d->loop, &d->cfg, &d->ingest,
                                                     &d->activated[i], err, sizeof err);
        if (!si)
            goto fail;
        add_socket(d, si);
    }
    /* Activated sockets replace the configured ones, as systemd owns them. */
    for (size_t i = 0; d->nactivated == 0 && i < d->cfg.nlisten; i++) {
        struct socket_input *si = socket_input_open(d->loop, &d->cfg, &d->ingest,
                                                    &d->cfg.listen[i], err, sizeof err);
        if (!si)
            goto fail;
        add_socket(d, si);
    }
    if (d->cfg.redis.ncluster)
        d->cluster = redis_cluster_start(d->loop, &d->cfg, &d->ingest, &d->stats);
    else
        d->redis = redis_input_start(d->loop, &d->cfg, &d->ingest, &d->stats);
    if (!d->redis && !d->cluster && d->nsockets == 0) {
        snprintf(err, sizeof err, "no inputs: configure redis: or listen:, or start the "
                 "daemon through socket activation");
        goto fail;
    }
    return 0;
fail:
    log_event(LOG_ERR, "input_failed", LOG_NO_FIELDS, "%s", err);
    return -1;
}

static void stop_inputs(struct daemon *d)
{
    redis_input_stop(d->redis);
    d->redis = NULL;
    redis_cluster_stop(d->cluster);
    d->cluster = NULL;
    for (size_t i = 0; i < d->nsockets; i++)
        socket_input_stop(d->sockets[i]);
    free(d->sockets);
    d->sockets = NULL;
    d->nsockets = d->sockets_cap = 0;
    ingest_free(&d->ingest);
}

static void setup_logging(const struct config *cfg)
{
    log_setup("arclamp-log", (enum log_target)log_target_from_name(cfg->log_target));
}

static void notify_ready(struct daemon *d)
{
    sd_notify(0, "READY=1");
    send_status(d);
}

static void reload(struct daemon *d)
{
    char err[1024];
    struct config fresh;
    sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
               (unsigned long long)(mono_now(d->loop) * 1e6));
    if (config_load(d->config_path, &fresh, err, sizeof err) < 0) {
        log_event(LOG_ERR, "reload_failed", LOG_FIELDS({"ARCLAMP_FILE", d->config_path}),
                  "keeping the running configuration: %s", err);
        notify_ready(d);
        return;
    }
    stop_inputs(d);
    config_free(&d->cfg);
    d->cfg = fresh;
    setup_logging(&d->cfg);
    config_log_warnings(&d->cfg);
    if (start_inputs(d) < 0)
        log_event(LOG_ERR, "reload_incomplete", LOG_NO_FIELDS,
                  "reloaded, but not every input could be opened");
    rearm(d->flush_timer, d->cfg.flush_interval);
    rearm(d->metrics_timer, d->cfg.metrics_interval);
    log_event(LOG_INFO, "reloaded", LOG_FIELDS({"ARCLAMP_FILE", d->config_path}),
              "configuration reloaded from %s", d->config_path);
    notify_ready(d);
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
    struct daemon *d = userdata;
    (void)s;
    if (si->ssi_signo == SIGHUP) {
        reload(d);
        return 0;
    }
    sd_notify(0, "STOPPING=1");
    log_event(LOG_INFO, "stopping", LOG_NO_FIELDS, "signal %u: flushing and stopping",
              si->ssi_signo);
    sd_event_exit(d->loop, 0);
    return 0;
}

static int setup_loop(struct daemon *d)
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGHUP);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (sd_event_default(&d->loop) < 0 ||
        sd_event_add_signal(d->loop, NULL, SIGTERM, on_signal, d) < 0 ||
        sd_event_add_signal(d->loop, NULL, SIGINT, on_signal, d) < 0 ||
        sd_event_add_signal(d->loop, NULL, SIGHUP, on_signal, d) < 0 ||
        add_timer(d, &d->flush_timer, d->cfg.flush_interval, on_flush) < 0 ||
        add_timer(d, &d->status_timer, STATUS_INTERVAL, on_status) < 0 ||
        add_timer(d, &d->metrics_timer, d->cfg.metrics_interval, on_metrics) < 0)
        return -1;
    /* Pings the watchdog from the loop: a stuck loop stops the pings. */
    sd_event_set_watchdog(d->loop, 1);
    return 0;
}

static void free_activated(struct daemon *d)
{
    for (int i = 0; i < d->nactivated; i++)
        free(d->activated[i].name);
    free(d->activated);
}

int daemon_run(const char *config_path, struct config *cfg)
{
    struct daemon d;
    char err[512];
    memset(&d, 0, sizeof d);
    d.config_path = config_path;
    d.cfg = *cfg;
    setup_logging(&d.cfg);
    config_log_warnings(&d.cfg);
    int rc = 1;
    d.nactivated = socket_activated_fds(&d.activated, err, sizeof err);
    if (d.nactivated < 0) {
        log_event(LOG_ERR, "input_failed", LOG_NO_FIELDS, "%s", err);
        d.nactivated = 0;
        goto out;
    }
    if (setup_loop(&d) < 0) {
        log_event(LOG_ERR, "startup_failed", LOG_NO_FIELDS, "cannot set up the event loop");
        goto out;
    }
    if (start_inputs(&d) < 0) {
        stop_inputs(&d);
        goto out;
    }
    d.status_time = mono_now(d.loop);
    log_event(LOG_INFO, "started", LOG_FIELDS({"ARCLAMP_FILE", config_path}),
              "arclamp-log %s: writing to %s, %zu log groups, %zu sockets, %s", ARCLAMP_VERSION,
              d.cfg.base_path, d.cfg.ngroups, d.nsockets, d.redis     ? "redis"
              : d.cluster ? "redis cluster"
                          : "no redis");
    notify_ready(&d);
    rc = sd_event_loop(d.loop) < 0 ? 1 : 0;
    stop_inputs(&d);
    write_metrics(&d);
    log_event(LOG_INFO, "stopped", LOG_NO_FIELDS, "all buffers written; stopped");
out:
    d.flush_timer = sd_event_source_unref(d.flush_timer);
    d.status_timer = sd_event_source_unref(d.status_timer);
    d.metrics_timer = sd_event_source_unref(d.metrics_timer);
    for (int i = 0; i < d.nactivated; i++)
        close(d.activated[i].fd);
    free_activated(&d);
    d.loop = sd_event_unref(d.loop);
    config_free(&d.cfg);
    return rc;
}
