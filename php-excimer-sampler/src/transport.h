/* transport: delivers collapsed sample lines to Arc Lamp, from C.
 *
 * Targets (URIs):
 *   redis://[[USER]:PASSWORD@]HOST:PORT/CHANNEL[?OPTIONS]
 *   redis+unix://[[USER]:PASSWORD@]/PATH?channel=CHANNEL[&OPTIONS]
 *       PUBLISH CHANNEL MESSAGE (arclamp-log's pub/sub mode), or with
 *       stream=1 XADD KEY MAXLEN ~ 1000000 * sample MESSAGE (stream mode).
 *       OPTIONS, joined by '&': stream=1, db=N (SELECT N first).
 *       USER, PASSWORD and CHANNEL may hold %XX escapes.
 *   redis-cluster://[[USER]:PASSWORD@]HOST:PORT[,HOST:PORT...]/CHANNEL?shards=N[&OPTIONS]
 *       Redis Cluster (common/src/rediscluster.h): the HOST:PORT list are
 *       seeds, any masters or replicas of the cluster. The fleet's lines are
 *       spread over N shard keys CHANNEL{0}..CHANNEL{N-1} (shards=N, 1 to
 *       TRANSPORT_SHARDS_MAX); SPUBLISH CHANNEL{K} MESSAGE (sharded pub/sub),
 *       or with stream=1 XADD CHANNEL{K} ... as above. K is this host's
 *       shard: crc16(hostname) % N (shard=K pins it). By host, not per
 *       message: a host's messages stay in order on one shard, which a
 *       hierarchical run of several messages needs to be put together
 *       again, and a host's load moves nowhere while N stays the same.
 *       OPTIONS: stream=1, shard=K (db= is refused: a cluster has only 0).
 *   udp://HOST:PORT        datagrams (HOST:PORT as common/src/netaddr.h)
 *   unix:///PATH           the same over a unix datagram socket
 * A message holds whole lines joined by '\n' — all the lines of one send
 * that fit in TRANSPORT_MESSAGE_MAX bytes (a longer line goes alone; over
 * UDP, where it cannot, it fails) — so a request costs one command, not
 * one per line. arclamp-log splits messages into lines.
 *
 * A delivery is bounded by one deadline: connecting (each address in turn),
 * writing and reading the replies; a datagram that finds the socket full
 * (the receiver has not read the last ones yet) waits for room until then,
 * and fails as a timeout after it. Failures are counted per reason in a
 * transport_stats, never raised.
 *
 * The Redis connection is common/src/redisconn (one client for the whole
 * project), kept in a transport_conn between deliveries. After a failure to
 * connect, the same target is not tried again for a backoff (50 ms doubling
 * to 1 s): a dead Redis costs the fleet nothing but counted failures.
 *
 * Zend-free: plain POSIX + hiredis + common/. The sender thread (sender.c)
 * is the only caller; nothing here is thread-safe by itself. */
#ifndef EXCIMER_TRANSPORT_H
#define EXCIMER_TRANSPORT_H

#include <stddef.h>

#include "rediscluster.h"
#include "redisconn.h"

/* Lines are packed into messages of at most this many bytes: arclamp-log's
 * max_message_bytes must be at least this (its default is 1 MiB). */
#define TRANSPORT_MESSAGE_MAX 64000
/* shards=N of a redis-cluster:// target at most. */
#define TRANSPORT_SHARDS_MAX 1024

enum transport_kind { TRANSPORT_REDIS_PUBLISH, TRANSPORT_REDIS_XADD, TRANSPORT_UDP, TRANSPORT_UNIX };

typedef struct transport_target {
    enum transport_kind kind;
    char host[256];        /* redis/udp host */
    char port[8];          /* redis/udp port */
    char path[108];        /* unix datagram socket, or the Redis unix socket */
    int redis_unix;        /* Redis over the unix socket `path` */
    char key[256];         /* redis channel or stream key */
    char user[128];        /* ACL user, or "" */
    char password[256];    /* AUTH password, or "" for none */
    long db;               /* SELECT this first when not 0 */
    int cluster;           /* redis-cluster://: the fields below */
    char seeds[512];       /* HOST:PORT[,HOST:PORT...], as the URI spells them */
    unsigned shards;       /* the shard keys are key{0}..key{shards-1} */
    unsigned shard;        /* this sender's: crc16(hostname) % shards, or shard=K */
} transport_target;

/* Whether two parsed targets name the same destination. */
int transport_target_equal(const transport_target *a, const transport_target *b);

/* Why a send failed; names are the keys of excimer_arclamp_stats()['errors']. */
enum transport_error {
    TRANSPORT_ERR_CONNECT,   /* could not resolve, connect, or authenticate */
    TRANSPORT_ERR_TIMEOUT,   /* the deadline passed (also while queued) */
    TRANSPORT_ERR_SEND,      /* write, read or sendto failed; the connection closed */
    TRANSPORT_ERR_REPLY,     /* Redis answered with an error or garbage */
    TRANSPORT_ERR_BACKLOG,   /* the sender's queue was full: dropped unsent */
    TRANSPORT_NERRORS
};

typedef struct transport_stats {
    long lines_sent;                     /* lines delivered (Redis: acknowledged) */
    long lines_failed;                   /* lines not delivered */
    long lines_unheard;                  /* PUBLISHed lines (counted as sent) that no
                                            subscriber received: Redis answered 0 and
                                            dropped them (pub/sub keeps nothing) */
    long errors[TRANSPORT_NERRORS];      /* failed sends per reason */
    char last_error[256];                /* the last failure, for humans */
} transport_stats;

/* A kept connection and what it is for. */
typedef struct transport_conn {
    redisconn redis;                     /* valid while `target_set`, not a cluster */
    struct cluster_client cluster;       /* valid while `target_set`, a cluster */
    int target_set;
    transport_target target;             /* the target they connect to */
    double retry_at;                     /* connect failed: not before this time */
    double backoff;                      /* the next backoff, seconds */
} transport_conn;

const char *transport_error_name(enum transport_error e);

/* Parses a target URI. 0, or -1 with a message in err. */
int transport_parse(const char *uri, transport_target *t, char *err, size_t errlen);

/* Counts a failure of `lines` lines with a message for humans. */
void transport_fail(transport_stats *st, enum transport_error e, long lines, const char *fmt,
                    ...) __attribute__((format(printf, 4, 5)));

/* Delivers `nlines` lines (`text`, `len` bytes, lines joined by '\n') before
 * `deadline` (clock_mono seconds). Returns the lines delivered; the rest are
 * counted in st. */
long transport_deliver(transport_conn *tc, const transport_target *t, const char *text,
                       size_t len, size_t nlines, double deadline, transport_stats *st);

/* Drops the kept connection (shutdown, a new target). */
void transport_conn_close(transport_conn *tc);
/* In a forked child: closes the descriptors of the parent's connections
 * without touching their buffers (the parent's thread may have been
 * changing them at the fork) and forgets them (a small leak per fork). */
void transport_conn_forget_in_child(transport_conn *tc);

#endif
