/* redis_cluster: the map input and the shard inputs of a Redis Cluster, and
 * moving a shard's input when the map moves its slot. See redis_cluster.h. */
#include "redis_cluster.h"
#include "log.h"
#include "redis_input.h"
#include "redis_mode.h"
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* While a shard is not read, the map is read again this often: a promoted
 * replica is found within a second of the cluster electing it. */
#define MAP_RETRY_INTERVAL 1.0
/* A slot map can list every slot on its own line after many migrations. */
#define MAP_REPLY_MAX (16u * 1024 * 1024)

struct shard {
    long index;                    /* the N of CHANNEL{N} */
    unsigned slot;
    struct redis_input *in;        /* NULL while no master serves the slot */
    struct cluster_node at;        /* the master `in` reads */
    int ready;
};

struct redis_cluster {
    sd_event *loop;
    const struct config *cfg;
    struct ingest *ingest;
    struct stats *stats;
    struct cluster_node *seeds;
    size_t nseeds;
    struct cluster_map map;
    int have_map;
    struct redis_input *map_input;
    struct shard *shards;          /* the shards read, by index */
    size_t nshards;
    double map_read_at;            /* when the last map arrived */
    double map_due_at;             /* when to read it again, all being well */
    int map_wanted;                /* a shard went down: read it soon */
    char state_text[96];
};

static double now_of(const struct redis_cluster *rcl)
{
    uint64_t usec;
    sd_event_now(rcl->loop, CLOCK_MONOTONIC, &usec);
    return (double)usec / 1e6;
}

static struct shard *shard_of(struct redis_cluster *rcl, const struct redis_input *ri)
{
    for (size_t i = 0; ri && i < rcl->nshards; i++)
        if (rcl->shards[i].in == ri)
            return &rcl->shards[i];
    return NULL;
}

static void count_connected(struct redis_cluster *rcl)
{
    uint64_t ready = 0;
    for (size_t i = 0; i < rcl->nshards; i++)
        ready += rcl->shards[i].ready;
    rcl->stats->cluster_shards_connected = ready;
    rcl->stats->redis_connected = ready == rcl->nshards;
}

/* Every input tells here when it becomes ready or fails. Called from
 * inside the input's own handlers: only flags change here. */
static void on_change(void *owner, struct redis_input *ri, int ready)
{
    struct redis_cluster *rcl = owner;
    struct shard *sh = shard_of(rcl, ri);
    if (!sh)
        return; /* the map input, or a shard input still being started */
    sh->ready = ready;
    if (!ready)
        rcl->map_wanted = 1;
    count_connected(rcl);
}

int redis_cluster_map_due(const struct redis_cluster *rcl, double now)
{
    if (rcl->map_wanted)
        return now >= rcl->map_read_at + MAP_RETRY_INTERVAL / 2;
    if (rcl->stats->cluster_shards_connected < rcl->nshards)
        return now >= rcl->map_read_at + MAP_RETRY_INTERVAL;
    return now >= rcl->map_due_at;
}

/* --- shard inputs ---------------------------------------------------------- */

static void stop_shard(struct redis_cluster *rcl, struct shard *sh)
{
    redis_input_stop(sh->in);
    sh->in = NULL;
    sh->ready = 0;
    count_connected(rcl);
}

/* Reads shard `sh` on `master`: every channel's CHANNEL{N}, one slot. */
static void start_shard(struct redis_cluster *rcl, struct shard *sh,
                        const struct cluster_node *master)
{
    const struct config *cfg = rcl->cfg;
    struct redis_key *keys = xcalloc(cfg->nchannels, sizeof *keys);
    for (size_t i = 0; i < cfg->nchannels; i++) {
        size_t size = strlen(cfg->channels[i]) + 24;
        char *name = xcalloc(size, 1);
        snprintf(name, size, "%s{%ld}", cfg->channels[i], sh->index);
        keys[i].name = name;
        keys[i].len = strlen(name);
        keys[i].groups = config_groups_for_channel(cfg, cfg->channels[i]);
    }
    char label[32];
    snprintf(label, sizeof label, "shard %ld", sh->index);
    int stream = cfg->redis.mode == REDIS_MODE_STREAM;
    struct redis_input_spec spec = {
        .label = label,
        .nodes = master,
        .nnodes = 1,
        .keys = keys,
        .nkeys = cfg->nchannels,
        .mode = stream ? &redis_stream_mode : &redis_pubsub_mode,
        .sharded = !stream,
        .on_change = on_change,
        .owner = rcl,
    };
    sh->at = *master;
    sh->ready = 0;
    sh->in = redis_input_start_spec(rcl->loop, cfg, rcl->ingest, rcl->stats, &spec);
    for (size_t i = 0; i < cfg->nchannels; i++)
        free((char *)keys[i].name);
    free(keys);
}

/* Puts every shard's input on the master the map names for its slot. */
static void place_shards(struct redis_cluster *rcl)
{
    for (size_t i = 0; i < rcl->nshards; i++) {
        struct shard *sh = &rcl->shards[i];
        const struct cluster_node *owner = cluster_map_owner(&rcl->map, sh->slot);
        if (sh->in && owner && strcmp(owner->host, sh->at.host) == 0 &&
            strcmp(owner->port, sh->at.port) == 0)
            continue;
        int moved = sh->in != NULL;
        if (sh->in)
            stop_shard(rcl, sh);
        if (!owner) {
            log_event(LOG_WARNING, "redis_cluster_shard_unserved", LOG_NO_FIELDS,
                      "Redis Cluster: no master serves the slot of shard %ld (slot %u); "
                      "waiting for one", sh->index, sh->slot);
            continue;
        }
        if (moved) {
            rcl->stats->cluster_shard_moves++;
            log_event(LOG_NOTICE, "redis_cluster_shard_moved", LOG_NO_FIELDS,
                      "Redis Cluster: shard %ld (slot %u) is now served by %s:%s",
                      sh->index, sh->slot, owner->host, owner->port);
        }
        start_shard(rcl, sh, owner);
    }
}

/* --- the map ------------------------------------------------------------------ */

void redis_cluster_take_map(struct redis_cluster *rcl, struct redis_input *ri,
                            struct cluster_map *m)
{
    struct cluster_map old = rcl->map;
    rcl->map = *m;
    *m = old; /* the caller frees the old one */
    rcl->have_map = 1;
    rcl->stats->cluster_map_reads++;
    double now = now_of(rcl);
    rcl->map_read_at = now;
    rcl->map_wanted = 0;
    /* Seeds may all die; the masters of the last map are the next best. */
    struct cluster_node *all = xcalloc(rcl->nseeds + rcl->map.nnodes, sizeof *all);
    memcpy(all, rcl->map.nodes, rcl->map.nnodes * sizeof *all);
    memcpy(all + rcl->map.nnodes, rcl->seeds, rcl->nseeds * sizeof *all);
    redis_input_set_nodes(ri, all, rcl->nseeds + rcl->map.nnodes);
    free(all);
    place_shards(rcl);
    rcl->map_due_at = now + rcl->cfg->redis.cluster_refresh_interval;
}

/* --- life cycle ------------------------------------------------------------------ */

static int parse_seeds(struct redis_cluster *rcl)
{
    const struct redis_config *rc = &rcl->cfg->redis;
    rcl->seeds = xcalloc(rc->ncluster, sizeof *rcl->seeds);
    for (size_t i = 0; i < rc->ncluster; i++) {
        char why[128];
        /* config.c checked each already */
        if (netaddr_split(rc->cluster[i], strlen(rc->cluster[i]), rcl->seeds[i].host,
                          sizeof rcl->seeds[i].host, rcl->seeds[i].port, "", why,
                          sizeof why) < 0)
            return -1;
    }
    rcl->nseeds = rc->ncluster;
    return 0;
}

static void make_shards(struct redis_cluster *rcl)
{
    const struct redis_config *rc = &rcl->cfg->redis;
    rcl->shards = xcalloc((size_t)rc->shards, sizeof *rcl->shards);
    for (long n = 0; n < rc->shards; n++) {
        if (!rc->shard_read[n])
            continue;
        struct shard *sh = &rcl->shards[rcl->nshards++];
        char tag[24];
        snprintf(tag, sizeof tag, "%ld", n);
        sh->index = n;
        /* CHANNEL{N}'s slot is that of its tag alone. */
        sh->slot = cluster_key_slot(tag, strlen(tag));
    }
    rcl->stats->cluster = 1;
    rcl->stats->cluster_shards_read = rcl->nshards;
}

struct redis_cluster *redis_cluster_start(sd_event *loop, const struct config *cfg,
                                          struct ingest *ingest, struct stats *stats)
{
    if (!cfg->redis_enabled || !cfg->redis.ncluster)
        return NULL;
    struct redis_cluster *rcl = xcalloc(1, sizeof *rcl);
    rcl->loop = loop;
    rcl->cfg = cfg;
    rcl->ingest = ingest;
    rcl->stats = stats;
    cluster_map_init(&rcl->map);
    if (parse_seeds(rcl) < 0) {
        free(rcl->seeds);
        free(rcl);
        return NULL;
    }
    make_shards(rcl);
    count_connected(rcl);
    struct redis_input_spec spec = {
        .label = "slot map",
        .nodes = rcl->seeds,
        .nnodes = rcl->nseeds,
        .mode = &redis_clustermap_mode,
        .max_reply_bytes = MAP_REPLY_MAX,
        .on_change = on_change,
        .owner = rcl,
    };
    rcl->map_input = redis_input_start_spec(loop, cfg, ingest, stats, &spec);
    return rcl;
}

void redis_cluster_stop(struct redis_cluster *rcl)
{
    if (!rcl)
        return;
    for (size_t i = 0; i < rcl->nshards; i++)
        redis_input_stop(rcl->shards[i].in);
    redis_input_stop(rcl->map_input);
    /* A reload may leave the cluster for one Redis: no cluster gauges then. */
    rcl->stats->cluster = 0;
    rcl->stats->cluster_shards_read = rcl->stats->cluster_shards_connected = 0;
    cluster_map_free(&rcl->map);
    free(rcl->shards);
    free(rcl->seeds);
    free(rcl);
}

const char *redis_cluster_state(struct redis_cluster *rcl)
{
    uint64_t ready = rcl->stats->cluster_shards_connected;
    if (!rcl->have_map)
        snprintf(rcl->state_text, sizeof rcl->state_text,
                 "redis cluster: reading the slot map");
    else
        snprintf(rcl->state_text, sizeof rcl->state_text,
                 "redis cluster: %llu/%zu shards connected", (unsigned long long)ready,
                 rcl->nshards);
    return rcl->state_text;
}
