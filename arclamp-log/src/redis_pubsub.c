/* redis_pubsub: reading Redis pub/sub — one SUBSCRIBE naming every
 * configured channel; each published payload is a message for ingest.
 * Pub/sub keeps nothing: what is published while we are not subscribed is
 * gone, which is what the stream mode is for.
 *
 * A cluster's shard input (ri->sharded) uses sharded pub/sub instead:
 * SSUBSCRIBE to the shard's channels (one slot: one command), messages
 * come as "smessage". When the slot moves to another master (a failover,
 * a migration) the server unsubscribes us ("sunsubscribe"): that ends the
 * session, and redis_cluster.c subscribes again where the new map says. */
#include "clock.h"
#include "redis_mode.h"
#include "strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct pubsub {
    size_t confirmed;              /* SUBSCRIBE confirmations so far */
};

static void *pubsub_create(struct redis_input *ri)
{
    (void)ri;
    return xcalloc(1, sizeof(struct pubsub));
}

static void pubsub_destroy(void *state)
{
    free(state);
}

static void pubsub_start(struct redis_input *ri, void *state)
{
    struct pubsub *ps = state;
    ps->confirmed = 0;
    const char **argv = xcalloc(ri->nkeys + 1, sizeof *argv);
    size_t *lens = xcalloc(ri->nkeys + 1, sizeof *lens);
    argv[0] = ri->sharded ? "SSUBSCRIBE" : "SUBSCRIBE";
    lens[0] = strlen(argv[0]);
    for (size_t i = 0; i < ri->nkeys; i++) {
        argv[i + 1] = ri->keys[i].name;
        lens[i + 1] = ri->keys[i].len;
    }
    /* Its confirmations arrive as pushes, one per channel. */
    redisconn_command(&ri->conn, REDISCONN_NO_REPLY, (int)ri->nkeys + 1, argv, lens);
    free(lens);
    free(argv);
}

static int is_kind(const redisReply *r, const char *kind)
{
    return redis_is_string(r) && r->len == strlen(kind) && memcmp(r->str, kind, r->len) == 0;
}

static int pubsub_on_reply(struct redis_input *ri, void *state, int tag, redisReply *r)
{
    struct pubsub *ps = state;
    (void)tag;
    if (r->type == REDIS_REPLY_ERROR)
        return redis_input_fail(ri, "refused: %.150s", r->str);
    if (r->type != REDIS_REPLY_ARRAY || r->elements < 2 || !redis_is_string(r->element[0]))
        return redis_input_fail(ri, "an answer that is not a pub/sub message (type %d)", r->type);
    const redisReply *kind = r->element[0];
    if (is_kind(kind, ri->sharded ? "smessage" : "message") && r->elements == 3 &&
        redis_is_string(r->element[1])) {
        const struct redis_key *k = redis_input_key(ri, r->element[1]->str, r->element[1]->len);
        if (k && redis_is_string(r->element[2]))
            ingest_message(ri->ingest, r->element[2]->str, r->element[2]->len, k->groups,
                           INPUT_REDIS, (time_t)clock_wall_seconds(), redis_input_now(ri), 0);
    } else if (is_kind(kind, ri->sharded ? "ssubscribe" : "subscribe")) {
        if (++ps->confirmed == ri->nkeys)
            redis_input_ready(ri);
    } else if (ri->sharded && is_kind(kind, "sunsubscribe")) {
        return redis_input_fail(ri, "unsubscribed by the server: the shard's slot moved");
    }
    /* "pong" (the health check) and others: the data itself was the answer. */
    return 0;
}

static void pubsub_nothing(struct redis_input *ri, void *state)
{
    (void)ri;
    (void)state;
}

static int pubsub_awaiting(struct redis_input *ri, void *state)
{
    struct pubsub *ps = state;
    return ps->confirmed < ri->nkeys;
}

const struct redis_mode_ops redis_pubsub_mode = {
    .connected_as = "subscribed to",
    .create = pubsub_create,
    .destroy = pubsub_destroy,
    .start = pubsub_start,
    .on_reply = pubsub_on_reply,
    .on_tick = pubsub_nothing,
    .on_close = pubsub_nothing,
    .awaiting = pubsub_awaiting,
};
