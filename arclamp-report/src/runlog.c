/* runlog: the run logs of the fleet, summed run by run (see runlog.h). */
#include "runlog.h"
#include "keyedhash.h"
#include "runline.h"
#include "strbuf.h"
#include "xhprof.h"
#include "vec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the run ids of a view ---------------------------------------------- */

void runlog_seen_init(struct runlog_seen *s)
{
    memset(s, 0, sizeof *s);
    s->max = RUNLOG_MAX_SEEN;
}

void runlog_seen_free(struct runlog_seen *s)
{
    hashidx_free(&s->idx);
    free(s->v);
    runlog_seen_init(s);
}

static uint64_t seen_hash(size_t i, void *ctx)
{
    const struct runlog_seen *s = ctx;
    return s->v[i].low64;
}

/* Adds the run id: 0 when it is new, 1 when it was there already, -1 when
 * it is new and the table holds RUNLOG_MAX_SEEN ids. Two ids are the same
 * run when their 128-bit hashes are: under a key the senders cannot know,
 * two different ids agree with a chance of 2^-128. */
static int seen_add(struct runlog_seen *s, const char *id)
{
    struct keyedhash128 h = keyedhash128(id, strlen(id)); /* the senders' ids: keyed */
    struct hashidx_walk w;
    for (size_t i = hashidx_find(&s->idx, h.low64, &w); i != HASHIDX_NONE; i = hashidx_next(&w)) {
        if (keyedhash128_eq(s->v[i], h))
            return 1;
    }
    if (s->n >= s->max)
        return -1;
    if (hashidx_reserve(&s->idx, s->n + 1, 256, seen_hash, s) < 0)
        return -1; /* a max past HASHIDX_MAX: full all the same */
    VEC_RESERVE(s->v, s->cap, s->n + 1, 256);
    s->v[s->n++] = h;
    hashidx_insert(&s->idx, h.low64);
    return 0;
}

/* ---- reading a log ----------------------------------------------------------- */

/* The run being read: its arcs wait here until its end line says it is
 * whole. */
struct current {
    run r;
    char runid[RUNLINE_RUNID_MAX + 1];
    int open;
    int version;              /* its begin line's */
    int broken;               /* a line of another version, an fn line in version 1,
                                 an id defined twice or used undefined, names past
                                 the budget */
    int long_name;            /* a name longer than RUNLINE_MAX_NAME_BYTES */
    size_t arcs;
    int64_t time;
    struct runline_names names; /* version 2: the run's functions */
    strbuf key;               /* the arc being added, decoded */
};

static const int metric_of_field[RL_NMETRICS] = {M_CT, M_WT, M_CPU, M_MU, M_PMU};

static void current_reset(struct current *c)
{
    size_t max_arcs = c->r.max_arcs, max_key_bytes = c->r.max_key_bytes;
    run_free(&c->r);
    run_init(&c->r, max_arcs);
    c->r.max_key_bytes = max_key_bytes;
    runline_names_clear(&c->names);
    c->open = 0;
    c->broken = 0;
    c->long_name = 0;
    c->arcs = 0;
}

static int same_run(const struct current *c, const struct runline *rl)
{
    return c->open && strlen(c->runid) == rl->runid_len &&
           memcmp(c->runid, rl->runid, rl->runid_len) == 0;
}

static void on_begin(struct current *c, const struct runline *rl, struct runlog_stats *st)
{
    if (c->open)
        st->incomplete++;
    current_reset(c);
    memcpy(c->runid, rl->runid, rl->runid_len);
    c->runid[rl->runid_len] = '\0';
    c->open = 1;
    c->version = rl->version;
    c->time = rl->time;
}

/* The length of a name without its recursion level ("@12"). */
static size_t name_len(const char *s, size_t len)
{
    size_t n = len;
    while (n > 0 && s[n - 1] >= '0' && s[n - 1] <= '9')
        n--;
    return n < len && n > 0 && s[n - 1] == '@' ? n - 1 : len;
}

/* Whether both names of a decoded key ("parent==>child" or "main()") are
 * within RUNLINE_MAX_NAME_BYTES. */
static int key_names_ok(const char *key, size_t klen)
{
    arc a = {.key = (char *)key, .klen = klen};
    const char *p, *ch;
    size_t pl, cl;
    arc_split(&a, &p, &pl, &ch, &cl);
    return name_len(ch, cl) <= RUNLINE_MAX_NAME_BYTES &&
           (!p || name_len(p, pl) <= RUNLINE_MAX_NAME_BYTES);
}

/* The decoded length of a NAME or KEY that passed runline_parse: each
 * "%XX" is one byte. */
static size_t decoded_len(const char *text, size_t len)
{
    size_t escapes = 0;
    for (const char *p = memchr(text, '%', len); p; p = memchr(p + 1, '%', (size_t)(text + len - p - 1)))
        escapes++;
    return len - 2 * escapes;
}

/* An fn line: its name joins the run's, within the caps. */
static void on_fn(struct current *c, const struct runline *rl)
{
    size_t n = decoded_len(rl->text, rl->text_len);
    if (n > RUNLINE_MAX_NAME_BYTES) {
        c->long_name = 1;
        return; /* not kept: its arcs then leave the run broken too */
    }
    if (c->r.max_key_bytes && n > c->r.max_key_bytes - c->names.text.len) {
        c->broken = 1;
        return;
    }
    c->broken |= runline_names_define(&c->names, rl) < 0;
}

static void on_arc(struct current *c, const struct runline *rl, struct runlog_stats *st)
{
    c->arcs++;
    if (c->broken || c->long_name)
        return;
    if (rl->version == 1 && decoded_len(rl->text, rl->text_len) > 2 * RUNLINE_MAX_NAME_BYTES + 30) {
        c->long_name = 1; /* too long for any key of two names: not even decoded */
        return;
    }
    if (runline_names_key(&c->names, rl, &c->key) < 0) {
        c->broken = 1;
        return;
    }
    const char *key = c->key.data ? c->key.data : "";
    size_t klen = c->key.len;
    if (!key_names_ok(key, klen)) {
        c->long_name = 1;
        return;
    }
    arc *a = run_arc(&c->r, key, klen, 1);
    if (!a) {
        st->arcs_left_out++;
        return;
    }
    int is_main = klen == 6 && memcmp(key, "main()", 6) == 0;
    for (int m = 0; m < RL_NMETRICS; m++) {
        if (!(rl->present & (1u << m)))
            continue;
        a->v[metric_of_field[m]] += (double)rl->v[m];
        a->present |= 1u << metric_of_field[m];
        if (is_main)
            c->r.metrics |= 1u << metric_of_field[m];
    }
}

static void on_end(run *agg, struct current *c, const struct runline *rl,
                   struct runlog_seen *seen, struct runlog_stats *st)
{
    int seen_state;
    if (c->long_name) {
        st->incomplete++;
        st->long_names++;
    } else if (c->broken || rl->sent < 0 || (size_t)rl->sent != c->arcs) {
        st->incomplete++;
    } else if ((seen_state = seen_add(seen, c->runid)) > 0) {
        st->duplicates++;
    } else if (seen_state < 0) {
        st->incomplete++;
        st->too_many++;
    } else {
        st->arcs_left_out += run_add_weighted(agg, &c->r, 1.0) + (size_t)rl->left_out;
        st->runs++;
        if (!st->first || c->time < st->first)
            st->first = c->time;
        if (c->time > st->last)
            st->last = c->time;
    }
    current_reset(c);
}

static void on_line(run *agg, struct current *c, const char *line, size_t len,
                    struct runlog_seen *seen, struct runlog_stats *st)
{
    struct runline rl;
    enum runline_error err = runline_is_run(line, len) ? runline_parse(line, len, &rl)
                                                      : RUNLINE_BAD_RECORD;
    if (err != RUNLINE_OK) {
        st->bad_lines++;
        /* the parser takes no name past RUNLINE_MAX_NAME_BYTES; its run
         * then does not count, for that reason */
        if (err == RUNLINE_LONG_NAME && rl.kind != RUNLINE_BEGIN && same_run(c, &rl))
            c->long_name = 1;
        return;
    }
    if (rl.kind == RUNLINE_BEGIN) {
        on_begin(c, &rl, st);
    } else if (!same_run(c, &rl)) {
        st->bad_lines++; /* an arc, fn or end of no run begun here */
    } else if (rl.version != c->version) {
        st->bad_lines++;
        c->broken = 1;
    } else if (rl.kind == RUNLINE_FN) {
        on_fn(c, &rl);
    } else if (rl.kind == RUNLINE_ARC) {
        on_arc(c, &rl, st);
    } else {
        on_end(agg, c, &rl, seen, st);
    }
}

int runlog_add(run *agg, const char *path, size_t max_bytes, struct runlog_seen *seen,
               struct runlog_stats *st, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct current c;
    memset(&c, 0, sizeof c);
    run_init(&c.r, agg->max_arcs);
    c.r.max_key_bytes = agg->max_key_bytes;
    runline_names_init(&c.names, 1);
    char *buf = xmalloc(RUNLOG_LINE_MAX + 1);
    size_t have = 0, total = 0;
    int rc = 0, skipping = 0;
    for (;;) {
        size_t want = RUNLOG_LINE_MAX - have;
        if (max_bytes - total < want)
            want = max_bytes - total;
        ssize_t n = want ? read(fd, buf + have, want) : 0;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            rc = -1;
            break;
        }
        total += (size_t)n;
        have += (size_t)n;
        size_t start = 0;
        for (char *nl; (nl = memchr(buf + start, '\n', have - start)); start = (size_t)(nl - buf) + 1) {
            if (!skipping)
                on_line(agg, &c, buf + start, (size_t)(nl - buf) - start, seen, st);
            skipping = 0;
        }
        memmove(buf, buf + start, have - start);
        have -= start;
        if (n == 0)
            break; /* a last line without its newline is torn: not read */
        if (have == RUNLOG_LINE_MAX) { /* a line too long for any writer: skip it */
            st->bad_lines++;
            have = 0;
            skipping = 1;
        }
    }
    if (c.open)
        st->incomplete++;
    run_free(&c.r);
    runline_names_free(&c.names);
    strbuf_free(&c.key);
    free(buf);
    close(fd);
    return rc;
}

int runlog_sniff(const char *path)
{
    char head[RUNLINE_PREFIX_LEN];
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    return n == (ssize_t)sizeof head && runline_is_run(head, sizeof head);
}
