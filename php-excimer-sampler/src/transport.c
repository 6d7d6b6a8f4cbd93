/* transport: target URIs, message packing, and delivery over Redis
 * (common/redisconn), Redis Cluster (common/rediscluster) or datagrams.
 * See transport.h. */
#include "transport.h"
#include "clock.h"
#include "linefields.h"
#include "netaddr.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Largest datagram we send: UDP's limit less headers; unix sockets accept
 * more, but arclamp-log's default max_message_bytes is 1 MiB and the kernel's
 * default send buffer about 200 KiB (a unix datagram counts against the
 * sender's buffer until the receiver has read it: a run of several such
 * datagrams waits for the socket, see send_datagram). */
#define UDP_DATAGRAM_MAX 65000
#define UNIX_DATAGRAM_MAX 200000
/* Streams are capped so a stopped arclamp-log cannot fill Redis. */
#define STREAM_MAXLEN "1000000"
#define BACKOFF_FIRST 0.05
#define BACKOFF_MAX 1.0
/* A reply to PUBLISH or XADD is a few dozen bytes. */
#define MAX_REPLY_BYTES 65536
/* CLUSTER SLOTS names every slot range with its master and replicas: a
 * few hundred bytes per range, and a large, fragmented cluster has
 * thousands of ranges. */
#define MAX_MAP_REPLY_BYTES (8 * 1024 * 1024)

static const char *const error_names[TRANSPORT_NERRORS] = {"connect", "timeout", "send", "reply",
                                                           "backlog"};

const char *transport_error_name(enum transport_error e)
{
    return (unsigned)e < TRANSPORT_NERRORS ? error_names[e] : "unknown";
}

void transport_fail(transport_stats *st, enum transport_error e, long lines, const char *fmt, ...)
{
    va_list ap;
    st->errors[e]++;
    st->lines_failed += lines;
    va_start(ap, fmt);
    vsnprintf(st->last_error, sizeof st->last_error, fmt, ap);
    va_end(ap);
}

/* --- target URIs ----------------------------------------------------------- */

/* Copies len bytes of src into dst (size bytes) decoding %XX; -1 when it
 * does not fit, is empty while required, or holds a bad escape or a NUL. */
static int decode_part(char *dst, size_t size, const char *src, size_t len, int allow_empty)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        int c = (unsigned char)src[i];
        if (c == '%') {
            if (i + 2 >= len)
                return -1;
            int hi = linefields_hexval(src[i + 1]), lo = linefields_hexval(src[i + 2]);
            if (hi < 0 || lo < 0)
                return -1;
            c = hi * 16 + lo;
            i += 2;
        }
        if (c == 0 || n + 1 >= size)
            return -1;
        dst[n++] = (char)c;
    }
    dst[n] = '\0';
    return n || allow_empty ? 0 : -1;
}

/* A decimal number 0..max, digits only; -1 when it is anything else. */
static long parse_count(const char *s, size_t len, long max)
{
    char digits[12];
    char *end;
    if (decode_part(digits, sizeof digits, s, len, 0) < 0 || digits[0] < '0' || digits[0] > '9')
        return -1;
    long v = strtol(digits, &end, 10);
    return *end || v > max ? -1 : v;
}

/* The OPTIONS of a redis target: stream=1, db=N, channel=NAME (unix);
 * of a cluster target: stream=1, shards=N, shard=K (*shard, -1 unset). */
static int parse_options(const char *q, transport_target *t, int *have_channel, long *shard)
{
    while (q && *q) {
        const char *amp = strchr(q, '&');
        size_t len = amp ? (size_t)(amp - q) : strlen(q);
        if (len == 8 && memcmp(q, "stream=1", 8) == 0)
            t->kind = TRANSPORT_REDIS_XADD;
        else if (len == 8 && memcmp(q, "stream=0", 8) == 0)
            t->kind = TRANSPORT_REDIS_PUBLISH;
        else if (!t->cluster && len > 3 && memcmp(q, "db=", 3) == 0) {
            if ((t->db = parse_count(q + 3, len - 3, 1000000)) < 0)
                return -1;
        } else if (!t->cluster && len > 8 && memcmp(q, "channel=", 8) == 0) {
            if (decode_part(t->key, sizeof t->key, q + 8, len - 8, 0) < 0)
                return -1;
            *have_channel = 1;
        } else if (t->cluster && len > 7 && memcmp(q, "shards=", 7) == 0) {
            /* (the range is checked by parse_cluster, which says why) */
            long n = parse_count(q + 7, len - 7, 99999999);
            if (n < 0)
                return -1;
            t->shards = n > TRANSPORT_SHARDS_MAX ? TRANSPORT_SHARDS_MAX + 1 : (unsigned)n;
        } else if (t->cluster && len > 6 && memcmp(q, "shard=", 6) == 0) {
            if ((*shard = parse_count(q + 6, len - 6, 99999999)) < 0)
                return -1;
        } else
            return -1;
        q = amp ? amp + 1 : NULL;
    }
    return 0;
}

/* [[USER]:PASSWORD@] at the start of `s` (before the first '/'). Returns
 * the rest, or NULL when malformed. */
static const char *parse_userinfo(const char *s, transport_target *t)
{
    const char *slash = strchr(s, '/'), *at = strchr(s, '@');
    if (!at || (slash && at > slash))
        return s;
    const char *colon = memchr(s, ':', (size_t)(at - s));
    if (!colon)
        return NULL; /* a user without a password: ambiguous, refused */
    if (decode_part(t->user, sizeof t->user, s, (size_t)(colon - s), 1) < 0 ||
        decode_part(t->password, sizeof t->password, colon + 1, (size_t)(at - colon - 1), 0) < 0)
        return NULL;
    return at + 1;
}

/* What redis:// and redis-cluster:// targets share: [[USER]:PASSWORD@]
 * first, ?OPTIONS last. Returns the rest (its length before '?' in *len),
 * or NULL when malformed. */
static const char *parse_redis_common(const char *s, transport_target *t, size_t *len,
                                      int *have_channel, long *shard)
{
    t->kind = TRANSPORT_REDIS_PUBLISH;
    s = parse_userinfo(s, t);
    if (!s)
        return NULL;
    const char *query = strchr(s, '?');
    *len = query ? (size_t)(query - s) : strlen(s);
    *have_channel = 0;
    *shard = -1;
    if (parse_options(query ? query + 1 : NULL, t, have_channel, shard) < 0)
        return NULL;
    return s;
}

static int parse_redis(const char *s, transport_target *t, int over_unix, char *why,
                       size_t whylen)
{
    size_t len;
    int have_channel;
    long shard;
    s = parse_redis_common(s, t, &len, &have_channel, &shard);
    if (!s)
        return -1;
    if (over_unix) {
        t->redis_unix = 1;
        if (len == 0 || s[0] != '/' || !have_channel ||
            decode_part(t->path, sizeof t->path, s, len, 0) < 0)
            return -1;
        return 0;
    }
    const char *slash = memchr(s, '/', len);
    if (!slash || have_channel)
        return -1;
    if (netaddr_split(s, (size_t)(slash - s), t->host, sizeof t->host, t->port, "redis://", why,
                      whylen) < 0)
        return -1;
    return decode_part(t->key, sizeof t->key, slash + 1, len - (size_t)(slash + 1 - s), 0);
}

/* This host's shard of `shards`: by host name, so that all of a host's
 * messages go to one shard key, in order (transport.h). */
static unsigned host_shard(unsigned shards)
{
    char host[256];
    if (gethostname(host, sizeof host - 1) < 0)
        host[0] = '\0';
    host[sizeof host - 1] = '\0';
    return cluster_crc16(host, strlen(host)) % shards;
}

/* redis-cluster://[[USER]:PASSWORD@]SEEDS/CHANNEL?shards=N[&OPTIONS] */
static int parse_cluster(const char *s, transport_target *t, char *why, size_t whylen)
{
    size_t len;
    int have_channel;
    long shard;
    t->cluster = 1;
    s = parse_redis_common(s, t, &len, &have_channel, &shard);
    if (!s)
        return -1;
    if (t->shards < 1 || t->shards > TRANSPORT_SHARDS_MAX) {
        snprintf(why, whylen, "shards=N, 1 to %d, is required", TRANSPORT_SHARDS_MAX);
        return -1;
    }
    if (shard >= (long)t->shards) {
        snprintf(why, whylen, "shard=%ld is not below shards=%u", shard, t->shards);
        return -1;
    }
    const char *slash = memchr(s, '/', len);
    size_t seeds_len = slash ? (size_t)(slash - s) : len;
    if (!slash || seeds_len >= sizeof t->seeds)
        return -1;
    memcpy(t->seeds, s, seeds_len);
    t->seeds[seeds_len] = '\0';
    struct cluster_node *nodes;
    size_t n;
    if (cluster_nodes_parse(t->seeds, &nodes, &n, why, whylen) < 0)
        return -1;
    free(nodes);
    if (decode_part(t->key, sizeof t->key, slash + 1, len - (size_t)(slash + 1 - s), 0) < 0)
        return -1;
    if (strpbrk(t->key, "{}")) {
        /* CHANNEL{K}'s hash tag must be {K}, the first braces in it */
        snprintf(why, whylen, "the channel may not hold '{' or '}' (its shard keys are "
                 "CHANNEL{K})");
        return -1;
    }
    t->shard = shard >= 0 ? (unsigned)shard : host_shard(t->shards);
    return 0;
}

int transport_parse(const char *uri, transport_target *t, char *err, size_t errlen)
{
    char why[128] = "";
    memset(t, 0, sizeof *t);
    if (strncmp(uri, "unix://", 7) == 0) {
        t->kind = TRANSPORT_UNIX;
        size_t len = strlen(uri + 7);
        if (uri[7] == '/' && len < sizeof t->path) {
            memcpy(t->path, uri + 7, len + 1);
            return 0;
        }
    } else if (strncmp(uri, "udp://", 6) == 0) {
        t->kind = TRANSPORT_UDP;
        if (netaddr_split(uri + 6, strlen(uri + 6), t->host, sizeof t->host, t->port, "udp://",
                          why, sizeof why) == 0)
            return 0;
    } else if (strncmp(uri, "redis://", 8) == 0) {
        if (parse_redis(uri + 8, t, 0, why, sizeof why) == 0)
            return 0;
    } else if (strncmp(uri, "redis+unix://", 13) == 0) {
        if (parse_redis(uri + 13, t, 1, why, sizeof why) == 0)
            return 0;
    } else if (strncmp(uri, "redis-cluster://", 16) == 0) {
        if (parse_cluster(uri + 16, t, why, sizeof why) == 0)
            return 0;
    }
    snprintf(err, errlen,
             "invalid Arc Lamp target \"%.200s\": expected redis://HOST:PORT/CHANNEL"
             "[?stream=1], redis+unix:///PATH?channel=CHANNEL, "
             "redis-cluster://HOST:PORT[,HOST:PORT...]/CHANNEL?shards=N[&stream=1], "
             "udp://HOST:PORT or unix:///PATH%s%s", uri, why[0] ? ": " : "", why);
    return -1;
}

/* --- messages ------------------------------------------------------------------ */

/* The next message: whole lines from text+*pos, joined by '\n' as they are,
 * at most `max` bytes unless one line alone is longer. Advances *pos past
 * it (and its separator); sets *lines. */
static const char *next_message(const char *text, size_t len, size_t *pos, size_t max,
                                size_t *mlen, size_t *lines)
{
    const char *start = text + *pos, *end = text + len, *p = start, *msg_end = start;
    *lines = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = nl ? nl : end;
        if (*lines && (size_t)(line_end - start) > max)
            break;
        (*lines)++;
        msg_end = line_end;
        p = nl ? nl + 1 : end;
    }
    *mlen = (size_t)(msg_end - start);
    *pos = (size_t)(p - text);
    return start;
}

/* --- datagrams ------------------------------------------------------------------ */

/* A datagram socket connected to the target: connected, so that poll()
 * says when the receiver's queue has room again (a unix socket's peer). */
static int open_datagram(const transport_target *t, transport_stats *st, long n)
{
    struct sockaddr_storage addr;
    socklen_t addrlen;
    int family = AF_UNIX;
    if (t->kind == TRANSPORT_UNIX) {
        struct sockaddr_un *sun = (struct sockaddr_un *)&addr;
        memset(sun, 0, sizeof *sun);
        sun->sun_family = AF_UNIX;
        memcpy(sun->sun_path, t->path, strlen(t->path) + 1);
        addrlen = sizeof *sun;
    } else {
        struct addrinfo hints = {.ai_socktype = SOCK_DGRAM, .ai_flags = AI_NUMERICSERV}, *res;
        int rc = getaddrinfo(t->host, t->port, &hints, &res);
        if (rc != 0) {
            transport_fail(st, TRANSPORT_ERR_CONNECT, n, "resolving %s: %s", t->host,
                           gai_strerror(rc));
            return -1;
        }
        memcpy(&addr, res->ai_addr, res->ai_addrlen);
        addrlen = res->ai_addrlen;
        family = res->ai_family;
        freeaddrinfo(res);
    }
    int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        transport_fail(st, TRANSPORT_ERR_CONNECT, n, "socket: %s", strerror(errno));
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&addr, addrlen) < 0) {
        transport_fail(st, TRANSPORT_ERR_CONNECT, n, "connect %s: %s",
                       t->kind == TRANSPORT_UNIX ? t->path : t->host, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* Sends one datagram, waiting for room until the deadline: a run is several
 * datagrams of up to UNIX_DATAGRAM_MAX bytes, more than the kernel lets a
 * socket have in flight, so the second waits for the receiver to read the
 * first (sent at once, back to back, all but the first failed). 0, or -1
 * with the failure counted. */
static int send_datagram(int fd, const char *msg, size_t mlen, size_t lines, double deadline,
                         transport_stats *st)
{
    for (;;) {
        if (send(fd, msg, mlen, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)mlen)
            return 0;
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS) {
            transport_fail(st, TRANSPORT_ERR_SEND, (long)lines, "send: %s", strerror(errno));
            return -1;
        }
        double left = deadline - clock_mono();
        if (left <= 0) {
            transport_fail(st, TRANSPORT_ERR_TIMEOUT, (long)lines,
                           "the receiver's socket stayed full until the deadline");
            return -1;
        }
        /* (ENOBUFS: no memory for now, which poll() does not tell: a short pause) */
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int ms = errno == ENOBUFS ? 1 : (int)(left * 1000.0) + 1;
        poll(&p, 1, ms);
    }
}

static long send_datagrams(const transport_target *t, const char *text, size_t len,
                           size_t nlines, double deadline, transport_stats *st)
{
    int fd = open_datagram(t, st, (long)nlines);
    if (fd < 0)
        return 0;
    size_t max = t->kind == TRANSPORT_UNIX ? UNIX_DATAGRAM_MAX : UDP_DATAGRAM_MAX;
    long sent = 0;
    size_t pos = 0, mlen, lines;
    while (pos < len) {
        const char *msg = next_message(text, len, &pos, max, &mlen, &lines);
        if (mlen > max) {
            transport_fail(st, TRANSPORT_ERR_SEND, (long)lines, "a line of %zu bytes is larger "
                           "than a datagram", mlen);
            continue;
        }
        if (send_datagram(fd, msg, mlen, lines, deadline, st) == 0)
            sent += (long)lines;
    }
    close(fd);
    return sent;
}

/* --- Redis ----------------------------------------------------------------------- */

struct redis_send {
    const transport_target *t;
    size_t *lines;                 /* lines of each message, by tag */
    long delivered;                /* lines Redis accepted */
    long refused;                  /* lines Redis answered with an error */
    transport_stats *st;
};

/* One message's reply: delivered, or refused with the error counted. */
static void count_reply(struct redis_send *rs, long lines, const redisReply *r)
{
    if (r->type == REDIS_REPLY_ERROR) {
        rs->refused += lines;
        transport_fail(rs->st, TRANSPORT_ERR_REPLY, lines, "Redis: %.200s", r->str);
        return;
    }
    rs->delivered += lines;
    if (rs->t->kind == TRANSPORT_REDIS_PUBLISH && r->type == REDIS_REPLY_INTEGER && r->integer == 0)
        rs->st->lines_unheard += lines;
}

static void on_reply(void *arg, int tag, redisReply *r)
{
    struct redis_send *rs = arg;
    count_reply(rs, (long)rs->lines[tag], r);
}

static void on_cluster_reply(void *arg, size_t index, redisReply *r)
{
    struct redis_send *rs = arg;
    count_reply(rs, (long)rs->lines[index], r);
}

void transport_conn_close(transport_conn *tc)
{
    if (tc->target_set && tc->target.cluster)
        cluster_client_free(&tc->cluster);
    else if (tc->target_set)
        redisconn_free(&tc->redis);
    tc->target_set = 0;
}

void transport_conn_forget_in_child(transport_conn *tc)
{
    if (tc->target_set && tc->target.cluster) {
        for (size_t i = 0; i < CLUSTER_CLIENT_CONNS; i++)
            if (tc->cluster.conns[i].used && tc->cluster.conns[i].conn.fd >= 0)
                close(tc->cluster.conns[i].conn.fd);
    } else if (tc->target_set && tc->redis.fd >= 0) {
        close(tc->redis.fd);
    }
    memset(tc, 0, sizeof *tc);
}

int transport_target_equal(const transport_target *a, const transport_target *b)
{
    /* Field by field: a struct copy need not copy the padding before `db`. */
    return a->kind == b->kind && a->redis_unix == b->redis_unix && a->db == b->db
           && strcmp(a->host, b->host) == 0 && strcmp(a->port, b->port) == 0
           && strcmp(a->path, b->path) == 0 && strcmp(a->key, b->key) == 0
           && strcmp(a->user, b->user) == 0 && strcmp(a->password, b->password) == 0
           && a->cluster == b->cluster && strcmp(a->seeds, b->seeds) == 0
           && a->shards == b->shards && a->shard == b->shard;
}

/* How every connection to t's server(s) is made (the strings are t's). */
static struct redisconn_options options_for(const transport_target *t)
{
    struct redisconn_options opt = {
        .host = t->host,
        .port = t->port,
        .unix_path = t->redis_unix ? t->path : NULL,
        .username = t->user[0] ? t->user : NULL,
        .password = t->password[0] ? t->password : NULL,
        .db = t->db,
        .keepalive = 1,
        /* a cluster's map (CLUSTER SLOTS) is the one long reply */
        .max_reply_bytes = t->cluster ? MAX_MAP_REPLY_BYTES : MAX_REPLY_BYTES,
    };
    return opt;
}

/* tc for t, connections made anew when the target changed. 0, or -1 when
 * out of memory (the seeds were parsed before). */
static int conn_for(transport_conn *tc, const transport_target *t)
{
    if (tc->target_set && transport_target_equal(&tc->target, t))
        return 0;
    transport_conn_close(tc);
    struct redisconn_options opt = options_for(t);
    if (t->cluster) {
        struct cluster_node *seeds;
        size_t nseeds;
        char why[128];
        if (cluster_nodes_parse(t->seeds, &seeds, &nseeds, why, sizeof why) < 0)
            return -1;
        cluster_client_init(&tc->cluster, &opt, seeds, nseeds);
        free(seeds);
    } else {
        redisconn_init(&tc->redis, &opt);
    }
    tc->target = *t;
    tc->target_set = 1;
    tc->retry_at = 0;
    tc->backoff = BACKOFF_FIRST;
    return 0;
}

/* The arguments of one message's command. */
struct message_args {
    int argc;
    const char *argv[8];
    size_t lens[8];
};

/* XADD KEY MAXLEN ~ 1000000 * sample MSG, or PUBLISH (SPUBLISH in a
 * cluster) KEY MSG. */
static void message_args(struct message_args *a, const transport_target *t, const char *key,
                         const char *msg, size_t len)
{
    if (t->kind == TRANSPORT_REDIS_XADD) {
        const char *argv[] = {"XADD", key, "MAXLEN", "~", STREAM_MAXLEN, "*", "sample", msg};
        size_t lens[] = {4, strlen(key), 6, 1, strlen(STREAM_MAXLEN), 1, 6, len};
        a->argc = 8;
        memcpy(a->argv, argv, sizeof argv);
        memcpy(a->lens, lens, sizeof lens);
    } else {
        const char *publish = t->cluster ? "SPUBLISH" : "PUBLISH";
        const char *argv[] = {publish, key, msg};
        size_t lens[] = {strlen(publish), strlen(key), len};
        a->argc = 3;
        memcpy(a->argv, argv, sizeof argv);
        memcpy(a->lens, lens, sizeof lens);
    }
}

static void queue_message(redisconn *c, const transport_target *t, int tag, const char *msg,
                          size_t len)
{
    struct message_args a;
    message_args(&a, t, t->key, msg, len);
    redisconn_command(c, tag, a.argc, a.argv, a.lens);
}

/* The reason a failure of redisconn (or of the cluster client) counts as. */
static enum transport_error error_of(int err)
{
    switch (err) {
    case REDISCONN_ERR_CONNECT:
    case REDISCONN_ERR_HANDSHAKE:
        return TRANSPORT_ERR_CONNECT;
    case REDISCONN_ERR_TIMEOUT:
        return TRANSPORT_ERR_TIMEOUT;
    case REDISCONN_ERR_PROTOCOL:
    case REDISCONN_ERR_TOO_LARGE:
        return TRANSPORT_ERR_REPLY;
    default:
        return TRANSPORT_ERR_SEND;
    }
}

/* Right after a failed connect: the send fails at once, counted. */
static int backing_off(const transport_conn *tc, size_t nlines, const char *why,
                       transport_stats *st)
{
    double now = clock_mono();
    if (now >= tc->retry_at)
        return 0;
    transport_fail(st, TRANSPORT_ERR_CONNECT, (long)nlines, "not retried for %.2fs after: %.200s",
                   tc->retry_at - now, why);
    return 1;
}

/* After a delivery: a failure that reached no server starts (or doubles)
 * the backoff; a success resets it. */
static void note_outcome(transport_conn *tc, int failed, int reached)
{
    if (!failed) {
        tc->backoff = BACKOFF_FIRST;
    } else if (!reached) {
        tc->retry_at = clock_mono() + tc->backoff;
        tc->backoff = tc->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX : tc->backoff * 2;
    }
}

static long send_redis(transport_conn *tc, const transport_target *t, const char *text,
                       size_t len, size_t nlines, double deadline, transport_stats *st)
{
    conn_for(tc, t); /* (cannot fail without a cluster) */
    redisconn *c = &tc->redis;
    if (backing_off(tc, nlines, c->errstr, st))
        return 0;
    /* A kept connection the server closed meanwhile (a restart, its idle
     * timeout) is dropped here, before anything is written into it. */
    redisconn_check_idle(c);
    struct redis_send rs = {t, NULL, 0, 0, st};
    size_t cap = 4, n = 0, pos = 0, mlen, lines;
    rs.lines = malloc(cap * sizeof *rs.lines);
    while (rs.lines && pos < len) {
        const char *msg = next_message(text, len, &pos, TRANSPORT_MESSAGE_MAX, &mlen, &lines);
        if (n == cap) {
            size_t *grown = realloc(rs.lines, (cap *= 2) * sizeof *grown);
            if (!grown)
                break;
            rs.lines = grown;
        }
        rs.lines[n] = lines;
        queue_message(c, t, (int)n++, msg, mlen);
    }
    if (!rs.lines || pos < len) {
        redisconn_close(c);
        free(rs.lines);
        transport_fail(st, TRANSPORT_ERR_SEND, (long)nlines, "out of memory");
        return 0;
    }
    int failed = redisconn_run(c, deadline, on_reply, &rs) < 0;
    if (failed)
        transport_fail(st, error_of(c->err), (long)nlines - rs.delivered - rs.refused, "%s",
                       c->errstr);
    note_outcome(tc, failed, c->reached);
    free(rs.lines);
    return rs.delivered;
}

/* A send's commands for the cluster client, one per message. */
struct cluster_batch {
    size_t n;
    size_t *lines;                 /* lines of each message */
    struct message_args *args;
    struct cluster_command *cmds;  /* pointing into args */
};

static void cluster_batch_free(struct cluster_batch *b)
{
    free(b->lines);
    free(b->args);
    free(b->cmds);
}

/* The messages of text for `key`. 0, or -1 when out of memory. */
static int cluster_batch_make(struct cluster_batch *b, const transport_target *t, const char *key,
                              const char *text, size_t len)
{
    size_t pos = 0, mlen, lines;
    for (b->n = 0; pos < len; b->n++)
        next_message(text, len, &pos, TRANSPORT_MESSAGE_MAX, &mlen, &lines);
    b->lines = malloc(b->n * sizeof *b->lines);
    b->args = malloc(b->n * sizeof *b->args);
    b->cmds = malloc(b->n * sizeof *b->cmds);
    if (!b->lines || !b->args || !b->cmds) {
        cluster_batch_free(b);
        return -1;
    }
    pos = 0;
    for (size_t i = 0; i < b->n; i++) {
        const char *msg = next_message(text, len, &pos, TRANSPORT_MESSAGE_MAX, &mlen, &lines);
        b->lines[i] = lines;
        message_args(&b->args[i], t, key, msg, mlen);
        b->cmds[i] = (struct cluster_command){b->args[i].argc, b->args[i].argv, b->args[i].lens};
    }
    return 0;
}

/* A cluster: every message goes to this host's shard key, KEY{K}, so one
 * slot and one master; the client finds it (and checks a kept connection
 * for a server-side close before reusing it, as send_redis does), and
 * follows the slot when it moves. */
static long send_cluster(transport_conn *tc, const transport_target *t, const char *text,
                         size_t len, size_t nlines, double deadline, transport_stats *st)
{
    struct cluster_batch b;
    char key[sizeof t->key + 16];
    snprintf(key, sizeof key, "%s{%u}", t->key, t->shard);
    if (conn_for(tc, t) < 0) {
        transport_fail(st, TRANSPORT_ERR_SEND, (long)nlines, "out of memory");
        return 0;
    }
    if (backing_off(tc, nlines, tc->cluster.errstr, st))
        return 0;
    if (cluster_batch_make(&b, t, key, text, len) < 0) {
        transport_fail(st, TRANSPORT_ERR_SEND, (long)nlines, "out of memory");
        return 0;
    }
    struct cluster_client *cc = &tc->cluster;
    struct redis_send rs = {t, b.lines, 0, 0, st};
    unsigned slot = cluster_key_slot(key, strlen(key));
    int failed = cluster_client_run(cc, slot, b.cmds, b.n, deadline, on_cluster_reply, &rs) < b.n;
    if (failed)
        transport_fail(st, error_of(cc->err), (long)nlines - rs.delivered - rs.refused, "%s",
                       cc->errstr);
    note_outcome(tc, failed, cc->reached);
    cluster_batch_free(&b);
    return rs.delivered;
}

long transport_deliver(transport_conn *tc, const transport_target *t, const char *text,
                       size_t len, size_t nlines, double deadline, transport_stats *st)
{
    if (nlines == 0)
        return 0;
    long sent;
    if (t->kind == TRANSPORT_UDP || t->kind == TRANSPORT_UNIX)
        sent = send_datagrams(t, text, len, nlines, deadline, st);
    else if (t->cluster)
        sent = send_cluster(tc, t, text, len, nlines, deadline, st);
    else
        sent = send_redis(tc, t, text, len, nlines, deadline, st);
    st->lines_sent += sent;
    return sent;
}
