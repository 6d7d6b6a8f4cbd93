/* rediscluster: key slots, the slot map read from CLUSTER SLOTS, MOVED/ASK
 * redirections, and a small blocking client that sends one slot's commands
 * to its master (see rediscluster.h for what Arc Lamp needs of a cluster).
 *
 * Why it is shaped like this: the extension's sender thread sends a batch
 * for one shard (one slot) at a time and must never block past its
 * deadline, so the client works in rounds. A round sends every unanswered
 * command, pipelined, to the node it should go to (the slot's master, or
 * the node an ASK named, with ASKING before it) with redisconn_run under
 * the caller's deadline. Replies that redirect or ask for a new map leave
 * their command unanswered for the next round; rounds are bounded by
 * CLUSTER_MAX_REDIRECTS, and in the last one every reply is final. Every
 * address read from a server goes through netaddr_split. */
#include "rediscluster.h"
#include "clock.h"
#include "strbuf.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --- slots ------------------------------------------------------------------ */

unsigned cluster_crc16(const char *buf, size_t len)
{
    unsigned crc = 0;
    for (size_t i = 0; i < len; i++) {
        crc ^= (unsigned)(unsigned char)buf[i] << 8;
        for (int bit = 0; bit < 8; bit++)
            crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
        crc &= 0xffff;
    }
    return crc;
}

unsigned cluster_key_slot(const char *key, size_t len)
{
    const char *open = memchr(key, '{', len);
    if (open) {
        size_t rest = len - (size_t)(open + 1 - key);
        const char *close = memchr(open + 1, '}', rest);
        if (close && close > open + 1)
            return cluster_crc16(open + 1, (size_t)(close - open - 1)) % CLUSTER_SLOTS;
    }
    return cluster_crc16(key, len) % CLUSTER_SLOTS;
}

/* --- node lists --------------------------------------------------------------- */

int cluster_nodes_parse(const char *list, struct cluster_node **nodes, size_t *n, char *why,
                        size_t whylen)
{
    size_t count = 1;
    for (const char *p = list; *p; p++)
        count += *p == ',';
    if (count > CLUSTER_MAX_NODES) {
        snprintf(why, whylen, "more than %d addresses", CLUSTER_MAX_NODES);
        return -1;
    }
    struct cluster_node *out = xcalloc(count, sizeof *out);
    const char *item = list;
    for (size_t i = 0; i < count; i++) {
        const char *comma = strchr(item, ',');
        size_t len = comma ? (size_t)(comma - item) : strlen(item);
        const char *next = comma ? comma + 1 : item + len;
        /* "a:1, b:2" is read as written by hand. */
        for (; len && *item == ' '; len--)
            item++;
        for (; len && item[len - 1] == ' '; len--)
            ;
        char cause[160];
        if (netaddr_split(item, len, out[i].host, sizeof out[i].host, out[i].port, "", cause,
                          sizeof cause) < 0) {
            snprintf(why, whylen, "address %zu (\"%.*s\"): %s", i + 1, (int)(len > 80 ? 80 : len),
                     item, cause);
            free(out);
            return -1;
        }
        item = next;
    }
    *nodes = out;
    *n = count;
    return 0;
}

/* --- the slot map ----------------------------------------------------------- */

void cluster_map_init(struct cluster_map *m)
{
    m->nodes = NULL;
    m->nnodes = 0;
    m->covered = 0;
    for (size_t s = 0; s < CLUSTER_SLOTS; s++)
        m->owner[s] = CLUSTER_NO_OWNER;
}

void cluster_map_free(struct cluster_map *m)
{
    free(m->nodes);
    cluster_map_init(m);
}

/* The index of host:port in m, added when new; -1 when the map is full. */
static long node_index(struct cluster_map *m, const char *host, const char *port)
{
    for (size_t i = 0; i < m->nnodes; i++)
        if (!strcmp(m->nodes[i].host, host) && !strcmp(m->nodes[i].port, port))
            return (long)i;
    if (m->nnodes >= CLUSTER_MAX_NODES)
        return -1;
    struct cluster_node *grown = realloc(m->nodes, (m->nnodes + 1) * sizeof *grown);
    if (!grown) {
        fprintf(stderr, "rediscluster: out of memory\n");
        abort();
    }
    m->nodes = grown;
    snprintf(m->nodes[m->nnodes].host, sizeof m->nodes[0].host, "%s", host);
    snprintf(m->nodes[m->nnodes].port, sizeof m->nodes[0].port, "%s", port);
    return (long)m->nnodes++;
}

static int is_int_in(const redisReply *r, long long lo, long long hi)
{
    return r->type == REDIS_REPLY_INTEGER && r->integer >= lo && r->integer <= hi;
}

/* The master entry [host, port, id, ...] of a slot range, checked. */
static int read_master(const redisReply *e, const char *asked_host, struct cluster_node *out,
                       char *why, size_t whylen)
{
    if (e->type != REDIS_REPLY_ARRAY || e->elements < 2) {
        snprintf(why, whylen, "a master entry is not an array [host, port, ...]");
        return -1;
    }
    const redisReply *h = e->element[0], *p = e->element[1];
    const char *host = asked_host;
    if (h->type == REDIS_REPLY_STRING && h->len && strcmp(h->str, "?") != 0) {
        if (h->len >= sizeof out->host || memchr(h->str, '\0', h->len)) {
            snprintf(why, whylen, "a master's host is too long or holds a NUL byte");
            return -1;
        }
        host = h->str;
    } else if (h->type != REDIS_REPLY_STRING && h->type != REDIS_REPLY_NIL) {
        snprintf(why, whylen, "a master's host is not a string");
        return -1;
    }
    if (!is_int_in(p, 1, 65535)) {
        snprintf(why, whylen, "a master's port is not an integer from 1 to 65535");
        return -1;
    }
    if (strlen(host) >= sizeof out->host) {
        snprintf(why, whylen, "the host asked is too long");
        return -1;
    }
    snprintf(out->host, sizeof out->host, "%s", host);
    snprintf(out->port, sizeof out->port, "%lld", p->integer);
    return 0;
}

/* One element [start, end, master, replicas...] of a CLUSTER SLOTS reply
 * into m (a map being built). */
static int read_range(struct cluster_map *m, const redisReply *e, const char *asked_host,
                      char *why, size_t whylen)
{
    if (e->type != REDIS_REPLY_ARRAY || e->elements < 3) {
        snprintf(why, whylen, "a slot range is not an array [start, end, master, ...]");
        return -1;
    }
    if (!is_int_in(e->element[0], 0, CLUSTER_SLOTS - 1) ||
        !is_int_in(e->element[1], e->element[0]->integer, CLUSTER_SLOTS - 1)) {
        snprintf(why, whylen, "a slot range is not two integers start <= end within 0..%d",
                 CLUSTER_SLOTS - 1);
        return -1;
    }
    for (size_t i = 3; i < e->elements; i++)
        if (e->element[i]->type != REDIS_REPLY_ARRAY) {
            snprintf(why, whylen, "a replica entry is not an array");
            return -1;
        }
    struct cluster_node master;
    if (read_master(e->element[2], asked_host, &master, why, whylen) < 0)
        return -1;
    long idx = node_index(m, master.host, master.port);
    if (idx < 0) {
        snprintf(why, whylen, "more than %d masters", CLUSTER_MAX_NODES);
        return -1;
    }
    for (long long s = e->element[0]->integer; s <= e->element[1]->integer; s++) {
        if (m->owner[s] != CLUSTER_NO_OWNER) {
            snprintf(why, whylen, "slot %lld is named twice", s);
            return -1;
        }
        m->owner[s] = (uint16_t)idx;
        m->covered++;
    }
    return 0;
}

int cluster_map_from_slots(struct cluster_map *m, const redisReply *r, const char *asked_host,
                           char *why, size_t whylen)
{
    if (!r || r->type != REDIS_REPLY_ARRAY) {
        snprintf(why, whylen, "the reply to CLUSTER SLOTS is not an array%s%.100s",
                 r && r->type == REDIS_REPLY_ERROR ? ": " : "",
                 r && r->type == REDIS_REPLY_ERROR ? r->str : "");
        return -1;
    }
    if (r->elements > CLUSTER_SLOTS) {
        snprintf(why, whylen, "the reply names more than %d slot ranges", CLUSTER_SLOTS);
        return -1;
    }
    /* Built apart (on the heap: 32 KiB is much for a thread's stack), so a
     * refused reply leaves *m as it was. */
    struct cluster_map *built = xmalloc(sizeof *built);
    cluster_map_init(built);
    for (size_t i = 0; i < r->elements; i++)
        if (read_range(built, r->element[i], asked_host, why, whylen) < 0) {
            cluster_map_free(built);
            free(built);
            return -1;
        }
    cluster_map_free(m);
    *m = *built;
    free(built);
    return 0;
}

const struct cluster_node *cluster_map_owner(const struct cluster_map *m, unsigned slot)
{
    if (slot >= CLUSTER_SLOTS || m->owner[slot] == CLUSTER_NO_OWNER)
        return NULL;
    return &m->nodes[m->owner[slot]];
}

int cluster_map_move(struct cluster_map *m, unsigned slot, const char *host, const char *port)
{
    if (slot >= CLUSTER_SLOTS)
        return -1;
    long idx = node_index(m, host, port);
    if (idx < 0)
        return -1;
    if (m->owner[slot] == CLUSTER_NO_OWNER)
        m->covered++;
    m->owner[slot] = (uint16_t)idx;
    return 0;
}

/* --- redirections ------------------------------------------------------------- */

/* "HOST:PORT" of a redirection. Redis writes an IPv6 address without
 * brackets and, when it does not know its own address, no host at all
 * (":PORT": the node asked). Both are rewritten into a spelling
 * netaddr_split reads; an unknown host comes back as "". */
static int read_redirect_address(const char *s, size_t len, struct cluster_node *to)
{
    char text[sizeof to->host + NETADDR_PORT_MAX + 4], why[128];
    const char *colon = memrchr(s, ':', len);
    if (!colon || len + 3 > sizeof text)
        return -1;
    size_t hlen = (size_t)(colon - s);
    int unknown = hlen == 0;
    if (unknown)
        snprintf(text, sizeof text, "?%.*s", (int)len, s);
    else if (s[0] != '[' && memchr(s, ':', hlen))
        snprintf(text, sizeof text, "[%.*s]%.*s", (int)hlen, s, (int)(len - hlen), colon);
    else
        snprintf(text, sizeof text, "%.*s", (int)len, s);
    if (netaddr_split(text, strlen(text), to->host, sizeof to->host, to->port, "", why,
                      sizeof why) < 0)
        return -1;
    if (unknown)
        to->host[0] = '\0';
    return 0;
}

static int has_word_prefix(const char *s, size_t len, const char *word)
{
    size_t w = strlen(word);
    return len >= w && !memcmp(s, word, w) && (len == w || s[w] == ' ');
}

enum cluster_redirect_kind cluster_redirect_parse(const char *err, size_t len,
                                                  struct cluster_redirect *out)
{
    enum cluster_redirect_kind kind = has_word_prefix(err, len, "MOVED") ? CLUSTER_MOVED
                                      : has_word_prefix(err, len, "ASK") ? CLUSTER_ASK
                                                                         : CLUSTER_NO_REDIRECT;
    if (kind == CLUSTER_NO_REDIRECT)
        return kind;
    size_t i = kind == CLUSTER_MOVED ? 6 : 4, digits = 0;
    unsigned slot = 0;
    for (; i < len && err[i] >= '0' && err[i] <= '9' && digits < 6; i++, digits++)
        slot = slot * 10 + (unsigned)(err[i] - '0');
    if (digits == 0 || digits > 5 || slot >= CLUSTER_SLOTS || i >= len || err[i] != ' ')
        return CLUSTER_NO_REDIRECT;
    i++;
    if (i >= len || memchr(err + i, ' ', len - i))
        return CLUSTER_NO_REDIRECT;
    struct cluster_redirect r = {.kind = kind, .slot = slot};
    if (read_redirect_address(err + i, len - i, &r.to) < 0)
        return CLUSTER_NO_REDIRECT;
    *out = r;
    return kind;
}

int cluster_error_wants_map(const char *err, size_t len)
{
    return has_word_prefix(err, len, "CLUSTERDOWN") || has_word_prefix(err, len, "TRYAGAIN") ||
           has_word_prefix(err, len, "MOVED") || has_word_prefix(err, len, "ASK");
}

/* --- the client: connections ---------------------------------------------------- */

static const char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

void cluster_client_init(struct cluster_client *cc, const struct redisconn_options *opt,
                         const struct cluster_node *seeds, size_t nseeds)
{
    memset(cc, 0, sizeof *cc);
    cc->opt = *opt;
    cc->opt.host = cc->opt.port = cc->opt.unix_path = NULL;
    cc->opt.username = dup_or_null(opt->username);
    cc->opt.password = dup_or_null(opt->password);
    cc->opt.client_name = dup_or_null(opt->client_name);
    cc->seeds = xmalloc((nseeds ? nseeds : 1) * sizeof *cc->seeds);
    if (nseeds)
        memcpy(cc->seeds, seeds, nseeds * sizeof *seeds);
    cc->nseeds = nseeds;
    cluster_map_init(&cc->map);
}

void cluster_client_close(struct cluster_client *cc)
{
    for (size_t i = 0; i < CLUSTER_CLIENT_CONNS; i++)
        if (cc->conns[i].used) {
            redisconn_free(&cc->conns[i].conn);
            cc->conns[i].used = 0;
        }
}

void cluster_client_free(struct cluster_client *cc)
{
    cluster_client_close(cc);
    cluster_map_free(&cc->map);
    free(cc->seeds);
    free((char *)cc->opt.username);
    free((char *)cc->opt.password);
    free((char *)cc->opt.client_name);
    memset(cc, 0, sizeof *cc);
}

/* The kept connection to `node`, or a new one in place of the least
 * recently used. Checked for a server-side close before reuse. */
static redisconn *conn_for(struct cluster_client *cc, const struct cluster_node *node)
{
    struct cluster_conn *pick = NULL;
    for (size_t i = 0; i < CLUSTER_CLIENT_CONNS; i++) {
        struct cluster_conn *k = &cc->conns[i];
        if (k->used && !strcmp(k->node.host, node->host) && !strcmp(k->node.port, node->port)) {
            pick = k;
            break;
        }
        if (!pick || (pick->used && (!k->used || k->last_used < pick->last_used)))
            pick = k;
    }
    int same = pick->used && !strcmp(pick->node.host, node->host) &&
               !strcmp(pick->node.port, node->port);
    if (!same) {
        if (pick->used)
            redisconn_free(&pick->conn);
        struct redisconn_options o = cc->opt;
        pick->node = *node;
        o.host = pick->node.host;
        o.port = pick->node.port;
        redisconn_init(&pick->conn, &o);
        pick->used = 1;
    }
    pick->last_used = clock_mono();
    redisconn_check_idle(&pick->conn);
    return &pick->conn;
}

static void keep_error(struct cluster_client *cc, int err, int reached, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void keep_error(struct cluster_client *cc, int err, int reached, const char *fmt, ...)
{
    char text[sizeof cc->errstr];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    memcpy(cc->errstr, text, sizeof text);
    cc->err = err;
    cc->reached = reached;
}

/* --- the client: the map ----------------------------------------------------------- */

struct slots_answer {
    struct cluster_client *cc;
    const char *asked_host;
    int ok;
    char why[160];
};

static void on_slots(void *arg, int tag, redisReply *reply)
{
    struct slots_answer *a = arg;
    (void)tag;
    a->ok = cluster_map_from_slots(&a->cc->map, reply, a->asked_host, a->why, sizeof a->why) == 0;
}

/* Asks one node for CLUSTER SLOTS: 0 with the map replaced, or -1. */
static int fetch_from(struct cluster_client *cc, struct cluster_node node, double deadline)
{
    redisconn *c = conn_for(cc, &node);
    const char *argv[] = {"CLUSTER", "SLOTS"};
    struct slots_answer a = {.cc = cc, .asked_host = node.host};
    redisconn_command(c, 0, 2, argv, NULL);
    if (redisconn_run(c, deadline, on_slots, &a) < 0) {
        keep_error(cc, c->err, c->reached, "CLUSTER SLOTS: %s", c->errstr);
        return -1;
    }
    if (!a.ok) {
        keep_error(cc, REDISCONN_ERR_PROTOCOL, 1, "CLUSTER SLOTS from %s:%s: %s", node.host,
                   node.port, a.why);
        return -1;
    }
    cc->have_map = 1;
    cc->map_fetches++;
    return 0;
}

/* A new map from the seeds, then from the masters of the last map (a copy
 * of that list: a success replaces it). */
static int fetch_map(struct cluster_client *cc, double deadline)
{
    size_t nold = cc->map.nnodes;
    struct cluster_node *old = xmalloc((nold ? nold : 1) * sizeof *old);
    if (nold)
        memcpy(old, cc->map.nodes, nold * sizeof *old);
    int rc = -1;
    cc->have_map = 0;
    for (size_t i = 0; rc < 0 && i < cc->nseeds + nold && clock_mono() < deadline; i++)
        rc = fetch_from(cc, i < cc->nseeds ? cc->seeds[i] : old[i - cc->nseeds], deadline);
    free(old);
    if (rc < 0 && clock_mono() >= deadline && !cc->err)
        keep_error(cc, REDISCONN_ERR_TIMEOUT, 0, "out of time asking for the slot map");
    else if (rc < 0 && cc->nseeds + nold > 1) {
        char last[sizeof cc->errstr];
        memcpy(last, cc->errstr, sizeof last);
        keep_error(cc, cc->err, cc->reached, "none of %zu nodes gave a slot map; the last: %s",
                   cc->nseeds + nold, last);
    }
    return rc;
}

/* --- the client: rounds --------------------------------------------------------------- */

/* What a run knows of each command. */
struct pending {
    int answered;
    unsigned redirects;
    int ask;                       /* send to ask_to after ASKING */
    struct cluster_node ask_to;
};

struct run {
    struct cluster_client *cc;
    const struct cluster_command *cmds;
    struct pending *p;
    size_t n, answered;
    int last_round;                /* every reply is final */
    int want_map;                  /* a reply asked for a new map */
    int any_reply;
    const struct cluster_node *to; /* the node of the batch being run */
    cluster_reply_fn on_reply;
    void *arg;
};

/* A redirection of command i: 1 when followed in a later round. */
static int follow_redirect(struct run *r, size_t i, const redisReply *reply)
{
    struct cluster_redirect rd;
    enum cluster_redirect_kind kind = cluster_redirect_parse(reply->str, reply->len, &rd);
    if (kind == CLUSTER_NO_REDIRECT) {
        r->want_map = 1; /* CLUSTERDOWN, TRYAGAIN, or a redirection we cannot read */
        return 1;
    }
    if (r->p[i].redirects >= CLUSTER_MAX_REDIRECTS)
        return 0;
    if (!rd.to.host[0]) /* the node does not know its address: the one we asked */
        snprintf(rd.to.host, sizeof rd.to.host, "%s", r->to->host);
    r->p[i].redirects++;
    r->cc->redirects++;
    if (kind == CLUSTER_ASK) {
        r->p[i].ask = 1;
        r->p[i].ask_to = rd.to;
    } else if (cluster_map_move(&r->cc->map, rd.slot, rd.to.host, rd.to.port) < 0) {
        r->want_map = 1;
    }
    return 1;
}

static void on_command_reply(void *arg, int tag, redisReply *reply)
{
    struct run *r = arg;
    size_t i = (size_t)tag / 2;
    r->any_reply = 1;
    if (tag % 2 || i >= r->n || r->p[i].answered)
        return; /* ASKING's reply: the command's own comes next */
    if (!r->last_round && reply->type == REDIS_REPLY_ERROR &&
        cluster_error_wants_map(reply->str, reply->len) && follow_redirect(r, i, reply))
        return;
    r->p[i].answered = 1;
    r->answered++;
    r->on_reply(r->arg, i, reply);
}

static void queue_command(redisconn *c, const struct run *r, size_t i, int asking)
{
    if (asking) {
        const char *argv[] = {"ASKING"};
        redisconn_command(c, (int)(i * 2 + 1), 1, argv, NULL);
    }
    const struct cluster_command *k = &r->cmds[i];
    redisconn_command(c, (int)(i * 2), k->argc, k->argv, k->argvlen);
}

/* Sends the unanswered commands bound for `to` (the slot's master, or an
 * ASK node) and reads their replies. 0, or -1 (the connection failed). */
static int bound_for(const struct run *r, size_t i, const struct cluster_node *to, int ask)
{
    const struct pending *p = &r->p[i];
    if (p->answered || p->ask != ask)
        return 0;
    return !ask || (!strcmp(p->ask_to.host, to->host) && !strcmp(p->ask_to.port, to->port));
}

static int run_batch(struct run *r, const struct cluster_node *to, int ask, double deadline)
{
    size_t first = 0;
    while (first < r->n && !bound_for(r, first, to, ask))
        first++;
    if (first == r->n)
        return 0;
    redisconn *c = conn_for(r->cc, to);
    for (size_t i = first; i < r->n; i++)
        if (bound_for(r, i, to, ask)) {
            queue_command(c, r, i, ask);
            r->p[i].ask = 0; /* one ASK is answered once; then the map's owner again */
        }
    struct cluster_node node = *to; /* `to` may point into the map a reply moves */
    r->to = &node;
    if (redisconn_run(c, deadline, on_command_reply, r) == 0)
        return 0;
    keep_error(r->cc, c->err, c->reached || r->any_reply, "%s", c->errstr);
    return -1;
}

/* The ASK node of the first unanswered command asked elsewhere, or NULL. */
static const struct cluster_node *next_ask(const struct run *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (!r->p[i].answered && r->p[i].ask)
            return &r->p[i].ask_to;
    return NULL;
}

/* One round: the ASKed commands on their nodes, then the rest on the
 * slot's master. -1 when a connection failed or no master serves it. */
static int run_round(struct run *r, unsigned slot, double deadline)
{
    const struct cluster_node *ask;
    /* Each batch clears the ask of every command it sent: at most n. */
    for (size_t b = 0; b < r->n && (ask = next_ask(r)); b++) {
        struct cluster_node to = *ask;
        if (run_batch(r, &to, 1, deadline) < 0)
            return -1;
    }
    const struct cluster_node *owner = cluster_map_owner(&r->cc->map, slot);
    if (!owner) {
        keep_error(r->cc, REDISCONN_ERR_CONNECT, 1, "no master serves slot %u in the map", slot);
        return -1;
    }
    struct cluster_node to = *owner;
    return run_batch(r, &to, 0, deadline);
}

/* A short wait before asking again after a failure (a failover takes a
 * moment): doubling from 10 ms, never past the deadline. */
static void pause_before_retry(unsigned round, double deadline)
{
    double wait = 0.01 * (double)(1u << (round < 8 ? round : 8));
    double left = deadline - clock_mono();
    if (left <= 0)
        return;
    if (wait > left)
        wait = left;
    struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Rounds until every command has its final reply, the rounds are spent or
 * the deadline passed. */
static void run_rounds(struct run *r, unsigned slot, double deadline)
{
    struct cluster_client *cc = r->cc;
    for (unsigned round = 0; round <= CLUSTER_MAX_REDIRECTS && r->answered < r->n; round++) {
        if (clock_mono() >= deadline) {
            keep_error(cc, REDISCONN_ERR_TIMEOUT, r->any_reply,
                       "out of time with %zu of %zu commands unanswered", r->n - r->answered,
                       r->n);
            return;
        }
        if (!cc->have_map && fetch_map(cc, deadline) < 0)
            return;
        r->last_round = round == CLUSTER_MAX_REDIRECTS;
        r->want_map = 0;
        int failed = run_round(r, slot, deadline) < 0;
        if (failed || r->want_map) {
            cc->have_map = 0;
            if (r->answered < r->n && round < CLUSTER_MAX_REDIRECTS)
                pause_before_retry(round, deadline);
        }
    }
}

size_t cluster_client_run(struct cluster_client *cc, unsigned slot,
                          const struct cluster_command *cmds, size_t n, double deadline,
                          cluster_reply_fn on_reply, void *arg)
{
    cc->err = REDISCONN_OK;
    cc->reached = 0;
    cc->errstr[0] = '\0';
    if (n == 0)
        return 0;
    if (n > (size_t)INT_MAX / 2 || slot >= CLUSTER_SLOTS) {
        keep_error(cc, REDISCONN_ERR_PROTOCOL, 0, "%s", n > (size_t)INT_MAX / 2
                   ? "too many commands in one run" : "no such slot");
        return 0;
    }
    struct run r = {.cc = cc, .cmds = cmds, .n = n, .on_reply = on_reply, .arg = arg};
    r.p = xcalloc(n, sizeof *r.p);
    run_rounds(&r, slot, deadline);
    if (r.answered < n && !cc->err)
        keep_error(cc, REDISCONN_ERR_PROTOCOL, r.any_reply,
                   "%zu of %zu commands unanswered after %d rounds", n - r.answered, n,
                   CLUSTER_MAX_REDIRECTS + 1);
    else if (r.answered == n)
        keep_error(cc, REDISCONN_OK, 0, "%s", ""); /* failures on the way were overcome */
    free(r.p);
    return r.answered;
}
