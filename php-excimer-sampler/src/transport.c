/* transport: Redis / UDP / unix datagram senders with one deadline per send.
 * See transport.h. */
#include "transport.h"

#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Largest datagram we send: UDP's limit less headers; unix sockets accept
 * more, but arclamp-log's default max_message_bytes is 1 MiB and the kernel's
 * default send buffer about 200 KiB. */
#define UDP_DATAGRAM_MAX 65000
#define UNIX_DATAGRAM_MAX 200000
/* Streams are capped so a stopped arclamp-log cannot fill Redis. */
#define STREAM_MAXLEN "1000000"

/* The kept Redis connection. One per process: a php-fpm worker talks to one
 * Arc Lamp Redis, and a connection is per process after fork anyway (the
 * child closes the parent's, see transport_close_cached). */
static struct {
    int fd;                 /* -1 when none */
    char host[256];
    char port[8];
} cached = {-1, "", ""};

static const char *const error_names[TRANSPORT_NERRORS] = {"connect", "timeout", "send", "reply"};

const char *transport_error_name(enum transport_error e)
{
    return (unsigned)e < TRANSPORT_NERRORS ? error_names[e] : "unknown";
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int remaining_ms(double deadline)
{
    double left = deadline - now();
    return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

static void fail(transport_stats *st, enum transport_error e, size_t lines, const char *fmt,
                 const char *detail)
{
    st->errors[e]++;
    st->lines_failed += (long)lines;
    snprintf(st->last_error, sizeof st->last_error, fmt, detail);
}

static int copy_part(char *dst, size_t size, const char *src, size_t len)
{
    if (len == 0 || len >= size)
        return -1;
    memcpy(dst, src, len);
    dst[len] = '\0';
    return 0;
}

/* "HOST:PORT" or "[V6]:PORT" into t->host, t->port. */
static int parse_hostport(const char *s, size_t len, transport_target *t)
{
    const char *colon = NULL;
    for (size_t i = len; i > 0; i--) {
        if (s[i - 1] == ':') {
            colon = s + i - 1;
            break;
        }
    }
    if (!colon)
        return -1;
    const char *host = s;
    size_t hlen = (size_t)(colon - s);
    if (hlen >= 2 && host[0] == '[' && host[hlen - 1] == ']') {
        host++;
        hlen -= 2;
    }
    size_t plen = len - (size_t)(colon + 1 - s);
    if (copy_part(t->host, sizeof t->host, host, hlen) < 0 ||
        copy_part(t->port, sizeof t->port, colon + 1, plen) < 0)
        return -1;
    char *end;
    long port = strtol(t->port, &end, 10);
    return *end || port < 1 || port > 65535 ? -1 : 0;
}

int transport_parse(const char *uri, transport_target *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (strncmp(uri, "unix://", 7) == 0) {
        t->kind = TRANSPORT_UNIX;
        if (uri[7] != '/' || copy_part(t->path, sizeof t->path, uri + 7, strlen(uri + 7)) < 0)
            goto bad;
        return 0;
    }
    if (strncmp(uri, "udp://", 6) == 0) {
        t->kind = TRANSPORT_UDP;
        if (parse_hostport(uri + 6, strlen(uri + 6), t) < 0)
            goto bad;
        return 0;
    }
    if (strncmp(uri, "redis://", 8) == 0) {
        const char *hp = uri + 8, *slash = strchr(hp, '/');
        if (!slash || parse_hostport(hp, (size_t)(slash - hp), t) < 0)
            goto bad;
        const char *key = slash + 1, *query = strchr(key, '?');
        size_t klen = query ? (size_t)(query - key) : strlen(key);
        if (copy_part(t->key, sizeof t->key, key, klen) < 0)
            goto bad;
        t->kind = TRANSPORT_REDIS_PUBLISH;
        if (query && strcmp(query, "?stream=1") == 0)
            t->kind = TRANSPORT_REDIS_XADD;
        else if (query)
            goto bad;
        return 0;
    }
bad:
    snprintf(err, errlen,
             "invalid Arc Lamp target \"%.200s\": expected redis://HOST:PORT/CHANNEL"
             "[?stream=1], udp://HOST:PORT or unix:///PATH", uri);
    return -1;
}

/* --- datagrams --------------------------------------------------------- */

static int open_datagram(const transport_target *t, struct sockaddr_storage *addr,
                         socklen_t *addrlen, transport_stats *st, size_t n)
{
    if (t->kind == TRANSPORT_UNIX) {
        struct sockaddr_un *sun = (struct sockaddr_un *)addr;
        memset(sun, 0, sizeof *sun);
        sun->sun_family = AF_UNIX;
        memcpy(sun->sun_path, t->path, strlen(t->path) + 1);
        *addrlen = sizeof *sun;
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
            fail(st, TRANSPORT_ERR_CONNECT, n, "socket: %s", strerror(errno));
        return fd;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_DGRAM, .ai_flags = AI_NUMERICSERV}, *res;
    int rc = getaddrinfo(t->host, t->port, &hints, &res);
    if (rc != 0) {
        fail(st, TRANSPORT_ERR_CONNECT, n, "resolving: %s", gai_strerror(rc));
        return -1;
    }
    memcpy(addr, res->ai_addr, res->ai_addrlen);
    *addrlen = res->ai_addrlen;
    int fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    freeaddrinfo(res);
    if (fd < 0)
        fail(st, TRANSPORT_ERR_CONNECT, n, "socket: %s", strerror(errno));
    return fd;
}

static long send_datagrams(const transport_target *t, const char *const *lines,
                           const size_t *lens, size_t n, transport_stats *st)
{
    struct sockaddr_storage addr;
    socklen_t addrlen;
    int fd = open_datagram(t, &addr, &addrlen, st, n);
    if (fd < 0)
        return 0;
    size_t max = t->kind == TRANSPORT_UNIX ? UNIX_DATAGRAM_MAX : UDP_DATAGRAM_MAX;
    char *buf = malloc(max);
    long sent = 0;
    size_t i = 0;
    while (buf && i < n) {
        if (lens[i] > max) {
            fail(st, TRANSPORT_ERR_SEND, 1, "%s", "a line is larger than a datagram");
            i++;
            continue;
        }
        /* Pack whole lines, newline-separated, into one datagram. */
        size_t used = 0, first = i;
        while (i < n && used + (used ? 1 : 0) + lens[i] <= max) {
            if (used)
                buf[used++] = '\n';
            memcpy(buf + used, lines[i], lens[i]);
            used += lens[i];
            i++;
        }
        if (sendto(fd, buf, used, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&addr,
                   addrlen) == (ssize_t)used)
            sent += (long)(i - first);
        else
            fail(st, TRANSPORT_ERR_SEND, i - first, "sendto: %s", strerror(errno));
    }
    if (!buf)
        fail(st, TRANSPORT_ERR_SEND, n, "%s", "out of memory");
    free(buf);
    close(fd);
    return sent;
}

/* --- Redis --------------------------------------------------------------- */

void transport_close_cached(void)
{
    if (cached.fd >= 0)
        close(cached.fd);
    cached.fd = -1;
}

/* A kept connection that is readable while idle was closed by Redis (or
 * holds garbage): either way it is not to be used. */
static int cached_usable(const transport_target *t)
{
    if (cached.fd < 0 || strcmp(cached.host, t->host) || strcmp(cached.port, t->port))
        return 0;
    struct pollfd p = {cached.fd, POLLIN, 0};
    return poll(&p, 1, 0) == 0;
}

static int connect_redis(const transport_target *t, double deadline, transport_stats *st,
                         size_t n)
{
    if (cached_usable(t))
        return cached.fd;
    transport_close_cached();
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV}, *res;
    int rc = getaddrinfo(t->host, t->port, &hints, &res);
    if (rc != 0) {
        fail(st, TRANSPORT_ERR_CONNECT, n, "resolving: %s", gai_strerror(rc));
        return -1;
    }
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) < 0 && errno != EINPROGRESS) {
        fail(st, TRANSPORT_ERR_CONNECT, n, "connect: %s", strerror(errno));
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        return -1;
    struct pollfd p = {fd, POLLOUT, 0};
    int err = 0;
    socklen_t len = sizeof err;
    if (poll(&p, 1, remaining_ms(deadline)) != 1) {
        fail(st, TRANSPORT_ERR_TIMEOUT, n, "%s", "connect timed out");
        close(fd);
        return -1;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err) {
        fail(st, TRANSPORT_ERR_CONNECT, n, "connect: %s", strerror(err ? err : errno));
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    cached.fd = fd;
    snprintf(cached.host, sizeof cached.host, "%s", t->host);
    snprintf(cached.port, sizeof cached.port, "%s", t->port);
    return fd;
}

/* One command for one line: PUBLISH key line, or XADD key MAXLEN ~ N *
 * sample line. Returns its length, -1 when out of memory. */
static int format_command(const transport_target *t, const char *line, size_t len, char **cmd)
{
    if (t->kind == TRANSPORT_REDIS_XADD) {
        const char *argv[] = {"XADD", t->key, "MAXLEN", "~", STREAM_MAXLEN, "*", "sample", line};
        size_t argvlen[] = {4, strlen(t->key), 6, 1, strlen(STREAM_MAXLEN), 1, 6, len};
        return redisFormatCommandArgv(cmd, 8, argv, argvlen);
    }
    const char *argv[] = {"PUBLISH", t->key, line};
    size_t argvlen[] = {7, strlen(t->key), len};
    return redisFormatCommandArgv(cmd, 3, argv, argvlen);
}

/* All commands for the lines, pipelined; NULL when out of memory. */
static char *format_commands(const transport_target *t, const char *const *lines,
                             const size_t *lens, size_t n, size_t *total)
{
    size_t cap = 4096, used = 0;
    char *out = malloc(cap);
    for (size_t i = 0; out && i < n; i++) {
        char *cmd;
        int len = format_command(t, lines[i], lens[i], &cmd);
        if (len < 0) {
            free(out);
            return NULL;
        }
        while (out && used + (size_t)len > cap) {
            cap *= 2;
            char *grown = realloc(out, cap);
            if (!grown)
                free(out);
            out = grown;
        }
        if (out) {
            memcpy(out + used, cmd, (size_t)len);
            used += (size_t)len;
        }
        redisFreeCommand(cmd);
    }
    *total = used;
    return out;
}

static int write_all(int fd, const char *buf, size_t len, double deadline, transport_stats *st,
                     size_t n)
{
    size_t off = 0;
    while (off < len) {
        ssize_t w = send(fd, buf + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EINTR) {
            fail(st, TRANSPORT_ERR_SEND, n, "send: %s", strerror(errno));
            return -1;
        }
        struct pollfd p = {fd, POLLOUT, 0};
        if (poll(&p, 1, remaining_ms(deadline)) != 1) {
            fail(st, TRANSPORT_ERR_TIMEOUT, n, "%s", "sending timed out");
            return -1;
        }
    }
    return 0;
}

/* Reads n replies; returns how many were successes. A PUBLISH reply is the
 * number of subscribers that got the message: 0 is a success for Redis but a
 * line nobody will write, counted apart so a site can see it. */
static long read_replies(const transport_target *t, int fd, size_t n, double deadline,
                         transport_stats *st)
{
    redisReader *reader = redisReaderCreate();
    char chunk[4096];
    size_t got = 0;
    long ok = 0;
    int failed = 0;
    while (reader && got < n && !failed) {
        void *reply;
        if (redisReaderGetReply(reader, &reply) != REDIS_OK) {
            fail(st, TRANSPORT_ERR_REPLY, n - got, "%s", "protocol error");
            failed = 1;
            break;
        }
        if (reply) {
            redisReply *r = reply;
            if (r->type == REDIS_REPLY_ERROR) {
                fail(st, TRANSPORT_ERR_REPLY, 1, "Redis: %.200s", r->str);
            } else {
                ok++;
                if (t->kind == TRANSPORT_REDIS_PUBLISH && r->type == REDIS_REPLY_INTEGER &&
                    r->integer == 0)
                    st->lines_unheard++;
            }
            got++;
            freeReplyObject(reply);
            continue;
        }
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, remaining_ms(deadline)) != 1) {
            fail(st, TRANSPORT_ERR_TIMEOUT, n - got, "%s", "waiting for replies timed out");
            failed = 1;
            break;
        }
        ssize_t r = recv(fd, chunk, sizeof chunk, MSG_DONTWAIT);
        if (r <= 0 && !(r < 0 && (errno == EAGAIN || errno == EINTR))) {
            fail(st, TRANSPORT_ERR_SEND, n - got, "%s",
                 r == 0 ? "connection closed by Redis" : strerror(errno));
            failed = 1;
            break;
        }
        if (r > 0)
            redisReaderFeed(reader, chunk, (size_t)r);
    }
    if (reader)
        redisReaderFree(reader);
    if (failed)
        transport_close_cached();
    return ok;
}

static long send_redis(const transport_target *t, const char *const *lines, const size_t *lens,
                       size_t n, double deadline, transport_stats *st)
{
    size_t total;
    char *cmds = format_commands(t, lines, lens, n, &total);
    if (!cmds) {
        fail(st, TRANSPORT_ERR_SEND, n, "%s", "out of memory");
        return 0;
    }
    long ok = 0;
    int fd = connect_redis(t, deadline, st, n);
    if (fd >= 0) {
        if (write_all(fd, cmds, total, deadline, st, n) == 0)
            ok = read_replies(t, fd, n, deadline, st);
        else
            transport_close_cached();
    }
    free(cmds);
    return ok;
}

long transport_send(const transport_target *t, const char *const *lines, const size_t *lens,
                    size_t n, double timeout, transport_stats *st)
{
    if (n == 0)
        return 0;
    long sent = t->kind == TRANSPORT_UDP || t->kind == TRANSPORT_UNIX
                    ? send_datagrams(t, lines, lens, n, st)
                    : send_redis(t, lines, lens, n, now() + timeout, st);
    st->lines_sent += sent;
    return sent;
}
