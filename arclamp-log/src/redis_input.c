/* redis_input: the Redis connection state machine, pub/sub and stream
 * reading. See redis_input.h. */
#include "redis_input.h"
#include "log.h"
#include "strbuf.h"

#include <errno.h>
#include <hiredis/hiredis.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define INITIAL_BACKOFF 0.1
/* Bytes read per wakeup at most, so sockets and timers get their turn. */
#define READ_CHUNK (256 * 1024)
#define READS_PER_WAKEUP 16
/* hiredis 0.14's reader moves its whole unread buffer after every reply, so
 * a large feed costs quadratic time (measured: 1.8 us per 1.7 KB message fed
 * 256 KiB at a time, 0.4 us fed 4 KiB at a time). Feed it in small slices. */
#define FEED_SLICE 4096
/* Replies we wait for at most at once (handshake and stream acks). */
#define MAX_EXPECTED 256

enum state { DISCONNECTED, CONNECTING, HANDSHAKE, READY, STOPPED };

/* What a sent command's reply will be. CMD_PUSH replies (SUBSCRIBE, and
 * PING while subscribed) arrive as push arrays and are recognised by their
 * content; all others arrive in order and are queued in `expected`. */
enum command { CMD_AUTH, CMD_SELECT, CMD_PUSH, CMD_XGROUP, CMD_XREAD, CMD_XACK, CMD_XDEL };

struct stream_key {
    const char *name;              /* the stream key (a channel name) */
    unsigned long long groups;     /* log groups it feeds */
    char pending_from[64];         /* pending phase: read after this id */
    int pending_done;              /* pending phase: no more pending entries */
    strbuf acks;                   /* ids of the batch, NUL-separated */
    size_t nacks;
};

struct redis_input {
    const struct config *cfg;      /* borrowed */
    const struct redis_config *rc; /* &cfg->redis */
    struct ingest *ingest;         /* borrowed */
    struct stats *stats;           /* borrowed */
    sd_event *loop;                /* borrowed */
    sd_event_source *io;           /* watches fd; NULL while disconnected */
    sd_event_source *timer;        /* backoff, timeouts and health checks */
    int fd;                        /* the connection, -1 when none */
    enum state state;
    redisReader *reader;           /* RESP parser of the connection */
    strbuf out;                    /* bytes not yet sent */
    double backoff;                /* delay before the next reconnect */
    double retry_at;               /* monotonic time of that reconnect */
    double last_rx;                /* monotonic time data last arrived */
    int ping_outstanding;          /* a health-check PING is unanswered */
    size_t subscribed;             /* SUBSCRIBE confirmations so far */
    enum command expected[MAX_EXPECTED]; /* replies due, oldest first (streams) */
    size_t exp_head, exp_count;
    struct stream_key *keys;       /* per channel */
    size_t nkeys;
    int pending_phase;             /* stream: re-reading our own pending entries */
    int waiting_for_flush;         /* stream: batch read, not yet on disk */
    char state_text[96];           /* redis_input_state's answer */
    char chunk[READ_CHUNK];        /* read scratch, holds nothing between reads */
};

static double now_mono(const struct redis_input *ri)
{
    uint64_t usec;
    sd_event_now(ri->loop, CLOCK_MONOTONIC, &usec);
    return (double)usec / 1e6;
}

static void arm_timer(struct redis_input *ri, double delay)
{
    uint64_t usec;
    sd_event_now(ri->loop, CLOCK_MONOTONIC, &usec);
    sd_event_source_set_time(ri->timer, usec + (uint64_t)(delay * 1e6));
    sd_event_source_set_enabled(ri->timer, SD_EVENT_ONESHOT);
}

static const char *endpoint(const struct redis_input *ri, char *buf, size_t len)
{
    if (ri->rc->unix_socket)
        snprintf(buf, len, "unix:%s", ri->rc->unix_socket);
    else
        snprintf(buf, len, "%s:%ld", ri->rc->host, ri->rc->port);
    return buf;
}

static void update_io_events(struct redis_input *ri)
{
    if (!ri->io)
        return;
    uint32_t events = ri->state == CONNECTING ? EPOLLOUT : EPOLLIN;
    if (ri->out.len)
        events |= EPOLLOUT;
    sd_event_source_set_io_events(ri->io, events);
}

static void close_connection(struct redis_input *ri)
{
    ri->io = sd_event_source_disable_unref(ri->io);
    if (ri->fd >= 0)
        close(ri->fd);
    ri->fd = -1;
    if (ri->reader)
        redisReaderFree(ri->reader);
    ri->reader = NULL;
    strbuf_reset(&ri->out);
    ri->exp_head = ri->exp_count = 0;
    ri->subscribed = 0;
    ri->ping_outstanding = 0;
    ri->waiting_for_flush = 0;
    for (size_t i = 0; i < ri->nkeys; i++) {
        strbuf_reset(&ri->keys[i].acks);
        ri->keys[i].nacks = 0;
    }
    if (ri->stats->redis_connected)
        ri->stats->redis_connected = 0;
}

/* Drops the connection and schedules the next attempt. */
static void fail(struct redis_input *ri, const char *why)
{
    char where[300];
    int was_ready = ri->state == READY;
    close_connection(ri);
    ri->stats->redis_reconnects++;
    log_event(was_ready ? LOG_WARNING : LOG_NOTICE,
              was_ready ? "redis_disconnected" : "redis_connect_failed",
              LOG_FIELDS({"ARCLAMP_REDIS", endpoint(ri, where, sizeof where)},
                         {"ARCLAMP_REASON", why}),
              "Redis %s: %s; retrying in %.1fs", where, why, ri->backoff);
    ri->state = DISCONNECTED;
    ri->retry_at = now_mono(ri) + ri->backoff;
    arm_timer(ri, ri->backoff);
    ri->backoff *= 2;
    if (ri->backoff > ri->rc->reconnect_max_delay)
        ri->backoff = ri->rc->reconnect_max_delay;
}

static void send_command(struct redis_input *ri, enum command expect, int argc,
                         const char **argv, const size_t *argvlen)
{
    char *cmd;
    int len = redisFormatCommandArgv(&cmd, argc, argv, argvlen);
    if (len < 0)
        abort(); /* only fails when out of memory */
    strbuf_append(&ri->out, cmd, (size_t)len);
    redisFreeCommand(cmd);
    if (expect != CMD_PUSH) {
        if (ri->exp_count == MAX_EXPECTED)
            abort(); /* the protocol below never queues this many */
        ri->expected[(ri->exp_head + ri->exp_count++) % MAX_EXPECTED] = expect;
    }
}

static void send_simple(struct redis_input *ri, enum command expect, const char *a0,
                        const char *a1, const char *a2)
{
    const char *argv[3] = {a0, a1, a2};
    int argc = a2 ? 3 : a1 ? 2 : 1;
    send_command(ri, expect, argc, argv, NULL);
}

static int write_pending(struct redis_input *ri)
{
    while (ri->out.len) {
        ssize_t n = write(ri->fd, ri->out.data, ri->out.len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n < 0) {
            fail(ri, strerror(errno));
            return -1;
        }
        strbuf_consume(&ri->out, (size_t)n);
    }
    update_io_events(ri);
    return 0;
}

static void send_stream_read(struct redis_input *ri)
{
    const char *argv[16 + 2 * 64];
    char count[24], block[24];
    int argc = 0;
    snprintf(count, sizeof count, "%ld", ri->rc->stream_batch);
    /* Block for half the health interval: a silent connection is then dead. */
    snprintf(block, sizeof block, "%ld", (long)(ri->rc->health_check_interval * 500) + 1);
    argv[argc++] = "XREADGROUP";
    argv[argc++] = "GROUP";
    argv[argc++] = ri->rc->stream_group;
    argv[argc++] = ri->rc->stream_consumer;
    argv[argc++] = "COUNT";
    argv[argc++] = count;
    if (!ri->pending_phase) {
        argv[argc++] = "BLOCK";
        argv[argc++] = block;
    }
    argv[argc++] = "STREAMS";
    int first_key = argc;
    for (size_t i = 0; i < ri->nkeys; i++) {
        if (!ri->pending_phase || !ri->keys[i].pending_done)
            argv[argc++] = ri->keys[i].name;
    }
    int nread = argc - first_key;
    for (size_t i = 0; i < ri->nkeys; i++) {
        if (!ri->pending_phase)
            argv[argc++] = ">";
        else if (!ri->keys[i].pending_done)
            argv[argc++] = ri->keys[i].pending_from;
    }
    (void)nread;
    send_command(ri, CMD_XREAD, argc, argv, NULL);
}

/* Sends XACK (and XDEL) for the batch just written. */
static void send_acks(struct redis_input *ri)
{
    for (size_t i = 0; i < ri->nkeys; i++) {
        struct stream_key *k = &ri->keys[i];
        if (!k->nacks)
            continue;
        const char **argv = xcalloc(k->nacks + 3, sizeof *argv);
        argv[0] = "XACK";
        argv[1] = k->name;
        argv[2] = ri->rc->stream_group;
        const char *id = k->acks.data;
        for (size_t a = 0; a < k->nacks; a++) {
            argv[3 + a] = id;
            id += strlen(id) + 1;
        }
        send_command(ri, CMD_XACK, (int)k->nacks + 3, argv, NULL);
        if (ri->rc->stream_delete_acked) {
            /* Reuse the vector: XDEL key id... starts one slot later. */
            argv[1] = "XDEL";
            argv[2] = k->name;
            send_command(ri, CMD_XDEL, (int)k->nacks + 2, argv + 1, NULL);
        }
        free(argv);
        strbuf_reset(&k->acks);
        k->nacks = 0;
    }
}

/* The batch is in the buffers: write it out, then acknowledge and read on.
 * While the disk refuses, wait (the health timer retries). */
static void finish_stream_batch(struct redis_input *ri)
{
    if (fileset_flush(&ri->ingest->files, now_mono(ri)) > 0) {
        if (!ri->waiting_for_flush)
            log_event(LOG_WARNING, "redis_stream_paused", LOG_NO_FIELDS,
                      "trace logs cannot be written; stream entries stay unacknowledged "
                      "in Redis until they can");
        ri->waiting_for_flush = 1;
        return;
    }
    ri->waiting_for_flush = 0;
    send_acks(ri);
    if (ri->pending_phase) {
        int all_done = 1;
        for (size_t i = 0; i < ri->nkeys; i++)
            all_done &= ri->keys[i].pending_done;
        ri->pending_phase = !all_done;
    }
    send_stream_read(ri);
}

static double health_tick(const struct redis_input *ri)
{
    double tick = ri->rc->health_check_interval / 4;
    return tick < 0.05 ? 0.05 : tick > 1 ? 1 : tick;
}

static void become_ready(struct redis_input *ri, const char *how)
{
    char where[300];
    ri->state = READY;
    ri->backoff = INITIAL_BACKOFF;
    ri->stats->redis_connected = 1;
    arm_timer(ri, health_tick(ri));
    log_event(LOG_INFO, "redis_connected",
              LOG_FIELDS({"ARCLAMP_REDIS", endpoint(ri, where, sizeof where)}),
              "Redis %s: %s %zu %s", where, how, ri->nkeys,
              ri->nkeys == 1 ? "channel" : "channels");
}

static struct stream_key *find_key(struct redis_input *ri, const char *name, size_t len)
{
    for (size_t i = 0; i < ri->nkeys; i++) {
        if (strlen(ri->keys[i].name) == len && memcmp(ri->keys[i].name, name, len) == 0)
            return &ri->keys[i];
    }
    return NULL;
}

static int is_string(const redisReply *r)
{
    return r && (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS);
}

static void ingest_payload(struct redis_input *ri, const struct stream_key *k,
                           const redisReply *payload)
{
    if (!k || !is_string(payload))
        return;
    ingest_message(ri->ingest, payload->str, payload->len, k->groups, INPUT_REDIS, time(NULL),
                   now_mono(ri));
}

/* Pub/sub: everything after the handshake is a push array. */
static int handle_pubsub_reply(struct redis_input *ri, redisReply *r)
{
    if (r->type == REDIS_REPLY_ERROR) {
        fail(ri, r->str);
        return -1;
    }
    if (r->type != REDIS_REPLY_ARRAY || r->elements < 2 || !is_string(r->element[0])) {
        if (ri->exp_count) { /* +OK of AUTH or SELECT */
            ri->exp_head = (ri->exp_head + 1) % MAX_EXPECTED;
            ri->exp_count--;
        }
        return 0;
    }
    const char *kind = r->element[0]->str;
    if (strcmp(kind, "message") == 0 && r->elements == 3) {
        ingest_payload(ri, find_key(ri, r->element[1]->str, r->element[1]->len), r->element[2]);
    } else if (strcmp(kind, "subscribe") == 0) {
        if (++ri->subscribed == ri->nkeys)
            become_ready(ri, "subscribed to");
    } else if (strcmp(kind, "pong") == 0) {
        ri->ping_outstanding = 0;
    }
    return 0;
}

/* One XREADGROUP reply: [[key, [[id, [field, value, ...]], ...]], ...] or nil. */
static void handle_stream_entries(struct redis_input *ri, const redisReply *r)
{
    if (ri->pending_phase) {
        for (size_t i = 0; i < ri->nkeys; i++)
            ri->keys[i].pending_done = 1; /* unless entries say otherwise below */
    }
    for (size_t s = 0; r->type == REDIS_REPLY_ARRAY && s < r->elements; s++) {
        const redisReply *pair = r->element[s];
        if (pair->type != REDIS_REPLY_ARRAY || pair->elements != 2 || !is_string(pair->element[0]))
            continue;
        struct stream_key *k = find_key(ri, pair->element[0]->str, pair->element[0]->len);
        const redisReply *entries = pair->element[1];
        if (!k || entries->type != REDIS_REPLY_ARRAY)
            continue;
        for (size_t e = 0; e < entries->elements; e++) {
            const redisReply *entry = entries->element[e];
            if (entry->type != REDIS_REPLY_ARRAY || entry->elements != 2 ||
                !is_string(entry->element[0]) || entry->element[0]->len >= sizeof k->pending_from)
                continue;
            const redisReply *fields = entry->element[1];
            for (size_t f = 0; fields->type == REDIS_REPLY_ARRAY && f + 1 < fields->elements; f += 2) {
                if (is_string(fields->element[f]) && strcmp(fields->element[f]->str, "sample") == 0)
                    ingest_payload(ri, k, fields->element[f + 1]);
            }
            strbuf_append(&k->acks, entry->element[0]->str, entry->element[0]->len + 1);
            k->nacks++;
            if (ri->pending_phase) {
                memcpy(k->pending_from, entry->element[0]->str, entry->element[0]->len + 1);
                k->pending_done = 0;
            }
        }
    }
    finish_stream_batch(ri);
}

static int handle_stream_reply(struct redis_input *ri, redisReply *r)
{
    if (ri->exp_count == 0) {
        fail(ri, "unexpected reply");
        return -1;
    }
    enum command cmd = ri->expected[ri->exp_head];
    ri->exp_head = (ri->exp_head + 1) % MAX_EXPECTED;
    ri->exp_count--;
    if (r->type == REDIS_REPLY_ERROR) {
        if (cmd == CMD_XGROUP && strncmp(r->str, "BUSYGROUP", 9) == 0)
            r = NULL; /* the group exists: fine */
        else if (cmd == CMD_XACK || cmd == CMD_XDEL) {
            log_event(LOG_WARNING, "redis_ack_failed", LOG_FIELDS({"ARCLAMP_REASON", r->str}),
                      "Redis refused an acknowledgement: %s", r->str);
            return 0;
        } else {
            fail(ri, r->str);
            return -1;
        }
    }
    if (cmd == CMD_XGROUP && ri->exp_count == 0 && ri->state == HANDSHAKE) {
        become_ready(ri, "reading the streams of");
        ri->pending_phase = 1;
        for (size_t i = 0; i < ri->nkeys; i++) {
            snprintf(ri->keys[i].pending_from, sizeof ri->keys[i].pending_from, "0");
            ri->keys[i].pending_done = 0;
        }
        send_stream_read(ri);
    } else if (cmd == CMD_XREAD && r) {
        handle_stream_entries(ri, r);
    }
    return 0;
}

static void start_handshake(struct redis_input *ri)
{
    ri->state = HANDSHAKE;
    ri->reader = redisReaderCreate();
    /* The reader never holds more than one message beyond what we drained. */
    if (ri->rc->password) {
        if (ri->rc->username)
            send_simple(ri, CMD_AUTH, "AUTH", ri->rc->username, ri->rc->password);
        else
            send_simple(ri, CMD_AUTH, "AUTH", ri->rc->password, NULL);
    }
    if (ri->rc->mode == REDIS_MODE_STREAM) {
        char db[24];
        snprintf(db, sizeof db, "%ld", ri->rc->db);
        if (ri->rc->db)
            send_simple(ri, CMD_SELECT, "SELECT", db, NULL);
        for (size_t i = 0; i < ri->nkeys; i++) {
            const char *argv[] = {"XGROUP", "CREATE", ri->keys[i].name, ri->rc->stream_group,
                                  "0", "MKSTREAM"};
            send_command(ri, CMD_XGROUP, 6, argv, NULL);
        }
    } else {
        const char **argv = xcalloc(ri->nkeys + 1, sizeof *argv);
        argv[0] = "SUBSCRIBE";
        for (size_t i = 0; i < ri->nkeys; i++)
            argv[i + 1] = ri->keys[i].name;
        send_command(ri, CMD_PUSH, (int)ri->nkeys + 1, argv, NULL);
        free(argv);
    }
    ri->last_rx = now_mono(ri);
    write_pending(ri);
}

/* Handles every complete reply the reader holds. -1 when the connection
 * was dropped meanwhile. */
static int drain_replies(struct redis_input *ri)
{
    void *reply;
    while (ri->state != DISCONNECTED) {
        if (redisReaderGetReply(ri->reader, &reply) != REDIS_OK) {
            fail(ri, ri->reader->errstr);
            return -1;
        }
        if (!reply)
            return 0;
        int rc = ri->rc->mode == REDIS_MODE_STREAM ? handle_stream_reply(ri, reply)
                                                   : handle_pubsub_reply(ri, reply);
        freeReplyObject(reply);
        if (rc < 0)
            return -1;
    }
    return -1;
}

static void read_replies(struct redis_input *ri)
{
    for (int round = 0; round < READS_PER_WAKEUP && ri->state != DISCONNECTED; round++) {
        ssize_t n = read(ri->fd, ri->chunk, sizeof ri->chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n <= 0) {
            fail(ri, n == 0 ? "connection closed by Redis" : strerror(errno));
            return;
        }
        ri->last_rx = now_mono(ri);
        ri->ping_outstanding = 0;
        for (size_t off = 0; off < (size_t)n && ri->state != DISCONNECTED; off += FEED_SLICE) {
            size_t len = (size_t)n - off < FEED_SLICE ? (size_t)n - off : FEED_SLICE;
            redisReaderFeed(ri->reader, ri->chunk + off, len);
            if (drain_replies(ri) < 0)
                return;
        }
        if (ri->state == DISCONNECTED)
            return;
        if (ri->reader->len - ri->reader->pos > (size_t)ri->cfg->max_message_bytes + 65536) {
            ingest_refuse_message(ri->ingest, STACKLINE_TOO_LONG, INPUT_REDIS, now_mono(ri));
            fail(ri, "a message exceeds max_message_bytes");
            return;
        }
        if ((size_t)n < sizeof ri->chunk)
            break;
    }
    if (ri->state != DISCONNECTED && ri->out.len)
        write_pending(ri);
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
    struct redis_input *ri = userdata;
    (void)s;
    if (ri->state == CONNECTING) {
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
            err = errno;
        if (err) {
            fail(ri, strerror(err));
            return 0;
        }
        start_handshake(ri);
        return 0;
    }
    if (revents & (EPOLLIN | EPOLLHUP | EPOLLERR))
        read_replies(ri);
    if (ri->state != DISCONNECTED && (revents & EPOLLOUT))
        write_pending(ri);
    return 0;
}

/* A large kernel buffer lets a burst (or a moment of disk writeback) wait in
 * our socket instead of in Redis, which disconnects a subscriber whose
 * output buffer passes its limit (32 MB by default) and loses what it held.
 * SO_RCVBUFFORCE works for root or CAP_NET_ADMIN; otherwise the kernel's
 * rmem_max caps it. */
static void set_receive_buffer(int fd, long bytes)
{
    int size = bytes > INT32_MAX / 2 ? INT32_MAX / 2 : (int)bytes;
    if (size <= 0)
        return;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) < 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
}

static int open_socket(struct redis_input *ri, const char **why)
{
    if (ri->rc->unix_socket) {
        struct sockaddr_un sun = {.sun_family = AF_UNIX};
        if (strlen(ri->rc->unix_socket) >= sizeof sun.sun_path)
            return *why = "unix socket path too long", -1;
        strcpy(sun.sun_path, ri->rc->unix_socket);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd >= 0)
            set_receive_buffer(fd, ri->rc->socket_buffer_bytes);
        if (fd < 0 || (connect(fd, (struct sockaddr *)&sun, sizeof sun) < 0 && errno != EINPROGRESS)) {
            *why = strerror(errno);
            if (fd >= 0)
                close(fd);
            return -1;
        }
        return fd;
    }
    char port[16];
    snprintf(port, sizeof port, "%ld", ri->rc->port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_ADDRCONFIG}, *res;
    int rc = getaddrinfo(ri->rc->host, port, &hints, &res);
    if (rc != 0)
        return *why = gai_strerror(rc), -1;
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd >= 0) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
        set_receive_buffer(fd, ri->rc->socket_buffer_bytes);
        if (connect(fd, res->ai_addr, res->ai_addrlen) < 0 && errno != EINPROGRESS) {
            *why = strerror(errno);
            close(fd);
            fd = -1;
        }
    } else {
        *why = strerror(errno);
    }
    freeaddrinfo(res);
    return fd;
}

static void connect_now(struct redis_input *ri)
{
    const char *why = NULL;
    ri->fd = open_socket(ri, &why);
    if (ri->fd < 0) {
        fail(ri, why);
        return;
    }
    ri->state = CONNECTING;
    if (sd_event_add_io(ri->loop, &ri->io, ri->fd, EPOLLOUT, on_io, ri) < 0) {
        fail(ri, "cannot watch the socket");
        return;
    }
    arm_timer(ri, ri->rc->connect_timeout);
}

/* Health check: PING after an interval of silence; dead after two. */
static void check_health(struct redis_input *ri)
{
    double silence = now_mono(ri) - ri->last_rx;
    double interval = ri->rc->health_check_interval;
    if (silence > 2 * interval) {
        fail(ri, "no answer to the health check");
        return;
    }
    if (ri->waiting_for_flush) {
        ri->last_rx = now_mono(ri); /* nothing is asked of Redis while we wait */
        finish_stream_batch(ri);
    }
    if (ri->rc->mode == REDIS_MODE_PUBSUB && silence > interval && !ri->ping_outstanding) {
        send_simple(ri, CMD_PUSH, "PING", NULL, NULL);
        ri->ping_outstanding = 1;
    }
    if (ri->state == READY && ri->out.len)
        write_pending(ri);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
    struct redis_input *ri = userdata;
    (void)s;
    (void)usec;
    switch (ri->state) {
    case DISCONNECTED:
        connect_now(ri);
        return 0;
    case CONNECTING:
    case HANDSHAKE:
        fail(ri, "timed out connecting");
        return 0;
    case READY:
        check_health(ri);
        break;
    case STOPPED:
        return 0;
    }
    if (ri->state == READY)
        arm_timer(ri, health_tick(ri));
    return 0;
}

struct redis_input *redis_input_start(sd_event *loop, const struct config *cfg,
                                      struct ingest *ingest, struct stats *stats)
{
    if (!cfg->redis_enabled)
        return NULL;
    struct redis_input *ri = xcalloc(1, sizeof *ri);
    ri->cfg = cfg;
    ri->rc = &cfg->redis;
    ri->ingest = ingest;
    ri->stats = stats;
    ri->loop = loop;
    ri->fd = -1;
    ri->backoff = INITIAL_BACKOFF;
    ri->nkeys = cfg->nchannels;
    ri->keys = xcalloc(ri->nkeys, sizeof *ri->keys);
    for (size_t i = 0; i < ri->nkeys; i++) {
        ri->keys[i].name = cfg->channels[i];
        ri->keys[i].groups = config_groups_for_channel(cfg, cfg->channels[i]);
    }
    if (sd_event_add_time(loop, &ri->timer, CLOCK_MONOTONIC, 0, 0, on_timer, ri) < 0)
        abort(); /* only fails when out of memory */
    ri->state = DISCONNECTED;
    connect_now(ri);
    return ri;
}

void redis_input_stop(struct redis_input *ri)
{
    if (!ri)
        return;
    if (ri->state == READY && ri->out.len) {
        /* Last acknowledgements: one nonblocking attempt, the kernel
         * delivers what it accepted after close. */
        ssize_t ignored = write(ri->fd, ri->out.data, ri->out.len);
        (void)ignored;
    }
    close_connection(ri);
    ri->state = STOPPED;
    ri->timer = sd_event_source_disable_unref(ri->timer);
    for (size_t i = 0; i < ri->nkeys; i++)
        strbuf_free(&ri->keys[i].acks);
    free(ri->keys);
    strbuf_free(&ri->out);
    free(ri);
}

const char *redis_input_state(struct redis_input *ri)
{
    switch (ri->state) {
    case READY:
        return "redis connected";
    case CONNECTING:
    case HANDSHAKE:
        return "redis connecting";
    case DISCONNECTED:
        snprintf(ri->state_text, sizeof ri->state_text, "redis disconnected (retry in %.1fs)",
                 ri->retry_at - now_mono(ri) > 0 ? ri->retry_at - now_mono(ri) : 0);
        return ri->state_text;
    case STOPPED:
        break;
    }
    return "redis stopped";
}
