/* redis-loadgen: benchmark load generator for arclamp-log.
 *
 * Publishes synthetic Excimer collapsed-stack samples (one sample line per
 * message, about 1.7 KB and 40 frames, entry points index/api/rest/load/
 * RunJobs, count 1) to a Redis pub/sub channel -- or, with --stream, appends
 * them to a stream with XADD -- at a target rate for a given duration.
 * Commands are sent in small pipelined batches and the sender sleeps between
 * batches to hold the rate; --max sends as fast as Redis answers.
 *
 * A pool of distinct samples is generated up front from a seeded PRNG (the
 * same seed gives the same samples), pre-encoded as Redis commands and sent
 * round robin, so generating load costs almost no CPU.
 *
 * With --cluster SEEDS --shards N it loads a Redis Cluster the way the
 * extension's cluster target does: message i goes to shard key
 * CHANNEL{i mod N} (SPUBLISH, or XADD with --stream), sent to the master
 * serving that key's slot. The slot map is read once (CLUSTER SLOTS, parsed
 * by common/src/rediscluster.c) and every master gets its own connection;
 * a batch is spread over the shards round robin and pipelined to all
 * masters at once, so several masters are loaded in parallel. The map must
 * not change during a run: a MOVED reply counts as an error.
 *
 * The result is one line on stdout, easy to parse from a shell:
 *   sent=150000 errors=0 unheard=0 bytes=255123456 seconds=3.000 rate=49998.7
 * `unheard` counts PUBLISHes that reached no subscriber. Exit status: 0 on
 * success, 1 for a connection failure or Redis error, 64 for bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <hiredis/hiredis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "rediscluster.h"

#define EX_USAGE_CODE 64
#define SENTINEL "__end__"
#define NFUNCS 480
#define MAX_SAMPLE 4096

struct options {
    const char *host;
    int port;
    const char *channel;
    double rate;          /* messages per second; ignored with --max */
    double seconds;
    uint64_t seed;
    int max;              /* as fast as possible */
    int stream;           /* XADD instead of PUBLISH */
    long maxlen;          /* XADD MAXLEN ~ */
    int batch;            /* commands per pipelined batch */
    int pool;             /* distinct samples */
    int sentinel;         /* publish SENTINEL at the end */
    int dump;             /* print this many sample lines and exit */
    const char *cluster;  /* seeds "HOST:PORT,..."; NULL for one Redis */
    int shards;           /* shard keys CHANNEL{0..shards-1} with --cluster */
};

struct command {
    char *buf;            /* RESP-encoded command */
    size_t len;
    size_t payload_len;
    size_t node;          /* the connection (master) it goes to */
};

/* Where commands go: one connection, or one per master of a cluster. */
struct targets {
    redisContext **conns;
    size_t n;
    long *pending;        /* replies owed by each connection in a batch */
};

struct result {
    long sent;
    long errors;
    long unheard;
    long long bytes;
    double seconds;
};

/* ---- PRNG (splitmix64: small, seedable, good enough) ---- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static unsigned rng_below(unsigned n)
{
    return (unsigned)(rng_next() % n);
}

#define PICK(arr) ((arr)[rng_below((unsigned)(sizeof(arr) / sizeof((arr)[0])))])

/* ---- vocabulary of frame names ---- */

static const char *const namespaces[] = {
    "MediaWiki\\Revision", "MediaWiki\\Storage", "MediaWiki\\Parser",
    "MediaWiki\\Page", "MediaWiki\\Title", "MediaWiki\\User",
    "MediaWiki\\HookContainer", "MediaWiki\\Permissions", "MediaWiki\\Linker",
    "MediaWiki\\Languages", "MediaWiki\\Output", "MediaWiki\\Skin",
    "MediaWiki\\Cache", "MediaWiki\\Content", "MediaWiki\\Session",
    "Wikimedia\\Rdbms", "Wikimedia\\ObjectCache", "Wikimedia\\Parsoid\\Wt2Html",
    "Wikibase\\Lib\\Store", "Wikibase\\Client\\Hooks",
    "MediaWiki\\Extension\\AbuseFilter", "MediaWiki\\Extension\\Cite",
    "MediaWiki\\Extension\\Scribunto\\Engines\\LuaSandbox",
    "MediaWiki\\Extension\\CentralAuth\\User", "MediaWiki\\Extension\\EventBus",
    "GuzzleHttp\\Handler", "Liuggio\\StatsdClient", "Wikimedia\\Stats",
};

static const char *const classes[] = {
    "RevisionStore", "RevisionRenderer", "SqlBlobStore", "NameTableStore",
    "ParserOutput", "ParserCache", "Parser", "PPFrame_Hash", "Preprocessor",
    "WikiPage", "PageStore", "TitleFormatter", "MediaWikiTitleCodec",
    "UserFactory", "UserOptionsManager", "PermissionManager", "LinkRenderer",
    "LinkBatch", "Language", "LanguageConverter", "OutputPage", "SkinTemplate",
    "LoadBalancer", "Database", "DatabaseMySQL", "WANObjectCache",
    "MemcachedPeclBagOStuff", "HookRunner", "HookContainer", "ContentHandler",
    "WikitextContent", "SessionManager", "ExtensionRegistry", "ServiceContainer",
    "LocalisationCache", "MessageCache", "TemplateParser", "FilterRunner",
};

static const char *const methods[] = {
    "get", "execute", "run", "load", "fetch", "getContent", "newFromRow",
    "query", "select", "selectRow", "doQuery", "getWithSetCallback",
    "getRevisionByTitle", "getSlot", "render", "parse", "expand",
    "callParserFunction", "braceSubstitution", "replaceVariables",
    "getConnection", "getConnectionRef", "getPrimaryPos", "userCan",
    "getPreference", "makeLink", "formatNum", "msg", "text", "addParserOutput",
    "getValue", "onBeforePageDisplay", "onParserFirstCallInit", "callHook",
    "getService", "createService", "loadItem", "getMessage", "doWork",
    "__construct", "getCachedParserOutput", "resolveKey", "fetchBlob",
};

static const char *const globals[] = {
    "wfGetDB", "wfMessage", "wfDebugLog", "array_map", "array_filter",
    "call_user_func_array", "preg_replace_callback", "strtr", "json_encode",
    "json_decode", "AutoLoader::autoload", "spl_autoload_call", "usort",
    "{closure}", "Wikimedia\\Assert\\Assert::parameterType",
};

static const char *const leaves[] = {
    "mysqli::query", "mysqli_result::fetch_object", "Memcached::getMulti",
    "preg_match", "preg_replace", "LuaSandboxFunction::call", "hash",
    "htmlspecialchars", "str_replace", "unserialize", "serialize", "strlen",
    "curl_multi_exec", "gzinflate", "Normalizer::normalize", "file_exists",
};

static const char *const closure_files[] = {
    "includes/Revision/RevisionStore.php", "includes/parser/Parser.php",
    "includes/libs/objectcache/wancache/WANObjectCache.php",
    "includes/HookContainer/HookContainer.php",
    "includes/ServiceWiring.php", "includes/libs/rdbms/loadbalancer/LoadBalancer.php",
};

static char funcs[NFUNCS][160];

/* Fills funcs[] with a few hundred Namespace\Class::method names (some
 * closures and plain functions), chosen by the PRNG. */
static void build_vocabulary(void)
{
    for (int i = 0; i < NFUNCS; i++) {
        unsigned kind = rng_below(20);
        if (kind == 0)
            snprintf(funcs[i], sizeof funcs[i], "%s", PICK(globals));
        else if (kind == 1)
            snprintf(funcs[i], sizeof funcs[i],
                     "{closure:/srv/mediawiki/php-1.44.0-wmf.3/%s(%u)}",
                     PICK(closure_files), 40 + rng_below(3000));
        else
            snprintf(funcs[i], sizeof funcs[i], "%s\\%s::%s", PICK(namespaces),
                     PICK(classes), PICK(methods));
    }
}

/* ---- sample lines ---- */

struct entry_point {
    const char *file;
    const char *prefix;   /* frames below the file, joined by ';' */
    unsigned weight;      /* out of 100 */
};

static const struct entry_point entry_points[] = {
    {"/srv/mediawiki/php-1.44.0-wmf.3/index.php",
     "MediaWiki\\MediaWikiEntryPoint::run;"
     "MediaWiki\\Actions\\ActionEntryPoint::execute;"
     "MediaWiki\\Actions\\ActionEntryPoint::performRequest;"
     "MediaWiki\\Actions\\ActionEntryPoint::performAction;"
     "MediaWiki\\Actions\\ViewAction::show;Article::view", 45},
    {"/srv/mediawiki/php-1.44.0-wmf.3/api.php",
     "MediaWiki\\MediaWikiEntryPoint::run;MediaWiki\\Api\\ApiEntryPoint::execute;"
     "ApiMain::execute;ApiMain::executeActionWithErrorHandling;"
     "ApiMain::executeAction;ApiQuery::execute", 30},
    {"/srv/mediawiki/php-1.44.0-wmf.3/load.php",
     "MediaWiki\\MediaWikiEntryPoint::run;"
     "MediaWiki\\ResourceLoader\\ResourceLoaderEntryPoint::execute;"
     "MediaWiki\\ResourceLoader\\ResourceLoader::respond;"
     "MediaWiki\\ResourceLoader\\ResourceLoader::makeModuleResponse", 10},
    {"/srv/mediawiki/php-1.44.0-wmf.3/rest.php",
     "MediaWiki\\MediaWikiEntryPoint::run;MediaWiki\\Rest\\EntryPoint::execute;"
     "MediaWiki\\Rest\\Router::execute;MediaWiki\\Rest\\Router::executeHandler;"
     "MediaWiki\\Rest\\Handler\\PageHTMLHandler::execute", 8},
    {"/srv/mediawiki/rpc/RunJobs.php",
     "MediaWiki\\JobQueue\\JobRunner::run;MediaWiki\\JobQueue\\JobRunner::executeJob;"
     "RefreshLinksJob::run;RefreshLinksJob::runForTitle", 7},
};

static const struct entry_point *pick_entry_point(void)
{
    unsigned r = rng_below(100), acc = 0;
    size_t n = sizeof entry_points / sizeof entry_points[0];
    for (size_t i = 0; i < n; i++) {
        acc += entry_points[i].weight;
        if (r < acc)
            return &entry_points[i];
    }
    return &entry_points[0];
}

/* Writes one sample line (without newline) into buf; returns its length.
 * Lengths vary uniformly from 1.2 to 2.2 KB (mean about 1.7 KB). */
static size_t make_sample(char *buf, size_t cap)
{
    const struct entry_point *ep = pick_entry_point();
    size_t target = 1200 + rng_below(1000);
    int n = snprintf(buf, cap, "%s;%s", ep->file, ep->prefix);
    size_t len = (size_t)n;
    while (len < target) {
        const char *f = funcs[rng_below(NFUNCS)];
        size_t fl = strlen(f);
        if (len + 1 + fl + 64 >= cap)
            break;
        buf[len++] = ';';
        memcpy(buf + len, f, fl);
        len += fl;
    }
    n = snprintf(buf + len, cap - len, ";%s 1", PICK(leaves));
    return len + (size_t)n;
}

/* --dump: prints n sample lines to stdout. */
static int dump_samples(int n)
{
    static char line[MAX_SAMPLE];
    for (int i = 0; i < n; i++) {
        size_t len = make_sample(line, sizeof line);
        printf("%.*s\n", (int)len, line);
    }
    return 0;
}

static int count_frames(const char *s, size_t len)
{
    int frames = 1;
    for (size_t i = 0; i < len; i++)
        frames += s[i] == ';';
    return frames;
}

/* The key pool entry i goes to: CHANNEL, or CHANNEL{i mod shards}. */
static void key_of(const struct options *o, int i, char *key, size_t cap)
{
    if (o->cluster)
        snprintf(key, cap, "%s{%d}", o->channel, i % o->shards);
    else
        snprintf(key, cap, "%s", o->channel);
}

/* Encodes PUBLISH (SPUBLISH in a cluster) key LINE, or
 * XADD key [MAXLEN ~ N] * sample LINE. */
static int encode_command(const struct options *o, const char *key, const char *line,
                          size_t len, struct command *cmd)
{
    char maxlen[32];
    int r;
    if (!o->stream) {
        r = redisFormatCommand(&cmd->buf, "%s %s %b", o->cluster ? "SPUBLISH" : "PUBLISH",
                               key, line, len);
    } else if (o->maxlen > 0) {
        snprintf(maxlen, sizeof maxlen, "%ld", o->maxlen);
        r = redisFormatCommand(&cmd->buf, "XADD %s MAXLEN ~ %s * sample %b",
                               key, maxlen, line, len);
    } else {
        r = redisFormatCommand(&cmd->buf, "XADD %s * sample %b", key, line, len);
    }
    if (r < 0)
        return -1;
    cmd->len = (size_t)r;
    cmd->payload_len = len;
    return 0;
}

/* Generates and encodes the pool; prints its averages to stderr. */
static struct command *build_pool(const struct options *o)
{
    static char line[MAX_SAMPLE];
    struct command *pool = calloc((size_t)o->pool, sizeof *pool);
    long long bytes = 0, frames = 0;
    char key[256];
    if (!pool)
        return NULL;
    for (int i = 0; i < o->pool; i++) {
        size_t len = make_sample(line, sizeof line);
        key_of(o, i, key, sizeof key);
        if (encode_command(o, key, line, len, &pool[i]) < 0)
            return NULL;
        bytes += (long long)len;
        frames += count_frames(line, len);
    }
    fprintf(stderr, "redis-loadgen: %d distinct samples, avg %lld bytes, avg %lld frames\n",
            o->pool, bytes / o->pool, frames / o->pool);
    return pool;
}

static void free_pool(struct command *pool, int n)
{
    for (int i = 0; i < n; i++)
        redisFreeCommand(pool[i].buf);
    free(pool);
}

/* ---- sending ---- */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* Reads one reply and accounts for it; returns -1 when the connection broke. */
static int read_reply(redisContext *c, struct result *res)
{
    redisReply *reply = NULL;
    if (redisGetReply(c, (void **)&reply) != REDIS_OK || !reply) {
        fprintf(stderr, "redis-loadgen: connection error: %s\n", c->errstr);
        return -1;
    }
    if (reply->type == REDIS_REPLY_ERROR) {
        if (res->errors++ == 0)
            fprintf(stderr, "redis-loadgen: redis error: %s\n", reply->str);
    } else if (reply->type == REDIS_REPLY_INTEGER && reply->integer == 0) {
        res->unheard++;
    }
    freeReplyObject(reply);
    return 0;
}

/* Pipelines n commands from the pool, each to its connection, and reads
 * their n replies. Every connection's commands are written out before any
 * reply is awaited, so the masters of a cluster work in parallel. */
static int send_batch(const struct targets *t, const struct command *pool, int pool_size,
                      long n, struct result *res)
{
    for (long i = 0; i < n; i++) {
        const struct command *cmd = &pool[(res->sent + i) % pool_size];
        if (redisAppendFormattedCommand(t->conns[cmd->node], cmd->buf, cmd->len) != REDIS_OK)
            return -1;
        t->pending[cmd->node]++;
        res->bytes += (long long)cmd->payload_len;
    }
    for (size_t k = 0; k < t->n; k++) {
        int done = 0;
        while (!done)  /* push the pipeline onto the wire without waiting */
            if (redisBufferWrite(t->conns[k], &done) != REDIS_OK)
                return -1;
    }
    for (size_t k = 0; k < t->n; k++)
        for (; t->pending[k] > 0; t->pending[k]--)
            if (read_reply(t->conns[k], res) < 0)
                return -1;
    res->sent += n;
    return 0;
}

/* How many messages to send now: a batch when one is due (or --max), up to
 * four batches at once to catch up when behind, else 0 after sleeping until
 * the next batch is due. */
static long due_now(const struct options *o, const struct result *res, double t0,
                    double end)
{
    if (o->max)
        return o->batch;
    double behind = o->rate * (now_seconds() - t0) - (double)res->sent;
    if (behind >= o->batch)
        return behind < 4.0 * o->batch ? (long)behind : 4L * o->batch;
    double wake = t0 + ((double)res->sent + o->batch) / o->rate;
    sleep_until(wake < end ? wake : end);
    return 0;
}

/* The paced (or --max) sending loop. */
static int run(const struct targets *t, const struct options *o, const struct command *pool,
               struct result *res)
{
    double t0 = now_seconds(), end = t0 + o->seconds;
    int rc = 0;
    while (rc == 0 && now_seconds() < end) {
        long n = due_now(o, res, t0, end);
        if (n > 0)
            rc = send_batch(t, pool, o->pool, n, res);
    }
    if (rc == 0 && !o->max) {  /* top up the last partial batch, never a backlog */
        long left = (long)(o->rate * o->seconds) - res->sent;
        if (left > 0 && left <= o->batch)
            rc = send_batch(t, pool, o->pool, left, res);
    }
    res->seconds = now_seconds() - t0;
    return rc;
}

/* The sentinel goes to the first pool entry's key and connection. */
static int send_sentinel(const struct targets *t, const struct options *o,
                         const struct command *first)
{
    char key[256];
    key_of(o, 0, key, sizeof key);
    redisContext *c = t->conns[first->node];
    redisReply *reply = o->stream
        ? redisCommand(c, "XADD %s * sample %s", key, SENTINEL)
        : redisCommand(c, "%s %s %s", o->cluster ? "SPUBLISH" : "PUBLISH", key, SENTINEL);
    if (!reply)
        return -1;
    freeReplyObject(reply);
    return 0;
}

/* ---- command line ---- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: redis-loadgen [--host H] [--port P] [--channel C] [--rate N | --max]\n"
            "                     [--seconds S] [--seed K] [--batch B] [--pool N]\n"
            "                     [--stream [--maxlen N]] [--sentinel] [--dump N]\n"
            "                     [--cluster HOST:PORT[,...] [--shards N]]\n"
            "Publishes synthetic collapsed-stack samples to Redis at N msg/s for S s.\n"
            "  --max       send as fast as possible (pipelined batches)\n"
            "  --stream    XADD C [MAXLEN ~ N] * sample LINE instead of PUBLISH\n"
            "  --sentinel  publish \"" SENTINEL "\" after the run (not counted)\n"
            "  --dump N    print N sample lines (same seed, same lines) and exit\n"
            "  --cluster   a Redis Cluster (seeds): message i to C{i mod N} (default N 16),\n"
            "              SPUBLISH or XADD, on the master of its slot (--host/--port unused)\n"
            "Prints: sent= errors= unheard= bytes= seconds= rate=\n");
}

static int apply_option(struct options *o, int opt, const char *arg)
{
    double v = 0;
    int bad = 0;
    switch (opt) {
    case 'h': o->host = arg; break;
    case 'c': o->channel = arg; break;
    case 'm': o->max = 1; break;
    case 'x': o->stream = 1; break;
    case 'e': o->sentinel = 1; break;
    case 'p': bad = parse_num(arg, 1, 65535, &v); o->port = (int)v; break;
    case 'r': bad = parse_num(arg, 1, 1e8, &v); o->rate = v; break;
    case 's': bad = parse_num(arg, 0.01, 86400, &v); o->seconds = v; break;
    case 'k': bad = parse_num(arg, 0, 1e18, &v); o->seed = (uint64_t)v; break;
    case 'b': bad = parse_num(arg, 1, 100000, &v); o->batch = (int)v; break;
    case 'n': bad = parse_num(arg, 1, 1000000, &v); o->pool = (int)v; break;
    case 'l': bad = parse_num(arg, 1, 1e12, &v); o->maxlen = (long)v; break;
    case 'd': bad = parse_num(arg, 1, 1000000, &v); o->dump = (int)v; break;
    case 'C': o->cluster = arg; break;
    case 'S': bad = parse_num(arg, 1, 16384, &v); o->shards = (int)v; break;
    default: return -1;
    }
    if (bad)
        fprintf(stderr, "redis-loadgen: bad value \"%s\"\n", arg);
    return bad;
}

static int parse_args(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"host", required_argument, NULL, 'h'}, {"port", required_argument, NULL, 'p'},
        {"channel", required_argument, NULL, 'c'}, {"rate", required_argument, NULL, 'r'},
        {"seconds", required_argument, NULL, 's'}, {"seed", required_argument, NULL, 'k'},
        {"batch", required_argument, NULL, 'b'}, {"pool", required_argument, NULL, 'n'},
        {"maxlen", required_argument, NULL, 'l'}, {"max", no_argument, NULL, 'm'},
        {"stream", no_argument, NULL, 'x'}, {"sentinel", no_argument, NULL, 'e'},
        {"dump", required_argument, NULL, 'd'}, {"help", no_argument, NULL, 'H'},
        {"cluster", required_argument, NULL, 'C'}, {"shards", required_argument, NULL, 'S'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    *o = (struct options){"127.0.0.1", 6379, "excimer", 10000, 3, 1, 0, 0, 0, 0, 4096, 0, 0,
                          NULL, 16};
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (opt == 'H') {
            usage(stdout);
            exit(0);
        }
        if (apply_option(o, opt, optarg) < 0)
            return -1;
    }
    if (optind != argc)
        return -1;
    if (o->batch == 0)
        o->batch = o->max ? 256 : 64;
    return 0;
}

static redisContext *connect_redis(const char *host, int port)
{
    struct timeval tv = {2, 0};
    redisContext *c = redisConnectWithTimeout(host, port, tv);
    if (!c || c->err) {
        fprintf(stderr, "redis-loadgen: cannot connect to %s:%d: %s\n", host, port,
                c ? c->errstr : "out of memory");
        redisFree(c);
        return NULL;
    }
    struct timeval io = {10, 0};
    redisSetTimeout(c, io);
    return c;
}

static void free_targets(struct targets *t)
{
    for (size_t k = 0; k < t->n; k++)
        if (t->conns[k])
            redisFree(t->conns[k]);
    free(t->conns);
    free(t->pending);
    t->conns = NULL;
    t->pending = NULL;
    t->n = 0;
}

static int alloc_targets(struct targets *t, size_t n)
{
    t->conns = calloc(n, sizeof *t->conns);
    t->pending = calloc(n, sizeof *t->pending);
    t->n = n;
    return t->conns && t->pending ? 0 : -1;
}

/* The slot map, from the first seed that answers CLUSTER SLOTS. */
static int read_map(const char *seeds, struct cluster_map *map)
{
    struct cluster_node *nodes = NULL;
    size_t n = 0;
    char why[256];
    if (cluster_nodes_parse(seeds, &nodes, &n, why, sizeof why) < 0) {
        fprintf(stderr, "redis-loadgen: --cluster %s: %s\n", seeds, why);
        return -1;
    }
    int rc = -1;
    for (size_t i = 0; i < n && rc < 0; i++) {
        redisContext *c = connect_redis(nodes[i].host, atoi(nodes[i].port));
        redisReply *r = c ? redisCommand(c, "CLUSTER SLOTS") : NULL;
        rc = r ? cluster_map_from_slots(map, r, nodes[i].host, why, sizeof why) : -1;
        if (r && rc < 0)
            fprintf(stderr, "redis-loadgen: CLUSTER SLOTS of %s: %s\n", nodes[i].host, why);
        freeReplyObject(r);
        redisFree(c);
    }
    free(nodes);
    return rc;
}

/* One connection per master; each pool entry learns which one serves its
 * shard key. */
static int connect_cluster(const struct options *o, struct command *pool, struct targets *t)
{
    struct cluster_map map;
    char key[256];
    int rc = 0;
    cluster_map_init(&map);
    if (read_map(o->cluster, &map) < 0 || alloc_targets(t, map.nnodes) < 0) {
        cluster_map_free(&map);
        return -1;
    }
    for (size_t k = 0; k < map.nnodes && rc == 0; k++)
        if (!(t->conns[k] = connect_redis(map.nodes[k].host, atoi(map.nodes[k].port))))
            rc = -1;
    for (int i = 0; i < o->pool && rc == 0; i++) {
        key_of(o, i, key, sizeof key);
        unsigned owner = map.owner[cluster_key_slot(key, strlen(key))];
        if (owner == CLUSTER_NO_OWNER) {
            fprintf(stderr, "redis-loadgen: no master serves %s\n", key);
            rc = -1;
        }
        pool[i].node = owner;
    }
    if (rc == 0)
        fprintf(stderr, "redis-loadgen: %d shards over %zu masters\n", o->shards, map.nnodes);
    cluster_map_free(&map);
    return rc;
}

static int connect_targets(const struct options *o, struct command *pool, struct targets *t)
{
    if (o->cluster)
        return connect_cluster(o, pool, t);
    if (alloc_targets(t, 1) < 0)
        return -1;
    return (t->conns[0] = connect_redis(o->host, o->port)) ? 0 : -1;
}

static void print_result(const struct result *res)
{
    double rate = res->seconds > 0 ? (double)res->sent / res->seconds : 0;
    printf("sent=%ld errors=%ld unheard=%ld bytes=%lld seconds=%.3f rate=%.1f\n",
           res->sent, res->errors, res->unheard, res->bytes, res->seconds, rate);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    struct options o;
    struct result res = {0, 0, 0, 0, 0};
    if (parse_args(argc, argv, &o) < 0) {
        usage(stderr);
        return EX_USAGE_CODE;
    }
    rng_state = o.seed;
    build_vocabulary();
    if (o.dump)
        return dump_samples(o.dump);
    struct command *pool = build_pool(&o);
    if (!pool) {
        fprintf(stderr, "redis-loadgen: out of memory\n");
        return 1;
    }
    struct targets t = {NULL, 0, NULL};
    if (connect_targets(&o, pool, &t) < 0) {
        free_targets(&t);
        free_pool(pool, o.pool);
        return 1;
    }
    int rc = run(&t, &o, pool, &res);
    if (rc == 0 && o.sentinel)
        rc = send_sentinel(&t, &o, &pool[0]);
    print_result(&res);
    free_targets(&t);
    free_pool(pool, o.pool);
    return rc == 0 && res.errors == 0 ? 0 : 1;
}
