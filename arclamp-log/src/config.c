/* config: arclamp-log's option tables and the checks that go beyond one key.
 * The tables are the single source of keys, defaults, bounds and docs. */
#include "config.h"
#include "bucket.h"
#include "conftable.h"
#include "layout.h"
#include "log.h"
#include "netaddr.h"
#include "stackline.h"
#include "tierline.h"
#include "strbuf.h"
#include "vec.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* max_run_bytes when the file does not say (and max_buffer_bytes is not
 * smaller). */
#define RUN_BYTES_DEFAULT (4L * 1024 * 1024)

static int bind_string_list(const struct opt *opt, const struct ynode *node, void *field,
                            const char *key, struct conf_ctx *ctx);
static int bind_listen(const struct opt *opt, const struct ynode *node, void *field,
                       const char *key, struct conf_ctx *ctx);
static int bind_groups(const struct opt *opt, const struct ynode *node, void *field,
                       const char *key, struct conf_ctx *ctx);

/* A list field as the structs declare them: the array pointer immediately
 * followed by its size_t count (channels/nchannels, listen/nlisten, ...).
 * Custom binders receive the address of the pointer and fill both. */
struct list_field {
    void *items;
    size_t n;
};

static const struct opt redis_opts[] = {
    {"host", OPT_STRING, offsetof(struct redis_config, host), "127.0.0.1", .doc = "Redis host"},
    {"port", OPT_INT, offsetof(struct redis_config, port), "6379", 1, 65535, .doc = "Redis TCP port"},
    {"unix_socket", OPT_STRING, offsetof(struct redis_config, unix_socket), NULL,
     .doc = "Redis unix socket path, used instead of host and port"},
    {"unix_socket_path", OPT_STRING, offsetof(struct redis_config, unix_socket), NULL,
     .doc = "redis-py's name of unix_socket"},
    {"username", OPT_STRING, offsetof(struct redis_config, username), NULL,
     .doc = "ACL user for AUTH (Redis 6+)"},
    {"password", OPT_STRING, offsetof(struct redis_config, password), NULL, .doc = "AUTH password"},
    {"password_file", OPT_STRING, offsetof(struct redis_config, password_file), NULL,
     .doc = "file whose first line is the AUTH password"},
    {"db", OPT_INT, offsetof(struct redis_config, db), "0", 0, 1000000,
     .doc = "database for SELECT (streams only: pub/sub channels are global)"},
    {"mode", OPT_ENUM, offsetof(struct redis_config, mode), "pubsub", .choices = "pubsub|stream",
     .doc = "read pub/sub channels or streams through a consumer group"},
    {"connect_timeout", OPT_SECONDS, offsetof(struct redis_config, connect_timeout), "2", 0.01,
     3600, .doc = "seconds for connecting (each address) and the handshake", .nullable = 1},
    {"socket_connect_timeout", OPT_SECONDS, offsetof(struct redis_config, connect_timeout),
     NULL, 0.01, 3600, .doc = "redis-py's name of connect_timeout", .nullable = 1},
    {"socket_timeout", OPT_SECONDS, offsetof(struct redis_config, socket_timeout), NULL, 0.01,
     3600, .doc = "seconds a due reply may take (default: health_check_interval)",
     .nullable = 1},
    {"health_check_interval", OPT_SECONDS,
     offsetof(struct redis_config, health_check_interval), "15", 0, 3600,
     .doc = "seconds of silence before a PING (0: the default, 15)", .nullable = 1},
    {"socket_keepalive", OPT_BOOL, offsetof(struct redis_config, keepalive), "true",
     .doc = "TCP keepalive on the connection", .nullable = 1},
    {"client_name", OPT_STRING, offsetof(struct redis_config, client_name), NULL,
     .doc = "name given to the connection (CLIENT SETNAME)"},
    {"ssl", OPT_BOOL, offsetof(struct redis_config, ssl), "false",
     .doc = "redis-py's TLS switch; true is refused (no TLS: use a local TLS proxy)",
     .nullable = 1},
    {"reconnect_max_delay", OPT_SECONDS, offsetof(struct redis_config, reconnect_max_delay),
     "30", 0.1, 3600, .doc = "cap of the reconnect backoff, seconds"},
    {"stream_group", OPT_STRING, offsetof(struct redis_config, stream_group), "arclamp-log",
     .doc = "consumer group (stream mode)"},
    {"stream_consumer", OPT_STRING, offsetof(struct redis_config, stream_consumer), NULL,
     .doc = "consumer name (stream mode; default: host name)"},
    {"stream_batch", OPT_INT, offsetof(struct redis_config, stream_batch), "1000", 1, 100000,
     .doc = "entries per XREADGROUP"},
    {"stream_delete_acked", OPT_BOOL, offsetof(struct redis_config, stream_delete_acked), "true",
     .doc = "XDEL entries once acknowledged"},
    {"socket_buffer_bytes", OPT_INT, offsetof(struct redis_config, socket_buffer_bytes),
     "33554432", 0, 1024L * 1024 * 1024,
     .doc = "kernel receive buffer of the Redis connection (absorbs bursts); 0: system default"},
    {"stream_claim_idle", OPT_SECONDS, offsetof(struct redis_config, stream_claim_idle), "60", 0,
     86400, .doc = "stream mode: entries another consumer of the group read and left "
                   "unacknowledged this long (a dead collector's) are taken over with XAUTOCLAIM; "
                   "0: never"},
    {"cluster", OPT_CUSTOM, offsetof(struct redis_config, cluster), NULL,
     .custom = bind_string_list,
     .doc = "Redis Cluster seed nodes, HOST:PORT each (instead of host/port): the channels are "
            "read as shard keys CHANNEL{0}..CHANNEL{shards-1} on the masters serving them"},
    {"shards", OPT_INT, offsetof(struct redis_config, shards), "16", 1, CONFIG_MAX_SHARDS,
     .doc = "with cluster: shard keys per channel (the senders' shards=N)"},
    {"shards_read", OPT_STRING, offsetof(struct redis_config, shards_read), "all",
     .doc = "with cluster: the shards this instance reads, \"all\" or numbers and ranges "
            "(\"0-7,12\"); pub/sub collectors split the shards between them"},
    {"cluster_refresh_interval", OPT_SECONDS,
     offsetof(struct redis_config, cluster_refresh_interval), "10", 0.1, 3600,
     .doc = "with cluster: seconds between slot map reads while every shard is read (at once "
            "after a failure)"},
    {NULL},
};

static const struct opt group_opts[] = {
    {"period", OPT_STRING, offsetof(struct log_group, period), NULL,
     .doc = "directory name under base_path"},
    {"format", OPT_STRING, offsetof(struct log_group, format), NULL,
     .doc = "strftime pattern of the time bucket, UTC"},
    {"retain", OPT_INT, offsetof(struct log_group, retain), NULL, 1, 1000000,
     .doc = "files kept per tag"},
    {"sample_pop", OPT_INT, offsetof(struct log_group, sample_pop), "1", 1, 1000000000,
     .doc = "keep every Nth line"},
    {"channels", OPT_CUSTOM, offsetof(struct log_group, channels), NULL,
     .custom = bind_string_list, .doc = "channels feeding this group (default: all)"},
    {NULL},
};

static const struct opt config_opts[] = {
    {"base_path", OPT_STRING, offsetof(struct config, base_path), LAYOUT_DATA_DIR "/" LAYOUT_LOGS_DIR,
     .doc = "directory of the trace logs"},
    {"redis", OPT_MAP, offsetof(struct config, redis), .sub = redis_opts,
     .doc = "Redis input (optional); other redis-py keys are ignored with a warning",
     .lenient = 1},
    {"redis_channel", OPT_STRING, offsetof(struct config, redis_channel), NULL,
     .doc = "channel or stream key (default: excimer, and xhprof and tiers with redis:, "
            "unless redis_channels is set)"},
    {"redis_channels", OPT_CUSTOM, offsetof(struct config, extra_channels), NULL,
     .custom = bind_string_list, .doc = "more channels or stream keys"},
    {"listen", OPT_CUSTOM, offsetof(struct config, listen), NULL, .custom = bind_listen,
     .doc = "ingest sockets when not socket-activated: udp://HOST:PORT, unix:///PATH"},
    {"logs", OPT_CUSTOM, offsetof(struct config, groups), NULL, .custom = bind_groups,
     .doc = "log groups: period, format, retain, sample_pop, channels"},
    {"listen_socket_mode", OPT_STRING, offsetof(struct config, listen_socket_mode), "0660",
     .doc = "permissions (octal) of the unix sockets of listen: (who may send)"},
    {"listen_socket_group", OPT_STRING, offsetof(struct config, listen_socket_group), NULL,
     .doc = "group of those sockets (e.g. arclamp-senders; default: the daemon's)"},
    {"flush_interval", OPT_SECONDS, offsetof(struct config, flush_interval), "1", 0.01, 60,
     .doc = "longest a line waits in a buffer, seconds"},
    {"max_line_bytes", OPT_INT, offsetof(struct config, max_line_bytes), "262144", 64,
     64 * 1024 * 1024, .doc = "longer sample lines are refused"},
    {"max_message_bytes", OPT_INT, offsetof(struct config, max_message_bytes), "1048576", 64,
     256 * 1024 * 1024, .doc = "longer messages are refused"},
    {"max_buffer_bytes", OPT_INT, offsetof(struct config, max_buffer_bytes), "4194304", 65536,
     1024L * 1024 * 1024, .doc = "per file: bytes kept while the disk refuses writes"},
    {"max_open_files", OPT_INT, offsetof(struct config, max_open_files), "256", 4, 65536,
     .doc = "trace log files open at most"},
    {"max_tags_per_bucket", OPT_INT, offsetof(struct config, max_tags_per_bucket), "300", 0,
     1000000, .doc = "per log group and bucket: new tag files at most (then all only)"},
    {"max_files_per_period", OPT_INT, offsetof(struct config, max_files_per_period), "50000",
     16, 100000000, .doc = "entries of a period directory before new tag files are refused"},
    {"min_free_disk_bytes", OPT_INT, offsetof(struct config, min_free_disk_bytes), "0", 0,
     1e18, .doc = "lines are refused while the disk has less free space than this"},
    {"min_free_disk_percent", OPT_INT, offsetof(struct config, min_free_disk_percent), "1", 0,
     99, .doc = "... or less than this percentage of its space or inodes free"},
    {"max_pending_runs", OPT_INT, offsetof(struct config, max_pending_runs), "1000", 1, 100000,
     .doc = "hierarchical runs waiting for their end line at most (then the oldest is dropped)"},
    {"max_run_bytes", OPT_INT, offsetof(struct config, max_run_bytes), NULL, 4096,
     1024L * 1024 * 1024,
     .doc = "one run's lines at most, bytes (default 4194304, or max_buffer_bytes if smaller)"},
    {"max_pending_run_bytes", OPT_INT, offsetof(struct config, max_pending_run_bytes),
     "67108864", 65536, 16L * 1024 * 1024 * 1024,
     .doc = "the lines of all pending runs at most, bytes (then the oldest is dropped)"},
    {"run_timeout", OPT_SECONDS, offsetof(struct config, run_timeout), "60", 0.1, 86400,
     .doc = "a run whose end line has not come after this many seconds is dropped"},
    {"max_tier_identities", OPT_INT, offsetof(struct config, max_tier_identities), "1000", 1,
     100000, .doc = "request identities per tier table at most (then their lines count as "
                    "_other)"},
    {"reserved_tier_identities", OPT_CUSTOM, offsetof(struct config, reserved_tier_identities),
     NULL, .custom = bind_string_list,
     .doc = "request identities that always keep a row of their own in the tier tables, "
            "never counted as _other (at most 1000)"},
    {"close_idle_after", OPT_SECONDS, offsetof(struct config, close_idle_after), "60", 1, 86400,
     .doc = "files not written for this long are closed, seconds"},
    {"metrics_file", OPT_STRING, offsetof(struct config, metrics_file), NULL,
     .doc = "Prometheus text file to write"},
    {"metrics_interval", OPT_SECONDS, offsetof(struct config, metrics_interval), "15", 0.1, 3600,
     .doc = "seconds between metrics file updates"},
    {"invalid_report_interval", OPT_SECONDS, offsetof(struct config, invalid_report_interval),
     "10", 0, 86400, .doc = "at most one log entry about invalid lines per this many seconds"},
    {"log_target", OPT_STRING, offsetof(struct config, log_target), "auto",
     .doc = "auto, journal or stderr"},
    {NULL},
};

static void free_string_list(char **items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(items[i]);
    free(items);
}

static int bind_string_list(const struct opt *opt, const struct ynode *node, void *field,
                            const char *key, struct conf_ctx *ctx)
{
    (void)opt;
    struct list_field *list = field;
    if (node->type == YNODE_SCALAR && !ynode_is_null(node)) {
        list->items = xcalloc(1, sizeof(char *));
        ((char **)list->items)[0] = xstrdup(node->value);
        list->n = 1;
        return 0;
    }
    if (node->type != YNODE_SEQ)
        return conf_error(ctx, node, key, "expected a list of strings");
    char **items = xcalloc(node->nitems, sizeof *items);
    list->items = items;
    for (size_t i = 0; i < node->nitems; i++) {
        const struct ynode *item = node->items[i];
        if (item->type != YNODE_SCALAR || !item->value[0])
            return conf_error(ctx, item, key, "expected a non-empty string");
        items[i] = xstrdup(item->value);
        list->n = i + 1;
    }
    return 0;
}

/* Checks the shape of a listen address; the socket code resolves it later.
 * Returns NULL, or the reason (possibly written into `why`). */
static const char *check_listen_address(const char *a, char *why, size_t whylen)
{
    char host[256], port[NETADDR_PORT_MAX];
    if (strncmp(a, "unix://", 7) == 0)
        return a[7] == '/' && a[8] ? NULL : "expected unix:///absolute/path";
    if (strncmp(a, "udp://", 6) == 0)
        return netaddr_split(a + 6, strlen(a + 6), host, sizeof host, port, "udp://", why,
                             whylen) < 0 ? why : NULL;
    return "expected udp://HOST:PORT or unix:///PATH";
}

static int bind_listen(const struct opt *opt, const struct ynode *node, void *field,
                       const char *key, struct conf_ctx *ctx)
{
    (void)opt;
    struct list_field *list = field;
    if (node->type != YNODE_SEQ)
        return conf_error(ctx, node, key, "expected a list of addresses");
    struct listen_addr *addrs = xcalloc(node->nitems, sizeof *addrs);
    list->items = addrs;
    for (size_t i = 0; i < node->nitems; i++) {
        const struct ynode *item = node->items[i];
        list->n = i + 1; /* counted before filling, so an error frees it too */
        const struct ynode *address = item;
        char ikey[64];
        snprintf(ikey, sizeof ikey, "%s[%zu]", key, i);
        if (item->type == YNODE_MAP) {
            for (size_t k = 0; k < item->nitems; k += 2) {
                const char *name = item->items[k]->value;
                if (strcmp(name, "address") && strcmp(name, "channel"))
                    return conf_error(ctx, item->items[k], ikey, "unknown key \"%.64s\"", name);
            }
            address = ynode_get(item, "address");
            const struct ynode *channel = ynode_get(item, "channel");
            if (channel && conf_parse_string(channel, &addrs[i].channel, ikey, ctx) < 0)
                return -1;
            if (!address)
                return conf_error(ctx, item, ikey, "address is missing");
        }
        if (conf_parse_string(address, &addrs[i].address, ikey, ctx) < 0)
            return -1;
        char reason[128];
        const char *why = addrs[i].address
                              ? check_listen_address(addrs[i].address, reason, sizeof reason)
                              : "address is empty";
        if (why)
            return conf_error(ctx, address, ikey, "%s", why);
    }
    return 0;
}

static int check_group(const struct log_group *g, const struct ynode *node, const char *key,
                       struct conf_ctx *ctx)
{
    char k[96];
    if (!g->period || !g->period[0])
        return conf_error(ctx, node, key, "period is missing");
    if (strchr(g->period, '/') || strcmp(g->period, ".") == 0 || strcmp(g->period, "..") == 0) {
        snprintf(k, sizeof k, "%s.period", key);
        return conf_error(ctx, ynode_get(node, "period"), k,
                          "must be one directory name, not \"%.100s\"", g->period);
    }
    if (!g->format)
        return conf_error(ctx, node, key, "format is missing");
    const char *why = bucket_format_check(g->format);
    if (why) {
        snprintf(k, sizeof k, "%s.format", key);
        return conf_error(ctx, ynode_get(node, "format"), k, "%s", why);
    }
    if (g->retain == 0)
        return conf_error(ctx, node, key, "retain is missing");
    return 0;
}

static int bind_groups(const struct opt *opt, const struct ynode *node, void *field,
                       const char *key, struct conf_ctx *ctx)
{
    (void)opt;
    struct list_field *list = field;
    if (node->type != YNODE_SEQ || node->nitems == 0)
        return conf_error(ctx, node, key, "expected a list of log groups");
    if (node->nitems > CONFIG_MAX_GROUPS)
        return conf_error(ctx, node, key, "at most %d log groups", CONFIG_MAX_GROUPS);
    struct log_group *groups = xcalloc(node->nitems, sizeof *groups);
    list->items = groups;
    for (size_t i = 0; i < node->nitems; i++) {
        char gkey[32];
        snprintf(gkey, sizeof gkey, "%s[%zu]", key, i);
        list->n = i + 1;
        conf_set_defaults(group_opts, &groups[i]);
        if (conf_bind(group_opts, node->items[i], &groups[i], gkey, ctx) < 0 ||
            check_group(&groups[i], node->items[i], gkey, ctx) < 0)
            return -1;
    }
    return 0;
}

static void add_channel(struct config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->nchannels; i++) {
        if (strcmp(cfg->channels[i], name) == 0)
            return;
    }
    VEC_RESERVE(cfg->channels, cfg->channels_cap, cfg->nchannels + 1, 4);
    cfg->channels[cfg->nchannels++] = xstrdup(name);
}

static int read_password_file(struct config *cfg, const struct ynode *root, struct conf_ctx *ctx)
{
    const char *path = cfg->redis.password_file;
    const struct ynode *node = ynode_get(ynode_get(root, "redis"), "password_file");
    FILE *f = fopen(path, "r");
    if (!f)
        return conf_error(ctx, node, "redis.password_file", "%s: %s", path, strerror(errno));
    char line[1024];
    if (!fgets(line, sizeof line, f))
        line[0] = '\0';
    fclose(f);
    line[strcspn(line, "\r\n")] = '\0';
    if (!line[0])
        return conf_error(ctx, node, "redis.password_file", "%s is empty", path);
    free(cfg->redis.password);
    cfg->redis.password = xstrdup(line);
    return 0;
}

/* Two groups writing to one directory must not be able to produce the same
 * file name: "<bucket>.<tag>.log" is ambiguous when one group's bucket name
 * is the other's followed by "." (tags may contain dots), or when both are
 * equal. Checked on the names of one sample time. */
static int check_shared_directories(const struct config *cfg, const struct ynode *root,
                                    struct conf_ctx *ctx)
{
    const struct ynode *logs = ynode_get(root, "logs");
    for (size_t i = 0; i < cfg->ngroups; i++) {
        for (size_t j = 0; j < i; j++) {
            const struct log_group *a = &cfg->groups[j], *b = &cfg->groups[i];
            if (strcmp(a->period, b->period) != 0)
                continue;
            char na[BUCKET_NAME_MAX + 2], nb[BUCKET_NAME_MAX + 2];
            size_t la = bucket_name(a->format, 1700000000, na, sizeof na - 1);
            size_t lb = bucket_name(b->format, 1700000000, nb, sizeof nb - 1);
            na[la] = '.';
            nb[lb] = '.';
            if (strncmp(na, nb, la < lb ? la + 1 : lb + 1) != 0)
                continue;
            char key[48];
            snprintf(key, sizeof key, "logs[%zu].format", i);
            return conf_error(ctx, ynode_get(logs->items[i], "format"), key,
                              "logs[%zu] writes to the same directory \"%.64s\" and its file "
                              "names can equal those of logs[%zu] (\"%.64s\" vs \"%.64s\"); give "
                              "one of them another period or a format that is not the other's "
                              "plus \".something\"",
                              i, b->period, j, b->format, a->format);
        }
    }
    return 0;
}

/* redis-py's spellings of our keys: both of a pair given would leave one
 * silently unused. */
static int check_redis_aliases(const struct config *cfg, const struct ynode *redis,
                               struct conf_ctx *ctx)
{
    static const char *const pairs[][2] = {{"unix_socket", "unix_socket_path"},
                                           {"connect_timeout", "socket_connect_timeout"}};
    for (size_t i = 0; redis && i < sizeof pairs / sizeof pairs[0]; i++) {
        const struct ynode *second = ynode_get(redis, pairs[i][1]);
        if (ynode_get(redis, pairs[i][0]) && second) {
            char key[64];
            snprintf(key, sizeof key, "redis.%s", pairs[i][1]);
            return conf_error(ctx, second, key, "give %s or %s, not both", pairs[i][0],
                              pairs[i][1]);
        }
    }
    if (cfg->redis.ssl)
        return conf_error(ctx, ynode_get(redis, "ssl"), "redis.ssl",
                          "TLS is not supported; connect through a local TLS proxy "
                          "(stunnel, spiped) instead of sending the password in clear");
    return 0;
}

/* "all" or "N", "N-M" joined by commas, into one flag per shard. */
static int parse_shards_read(const char *text, long shards, unsigned char *read)
{
    if (strcmp(text, "all") == 0) {
        memset(read, 1, (size_t)shards);
        return 0;
    }
    const char *p = text;
    do {
        char *end;
        if (*p < '0' || *p > '9')
            return -1;
        long from = strtol(p, &end, 10), to = from;
        if (*end == '-') {
            if (end[1] < '0' || end[1] > '9')
                return -1;
            to = strtol(end + 1, &end, 10);
        }
        if (from > to || to >= shards || (*end && *end != ','))
            return -1;
        memset(read + from, 1, (size_t)(to - from + 1));
        p = *end ? end + 1 : end;
    } while (*p);
    return p[-1] == ',' ? -1 : 0;
}

/* The first of `keys` given under redis:, refused with `why`. -1, or 0
 * when none is given. */
static int refuse_redis_keys(const struct ynode *redis, const char *const *keys, size_t n,
                             const char *why, struct conf_ctx *ctx)
{
    for (size_t i = 0; i < n; i++) {
        const struct ynode *node = ynode_get(redis, keys[i]);
        if (node) {
            char key[64];
            snprintf(key, sizeof key, "redis.%s", keys[i]);
            return conf_error(ctx, node, key, "%s", why);
        }
    }
    return 0;
}

/* The cluster keys: seeds instead of one server, and which shards. */
static int check_cluster(struct config *cfg, const struct ynode *redis, struct conf_ctx *ctx)
{
    static const char *const cluster_only[] = {"shards", "shards_read",
                                               "cluster_refresh_interval"};
    static const char *const single_only[] = {"host", "port", "unix_socket", "unix_socket_path",
                                              "db"};
    struct redis_config *rc = &cfg->redis;
    if (!rc->ncluster)
        return refuse_redis_keys(redis, cluster_only, sizeof cluster_only / sizeof *cluster_only,
                                 "only with redis.cluster", ctx);
    if (refuse_redis_keys(redis, single_only, sizeof single_only / sizeof *single_only,
                          "not with redis.cluster (the cluster's nodes are its seeds and the "
                          "masters they name; a cluster has no db)", ctx) < 0)
        return -1;
    for (size_t i = 0; i < rc->ncluster; i++) {
        char host[256], port[NETADDR_PORT_MAX], why[128];
        if (netaddr_split(rc->cluster[i], strlen(rc->cluster[i]), host, sizeof host, port,
                          "", why, sizeof why) < 0)
            return conf_error(ctx, ynode_get(redis, "cluster"), "redis.cluster",
                              "entry %zu: %s", i + 1, why);
    }
    rc->shard_read = xcalloc((size_t)rc->shards, 1);
    if (parse_shards_read(rc->shards_read, rc->shards, rc->shard_read) < 0)
        return conf_error(ctx, ynode_get(redis, "shards_read"), "redis.shards_read",
                          "expected \"all\" or shard numbers and ranges below shards (%ld), "
                          "such as \"0-7,12\", got \"%.64s\"", rc->shards, rc->shards_read);
    return 0;
}

/* listen_socket_mode and _group: the permission of who may send. */
static int resolve_listen_access(struct config *cfg, const struct ynode *root,
                                 struct conf_ctx *ctx)
{
    const char *m = cfg->listen_socket_mode;
    char *end;
    unsigned long mode = strtoul(m, &end, 8);
    if (!*m || *end || strspn(m, "01234567") != strlen(m) || mode > 0777)
        return conf_error(ctx, ynode_get(root, "listen_socket_mode"), "listen_socket_mode",
                          "expected octal permissions such as \"0660\", got \"%.32s\"", m);
    cfg->listen_mode = (unsigned)mode;
    cfg->listen_gid = -1;
    if (!cfg->listen_socket_group)
        return 0;
    struct group *gr = getgrnam(cfg->listen_socket_group);
    if (!gr)
        return conf_error(ctx, ynode_get(root, "listen_socket_group"), "listen_socket_group",
                          "no group \"%.64s\"", cfg->listen_socket_group);
    cfg->listen_gid = (long)gr->gr_gid;
    return 0;
}

/* The bounds of pending runs (runs.h): a run must fit in a file's buffer,
 * or it could never be written, and in the pending total, or it would push
 * itself out. max_run_bytes' default follows a smaller max_buffer_bytes, so
 * files that set only that (64 KiB is allowed) keep loading. */
static int check_run_limits(struct config *cfg, const struct ynode *root, struct conf_ctx *ctx)
{
    const struct ynode *given = ynode_get(root, "max_run_bytes");
    if (!given || ynode_is_null(given)) {
        cfg->max_run_bytes = RUN_BYTES_DEFAULT < cfg->max_buffer_bytes ? RUN_BYTES_DEFAULT
                                                                         : cfg->max_buffer_bytes;
    } else if (cfg->max_run_bytes > cfg->max_buffer_bytes) {
        return conf_error(ctx, given, "max_run_bytes",
                          "must not be larger than max_buffer_bytes (%ld), or a run could "
                          "never be buffered", cfg->max_buffer_bytes);
    }
    if (cfg->max_pending_run_bytes < cfg->max_run_bytes)
        return conf_error(ctx, ynode_get(root, "max_pending_run_bytes"), "max_pending_run_bytes",
                          "must not be smaller than max_run_bytes (%ld)", cfg->max_run_bytes);
    return 0;
}

/* Each reserved identity must be one the extension can send (tierline.h). */
static int check_reserved_identities(const struct config *cfg, const struct ynode *root,
                                     struct conf_ctx *ctx)
{
    const struct ynode *node = ynode_get(root, "reserved_tier_identities");
    if (cfg->nreserved_tier_identities > CONFIG_MAX_RESERVED_IDENTITIES)
        return conf_error(ctx, node, "reserved_tier_identities", "%zu entries, %d at most",
                          cfg->nreserved_tier_identities, CONFIG_MAX_RESERVED_IDENTITIES);
    for (size_t i = 0; i < cfg->nreserved_tier_identities; i++) {
        const char *id = cfg->reserved_tier_identities[i];
        if (!tierline_identity_valid(id, strlen(id)))
            return conf_error(ctx, node && node->type == YNODE_SEQ ? node->items[i] : node,
                              "reserved_tier_identities",
                              "entry %zu is no identity (1-%d bytes of UTF-8)", i + 1,
                              TIERLINE_IDENTITY_MAX);
    }
    return 0;
}

/* The checks that involve more than one key. */
static int finish(struct config *cfg, const struct ynode *root, struct conf_ctx *ctx)
{
    if (!ynode_get(root, "logs"))
        return conf_error(ctx, root, "logs", "required key missing");
    if (!cfg->base_path || cfg->base_path[0] != '/')
        return conf_error(ctx, ynode_get(root, "base_path"), "base_path",
                          "must be an absolute path");
    if (log_target_from_name(cfg->log_target) < 0)
        return conf_error(ctx, ynode_get(root, "log_target"), "log_target",
                          "expected auto, journal or stderr");
    /* Room for "/<period>/<bucket>.<tag>.log.gz" below base_path. */
    size_t longest_period = 0;
    for (size_t i = 0; i < cfg->ngroups; i++) {
        size_t n = strlen(cfg->groups[i].period);
        longest_period = n > longest_period ? n : longest_period;
    }
    if (strlen(cfg->base_path) + longest_period + BUCKET_NAME_MAX + STACKLINE_TAG_MAX + 16 >=
        PATH_MAX)
        return conf_error(ctx, ynode_get(root, "base_path"), "base_path",
                          "too long (with the period directory) for trace log paths");
    if (check_shared_directories(cfg, root, ctx) < 0 ||
        resolve_listen_access(cfg, root, ctx) < 0)
        return -1;
    if (cfg->max_buffer_bytes <= cfg->max_line_bytes)
        return conf_error(ctx, ynode_get(root, "max_buffer_bytes"), "max_buffer_bytes",
                          "must be larger than max_line_bytes (%ld), or a valid line could "
                          "never be buffered", cfg->max_line_bytes);
    if (check_run_limits(cfg, root, ctx) < 0 || check_reserved_identities(cfg, root, ctx) < 0)
        return -1;
    const struct ynode *redis = ynode_get(root, "redis");
    cfg->redis_enabled = redis && !ynode_is_null(redis);
    if (cfg->redis_enabled && check_redis_aliases(cfg, redis, ctx) < 0)
        return -1;
    if (cfg->redis.health_check_interval == 0)
        cfg->redis.health_check_interval = 15; /* redis-py's "no checks": ours cannot be off */
    if (cfg->redis.socket_timeout == 0)
        cfg->redis.socket_timeout = cfg->redis.health_check_interval;
    if (cfg->redis_channel)
        add_channel(cfg, cfg->redis_channel);
    for (size_t i = 0; i < cfg->nextra_channels; i++)
        add_channel(cfg, cfg->extra_channels[i]);
    if (cfg->nchannels == 0) {
        /* Neither key given (the original always gives redis_channel, so
         * its files keep their one channel): the samples' channel, and
         * those of the runs and the request tiers that the extension uses
         * with a Redis target. */
        add_channel(cfg, LAYOUT_CHANNEL_SAMPLES);
        if (cfg->redis_enabled) {
            add_channel(cfg, LAYOUT_CHANNEL_RUNS);
            add_channel(cfg, LAYOUT_CHANNEL_TIERS);
        }
    }
    if (cfg->redis.password_file && read_password_file(cfg, root, ctx) < 0)
        return -1;
    if (cfg->redis_enabled && check_cluster(cfg, redis, ctx) < 0)
        return -1;
    if (!cfg->redis.stream_consumer) {
        char host[256];
        if (gethostname(host, sizeof host) < 0 || !host[0])
            snprintf(host, sizeof host, "arclamp-log");
        host[sizeof host - 1] = '\0';
        cfg->redis.stream_consumer = xstrdup(host);
    }
    return 0;
}

static int load_doc(struct ydoc *doc, struct config *cfg, char *err, size_t errlen)
{
    strbuf warnings = STRBUF_INIT;
    struct conf_ctx ctx = {doc->path, err, errlen, &warnings};
    memset(cfg, 0, sizeof *cfg);
    cfg->path = xstrdup(doc->path);
    conf_set_defaults(config_opts, cfg);
    int rc = -1;
    if (!doc->root)
        conf_error(&ctx, NULL, "logs", "required key missing (the file is empty)");
    else if (conf_bind(config_opts, doc->root, cfg, "", &ctx) == 0)
        rc = finish(cfg, doc->root, &ctx);
    ydoc_free(doc);
    if (rc < 0)
        config_free(cfg);
    else if (warnings.len)
        cfg->warnings = xstrdup(strbuf_cstr(&warnings));
    strbuf_free(&warnings);
    return rc;
}

int config_load(const char *path, struct config *cfg, char *err, size_t errlen)
{
    struct ydoc doc;
    if (ydoc_load_file(path, &doc, err, errlen) < 0) {
        memset(cfg, 0, sizeof *cfg);
        return -1;
    }
    return load_doc(&doc, cfg, err, errlen);
}

int config_load_string(const char *name, const char *text, struct config *cfg, char *err,
                       size_t errlen)
{
    struct ydoc doc;
    if (ydoc_load_string(name, text, strlen(text), &doc, err, errlen) < 0) {
        memset(cfg, 0, sizeof *cfg);
        return -1;
    }
    return load_doc(&doc, cfg, err, errlen);
}

void config_free(struct config *cfg)
{
    for (size_t i = 0; i < cfg->ngroups; i++) {
        conf_free(group_opts, &cfg->groups[i]);
        free_string_list(cfg->groups[i].channels, cfg->groups[i].nchannels);
    }
    free(cfg->groups);
    for (size_t i = 0; i < cfg->nlisten; i++) {
        free(cfg->listen[i].address);
        free(cfg->listen[i].channel);
    }
    free(cfg->listen);
    free_string_list(cfg->channels, cfg->nchannels);
    free_string_list(cfg->extra_channels, cfg->nextra_channels);
    free_string_list(cfg->reserved_tier_identities, cfg->nreserved_tier_identities);
    free_string_list(cfg->redis.cluster, cfg->redis.ncluster);
    free(cfg->redis.shard_read);
    conf_free(config_opts, cfg);
    free(cfg->path);
    free(cfg->warnings);
    memset(cfg, 0, sizeof *cfg);
}

unsigned long long config_groups_for_channel(const struct config *cfg, const char *channel)
{
    unsigned long long mask = 0;
    for (size_t i = 0; i < cfg->ngroups; i++) {
        const struct log_group *g = &cfg->groups[i];
        int takes = g->channels == NULL;
        for (size_t c = 0; c < g->nchannels && !takes; c++)
            takes = strcmp(g->channels[c], channel) == 0;
        if (takes)
            mask |= 1ULL << i;
    }
    return mask;
}

void config_print_warnings(const struct config *cfg, FILE *out)
{
    for (const char *w = cfg->warnings; w && *w;) {
        const char *nl = strchr(w, '\n');
        fprintf(out, "arclamp-log: warning: %.*s\n", (int)(nl - w), w);
        w = nl + 1;
    }
}

void config_log_warnings(const struct config *cfg)
{
    for (const char *w = cfg->warnings; w && *w;) {
        const char *nl = strchr(w, '\n');
        log_event(LOG_WARNING, "config_key_ignored", LOG_FIELDS({"ARCLAMP_FILE", cfg->path}),
                  "%.*s", (int)(nl - w), w);
        w = nl + 1;
    }
}

void config_print_help(FILE *out)
{
    fprintf(out, "Configuration keys (YAML):\n");
    conf_print_help(out, config_opts, "");
    fprintf(out, "Keys of each logs[] entry:\n");
    conf_print_help(out, group_opts, "logs[]");
}
