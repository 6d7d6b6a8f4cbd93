/* runs: reassembly of hierarchical runs from their lines, within bounds.
 * See runs.h. */
#include "runs.h"
#include "keyedhash.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Run ids are the sender's: the hash is keyed (keyedhash.h), or ids crafted
 * to share a bucket would make every line walk one long chain. */
static size_t hash_runid(const char *s, size_t len)
{
    return (size_t)keyedhash(s, len);
}

void runs_init(struct runs *r, const struct runs_limits *lim, struct stats *stats)
{
    memset(r, 0, sizeof *r);
    r->lim = *lim;
    r->stats = stats;
    r->table_size = 64;
    while (r->table_size < r->lim.max_pending * 2)
        r->table_size *= 2;
    r->table = xcalloc(r->table_size, sizeof *r->table);
    r->last_report = -1e9;
    runline_names_init(&r->names, 0);
    stats->runs_pending = 0;
}

/* --- the table and the lists ------------------------------------------------ */

static struct run **slot_of(struct runs *r, const char *runid, size_t len)
{
    return &r->table[hash_runid(runid, len) & (r->table_size - 1)];
}

static struct run *find(struct runs *r, const char *runid, size_t len)
{
    struct run *run = *slot_of(r, runid, len);
    while (run && (strlen(run->runid) != len || memcmp(run->runid, runid, len) != 0))
        run = run->hnext;
    return run;
}

/* The oldest run of an age list, NULL when it is empty. */
static struct run *oldest_of(const struct dlist *l)
{
    return l->head ? DLIST_ENTRY(l->head, struct run, age) : NULL;
}

static struct dlist *list_of(struct runs *r, const struct run *run)
{
    return run->dropped ? &r->markers : &r->live;
}

/* Takes the entry out of the table and its list; the caller owns it. */
static void detach(struct runs *r, struct run *run)
{
    struct run **slot = slot_of(r, run->runid, strlen(run->runid));
    while (*slot != run)
        slot = &(*slot)->hnext;
    *slot = run->hnext;
    run->hnext = NULL;
    dlist_unlink(list_of(r, run), &run->age);
    r->count--;
    if (!run->dropped) {
        r->bytes -= run->lines.len;
        r->stats->runs_pending--;
    }
}

static void free_run(struct run *run)
{
    strbuf_free(&run->lines);
    free(run);
}

/* Removes an entry for good. */
static void forget(struct runs *r, struct run *run)
{
    detach(r, run);
    free_run(run);
}

static struct run *add_entry(struct runs *r, const struct runline *rl, int dropped, double mono)
{
    struct run *run = xcalloc(1, sizeof *run);
    memcpy(run->runid, rl->runid, rl->runid_len);
    run->runid[rl->runid_len] = '\0';
    run->dropped = dropped;
    run->since = mono;
    struct run **slot = slot_of(r, rl->runid, rl->runid_len);
    run->hnext = *slot;
    *slot = run;
    dlist_push_back(list_of(r, run), &run->age);
    r->count++;
    if (!dropped)
        r->stats->runs_pending++;
    return run;
}

/* --- drops --------------------------------------------------------------------- */

void runs_count_drop(struct runs *r, enum run_drop why, const char *runid, double mono)
{
    r->stats->runs_dropped[why]++;
    r->unreported[why]++;
    if (!r->example[0])
        snprintf(r->example, sizeof r->example, "%s", runid);
    runs_report(r, mono, 0);
}

/* Drops a live run, counted: its lines are freed and it becomes a marker
 * that swallows the rest of its lines for one timeout. */
static void drop(struct runs *r, struct run *run, enum run_drop why, double mono)
{
    runs_count_drop(r, why, run->runid, mono);
    dlist_unlink(&r->live, &run->age);
    r->bytes -= run->lines.len;
    r->stats->runs_pending--;
    strbuf_free(&run->lines);
    run->arcs = 0;
    run->dropped = 1;
    run->since = mono;
    dlist_push_back(&r->markers, &run->age);
}

/* Makes room for one more entry: the oldest marker goes, or when there is
 * none and `may_push_out`, the oldest run (counted). 0 when there is room. */
static int make_room(struct runs *r, int may_push_out, double mono)
{
    while (r->count >= r->lim.max_pending) {
        if (r->markers.head) {
            forget(r, oldest_of(&r->markers));
        } else if (may_push_out && r->live.head) {
            struct run *oldest = oldest_of(&r->live);
            runs_count_drop(r, RUN_DROP_PENDING_LIMIT, oldest->runid, mono);
            forget(r, oldest);
        } else {
            return -1;
        }
    }
    return 0;
}

/* Appends a line to a live run within the bounds: a run past max_run_bytes
 * is dropped (-1); while all runs together would pass max_pending_bytes the
 * oldest is dropped, which may be this one (-1). */
static int add_line(struct runs *r, struct run *run, const char *line, size_t len, double mono)
{
    size_t need = len + 1;
    if (run->lines.len + need > r->lim.max_run_bytes) {
        drop(r, run, RUN_DROP_TOO_BIG, mono);
        return -1;
    }
    while (r->bytes + need > r->lim.max_pending_bytes) {
        struct run *oldest = oldest_of(&r->live); /* not NULL: `run` is live */
        drop(r, oldest, RUN_DROP_PENDING_LIMIT, mono);
        if (oldest == run)
            return -1;
    }
    strbuf_reserve(&run->lines, need);
    memcpy(run->lines.data + run->lines.len, line, len);
    run->lines.data[run->lines.len + len] = '\n';
    run->lines.len += need;
    r->bytes += need;
    return 0;
}

/* --- the three records ------------------------------------------------------- */

static void take_begin(struct runs *r, const char *line, size_t len, const struct runline *rl,
                       unsigned long long groups, double mono)
{
    struct run *old = find(r, rl->runid, rl->runid_len);
    if (old && !old->dropped)
        runs_count_drop(r, RUN_DROP_DUPLICATE, old->runid, mono);
    if (old)
        forget(r, old);
    make_room(r, 1, mono);
    struct run *run = add_entry(r, rl, 0, mono);
    run->groups = groups;
    run->version = rl->version;
    runline_entry_tag(rl->text, rl->text_len, run->tag);
    r->stats->runs_received++;
    add_line(r, run, line, len, mono);
}

/* An arc, fn or end line of a run never begun (or forgotten): counted
 * once; unless it was the end line, a marker takes the rest of the run's
 * lines, if there is room without pushing out a run being collected. */
static void take_orphan(struct runs *r, const struct runline *rl, double mono)
{
    char runid[RUNLINE_RUNID_MAX + 1];
    memcpy(runid, rl->runid, rl->runid_len);
    runid[rl->runid_len] = '\0';
    runs_count_drop(r, RUN_DROP_NO_BEGIN, runid, mono);
    if (rl->kind != RUNLINE_END && make_room(r, 0, mono) == 0)
        add_entry(r, rl, 1, mono);
}

/* Whether a complete version 2 run names its functions as the format
 * says: each id defined once, before the first arc that uses it. Its lines
 * passed runline_parse when they came; they are read again here, once,
 * rather than a table kept per pending run. */
static int ids_ok(struct runs *r, const struct run *run)
{
    runline_names_clear(&r->names);
    const char *p = run->lines.data, *end = p + run->lines.len;
    int ok = 1;
    while (ok && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)); /* every line ends with one */
        struct runline rl;
        runline_parse(p, (size_t)(nl - p), &rl);
        if (rl.kind == RUNLINE_FN)
            ok = runline_names_define(&r->names, &rl) == 0;
        else if (rl.kind == RUNLINE_ARC)
            ok = runline_names_resolves(&r->names, &rl);
        p = nl + 1;
    }
    return ok;
}

static struct run *take_end(struct runs *r, struct run *run, const char *line, size_t len,
                            const struct runline *rl, double mono)
{
    enum run_drop why = RUN_DROP_NREASONS;
    if (run->arcs != (uint64_t)rl->sent)
        why = RUN_DROP_ARCS_MISSING;
    else if (run->mixed || rl->version != run->version || (run->version == 2 && !ids_ok(r, run)))
        why = RUN_DROP_BAD_IDS;
    if (why != RUN_DROP_NREASONS) {
        runs_count_drop(r, why, run->runid, mono);
        forget(r, run);
        return NULL;
    }
    if (add_line(r, run, line, len, mono) < 0) {
        forget(r, run); /* too big; the end line was its last */
        return NULL;
    }
    detach(r, run);
    return run;
}

struct run *runs_take(struct runs *r, const char *line, size_t len, const struct runline *rl,
                      unsigned long long groups, double mono)
{
    if (rl->kind == RUNLINE_BEGIN) {
        take_begin(r, line, len, rl, groups, mono);
        return NULL;
    }
    struct run *run = find(r, rl->runid, rl->runid_len);
    if (!run) {
        take_orphan(r, rl, mono);
        return NULL;
    }
    if (run->dropped) {
        if (rl->kind == RUNLINE_END)
            forget(r, run); /* its last line: the marker is done */
        return NULL;
    }
    if (rl->kind == RUNLINE_END)
        return take_end(r, run, line, len, rl, mono);
    if (add_line(r, run, line, len, mono) == 0) {
        run->arcs += rl->kind == RUNLINE_ARC;
        run->mixed |= rl->version != run->version;
    }
    return NULL;
}

void runs_release(struct runs *r, struct run *run)
{
    (void)r;
    free_run(run);
}

void runs_expire(struct runs *r, double mono)
{
    struct run *run;
    while ((run = oldest_of(&r->live)) && mono - run->since >= r->lim.timeout)
        drop(r, run, RUN_DROP_TIMEOUT, mono);
    while ((run = oldest_of(&r->markers)) && mono - run->since >= r->lim.timeout)
        forget(r, run);
}

static const struct count_report dropped_runs = {
    "runs_dropped", "hierarchical runs", "run ", "", 0, RUN_DROP_NREASONS, run_drop_reason,
};

void runs_report(struct runs *r, double mono, int force)
{
    if ((force || mono - r->last_report >= r->lim.report_interval) &&
        stats_log_counts(&dropped_runs, r->unreported, r->example))
        r->last_report = mono;
}

void runs_free(struct runs *r, double mono)
{
    struct run *run;
    while ((run = oldest_of(&r->live))) {
        runs_count_drop(r, RUN_DROP_STOPPED, run->runid, mono);
        forget(r, run);
    }
    while ((run = oldest_of(&r->markers)))
        forget(r, run);
    runs_report(r, mono, 1);
    runline_names_free(&r->names);
    free(r->table);
    r->table = NULL;
}

size_t runs_longest_chain(const struct runs *r)
{
    size_t longest = 0;
    for (size_t i = 0; i < r->table_size; i++) {
        size_t n = 0;
        for (const struct run *run = r->table[i]; run; run = run->hnext)
            n++;
        if (n > longest)
            longest = n;
    }
    return longest;
}
