/* redis_mode: what the Redis input's connection driver (redis_input.c)
 * shares with the two ways of reading it drives: pub/sub (redis_pubsub.c)
 * and streams through a consumer group (redis_stream.c).
 *
 * The driver owns the connection (a common/redisconn), the event sources,
 * the reconnect backoff, the health check and the logging of failures; a
 * mode queues its commands on the connection and handles the replies. A
 * mode reports a failure with redis_input_fail(), which closes the
 * connection: after it returns the mode must not touch the connection,
 * and its on_close() has already run. */
#ifndef ARCLAMP_LOG_REDIS_MODE_H
#define ARCLAMP_LOG_REDIS_MODE_H

#include <hiredis/hiredis.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "ingest.h"
#include "rediscluster.h"
#include "redisconn.h"
#include "stats.h"

/* One configured channel (pub/sub) or stream key. */
struct redis_key {
    const char *name;              /* borrowed from the configuration */
    size_t len;
    unsigned long long groups;     /* the log groups it feeds */
};

struct redis_input;

struct redis_mode_ops {
    const char *connected_as;      /* "subscribed to", "reading the streams of" */
    /* The mode's own state, made once per input. */
    void *(*create)(struct redis_input *ri);
    void (*destroy)(void *state);
    /* The connection is open: queue the subscription or group creation. */
    void (*start)(struct redis_input *ri, void *state);
    /* A reply (tag as queued, or REDISCONN_PUSH). -1 after redis_input_fail. */
    int (*on_reply)(struct redis_input *ri, void *state, int tag, redisReply *reply);
    /* Every health tick while ready (retries that wait for time). */
    void (*on_tick)(struct redis_input *ri, void *state);
    /* The connection is gone: forget what was in flight. */
    void (*on_close)(struct redis_input *ri, void *state);
    /* True while the mode waits for a reply it is owed (for the health check). */
    int (*awaiting)(struct redis_input *ri, void *state);
};

extern const struct redis_mode_ops redis_pubsub_mode;
extern const struct redis_mode_ops redis_stream_mode;
extern const struct redis_mode_ops redis_clustermap_mode;

/* Where one input reads and what: the single Redis of the configuration
 * (redis_input_start), or one node of a cluster (redis_cluster.c starts
 * one input per shard it reads, and one that reads the slot map). */
struct redis_input_spec {
    const char *label;                 /* "shard 3", "slot map": said in messages */
    const struct cluster_node *nodes;  /* tried in turn, the next after each failure */
    size_t nnodes;
    const struct redis_key *keys;      /* names and groups are copied */
    size_t nkeys;
    const struct redis_mode_ops *mode;
    int sharded;                       /* pub/sub: SSUBSCRIBE, "smessage" */
    size_t max_reply_bytes;            /* 0: as the mode and the keys need */
    /* Told when the input becomes ready (1) or fails (0), instead of the
     * input setting stats->redis_connected itself. */
    void (*on_change)(void *owner, struct redis_input *ri, int ready);
    void *owner;
};

/* What the modes may use of the driver. */
struct redis_input {
    const struct config *cfg;      /* borrowed */
    const struct redis_config *rc; /* &cfg->redis */
    struct ingest *ingest;         /* borrowed */
    struct stats *stats;           /* borrowed */
    sd_event *loop;                /* borrowed */
    redisconn conn;                /* the connection */
    struct redis_key *keys;        /* sorted by name (redis_input_key); names owned */
    size_t nkeys;
    const struct redis_mode_ops *mode;
    void *mode_state;
    int sharded;                   /* sharded pub/sub (a cluster's shard input) */
    char label[32];                /* "" for the single Redis, "shard 3", ... */
    struct cluster_node *nodes;    /* the addresses tried in turn, owned */
    size_t nnodes, node_at;        /* ... and the one in use */
    void *owner;                   /* the spec's owner (redis_cluster.c), or NULL */
    struct redis_driver *driver;   /* the driver's own state (redis_input.c) */
};

/* Starts an input as the spec says (the configuration's Redis settings
 * apply: credentials, timeouts, modes' keys). */
struct redis_input *redis_input_start_spec(sd_event *loop, const struct config *cfg,
                                           struct ingest *ingest, struct stats *stats,
                                           const struct redis_input_spec *spec);
/* Replaces the addresses tried in turn: the one in use first, then these
 * (those equal to it left out). */
void redis_input_set_nodes(struct redis_input *ri, const struct cluster_node *nodes, size_t n);
/* "host:port" of the node in use. */
const char *redis_input_endpoint(const struct redis_input *ri, char *buf, size_t len);
/* True while subscribed or reading. */
int redis_input_is_ready(const struct redis_input *ri);

/* The key named by `name` (len bytes), or NULL. */
const struct redis_key *redis_input_key(const struct redis_input *ri, const char *name,
                                        size_t len);
/* The subscription or consumer group is in place: counts as connected. */
void redis_input_ready(struct redis_input *ri);
/* Closes the connection for the reason given (logged with the server's
 * address, once per distinct reason) and schedules a reconnect. -1. */
int redis_input_fail(struct redis_input *ri, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Writes what the mode queued, as soon as the socket takes it. */
void redis_input_flush(struct redis_input *ri);
/* The event loop's monotonic time, seconds. */
double redis_input_now(const struct redis_input *ri);
/* True for a simple or bulk string reply. */
static inline int redis_is_string(const redisReply *r)
{
    return r && (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS);
}

#endif
