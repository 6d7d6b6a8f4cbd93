/* redis_input: drives the Redis connection from the sd-event loop —
 * connecting (each address in turn, each within connect_timeout), the
 * handshake deadline, reading and writing, the health check, reconnecting
 * with a capped exponential backoff, and reporting failures once per
 * distinct cause. What is read is up to the mode (redis_mode.h). */
#include "redis_input.h"
#include "log.h"
#include "redis_mode.h"
#include "strbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define INITIAL_BACKOFF 0.1
/* Bytes read per read() (the socket's own buffer is much larger) and reads
 * per wakeup at most, so the sockets and timers get their turn. */
#define READ_CHUNK (256 * 1024)
#define READS_PER_WAKEUP 16
/* A failure with the same cause as the one before is logged again only
 * after this long (with the number of repeats); the journal must not fill
 * with one line per reconnect attempt during a long outage. */
#define REPEAT_REPORT_INTERVAL 300.0
/* A session that stayed up this long ends a streak of failures: the backoff
 * starts again from INITIAL_BACKOFF and the next failure is logged whatever
 * its cause. One that fails sooner (a server that confirms the subscription
 * or the group, then breaks every time) keeps the backoff growing and its
 * repeats quiet, instead of reconnecting and logging several times a second. */
#define STABLE_SESSION 10.0
/* Room for the protocol around a message in a reply, and for the objects
 * redisconn charges to it: a stream entry is five (entry, id, field list,
 * field name, value) of some 70 bytes each, three more for its key when it
 * is the only entry of its key, and some 80 bytes of framing. */
#define REPLY_OVERHEAD 1024

enum state { DISCONNECTED, CONNECTING, HANDSHAKE, READY, STOPPED };

struct redis_driver {
    sd_event_source *io;           /* watches io_fd; NULL while disconnected */
    int io_fd;                     /* the descriptor io watches */
    sd_event_source *timer;        /* backoff, timeouts and health checks */
    enum state state;
    double backoff;                /* delay before the next reconnect */
    double retry_at;               /* monotonic time of that reconnect */
    double last_rx;                /* monotonic time data last arrived */
    double ready_at;               /* monotonic time the session became READY */
    int ping_outstanding;          /* a health-check PING is unanswered */
    char last_cause[256];          /* the cause of the last failure logged */
    unsigned long repeats;         /* failures with that cause not logged since */
    double report_again_at;        /* a repeat is logged after this time */
    unsigned long failures;        /* consecutive failed attempts */
    double failing_since;          /* monotonic time of the first of them */
    char state_text[96];           /* redis_input_state's answer */
    struct redisconn_options opt;  /* the connection's options but the address */
    char port[16];                 /* the configuration's port as text */
    void (*on_change)(void *owner, struct redis_input *ri, int ready);
};

double redis_input_now(const struct redis_input *ri)
{
    uint64_t usec;
    sd_event_now(ri->loop, CLOCK_MONOTONIC, &usec);
    return (double)usec / 1e6;
}

static void arm_timer(struct redis_input *ri, double delay)
{
    uint64_t usec;
    sd_event_now(ri->loop, CLOCK_MONOTONIC, &usec);
    sd_event_source_set_time(ri->driver->timer, usec + (uint64_t)(delay * 1e6));
    sd_event_source_set_enabled(ri->driver->timer, SD_EVENT_ONESHOT);
}

const char *redis_input_endpoint(const struct redis_input *ri, char *buf, size_t len)
{
    if (ri->nnodes)
        snprintf(buf, len, "%s%s:%s", strchr(ri->nodes[ri->node_at].host, ':') ? "[" : "",
                 ri->nodes[ri->node_at].host, ri->nodes[ri->node_at].port);
    else if (ri->rc->unix_socket)
        snprintf(buf, len, "unix:%s", ri->rc->unix_socket);
    else
        snprintf(buf, len, "%s:%ld", ri->rc->host, ri->rc->port);
    if (ri->nnodes && strchr(ri->nodes[ri->node_at].host, ':'))
        snprintf(buf + strlen(buf), len - strlen(buf), "]");
    return buf;
}

/* Sets the connection up for the node in use (closed, not connecting). */
static void use_node(struct redis_input *ri)
{
    struct redisconn_options opt = ri->driver->opt;
    if (ri->nnodes) {
        opt.host = ri->nodes[ri->node_at].host;
        opt.port = ri->nodes[ri->node_at].port;
        opt.unix_path = NULL;
    }
    redisconn_init(&ri->conn, &opt);
}

static int compare_keys(const void *a, const void *b)
{
    const struct redis_key *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

const struct redis_key *redis_input_key(const struct redis_input *ri, const char *name,
                                        size_t len)
{
    struct redis_key probe = {name, len, 0};
    return bsearch(&probe, ri->keys, ri->nkeys, sizeof *ri->keys, compare_keys);
}

/* --- events ---------------------------------------------------------------- */

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata);

static void drop_io(struct redis_input *ri)
{
    ri->driver->io = sd_event_source_disable_unref(ri->driver->io);
    ri->driver->io_fd = -1;
}

/* Watches the connection's descriptor (a new one after trying another
 * address) for what it needs now. */
static int watch_connection(struct redis_input *ri)
{
    struct redis_driver *d = ri->driver;
    int fd = redisconn_fd(&ri->conn);
    if (d->io && d->io_fd != fd)
        drop_io(ri);
    uint32_t events = ri->conn.state == REDISCONN_CONNECTING ? EPOLLOUT : EPOLLIN;
    if (ri->conn.state == REDISCONN_OPEN && redisconn_wants_write(&ri->conn))
        events |= EPOLLOUT;
    if (!d->io) {
        if (sd_event_add_io(ri->loop, &d->io, fd, events, on_io, ri) < 0)
            return -1;
        /* Pub/sub pushes whenever anyone publishes: read in batches. A
         * stream is read by request and reply, at our pace already. */
        if (ri->mode == &redis_pubsub_mode)
            sd_event_source_set_ratelimit(d->io, INGEST_COALESCE_USEC, 1);
        d->io_fd = fd;
        return 0;
    }
    sd_event_source_set_io_events(d->io, events);
    return 0;
}

/* --- failures ---------------------------------------------------------------- */

/* Logs a failure unless it repeats the one before within
 * REPEAT_REPORT_INTERVAL (then it is only counted). */
static void report_failure(struct redis_input *ri, const char *why, int was_ready)
{
    struct redis_driver *d = ri->driver;
    double now = redis_input_now(ri);
    if (strcmp(why, d->last_cause) == 0 && now < d->report_again_at) {
        d->repeats++;
        return;
    }
    char where[300], more[96] = "";
    if (d->repeats)
        snprintf(more, sizeof more, " (%lu more failures like it since the last report)",
                 d->repeats);
    log_event(was_ready ? LOG_WARNING : LOG_NOTICE,
              was_ready ? "redis_disconnected" : "redis_connect_failed",
              LOG_FIELDS({"ARCLAMP_REDIS", redis_input_endpoint(ri, where, sizeof where)},
                         {"ARCLAMP_REASON", why}, {"ARCLAMP_REDIS_INPUT", ri->label}),
              "Redis %s%s%s; retrying in %.1fs%s", ri->label, ri->label[0] ? ": " : "", why,
              d->backoff, more);
    snprintf(d->last_cause, sizeof d->last_cause, "%s", why);
    d->repeats = 0;
    d->report_again_at = now + REPEAT_REPORT_INTERVAL;
}

/* The connection failed with ri->conn.errstr: close, report, retry later. */
static void handle_failure(struct redis_input *ri)
{
    struct redis_driver *d = ri->driver;
    char why[sizeof ri->conn.errstr];
    memcpy(why, ri->conn.errstr, sizeof why);
    int was_ready = d->state == READY;
    if (was_ready && redis_input_now(ri) - d->ready_at >= STABLE_SESSION) {
        d->backoff = INITIAL_BACKOFF;
        d->failures = d->repeats = 0;
        d->last_cause[0] = '\0';
    }
    if (ri->conn.err == REDISCONN_ERR_TOO_LARGE)
        ingest_refuse_message(ri->ingest, STACKLINE_TOO_LONG, INPUT_REDIS, redis_input_now(ri));
    redisconn_close(&ri->conn);
    drop_io(ri);
    ri->mode->on_close(ri, ri->mode_state);
    d->ping_outstanding = 0;
    ri->stats->redis_reconnects++;
    if (d->on_change)
        d->on_change(ri->owner, ri, 0);
    else
        ri->stats->redis_connected = 0;
    if (d->failures++ == 0)
        d->failing_since = redis_input_now(ri);
    report_failure(ri, why, was_ready);
    if (ri->nnodes > 1) {
        /* The next address of a cluster's (seeds, then the masters of the
         * last map): a dead node must not keep us from the others. */
        redisconn_free(&ri->conn);
        ri->node_at = (ri->node_at + 1) % ri->nnodes;
        use_node(ri);
    }
    d->state = DISCONNECTED;
    d->retry_at = redis_input_now(ri) + d->backoff;
    arm_timer(ri, d->backoff);
    d->backoff *= 2;
    if (d->backoff > ri->rc->reconnect_max_delay)
        d->backoff = ri->rc->reconnect_max_delay;
}

int redis_input_fail(struct redis_input *ri, const char *fmt, ...)
{
    char text[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (ri->driver->state != DISCONNECTED && ri->driver->state != STOPPED) {
        redisconn_fail(&ri->conn, REDISCONN_ERR_PROTOCOL, "%s: %s", ri->conn.peer, text);
        handle_failure(ri);
    }
    return -1;
}

/* --- connection ---------------------------------------------------------------- */

static double health_tick(const struct redis_input *ri)
{
    double tick = ri->rc->health_check_interval / 4;
    return tick < 0.05 ? 0.05 : tick > 1 ? 1 : tick;
}

void redis_input_ready(struct redis_input *ri)
{
    struct redis_driver *d = ri->driver;
    char where[300], after[96] = "";
    if (d->failures > 1)
        snprintf(after, sizeof after, " after %lu failed attempts in %.0fs", d->failures,
                 redis_input_now(ri) - d->failing_since);
    d->state = READY;
    d->ready_at = redis_input_now(ri);
    if (d->on_change)
        d->on_change(ri->owner, ri, 1);
    else
        ri->stats->redis_connected = 1;
    arm_timer(ri, health_tick(ri));
    log_event(LOG_INFO, "redis_connected",
              LOG_FIELDS({"ARCLAMP_REDIS", redis_input_endpoint(ri, where, sizeof where)},
                         {"ARCLAMP_REDIS_INPUT", ri->label}),
              "Redis %s%s%s: %s %zu %s%s", ri->label, ri->label[0] ? " at " : "", where,
              ri->mode->connected_as, ri->nkeys, ri->nkeys == 1 ? "key" : "keys", after);
}

void redis_input_flush(struct redis_input *ri)
{
    if (ri->conn.state != REDISCONN_OPEN)
        return;
    if (redisconn_write(&ri->conn) < 0) {
        handle_failure(ri);
        return;
    }
    if (watch_connection(ri) < 0)
        redis_input_fail(ri, "cannot watch the socket");
}

/* The connection is open: the mode queues its first commands, which must
 * be answered within connect_timeout. The deadline is armed here, not left
 * to the connect's: a connect that completes at once (a unix socket) never
 * armed one, and the timer may still hold an earlier, unrelated time. */
static void start_session(struct redis_input *ri)
{
    ri->driver->state = HANDSHAKE;
    ri->driver->last_rx = redis_input_now(ri);
    arm_timer(ri, ri->rc->connect_timeout);
    ri->mode->start(ri, ri->mode_state);
    redis_input_flush(ri);
}

/* After a connect step: 1 open, 0 still connecting (maybe on another
 * address: the watch and the deadline start anew), -1 failed. */
static void after_connect_step(struct redis_input *ri, int rc)
{
    if (rc < 0) {
        handle_failure(ri);
        return;
    }
    /* 0: the connect may have moved to another address, on a new socket
     * that can have the old one's number; the old watch died with the old
     * socket (epoll forgets a closed descriptor), so it is made anew. */
    if (rc == 0)
        drop_io(ri);
    if (watch_connection(ri) < 0) {
        redis_input_fail(ri, "cannot watch the socket");
        return;
    }
    if (rc > 0 || ri->conn.state == REDISCONN_OPEN) {
        start_session(ri);
        return;
    }
    ri->driver->state = CONNECTING;
    arm_timer(ri, ri->rc->connect_timeout);
}

static void connect_now(struct redis_input *ri)
{
    after_connect_step(ri, redisconn_connect(&ri->conn));
}

/* Hands every complete reply to the mode. -1 when the connection is gone. */
static int drain_replies(struct redis_input *ri)
{
    redisReply *reply;
    int tag, rc;
    while ((rc = redisconn_reply(&ri->conn, &reply, &tag)) > 0) {
        int mrc = ri->mode->on_reply(ri, ri->mode_state, tag, reply);
        freeReplyObject(reply);
        if (mrc < 0)
            return -1;
    }
    if (rc < 0) {
        handle_failure(ri);
        return -1;
    }
    return 0;
}

static void read_replies(struct redis_input *ri)
{
    for (int round = 0; round < READS_PER_WAKEUP; round++) {
        ssize_t n = redisconn_read(&ri->conn);
        if (n < 0) {
            handle_failure(ri);
            return;
        }
        if (n == 0)
            break;
        ri->driver->last_rx = redis_input_now(ri);
        ri->driver->ping_outstanding = 0;
        if (drain_replies(ri) < 0)
            return;
        if ((size_t)n < READ_CHUNK)
            break;
    }
    redis_input_flush(ri);
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
    struct redis_input *ri = userdata;
    (void)s;
    (void)fd;
    if (ri->conn.state == REDISCONN_CONNECTING) {
        after_connect_step(ri, redisconn_connect_done(&ri->conn));
        return 0;
    }
    if (revents & (EPOLLIN | EPOLLHUP | EPOLLERR))
        read_replies(ri);
    else if (revents & EPOLLOUT)
        redis_input_flush(ri);
    return 0;
}

/* PING after an interval of silence; dead when something is due and
 * nothing arrived for the interval plus socket_timeout. */
static void check_health(struct redis_input *ri)
{
    struct redis_driver *d = ri->driver;
    double silence = redis_input_now(ri) - d->last_rx;
    double interval = ri->rc->health_check_interval;
    int awaiting = redisconn_replies_due(&ri->conn) > 0 || d->ping_outstanding ||
                   ri->mode->awaiting(ri, ri->mode_state);
    if (awaiting && silence > interval + ri->rc->socket_timeout) {
        /* The limit, not the silence measured: the cause must read the same
         * every time for a repeat to be recognised. */
        redis_input_fail(ri, "no answer to the health check within %.1fs",
                         interval + ri->rc->socket_timeout);
        return;
    }
    ri->mode->on_tick(ri, ri->mode_state);
    if (d->state != READY)
        return;
    if (!awaiting && silence > interval && ri->mode == &redis_pubsub_mode) {
        const char *argv[] = {"PING"};
        redisconn_command(&ri->conn, REDISCONN_NO_REPLY, 1, argv, NULL);
        d->ping_outstanding = 1;
    }
    redis_input_flush(ri);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
    struct redis_input *ri = userdata;
    struct redis_driver *d = ri->driver;
    char why[64];
    (void)s;
    (void)usec;
    switch (d->state) {
    case DISCONNECTED:
        connect_now(ri);
        return 0;
    case CONNECTING:
        snprintf(why, sizeof why, "timed out connecting after %.1fs", ri->rc->connect_timeout);
        after_connect_step(ri, redisconn_connect_next(&ri->conn, why));
        return 0;
    case HANDSHAKE:
        redis_input_fail(ri, "no complete answer to the handshake within %.1fs",
                         ri->rc->connect_timeout);
        return 0;
    case READY:
        check_health(ri);
        break;
    case STOPPED:
        return 0;
    }
    if (d->state == READY)
        arm_timer(ri, health_tick(ri));
    return 0;
}

/* --- life cycle ------------------------------------------------------------------ */

static size_t max_reply_bytes(const struct config *cfg, size_t nkeys)
{
    size_t message = (size_t)cfg->max_message_bytes + REPLY_OVERHEAD;
    if (cfg->redis.mode == REDIS_MODE_PUBSUB)
        return message + 65536;
    /* One XREADGROUP reply: up to stream_batch entries in all (see
     * redis_stream.c), or one per key when there are more keys. */
    size_t entries = (size_t)cfg->redis.stream_batch > nkeys ? (size_t)cfg->redis.stream_batch
                                                             : nkeys;
    return entries * message + 65536;
}

struct redis_input *redis_input_start_spec(sd_event *loop, const struct config *cfg,
                                           struct ingest *ingest, struct stats *stats,
                                           const struct redis_input_spec *spec)
{
    struct redis_input *ri = xcalloc(1, sizeof *ri);
    ri->driver = xcalloc(1, sizeof *ri->driver);
    ri->cfg = cfg;
    ri->rc = &cfg->redis;
    ri->ingest = ingest;
    ri->stats = stats;
    ri->loop = loop;
    snprintf(ri->label, sizeof ri->label, "%s", spec->label ? spec->label : "");
    ri->nkeys = spec->nkeys;
    ri->keys = xcalloc(ri->nkeys ? ri->nkeys : 1, sizeof *ri->keys);
    for (size_t i = 0; i < ri->nkeys; i++) {
        ri->keys[i] = spec->keys[i];
        ri->keys[i].name = xstrdup(spec->keys[i].name);
    }
    qsort(ri->keys, ri->nkeys, sizeof *ri->keys, compare_keys);
    if (spec->nnodes) {
        ri->nnodes = spec->nnodes;
        ri->nodes = xcalloc(ri->nnodes, sizeof *ri->nodes);
        memcpy(ri->nodes, spec->nodes, ri->nnodes * sizeof *ri->nodes);
    }
    ri->sharded = spec->sharded;
    ri->owner = spec->owner;
    ri->driver->on_change = spec->on_change;
    snprintf(ri->driver->port, sizeof ri->driver->port, "%ld", ri->rc->port);
    ri->driver->opt = (struct redisconn_options){
        .host = ri->rc->host,
        .port = ri->driver->port,
        .unix_path = ri->rc->unix_socket,
        .username = ri->rc->username,
        .password = ri->rc->password,
        .db = ri->rc->mode == REDIS_MODE_STREAM ? ri->rc->db : 0,
        .client_name = ri->rc->client_name,
        .keepalive = ri->rc->keepalive,
        .rcvbuf = ri->rc->socket_buffer_bytes,
        .max_reply_bytes = spec->max_reply_bytes ? spec->max_reply_bytes
                                                 : max_reply_bytes(cfg, ri->nkeys),
        .read_chunk = READ_CHUNK,
        .allow_push = spec->mode == &redis_pubsub_mode,
    };
    use_node(ri);
    ri->mode = spec->mode;
    ri->mode_state = ri->mode->create(ri);
    ri->driver->io_fd = -1;
    ri->driver->backoff = INITIAL_BACKOFF;
    ri->driver->state = DISCONNECTED;
    /* 1 ms accuracy: sd-event's default (250 ms) would stretch a 0.5 s
     * connect or handshake deadline by half. */
    if (sd_event_add_time(loop, &ri->driver->timer, CLOCK_MONOTONIC, 0, 1000, on_timer, ri) < 0) {
        fprintf(stderr, "arclamp-log: out of memory adding a timer\n");
        abort(); /* sd-event fails here only when malloc does */
    }
    connect_now(ri);
    return ri;
}

struct redis_input *redis_input_start(sd_event *loop, const struct config *cfg,
                                      struct ingest *ingest, struct stats *stats)
{
    if (!cfg->redis_enabled)
        return NULL;
    struct redis_key *keys = xcalloc(cfg->nchannels, sizeof *keys);
    for (size_t i = 0; i < cfg->nchannels; i++) {
        keys[i].name = cfg->channels[i];
        keys[i].len = strlen(cfg->channels[i]);
        keys[i].groups = config_groups_for_channel(cfg, cfg->channels[i]);
    }
    struct redis_input_spec spec = {
        .keys = keys,
        .nkeys = cfg->nchannels,
        .mode = cfg->redis.mode == REDIS_MODE_STREAM ? &redis_stream_mode : &redis_pubsub_mode,
    };
    struct redis_input *ri = redis_input_start_spec(loop, cfg, ingest, stats, &spec);
    free(keys);
    return ri;
}

void redis_input_stop(struct redis_input *ri)
{
    if (!ri)
        return;
    if (ri->driver->state == READY && redisconn_wants_write(&ri->conn))
        redisconn_write(&ri->conn); /* the last acknowledgements: one attempt */
    redisconn_free(&ri->conn);
    drop_io(ri);
    ri->driver->state = STOPPED;
    ri->driver->timer = sd_event_source_disable_unref(ri->driver->timer);
    ri->mode->destroy(ri->mode_state);
    for (size_t i = 0; i < ri->nkeys; i++)
        free((char *)ri->keys[i].name);
    free(ri->keys);
    free(ri->nodes);
    free(ri->driver);
    free(ri);
}

static int same_node(const struct cluster_node *a, const struct cluster_node *b)
{
    return strcmp(a->host, b->host) == 0 && strcmp(a->port, b->port) == 0;
}

void redis_input_set_nodes(struct redis_input *ri, const struct cluster_node *nodes, size_t n)
{
    struct cluster_node *list = xcalloc(n + 1, sizeof *list);
    size_t len = 0;
    if (ri->nnodes)
        list[len++] = ri->nodes[ri->node_at];
    for (size_t i = 0; i < n; i++) {
        int dup = 0;
        for (size_t j = 0; j < len && !dup; j++)
            dup = same_node(&list[j], &nodes[i]);
        if (!dup)
            list[len++] = nodes[i];
    }
    /* The connection keeps its own copy of the address: only the list
     * (and so the next address after a failure) changes. */
    free(ri->nodes);
    ri->nodes = list;
    ri->nnodes = len;
    ri->node_at = 0;
}

int redis_input_is_ready(const struct redis_input *ri)
{
    return ri->driver->state == READY;
}

const char *redis_input_state(struct redis_input *ri)
{
    struct redis_driver *d = ri->driver;
    switch (d->state) {
    case READY:
        return "redis connected";
    case CONNECTING:
    case HANDSHAKE:
        return "redis connecting";
    case DISCONNECTED: {
        double left = d->retry_at - redis_input_now(ri);
        snprintf(d->state_text, sizeof d->state_text, "redis disconnected (retry in %.1fs)",
                 left > 0 ? left : 0);
        return d->state_text;
    }
    case STOPPED:
        break;
    }
    return "redis stopped";
}
