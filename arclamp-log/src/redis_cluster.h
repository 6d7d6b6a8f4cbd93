/* redis_cluster: reading a Redis Cluster — the channels as shard keys
 * CHANNEL{0}..CHANNEL{shards-1} (redis.shards), each shard on the master
 * that serves its slot.
 *
 * One input (redis_input.c, the same driver, bounds and backoff as the
 * single Redis) reads the slot map (CLUSTER SLOTS, redis_clustermap.c)
 * from the seeds and then from any master it names; one input per shard
 * this instance reads (redis.shards_read) subscribes to (SSUBSCRIBE) or
 * reads (XREADGROUP, one consumer group shared by every collector) all of
 * that shard's channels on its master: the hash tag {N} puts them in one
 * slot, so one command serves them.
 *
 * The map is read again every cluster_refresh_interval, and every second
 * while a shard input is down (its master died, refused a command with
 * MOVED or CLUSTERDOWN, or unsubscribed us because the slot moved). When
 * the map names another master for a shard (a replica promoted, a slot
 * migrated) that shard's input is stopped and started there: for streams
 * nothing is lost (the entries wait in the stream, and what the old master
 * had handed out is taken over by XAUTOCLAIM, see redis_stream.c); for
 * pub/sub what was published while nobody was subscribed is gone. */
#ifndef ARCLAMP_LOG_REDIS_CLUSTER_H
#define ARCLAMP_LOG_REDIS_CLUSTER_H

#include <systemd/sd-event.h>

#include "config.h"
#include "ingest.h"
#include "rediscluster.h"
#include "stats.h"

struct redis_cluster;
struct redis_input;

/* Starts reading the map (and then the shards); NULL without redis.cluster. */
struct redis_cluster *redis_cluster_start(sd_event *loop, const struct config *cfg,
                                          struct ingest *ingest, struct stats *stats);
/* Stops every input (sending the acknowledgements queued). */
void redis_cluster_stop(struct redis_cluster *rcl);
/* "redis cluster: 16/16 shards connected" and such. */
const char *redis_cluster_state(struct redis_cluster *rcl);

/* For the map input (redis_clustermap.c). */
/* A new map read from `ri`'s node: taken (m is left empty). */
void redis_cluster_take_map(struct redis_cluster *rcl, struct redis_input *ri,
                            struct cluster_map *m);
/* True when the map should be read again now. */
int redis_cluster_map_due(const struct redis_cluster *rcl, double now);

#endif
