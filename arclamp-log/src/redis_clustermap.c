/* redis_clustermap: the mode of the input that reads a cluster's slot map
 * (CLUSTER SLOTS) for redis_cluster.c — once a session starts, then
 * whenever redis_cluster_map_due says so. A node that answers with an
 * error or a map serving no slot (not part of a formed cluster yet) ends
 * the session: the driver tries the next address. */
#include "redis_cluster.h"
#include "redis_mode.h"
#include "strbuf.h"

#include <stdlib.h>

struct clustermap {
    int asking;                    /* a CLUSTER SLOTS is unanswered */
    int ready;                     /* redis_input_ready said for this session */
};

static void *clustermap_create(struct redis_input *ri)
{
    (void)ri;
    return xcalloc(1, sizeof(struct clustermap));
}

static void clustermap_destroy(void *state)
{
    free(state);
}

static void ask_map(struct redis_input *ri, struct clustermap *cm)
{
    const char *argv[] = {"CLUSTER", "SLOTS"};
    redisconn_command(&ri->conn, 0, 2, argv, NULL);
    cm->asking = 1;
}

static void clustermap_start(struct redis_input *ri, void *state)
{
    ask_map(ri, state);
}

static int clustermap_on_reply(struct redis_input *ri, void *state, int tag, redisReply *r)
{
    struct clustermap *cm = state;
    (void)tag;
    cm->asking = 0;
    if (r->type == REDIS_REPLY_ERROR)
        return redis_input_fail(ri, "CLUSTER SLOTS refused: %.150s", r->str);
    struct cluster_map map;
    char why[160];
    cluster_map_init(&map);
    if (cluster_map_from_slots(&map, r, ri->nodes[ri->node_at].host, why, sizeof why) < 0)
        return redis_input_fail(ri, "CLUSTER SLOTS: %s", why);
    if (map.covered == 0) {
        cluster_map_free(&map);
        return redis_input_fail(ri, "CLUSTER SLOTS: the node serves no slot (not in a "
                                    "formed cluster)");
    }
    if (!cm->ready) {
        cm->ready = 1;
        redis_input_ready(ri);
    }
    redis_cluster_take_map(ri->owner, ri, &map);
    cluster_map_free(&map);
    return 0;
}

static void clustermap_on_tick(struct redis_input *ri, void *state)
{
    struct clustermap *cm = state;
    if (cm->ready && !cm->asking && redis_cluster_map_due(ri->owner, redis_input_now(ri))) {
        ask_map(ri, cm);
        redis_input_flush(ri);
    }
}

static void clustermap_on_close(struct redis_input *ri, void *state)
{
    struct clustermap *cm = state;
    (void)ri;
    cm->asking = cm->ready = 0;
}

static int clustermap_awaiting(struct redis_input *ri, void *state)
{
    (void)ri;
    return ((struct clustermap *)state)->asking;
}

const struct redis_mode_ops redis_clustermap_mode = {
    .connected_as = "reading the slot map, with",
    .create = clustermap_create,
    .destroy = clustermap_destroy,
    .start = clustermap_start,
    .on_reply = clustermap_on_reply,
    .on_tick = clustermap_on_tick,
    .on_close = clustermap_on_close,
    .awaiting = clustermap_awaiting,
};
