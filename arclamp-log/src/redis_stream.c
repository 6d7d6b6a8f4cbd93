/* redis_stream: reading Redis streams through a consumer group, so that
 * nothing sent while the daemon was down, restarting or unable to write is
 * lost.
 *
 * An entry is acknowledged (XACK, then XDEL with stream_delete_acked) only
 * once each of its lines is on disk or was counted invalid:
 *  - lines go to the trace log buffers; the batch is acknowledged after the
 *    buffers were written (while the disk refuses, reading pauses);
 *  - an entry with a line no file could take now (it cannot be opened, or
 *    its buffer is full) is not acknowledged at all;
 *  - if any line was lost between the buffers and the disk (a file closed
 *    while the disk refused it), nothing of the batch is acknowledged.
 * Lines of hierarchical runs count as taken care of once they are taken
 * into a run being put together (runs.h), written, or counted invalid: a
 * run is written only once its end line comes, usually in a later entry,
 * and that entry's predecessors cannot wait for it in Redis without
 * holding up every entry behind them. So runs still pending when the
 * daemon stops are lost (at most the runs in flight), and a complete run a
 * file cannot take is counted dropped, not deferred.
 * Entries left unacknowledged stay in our consumer's pending list; after a
 * delay (1 s, doubling up to reconnect_max_delay) they are read again from
 * the start of that list ("0"), new entries only once it is empty. The
 * same pending pass runs after every (re)connect, so a restart retries
 * them too. Delivery is thus at least once: a line of an entry that was
 * retried may be written twice, none is lost.
 *
 * One XREADGROUP asks each key for stream_batch / keys entries (at least
 * one), so a reply holds about stream_batch entries however many keys are
 * configured (redis_input.c sizes the reply limit by it).
 *
 * Several collectors may share the group (several arclamp-log instances
 * on one Redis, or on a cluster's shards): Redis hands each new entry to
 * one of them. When one dies, what it had read and not acknowledged would
 * stay in its pending list forever; so every stream_claim_idle / 2 seconds,
 * between reads, each instance takes over (XAUTOCLAIM ... JUSTID) the
 * entries of its keys left pending longer than stream_claim_idle, by
 * anyone, and reads them in a pending pass like its own. An entry taken
 * over from a collector that had written it but died before acknowledging
 * is written twice: duplicates are bounded by one batch per dead collector
 * and counted (arclamp_log_redis_claimed_total). */
#include "clock.h"
#include "log.h"
#include "redis_mode.h"
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { T_XGROUP, T_XREAD, T_XACK, T_XDEL, T_XCLAIM };
#define RETRY_FIRST_DELAY 1.0
/* Stream entry ids are "ms-seq": two 64-bit numbers. */
#define ID_MAX 48

struct key_state {
    char pending_from[ID_MAX];     /* pending pass: read after this id */
    int pending_done;              /* pending pass: nothing more pending here */
    strbuf acks;                   /* ids to acknowledge, NUL-separated */
    size_t nacks;
    char claim_from[ID_MAX];       /* XAUTOCLAIM's cursor */
};

struct stream {
    struct key_state *keys;        /* parallel to ri->keys */
    size_t nkeys;
    size_t xgroups_due;            /* XGROUP CREATE replies still due */
    int reading;                   /* an XREADGROUP is outstanding */
    int pending_pass;              /* reading our pending entries from "0" */
    int waiting_for_disk;          /* a batch is read, its lines not yet written */
    uint64_t lost_before;          /* ingest_lines_lost() when the batch was read */
    size_t left_pending;           /* entries of this pass not acknowledged */
    double retry_at;               /* 0, or when the next pending pass starts */
    double retry_delay;            /* the delay after the next failed pass */
    int reported;                  /* the current trouble was logged */
    double claim_at;               /* the next XAUTOCLAIM round is due then */
    size_t claims_due;             /* XAUTOCLAIM replies still due */
    uint64_t claimed_now;          /* entries the round took over */
    char claim_idle[24];           /* XAUTOCLAIM's min-idle-time, milliseconds */
    int claim_refused;             /* the server has no XAUTOCLAIM: not asked again */
    char count[24];                /* COUNT per key */
    char block[24];                /* BLOCK milliseconds */
};

static void *stream_create(struct redis_input *ri)
{
    struct stream *st = xcalloc(1, sizeof *st);
    st->keys = xcalloc(ri->nkeys, sizeof *st->keys);
    st->nkeys = ri->nkeys;
    long per_key = ri->rc->stream_batch / (long)ri->nkeys;
    snprintf(st->count, sizeof st->count, "%ld", per_key > 0 ? per_key : 1L);
    /* Half the health interval: a silent connection is then dead. */
    snprintf(st->block, sizeof st->block, "%ld", (long)(ri->rc->health_check_interval * 500) + 1);
    st->retry_delay = RETRY_FIRST_DELAY;
    snprintf(st->claim_idle, sizeof st->claim_idle, "%.0f", ri->rc->stream_claim_idle * 1000);
    for (size_t i = 0; i < ri->nkeys; i++)
        snprintf(st->keys[i].claim_from, ID_MAX, "0-0");
    return st;
}

static void stream_destroy(void *state)
{
    struct stream *st = state;
    for (size_t i = 0; i < st->nkeys; i++)
        strbuf_free(&st->keys[i].acks);
    free(st->keys);
    free(st);
}

static void forget_acks(struct redis_input *ri, struct stream *st)
{
    for (size_t i = 0; i < ri->nkeys; i++) {
        strbuf_free(&st->keys[i].acks);
        st->keys[i].nacks = 0;
    }
}

static void stream_on_close(struct redis_input *ri, void *state)
{
    struct stream *st = state;
    forget_acks(ri, st);
    st->reading = st->waiting_for_disk = 0;
    st->xgroups_due = 0;
    st->claims_due = 0;
}

static void begin_pending_pass(struct redis_input *ri, struct stream *st)
{
    st->pending_pass = 1;
    st->left_pending = 0;
    st->retry_at = 0;
    for (size_t i = 0; i < ri->nkeys; i++) {
        snprintf(st->keys[i].pending_from, sizeof st->keys[i].pending_from, "0");
        st->keys[i].pending_done = 0;
    }
}

static void stream_start(struct redis_input *ri, void *state)
{
    struct stream *st = state;
    for (size_t i = 0; i < ri->nkeys; i++) {
        const char *argv[] = {"XGROUP", "CREATE", ri->keys[i].name, ri->rc->stream_group, "0",
                              "MKSTREAM"};
        size_t lens[] = {6, 6, ri->keys[i].len, strlen(ri->rc->stream_group), 1, 8};
        redisconn_command(&ri->conn, T_XGROUP, 6, argv, lens);
    }
    st->xgroups_due = ri->nkeys;
}

static void send_read(struct redis_input *ri, struct stream *st)
{
    size_t max = 9 + 2 * ri->nkeys;
    const char **argv = xcalloc(max, sizeof *argv);
    size_t *lens = xcalloc(max, sizeof *lens);
    size_t n = 0;
#define ARG(s, l) (argv[n] = (s), lens[n] = (l), n++)
    ARG("XREADGROUP", 10);
    ARG("GROUP", 5);
    ARG(ri->rc->stream_group, strlen(ri->rc->stream_group));
    ARG(ri->rc->stream_consumer, strlen(ri->rc->stream_consumer));
    ARG("COUNT", 5);
    ARG(st->count, strlen(st->count));
    if (!st->pending_pass) {
        ARG("BLOCK", 5);
        ARG(st->block, strlen(st->block));
    }
    ARG("STREAMS", 7);
    for (size_t i = 0; i < ri->nkeys; i++) {
        if (!st->pending_pass || !st->keys[i].pending_done)
            ARG(ri->keys[i].name, ri->keys[i].len);
    }
    for (size_t i = 0; i < ri->nkeys; i++) {
        if (!st->pending_pass)
            ARG(">", 1);
        else if (!st->keys[i].pending_done)
            ARG(st->keys[i].pending_from, strlen(st->keys[i].pending_from));
    }
#undef ARG
    redisconn_command(&ri->conn, T_XREAD, (int)n, argv, lens);
    free(lens);
    free(argv);
    st->reading = 1;
}

/* XACK (and XDEL) of the entries taken care of. */
static void send_acks(struct redis_input *ri, struct stream *st)
{
    for (size_t i = 0; i < ri->nkeys; i++) {
        struct key_state *k = &st->keys[i];
        if (!k->nacks)
            continue;
        const char **argv = xcalloc(k->nacks + 3, sizeof *argv);
        argv[0] = "XACK";
        argv[1] = ri->keys[i].name;
        argv[2] = ri->rc->stream_group;
        const char *id = k->acks.data;
        for (size_t a = 0; a < k->nacks; a++) {
            argv[3 + a] = id;
            id += strlen(id) + 1;
        }
        redisconn_command(&ri->conn, T_XACK, (int)k->nacks + 3, argv, NULL);
        if (ri->rc->stream_delete_acked) {
            /* XDEL key id... is the same vector one slot later. */
            argv[1] = "XDEL";
            argv[2] = ri->keys[i].name;
            redisconn_command(&ri->conn, T_XDEL, (int)k->nacks + 2, argv + 1, NULL);
        }
        free(argv);
        strbuf_reset(&k->acks);
        k->nacks = 0;
    }
}

/* Takes over the entries left pending too long by any consumer, key by
 * key; the replies decide what is read next (claim_done). 1 when a round
 * was sent, 0 when none is due. */
static int claim_if_due(struct redis_input *ri, struct stream *st)
{
    double now = redis_input_now(ri);
    if (ri->rc->stream_claim_idle <= 0 || st->claim_refused || now < st->claim_at)
        return 0;
    double every = ri->rc->stream_claim_idle / 2;
    st->claim_at = now + (every < 1 ? 1 : every);
    st->claimed_now = 0;
    for (size_t i = 0; i < ri->nkeys; i++) {
        const char *argv[] = {"XAUTOCLAIM", ri->keys[i].name, ri->rc->stream_group,
                              ri->rc->stream_consumer, st->claim_idle, st->keys[i].claim_from,
                              "COUNT", st->count, "JUSTID"};
        size_t lens[9];
        for (size_t a = 0; a < 9; a++)
            lens[a] = a == 1 ? ri->keys[i].len : strlen(argv[a]);
        redisconn_command(&ri->conn, T_XCLAIM, 9, argv, lens);
    }
    st->claims_due = ri->nkeys;
    st->reading = 1; /* a reply is owed: the health check waits for it */
    return 1;
}

/* [next-cursor, [id, ...], [deleted id, ...]]: counts what came to us. */
static int take_claim_reply(struct redis_input *ri, struct stream *st, const redisReply *r)
{
    if (r->type == REDIS_REPLY_ERROR) {
        /* An old server without XAUTOCLAIM (before 6.2), or an ACL that
         * forbids it: said once, and not asked again on this input. */
        if (!st->claim_refused)
            log_event(LOG_WARNING, "redis_claim_failed", LOG_FIELDS({"ARCLAMP_REASON", r->str}),
                      "XAUTOCLAIM refused (entries a stopped collector left pending are not "
                      "taken over): %s", r->str);
        st->claim_refused = 1;
        return 0;
    }
    if (r->type != REDIS_REPLY_ARRAY || r->elements < 2 || !redis_is_string(r->element[0]) ||
        r->element[0]->len >= ID_MAX || r->element[1]->type != REDIS_REPLY_ARRAY)
        return redis_input_fail(ri, "XAUTOCLAIM answered with a malformed reply");
    /* Replies come in the order of the keys asked. */
    size_t k = ri->nkeys - st->claims_due;
    memcpy(st->keys[k].claim_from, r->element[0]->str, r->element[0]->len + 1);
    st->claimed_now += r->element[1]->elements;
    return 0;
}

static void send_read_or_claim(struct redis_input *ri, struct stream *st)
{
    if (!claim_if_due(ri, st))
        send_read(ri, st);
}

/* Every XAUTOCLAIM of the round answered: what was taken over is now in
 * our pending list, read by a pending pass. */
static void claim_done(struct redis_input *ri, struct stream *st)
{
    st->reading = 0;
    if (st->claimed_now) {
        char count[24];
        snprintf(count, sizeof count, "%llu", (unsigned long long)st->claimed_now);
        ri->stats->redis_claimed += st->claimed_now;
        log_event(LOG_NOTICE, "redis_stream_claimed", LOG_FIELDS({"ARCLAMP_COUNT", count}),
                  "took over %s stream entries left pending for %.0fs or more (by a "
                  "collector that stopped, or ours deferred)", count,
                  ri->rc->stream_claim_idle);
        begin_pending_pass(ri, st);
    }
    send_read(ri, st);
    redis_input_flush(ri);
}

/* The pass (or batch) left entries pending: read them again later. */
static void schedule_retry(struct redis_input *ri, struct stream *st)
{
    double delay = st->retry_delay;
    if (!st->reported) {
        char count[24];
        snprintf(count, sizeof count, "%zu", st->left_pending);
        log_event(LOG_WARNING, "redis_stream_deferred", LOG_FIELDS({"ARCLAMP_COUNT", count}),
                  "%s stream entries have lines that cannot be written now; they stay pending "
                  "in Redis and are read again in %.1fs, until they are written",
                  count, delay);
        st->reported = 1;
    }
    st->retry_at = redis_input_now(ri) + delay;
    st->retry_delay = delay * 2 > ri->rc->reconnect_max_delay ? ri->rc->reconnect_max_delay
                                                              : delay * 2;
}

static void next_read(struct redis_input *ri, struct stream *st)
{
    if (st->pending_pass) {
        int all_done = 1;
        for (size_t i = 0; i < ri->nkeys; i++)
            all_done &= st->keys[i].pending_done;
        if (!all_done) {
            send_read(ri, st);
            return;
        }
        st->pending_pass = 0;
    }
    if (st->left_pending) {
        schedule_retry(ri, st);
        return;
    }
    if (st->reported) {
        log_event(LOG_NOTICE, "redis_stream_resumed", LOG_NO_FIELDS,
                  "every pending stream entry is written; reading new entries again");
        st->reported = 0;
    }
    st->retry_delay = RETRY_FIRST_DELAY;
    send_read_or_claim(ri, st);
}

/* The batch is in the buffers: once on disk, acknowledge and read on.
 * While the disk refuses, wait (the health tick comes back here). */
static void finish_batch(struct redis_input *ri, struct stream *st)
{
    if (ingest_flush(ri->ingest, redis_input_now(ri)) > 0) {
        if (!st->waiting_for_disk)
            log_event(LOG_WARNING, "redis_stream_paused", LOG_NO_FIELDS,
                      "trace logs cannot be written; stream entries stay unacknowledged "
                      "in Redis until they can");
        st->waiting_for_disk = 1;
        return;
    }
    st->waiting_for_disk = 0;
    if (ingest_lines_lost(ri->ingest) != st->lost_before) {
        /* A line of this batch may be among the lost: acknowledge none. */
        for (size_t i = 0; i < ri->nkeys; i++) {
            st->left_pending += st->keys[i].nacks;
            strbuf_reset(&st->keys[i].acks);
            st->keys[i].nacks = 0;
        }
    }
    send_acks(ri, st);
    next_read(ri, st);
    redis_input_flush(ri);
}

static void take_entry(struct redis_input *ri, struct stream *st, size_t k,
                       const redisReply *entry)
{
    const redisReply *id = entry->element[0], *fields = entry->element[1];
    size_t deferred = 0;
    for (size_t f = 0; fields->type == REDIS_REPLY_ARRAY && f + 1 < fields->elements; f += 2) {
        const redisReply *name = fields->element[f], *value = fields->element[f + 1];
        if (redis_is_string(name) && name->len == 6 && memcmp(name->str, "sample", 6) == 0 &&
            redis_is_string(value))
            deferred += ingest_message(ri->ingest, value->str, value->len, ri->keys[k].groups,
                                       INPUT_REDIS, (time_t)clock_wall_seconds(), redis_input_now(ri), 1);
    }
    struct key_state *ks = &st->keys[k];
    if (st->pending_pass) {
        ri->stats->redis_reread++;
        memcpy(ks->pending_from, id->str, id->len + 1);
        ks->pending_done = 0;
    }
    if (deferred) {
        st->left_pending++;
        return;
    }
    /* A nil field list is an entry deleted meanwhile: acknowledged too. */
    strbuf_append(&ks->acks, id->str, id->len + 1);
    ks->nacks++;
}

/* [[key, [[id, [field, value, ...]], ...]], ...], or nil when BLOCK ran out. */
static int handle_entries(struct redis_input *ri, struct stream *st, const redisReply *r)
{
    st->reading = 0;
    if (r->type != REDIS_REPLY_ARRAY && r->type != REDIS_REPLY_NIL)
        return redis_input_fail(ri, "XREADGROUP answered with type %d", r->type);
    if (st->pending_pass) {
        for (size_t i = 0; i < ri->nkeys; i++)
            st->keys[i].pending_done = 1; /* unless entries say otherwise below */
    }
    st->lost_before = ingest_lines_lost(ri->ingest);
    for (size_t s = 0; r->type == REDIS_REPLY_ARRAY && s < r->elements; s++) {
        const redisReply *pair = r->element[s];
        if (pair->type != REDIS_REPLY_ARRAY || pair->elements != 2 ||
            !redis_is_string(pair->element[0]) || pair->element[1]->type != REDIS_REPLY_ARRAY)
            return redis_input_fail(ri, "XREADGROUP answered with a malformed stream");
        const struct redis_key *key =
            redis_input_key(ri, pair->element[0]->str, pair->element[0]->len);
        if (!key)
            return redis_input_fail(ri, "XREADGROUP answered for a key never asked for");
        const redisReply *entries = pair->element[1];
        for (size_t e = 0; e < entries->elements; e++) {
            const redisReply *entry = entries->element[e];
            if (entry->type != REDIS_REPLY_ARRAY || entry->elements != 2 ||
                !redis_is_string(entry->element[0]) || entry->element[0]->len >= ID_MAX)
                return redis_input_fail(ri, "XREADGROUP answered with a malformed entry");
            take_entry(ri, st, (size_t)(key - ri->keys), entry);
        }
    }
    finish_batch(ri, st);
    return 0;
}

static int stream_on_reply(struct redis_input *ri, void *state, int tag, redisReply *r)
{
    struct stream *st = state;
    int refused = r->type == REDIS_REPLY_ERROR;
    switch (tag) {
    case T_XGROUP:
        if (refused && strncmp(r->str, "BUSYGROUP", 9) != 0)
            return redis_input_fail(ri, "XGROUP CREATE refused: %.150s", r->str);
        if (--st->xgroups_due == 0) {
            redis_input_ready(ri);
            begin_pending_pass(ri, st);
            send_read(ri, st);
            redis_input_flush(ri);
        }
        return 0;
    case T_XREAD:
        if (refused)
            return redis_input_fail(ri, "XREADGROUP refused: %.150s", r->str);
        return handle_entries(ri, st, r);
    case T_XCLAIM:
        if (take_claim_reply(ri, st, r) < 0)
            return -1;
        if (--st->claims_due == 0)
            claim_done(ri, st);
        return 0;
    case T_XACK:
    case T_XDEL:
        /* The lines are written; an entry not acknowledged is read again. */
        if (refused)
            log_event(LOG_WARNING, "redis_ack_failed", LOG_FIELDS({"ARCLAMP_REASON", r->str}),
                      "Redis refused an acknowledgement: %s", r->str);
        return 0;
    default:
        return redis_input_fail(ri, "a reply to a command never sent");
    }
}

static void stream_on_tick(struct redis_input *ri, void *state)
{
    struct stream *st = state;
    if (st->waiting_for_disk) {
        finish_batch(ri, st);
        return;
    }
    if (st->retry_at && !st->reading && redis_input_now(ri) >= st->retry_at) {
        begin_pending_pass(ri, st);
        send_read(ri, st);
        redis_input_flush(ri);
    }
}

static int stream_awaiting(struct redis_input *ri, void *state)
{
    (void)ri;
    return ((struct stream *)state)->reading;
}

const struct redis_mode_ops redis_stream_mode = {
    .connected_as = "reading the streams of",
    .create = stream_create,
    .destroy = stream_destroy,
    .start = stream_start,
    .on_reply = stream_on_reply,
    .on_tick = stream_on_tick,
    .on_close = stream_on_close,
    .awaiting = stream_awaiting,
};
