/* redisconn: one connection to a Redis server — the only Redis client code
 * of Arc Lamp. arclamp-log drives it from its sd-event loop (pub/sub and
 * stream reading are modules on top, in arclamp-log/src); the excimer
 * extension drives it from its sender thread with redisconn_run(), which
 * polls until a deadline.
 *
 * What it does: resolves the server and tries every address getaddrinfo()
 * returns, in order (or connects to a unix socket); connects without
 * blocking; sends the handshake (AUTH, SELECT, CLIENT SETNAME) ahead of the
 * caller's commands and checks its replies; buffers output; parses replies
 * with hiredis's RESP reader and pairs each with the command it answers (a
 * growable queue, no fixed limit).
 *
 * What it refuses, closing the connection with the cause: a reply longer
 * than `max_reply_bytes` (counted from its first byte, so neither an endless
 * bulk string nor an endless array can grow our memory), or whose parsed
 * objects would take more memory than that (":1\r\n" is 4 bytes on the wire
 * and some 70 in memory: bytes alone would let an array of small elements
 * grow memory about 20 times past the limit), an array header
 * announcing more elements than that many bytes could hold, a reply nobody
 * asked for (unless `allow_push`: pub/sub messages), a byte hiredis cannot
 * parse, and a descriptor opened by another process: after fork() the child
 * closes its copy without a byte on the wire and connects anew, so parent
 * and child never read each other's replies.
 *
 * Errors are values: a call that fails returns -1 and leaves the connection
 * closed, with `err` (the kind) and `errstr` (the cause, a copy that stays
 * valid after the close: never a pointer into freed reader memory). Nothing
 * here logs; callers log once, with errstr.
 *
 * hiredis 0.14 (Debian 12) provides the reply parser and the command
 * formatting. Its own connection code is not used: in non-blocking mode it
 * tries only the first address, it has no connect timeout for asynchronous
 * use, and it knows nothing of fork. Its reader moves its whole unread
 * buffer after every reply, so reads are fed to it in small slices.
 *
 * Not thread-safe: one connection belongs to one thread at a time. */
#ifndef ARCLAMP_REDISCONN_H
#define ARCLAMP_REDISCONN_H

#include <stddef.h>
#include <sys/types.h>

#include <hiredis/hiredis.h>

#include "strbuf.h"

struct addrinfo;

/* Where and how to connect. Strings are copied by redisconn_init. */
struct redisconn_options {
    const char *host;           /* TCP host name or address; ignored with unix_path */
    const char *port;           /* TCP port as text ("6379") */
    const char *unix_path;      /* unix socket path, or NULL for TCP */
    const char *username;       /* ACL user for AUTH (Redis 6+), or NULL */
    const char *password;       /* AUTH password, or NULL for no AUTH */
    long db;                    /* SELECT this database when not 0 */
    const char *client_name;    /* CLIENT SETNAME, or NULL */
    int keepalive;              /* SO_KEEPALIVE on TCP connections */
    long rcvbuf;                /* kernel receive buffer asked for; 0 = system default */
    size_t max_reply_bytes;     /* longest reply accepted (0: 512 MiB, Redis's own bulk limit) */
    size_t read_chunk;          /* bytes read per read() (0: 16 KiB) */
    int allow_push;             /* replies nobody asked for are pub/sub pushes, not errors */
};

enum redisconn_state {
    REDISCONN_CLOSED,           /* no descriptor */
    REDISCONN_CONNECTING,       /* connect() in progress: wait until writable */
    REDISCONN_OPEN,             /* connected; the handshake may still be answering */
};

enum redisconn_error {
    REDISCONN_OK = 0,
    REDISCONN_ERR_CONNECT,      /* resolving or connecting failed (every address) */
    REDISCONN_ERR_HANDSHAKE,    /* AUTH, SELECT or CLIENT SETNAME was refused */
    REDISCONN_ERR_IO,           /* reading or writing failed, or the server closed */
    REDISCONN_ERR_PROTOCOL,     /* unparseable bytes, or a reply nobody asked for */
    REDISCONN_ERR_TOO_LARGE,    /* a reply over max_reply_bytes */
    REDISCONN_ERR_TIMEOUT,      /* redisconn_run's deadline passed, or the caller's */
};

/* Tag of a command whose reply is not queued (SUBSCRIBE, PING while
 * subscribed: their answers arrive as pushes). Caller tags are >= 0. */
#define REDISCONN_NO_REPLY (-1)
/* Tag redisconn_reply gives a push (with allow_push). */
#define REDISCONN_PUSH (-2)

typedef struct redisconn {
    struct redisconn_options opt;  /* copies of the caller's strings */
    enum redisconn_state state;
    int fd;                        /* -1 when CLOSED */
    pid_t pid;                     /* the process that opened fd */
    struct addrinfo *addrs;        /* resolved addresses (TCP), NULL otherwise */
    struct addrinfo *addr;         /* the address being tried or connected */
    char peer[128];                /* "host:port (address)" or "unix:path", for messages */
    redisReader *reader;           /* RESP parser, while OPEN */
    redisReplyObjectFunctions fns; /* hiredis's defaults, each charging its object */
    redisReplyObjectFunctions defaults; /* hiredis's own */
    int array_refused;             /* createArray refused a header (too large) */
    size_t charged;                /* memory of the objects of the reply being parsed */
    int over_budget;               /* an object was refused: charged + partial too large */
    char *chunk;                   /* read buffer of opt.read_chunk bytes */
    size_t chunk_len, chunk_fed;   /* bytes read into it; bytes of them fed to reader */
    size_t partial;                /* bytes fed since the last complete reply */
    strbuf out;                    /* commands not yet written */
    int *expect;                   /* tags of the replies due, a ring, oldest first */
    size_t exp_head, exp_len, exp_cap;
    int reached;                   /* the last connect got through to the server (a
                                      failure after it was not the address's fault) */
    int err;                       /* enum redisconn_error of the last failure */
    char errstr[256];              /* its cause; kept after the close */
} redisconn;

/* Callback of redisconn_run for every reply to a caller's command. The
 * reply is freed after the call. */
typedef void (*redisconn_reply_fn)(void *arg, int tag, redisReply *reply);

void redisconn_init(redisconn *c, const struct redisconn_options *opt);
/* Closes and frees everything; the struct may be reused with init. */
void redisconn_free(redisconn *c);

/* Starts connecting (closing what was open). Returns 0 when a connect() is
 * under way (CONNECTING: wait until redisconn_fd() is writable, then call
 * redisconn_connect_done) or done (OPEN), -1 when every address failed. */
int redisconn_connect(redisconn *c);
/* CONNECTING and the descriptor became writable: 1 when connected (the
 * handshake is queued: write it), 0 when this address failed and the next
 * one is being tried (the descriptor changed), -1 when none is left. */
int redisconn_connect_done(redisconn *c);
/* The connect() under way takes too long: gives up on this address with
 * `why` and tries the next. Same returns as redisconn_connect_done. */
int redisconn_connect_next(redisconn *c, const char *why);

/* Queues a command; `tag` (>= 0) comes back with its reply, or
 * REDISCONN_NO_REPLY. argvlen NULL: the arguments are C strings. Only on an
 * OPEN connection. */
void redisconn_command(redisconn *c, int tag, int argc, const char **argv,
                       const size_t *argvlen);
/* Writes what it can of the queued commands. 0, or -1 (closed). */
int redisconn_write(redisconn *c);
/* Reads what the socket holds, once the previous read was parsed. Returns
 * the bytes read (> 0), 0 when nothing is there now or the last read still
 * has bytes to parse, -1 on EOF or error (closed). */
ssize_t redisconn_read(redisconn *c);
/* The next complete reply: 1 with *reply (the caller frees it with
 * freeReplyObject) and the tag of its command, 0 when none is complete yet,
 * -1 on a protocol error, a refused handshake or an oversized reply
 * (closed). Replies to the handshake are checked and consumed here. */
int redisconn_reply(redisconn *c, redisReply **reply, int *tag);

/* Blocking use: connects when closed, writes every queued command and reads
 * until each has its reply, calling on_reply (may be NULL) for them, all
 * before `deadline` (clock_mono seconds). 0, or -1 with the connection
 * closed and err/errstr set (REDISCONN_ERR_TIMEOUT when out of time). A
 * connection opened by another process (fork) is dropped and opened anew. */
int redisconn_run(redisconn *c, double deadline, redisconn_reply_fn on_reply, void *arg);

/* Before reusing a kept, idle connection: when the server closed it
 * meanwhile (restart, idle timeout) it is closed here quietly (0, CLOSED);
 * bytes nobody asked for close it as a protocol error (-1). 0 otherwise. */
int redisconn_check_idle(redisconn *c);
/* Closes the connection (queued commands and unread replies are dropped). */
void redisconn_close(redisconn *c);
/* Closes with the given error, keeping `fmt` as errstr; returns -1. */
int redisconn_fail(redisconn *c, enum redisconn_error err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Small questions. */
static inline int redisconn_fd(const redisconn *c) { return c->fd; }
static inline int redisconn_wants_write(const redisconn *c) { return c->out.len > 0; }
static inline size_t redisconn_replies_due(const redisconn *c) { return c->exp_len; }
/* True when the descriptor belongs to another process (we were forked). */
int redisconn_inherited(const redisconn *c);
/* "AUTH" failures and friends, for messages: "connect", "handshake", ... */
const char *redisconn_error_name(enum redisconn_error err);

#endif
