/* redisconn: one Redis connection — addresses, handshake, command queue,
 * bounded reply parsing, fork check. See redisconn.h. */
#include "redisconn.h"
#include "clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Bytes fed to hiredis's reader at once (see the file head of redisconn.h:
 * its cost per reply grows with the unread bytes it holds). */
#define FEED_SLICE 4096
#define DEFAULT_READ_CHUNK (16 * 1024)
#define DEFAULT_MAX_REPLY ((size_t)512 * 1024 * 1024)
/* A smaller limit could refuse replies that merely share a fed slice. */
#define MIN_MAX_REPLY ((size_t)64 * 1024)
/* Replies to the handshake carry these tags; they never reach the caller. */
enum { TAG_AUTH = -10, TAG_SELECT = -11, TAG_SETNAME = -12 };

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

void redisconn_init(redisconn *c, const struct redisconn_options *opt)
{
    memset(c, 0, sizeof *c);
    c->opt = *opt;
    c->opt.host = dup_or_null(opt->host);
    c->opt.port = dup_or_null(opt->port ? opt->port : "6379");
    c->opt.unix_path = dup_or_null(opt->unix_path);
    c->opt.username = dup_or_null(opt->username);
    c->opt.password = dup_or_null(opt->password);
    c->opt.client_name = dup_or_null(opt->client_name);
    if (!c->opt.max_reply_bytes)
        c->opt.max_reply_bytes = DEFAULT_MAX_REPLY;
    if (c->opt.max_reply_bytes < MIN_MAX_REPLY)
        c->opt.max_reply_bytes = MIN_MAX_REPLY;
    if (!c->opt.read_chunk)
        c->opt.read_chunk = DEFAULT_READ_CHUNK;
    c->fd = -1;
    c->state = REDISCONN_CLOSED;
}

/* Drops the descriptor and the parser, keeping queued commands (a connect
 * to the next address may still carry them) and the resolved addresses. */
static void drop_socket(redisconn *c)
{
    if (c->fd >= 0)
        close(c->fd); /* in a forked child this closes only the child's copy */
    c->fd = -1;
    if (c->reader)
        redisReaderFree(c->reader);
    c->reader = NULL;
    c->chunk_len = c->chunk_fed = c->partial = c->charged = 0;
    c->state = REDISCONN_CLOSED;
}

void redisconn_close(redisconn *c)
{
    drop_socket(c);
    if (c->addrs)
        freeaddrinfo(c->addrs);
    c->addrs = c->addr = NULL;
    strbuf_reset(&c->out);
    c->exp_head = c->exp_len = 0;
}

void redisconn_free(redisconn *c)
{
    redisconn_close(c);
    strbuf_free(&c->out);
    free(c->expect);
    free(c->chunk);
    free((char *)c->opt.host);
    free((char *)c->opt.port);
    free((char *)c->opt.unix_path);
    free((char *)c->opt.username);
    free((char *)c->opt.password);
    free((char *)c->opt.client_name);
    memset(c, 0, sizeof *c);
    c->fd = -1;
}

static void vset_error(redisconn *c, enum redisconn_error err, const char *fmt, va_list ap)
{
    char text[sizeof c->errstr];
    /* Formatted into a copy first: an argument may point into the reader
     * (its errstr), which is freed when the connection closes. */
    vsnprintf(text, sizeof text, fmt, ap);
    memcpy(c->errstr, text, sizeof text);
    c->err = err;
}

int redisconn_fail(redisconn *c, enum redisconn_error err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vset_error(c, err, fmt, ap);
    va_end(ap);
    redisconn_close(c);
    return -1;
}

int redisconn_inherited(const redisconn *c)
{
    return c->fd >= 0 && c->pid != getpid();
}

const char *redisconn_error_name(enum redisconn_error err)
{
    static const char *const names[] = {"ok", "connect", "handshake", "io", "protocol",
                                        "too_large", "timeout"};
    return (unsigned)err < sizeof names / sizeof names[0] ? names[err] : "unknown";
}

/* --- the queue of replies due ------------------------------------------- */

static void expect_grow(redisconn *c)
{
    size_t cap = c->exp_cap ? c->exp_cap * 2 : 16;
    int *ring = xmalloc(cap * sizeof *ring);
    for (size_t i = 0; i < c->exp_len; i++)
        ring[i] = c->expect[(c->exp_head + i) % c->exp_cap];
    free(c->expect);
    c->expect = ring;
    c->exp_cap = cap;
    c->exp_head = 0;
}

static void expect_push(redisconn *c, int tag, int front)
{
    if (c->exp_len == c->exp_cap)
        expect_grow(c);
    if (front) {
        c->exp_head = (c->exp_head + c->exp_cap - 1) % c->exp_cap;
        c->expect[c->exp_head] = tag;
    } else {
        c->expect[(c->exp_head + c->exp_len) % c->exp_cap] = tag;
    }
    c->exp_len++;
}

static int expect_pop(redisconn *c)
{
    int tag = c->expect[c->exp_head];
    c->exp_head = (c->exp_head + 1) % c->exp_cap;
    c->exp_len--;
    return tag;
}

/* --- commands ------------------------------------------------------------- */

static void format_into(strbuf *out, int argc, const char **argv, const size_t *argvlen)
{
    char *cmd;
    int len = redisFormatCommandArgv(&cmd, argc, argv, argvlen);
    if (len < 0) {
        fprintf(stderr, "redisconn: out of memory formatting a command\n");
        abort(); /* hiredis fails here only when malloc does */
    }
    strbuf_append(out, cmd, (size_t)len);
    redisFreeCommand(cmd);
}

void redisconn_command(redisconn *c, int tag, int argc, const char **argv,
                       const size_t *argvlen)
{
    if (redisconn_inherited(c))
        redisconn_close(c); /* the parent's: never write to it */
    format_into(&c->out, argc, argv, argvlen);
    if (tag != REDISCONN_NO_REPLY)
        expect_push(c, tag, 0);
}

/* AUTH, SELECT and CLIENT SETNAME go before anything the caller queued, and
 * their replies are checked in redisconn_reply. */
static void queue_handshake(redisconn *c)
{
    strbuf hs = STRBUF_INIT;
    int tags[3], n = 0;
    if (c->opt.password) {
        const char *argv[] = {"AUTH", c->opt.username, c->opt.password};
        if (c->opt.username)
            format_into(&hs, 3, argv, NULL);
        else {
            argv[1] = c->opt.password;
            format_into(&hs, 2, argv, NULL);
        }
        tags[n++] = TAG_AUTH;
    }
    if (c->opt.db) {
        char db[24];
        snprintf(db, sizeof db, "%ld", c->opt.db);
        const char *argv[] = {"SELECT", db};
        format_into(&hs, 2, argv, NULL);
        tags[n++] = TAG_SELECT;
    }
    if (c->opt.client_name) {
        const char *argv[] = {"CLIENT", "SETNAME", c->opt.client_name};
        format_into(&hs, 3, argv, NULL);
        tags[n++] = TAG_SETNAME;
    }
    while (n > 0)
        expect_push(c, tags[--n], 1);
    if (hs.len) {
        strbuf_append(&hs, c->out.data, c->out.len);
        strbuf_free(&c->out);
        c->out = hs;
    }
}

/* --- connecting ----------------------------------------------------------- */

/* What a reply object costs in memory besides its bytes: the redisReply and
 * malloc's own bookkeeping. */
#define OBJECT_COST (sizeof(redisReply) + 16)

/* Charges `bytes` of memory to the reply being parsed: 0 while the bytes fed
 * for it and its objects stay within max_reply_bytes, else -1 (the create
 * function then returns NULL and the reader stops with "Out of memory"). */
static int charge(redisconn *c, size_t bytes)
{
    c->charged += bytes;
    if (c->partial + c->charged <= c->opt.max_reply_bytes)
        return 0;
    c->over_budget = 1;
    return -1;
}

/* hiredis's createArray, refusing a header that announces more elements
 * than max_reply_bytes could carry (each takes at least 3 bytes, ":1\r\n"
 * four), and charging the element vector, which hiredis calloc()s whole. */
static void *bounded_create_array(const redisReadTask *task, int elements)
{
    redisconn *c = task->privdata;
    if (elements > 0 && (size_t)elements > c->opt.max_reply_bytes / 3) {
        c->array_refused = elements;
        return NULL; /* the reader reports "Out of memory": we know better */
    }
    size_t vector = elements > 0 ? (size_t)elements * sizeof(redisReply *) : 0;
    if (charge(c, OBJECT_COST + vector) < 0)
        return NULL;
    return c->defaults.createArray(task, elements);
}

static void *bounded_create_string(const redisReadTask *task, char *str, size_t len)
{
    redisconn *c = task->privdata;
    /* Its bytes are counted on the wire already (the reader's copy of
     * them goes as it parses on), so a message of the largest size the
     * caller budgeted for still fits. */
    if (charge(c, OBJECT_COST) < 0)
        return NULL;
    return c->defaults.createString(task, str, len);
}

static void *bounded_create_integer(const redisReadTask *task, long long value)
{
    redisconn *c = task->privdata;
    if (charge(c, OBJECT_COST) < 0)
        return NULL;
    return c->defaults.createInteger(task, value);
}

static void *bounded_create_nil(const redisReadTask *task)
{
    redisconn *c = task->privdata;
    if (charge(c, OBJECT_COST) < 0)
        return NULL;
    return c->defaults.createNil(task);
}

static void make_reader(redisconn *c)
{
    c->reader = redisReaderCreate();
    if (!c->reader) {
        fprintf(stderr, "redisconn: out of memory creating a reader\n");
        abort();
    }
    /* hiredis keeps a pointer to the function table: ours lives in c. */
    c->defaults = *c->reader->fn;
    c->fns = c->defaults;
    c->fns.createArray = bounded_create_array;
    c->fns.createString = bounded_create_string;
    c->fns.createInteger = bounded_create_integer;
    c->fns.createNil = bounded_create_nil;
    c->reader->fn = &c->fns;
    c->reader->privdata = c;
    c->array_refused = 0;
    c->charged = 0;
    c->over_budget = 0;
}

static void set_socket_options(const redisconn *c, int fd, int tcp)
{
    int one = 1;
    if (tcp) {
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (c->opt.keepalive)
            setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    }
    /* SO_RCVBUFFORCE works for root or CAP_NET_ADMIN; otherwise the kernel's
     * rmem_max caps the plain SO_RCVBUF. */
    if (c->opt.rcvbuf > 0) {
        int size = c->opt.rcvbuf > INT32_MAX / 2 ? INT32_MAX / 2 : (int)c->opt.rcvbuf;
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) < 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    }
}

static int open_session(redisconn *c)
{
    c->state = REDISCONN_OPEN;
    c->reached = 1;
    make_reader(c);
    if (!c->chunk)
        c->chunk = xmalloc(c->opt.read_chunk);
    c->chunk_len = c->chunk_fed = c->partial = 0;
    queue_handshake(c);
    return 1;
}

static void describe_address(redisconn *c, const struct addrinfo *ai)
{
    char addr[INET6_ADDRSTRLEN] = "?";
    const void *raw = ai->ai_family == AF_INET6
                          ? (const void *)&((const struct sockaddr_in6 *)ai->ai_addr)->sin6_addr
                          : (const void *)&((const struct sockaddr_in *)ai->ai_addr)->sin_addr;
    inet_ntop(ai->ai_family, raw, addr, sizeof addr);
    if (strcmp(addr, c->opt.host) == 0)
        snprintf(c->peer, sizeof c->peer, "%s%s%s:%s", ai->ai_family == AF_INET6 ? "[" : "",
                 addr, ai->ai_family == AF_INET6 ? "]" : "", c->opt.port);
    else
        snprintf(c->peer, sizeof c->peer, "%.60s:%s (%s)", c->opt.host, c->opt.port, addr);
}

/* Appends "peer: cause" to the causes collected for this connect. */
static void note_attempt(redisconn *c, const char *cause)
{
    size_t used = strlen(c->errstr);
    snprintf(c->errstr + used, sizeof c->errstr - used, "%s%s: %s", used ? "; " : "", c->peer,
             cause);
}

/* Connects to c->addr or, failing that, to the addresses after it. */
static int try_addresses(redisconn *c)
{
    for (; c->addr; c->addr = c->addr->ai_next) {
        describe_address(c, c->addr);
        int fd = socket(c->addr->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            note_attempt(c, strerror(errno));
            continue;
        }
        set_socket_options(c, fd, 1);
        c->fd = fd;
        c->pid = getpid();
        if (connect(fd, c->addr->ai_addr, c->addr->ai_addrlen) == 0)
            return open_session(c);
        if (errno == EINPROGRESS) {
            c->state = REDISCONN_CONNECTING;
            return 0;
        }
        note_attempt(c, strerror(errno));
        drop_socket(c);
    }
    char causes[sizeof c->errstr];
    memcpy(causes, c->errstr, sizeof causes);
    return redisconn_fail(c, REDISCONN_ERR_CONNECT, "%s", causes);
}

static int connect_unix(redisconn *c)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    snprintf(c->peer, sizeof c->peer, "unix:%.120s", c->opt.unix_path);
    if (strlen(c->opt.unix_path) >= sizeof sun.sun_path)
        return redisconn_fail(c, REDISCONN_ERR_CONNECT, "%s: the path is too long", c->peer);
    strcpy(sun.sun_path, c->opt.unix_path);
    c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0)
        return redisconn_fail(c, REDISCONN_ERR_CONNECT, "%s: %s", c->peer, strerror(errno));
    c->pid = getpid();
    set_socket_options(c, c->fd, 0);
    if (connect(c->fd, (struct sockaddr *)&sun, sizeof sun) == 0)
        return open_session(c) > 0 ? 0 : -1;
    /* EAGAIN: the server's listen queue is full; that is a failure too. */
    return redisconn_fail(c, REDISCONN_ERR_CONNECT, "%s: %s", c->peer, strerror(errno));
}

int redisconn_connect(redisconn *c)
{
    if (c->state != REDISCONN_CLOSED || redisconn_inherited(c))
        redisconn_close(c);
    drop_socket(c);
    c->err = REDISCONN_OK;
    c->errstr[0] = '\0';
    c->reached = 0;
    if (c->opt.unix_path)
        return connect_unix(c);
    if (c->addrs)
        freeaddrinfo(c->addrs);
    c->addrs = c->addr = NULL;
    snprintf(c->peer, sizeof c->peer, "%.100s:%s", c->opt.host ? c->opt.host : "", c->opt.port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    int rc = getaddrinfo(c->opt.host, c->opt.port, &hints, &c->addrs);
    if (rc != 0) {
        c->addrs = NULL;
        return redisconn_fail(c, REDISCONN_ERR_CONNECT, "%s: resolving: %s", c->peer,
                              rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
    }
    c->addr = c->addrs;
    return try_addresses(c) < 0 ? -1 : 0;
}

int redisconn_connect_next(redisconn *c, const char *why)
{
    if (c->state != REDISCONN_CONNECTING)
        return c->state == REDISCONN_OPEN ? 1 : -1;
    note_attempt(c, why);
    drop_socket(c);
    if (!c->addr) /* a unix socket: nothing else to try */
        return redisconn_fail(c, REDISCONN_ERR_CONNECT, "%s: %s", c->peer, why);
    c->addr = c->addr->ai_next;
    return try_addresses(c);
}

int redisconn_connect_done(redisconn *c)
{
    if (c->state != REDISCONN_CONNECTING)
        return c->state == REDISCONN_OPEN ? 1 : -1;
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
        err = errno;
    if (err)
        return redisconn_connect_next(c, strerror(err));
    return open_session(c);
}

/* --- I/O ------------------------------------------------------------------ */

int redisconn_write(redisconn *c)
{
    if (c->state != REDISCONN_OPEN)
        return c->state == REDISCONN_CONNECTING ? 0 : -1;
    while (c->out.len) {
        ssize_t n = send(c->fd, c->out.data, c->out.len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n < 0)
            return redisconn_fail(c, REDISCONN_ERR_IO, "%s: writing: %s", c->peer, strerror(errno));
        strbuf_consume(&c->out, (size_t)n);
    }
    return 0;
}

ssize_t redisconn_read(redisconn *c)
{
    if (c->state != REDISCONN_OPEN)
        return c->state == REDISCONN_CONNECTING ? 0 : -1;
    if (c->chunk_fed < c->chunk_len)
        return 0;
    ssize_t n;
    do {
        n = recv(c->fd, c->chunk, c->opt.read_chunk, MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    if (n == 0)
        return redisconn_fail(c, REDISCONN_ERR_IO, "%s: the server closed the connection%s",
                              c->peer, c->exp_len || c->partial ? " before answering" : "");
    if (n < 0)
        return redisconn_fail(c, REDISCONN_ERR_IO, "%s: reading: %s", c->peer, strerror(errno));
    c->chunk_len = (size_t)n;
    c->chunk_fed = 0;
    return n;
}

/* A reply to the handshake: an error closes the connection with it. */
static int check_handshake(redisconn *c, int tag, redisReply *r)
{
    if (r->type != REDIS_REPLY_ERROR) {
        freeReplyObject(r);
        return 0;
    }
    const char *what = tag == TAG_AUTH ? "AUTH" : tag == TAG_SELECT ? "SELECT" : "CLIENT SETNAME";
    char text[160];
    snprintf(text, sizeof text, "%.150s", r->str);
    freeReplyObject(r);
    if (tag == TAG_SELECT)
        return redisconn_fail(c, REDISCONN_ERR_HANDSHAKE, "%s: SELECT %ld refused: %s", c->peer,
                              c->opt.db, text);
    return redisconn_fail(c, REDISCONN_ERR_HANDSHAKE, "%s: %s refused: %s", c->peer, what, text);
}

/* Gives the next slice of the last read to the reader; -1 past the limit. */
static int feed_slice(redisconn *c)
{
    size_t n = c->chunk_len - c->chunk_fed;
    if (n > FEED_SLICE)
        n = FEED_SLICE;
    redisReaderFeed(c->reader, c->chunk + c->chunk_fed, n);
    c->chunk_fed += n;
    c->partial += n;
    if (c->partial > c->opt.max_reply_bytes)
        return redisconn_fail(c, REDISCONN_ERR_TOO_LARGE,
                              "%s: a reply is longer than %zu bytes; refused", c->peer,
                              c->opt.max_reply_bytes);
    if (c->partial + c->charged > c->opt.max_reply_bytes)
        return redisconn_fail(c, REDISCONN_ERR_TOO_LARGE,
                              "%s: a reply would take more than %zu bytes of memory; refused",
                              c->peer, c->opt.max_reply_bytes);
    return 0;
}

int redisconn_reply(redisconn *c, redisReply **reply, int *tag)
{
    while (c->state == REDISCONN_OPEN) {
        void *r;
        if (redisReaderGetReply(c->reader, &r) != REDIS_OK) {
            if (c->array_refused)
                return redisconn_fail(c, REDISCONN_ERR_TOO_LARGE,
                                      "%s: a reply announced %d elements, more than %zu bytes "
                                      "can hold; refused", c->peer, c->array_refused,
                                      c->opt.max_reply_bytes);
            if (c->over_budget)
                return redisconn_fail(c, REDISCONN_ERR_TOO_LARGE,
                                      "%s: a reply would take more than %zu bytes of memory; "
                                      "refused", c->peer, c->opt.max_reply_bytes);
            return redisconn_fail(c, REDISCONN_ERR_PROTOCOL, "%s: %s", c->peer, c->reader->errstr);
        }
        if (!r) {
            if (c->chunk_fed == c->chunk_len)
                return 0;
            if (feed_slice(c) < 0)
                return -1;
            continue;
        }
        c->partial = c->reader->len - c->reader->pos;
        c->charged = 0;
        int t;
        if (c->exp_len)
            t = expect_pop(c);
        else if (c->opt.allow_push)
            t = REDISCONN_PUSH;
        else {
            freeReplyObject(r);
            return redisconn_fail(c, REDISCONN_ERR_PROTOCOL,
                                  "%s: a reply arrived that no command asked for", c->peer);
        }
        if (t <= TAG_AUTH) {
            if (check_handshake(c, t, r) < 0)
                return -1;
            continue;
        }
        *reply = r;
        *tag = t;
        return 1;
    }
    return -1;
}

int redisconn_check_idle(redisconn *c)
{
    if (redisconn_inherited(c))
        redisconn_close(c);
    if (c->state != REDISCONN_OPEN || c->exp_len || c->out.len)
        return 0;
    struct pollfd p = {c->fd, POLLIN, 0};
    if (poll(&p, 1, 0) != 1)
        return 0;
    char byte;
    ssize_t n = recv(c->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0)
        return redisconn_fail(c, REDISCONN_ERR_PROTOCOL,
                              "%s: data arrived that no command asked for", c->peer);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    redisconn_close(c); /* closed by the server: reconnect, not a failure */
    return 0;
}

/* --- blocking use ----------------------------------------------------------- */

static int wait_for(redisconn *c, short events, double deadline, const char *doing)
{
    for (;;) {
        struct pollfd p = {c->fd, events, 0};
        int rc = poll(&p, 1, clock_ms_until(deadline));
        if (rc > 0)
            return 0;
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc < 0)
            return redisconn_fail(c, REDISCONN_ERR_IO, "%s: poll: %s", c->peer, strerror(errno));
        return redisconn_fail(c, REDISCONN_ERR_TIMEOUT, "%s: timed out %s", c->peer, doing);
    }
}

static int drain(redisconn *c, redisconn_reply_fn on_reply, void *arg)
{
    redisReply *r;
    int tag, rc;
    while ((rc = redisconn_reply(c, &r, &tag)) > 0) {
        if (on_reply && tag >= 0)
            on_reply(arg, tag, r);
        freeReplyObject(r);
    }
    return rc;
}

int redisconn_run(redisconn *c, double deadline, redisconn_reply_fn on_reply, void *arg)
{
    if (redisconn_inherited(c))
        redisconn_close(c);
    if (c->state == REDISCONN_CLOSED) {
        if (!c->out.len && !c->exp_len)
            return 0;
        if (redisconn_connect(c) < 0)
            return -1;
    }
    while (c->state == REDISCONN_CONNECTING) {
        struct pollfd p = {c->fd, POLLOUT, 0};
        int rc = poll(&p, 1, clock_ms_until(deadline));
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc == 0) {
            /* Out of time for this address and for any other. */
            note_attempt(c, "timed out connecting");
            char causes[sizeof c->errstr];
            memcpy(causes, c->errstr, sizeof causes);
            return redisconn_fail(c, REDISCONN_ERR_TIMEOUT, "%s", causes);
        }
        if (redisconn_connect_done(c) < 0)
            return -1;
    }
    while (c->out.len || c->exp_len) {
        if (redisconn_write(c) < 0 || drain(c, on_reply, arg) < 0)
            return -1;
        if (!c->out.len && !c->exp_len)
            break;
        const char *doing = c->out.len ? "writing" : "waiting for replies";
        if (wait_for(c, (short)(POLLIN | (c->out.len ? POLLOUT : 0)), deadline, doing) < 0)
            return -1;
        if (redisconn_read(c) < 0)
            return -1;
    }
    return 0;
}
