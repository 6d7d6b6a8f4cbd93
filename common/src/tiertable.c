/* tiertable: request-tier aggregates within bounds, the .tiers file's
 * lines written and read back, and the JSON and text views. See
 * tiertable.h. */
#include "tiertable.h"
#include "keyedhash.h"
#include "xmlesc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t hash_name(const char *s, size_t len)
{
    return (size_t)keyedhash(s, len);   /* a sender names identities: keyed */
}

/* a + b, at most `max` (a <= max). */
static uint64_t add_sat(uint64_t a, uint64_t b, uint64_t max)
{
    return b > max - a ? max : a + b;
}

/* Counts saturate where tier lines and the report's JSON end (tierline.h). */
static uint64_t add_count(uint64_t a, uint64_t b)
{
    return add_sat(a, b, (uint64_t)TIERLINE_COUNT_MAX);
}

void tiertable_init(struct tiertable *t, size_t max_identities)
{
    memset(t, 0, sizeof *t);
    t->max_identities = max_identities;
    t->max_cells = (max_identities + 1) * TIERTABLE_CELLS_PER_IDENTITY;
    t->max_blocks = (max_identities + 1) * TIERTABLE_BLOCKS_PER_IDENTITY;
}

void tiertable_reserve(struct tiertable *t, const struct tier_names *reserved)
{
    t->reserved = reserved && reserved->n ? reserved : NULL;
}

/* --- the operator's identities ------------------------------------------------- */

static int cmp_name(const char *a, size_t alen, const char *b, size_t blen)
{
    int r = memcmp(a, b, alen < blen ? alen : blen);
    return r ? r : (alen > blen) - (alen < blen);
}

void tier_names_init(struct tier_names *r, char *const *decoded, size_t n)
{
    memset(r, 0, sizeof *r);
    r->v = xcalloc(n ? n : 1, sizeof *r->v);
    r->len = xcalloc(n ? n : 1, sizeof *r->len);
    for (size_t i = 0; i < n; i++) {
        size_t dlen = strlen(decoded[i]);
        char *esc = xmalloc(3 * dlen + 1);
        size_t len = tierline_escape(decoded[i], dlen, esc);
        /* insertion in order: a list an operator writes is short */
        size_t at = r->n;
        while (at > 0 && cmp_name(r->v[at - 1], r->len[at - 1], esc, len) > 0)
            at--;
        if (at > 0 && cmp_name(r->v[at - 1], r->len[at - 1], esc, len) == 0) {
            free(esc);
            continue;
        }
        memmove(r->v + at + 1, r->v + at, (r->n - at) * sizeof *r->v);
        memmove(r->len + at + 1, r->len + at, (r->n - at) * sizeof *r->len);
        r->v[at] = esc;
        r->len[at] = len;
        r->n++;
    }
}

void tier_names_free(struct tier_names *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->v[i]);
    free(r->v);
    free(r->len);
    memset(r, 0, sizeof *r);
}

int tier_names_has(const struct tier_names *r, const char *escaped, size_t len)
{
    size_t lo = 0, hi = r ? r->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_name(r->v[mid], r->len[mid], escaped, len);
        if (c == 0)
            return 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

void tiertable_reset(struct tiertable *t)
{
    for (size_t i = 0; i < t->nids; i++) {
        struct tier_identity *id = t->ids[i];
        for (size_t c = 0; c < id->ncells; c++)
            tierhist_reset(&id->cells[c].hist);
        free(id->cells);
        free(id->name);
        free(id);
    }
    free(t->ids);
    free(t->hash);
    const struct tier_names *reserved = t->reserved;
    tiertable_init(t, t->max_identities);
    t->reserved = reserved;
}

int tiertable_empty(const struct tiertable *t)
{
    return t->nids == 0 && t->status_lines == 0;
}

/* --- identities and cells ----------------------------------------------------- */

const struct tier_identity *tiertable_find(const struct tiertable *t, const char *identity,
                                           size_t len)
{
    if (!t->hash)
        return NULL;
    struct tier_identity *id = t->hash[hash_name(identity, len) & (t->hash_size - 1)];
    while (id && (id->name_len != len || memcmp(id->name, identity, len) != 0))
        id = id->hnext;
    return id;
}

/* Doubles the hash table while it is more than half full. */
static void grow_hash(struct tiertable *t)
{
    if (t->hash && t->nids < t->hash_size / 2)
        return;
    size_t size = t->hash_size ? t->hash_size * 2 : 64;
    struct tier_identity **hash = xcalloc(size, sizeof *hash);
    for (size_t i = 0; i < t->nids; i++) {
        struct tier_identity *id = t->ids[i];
        size_t slot = hash_name(id->name, id->name_len) & (size - 1);
        id->hnext = hash[slot];
        hash[slot] = id;
    }
    free(t->hash);
    t->hash = hash;
    t->hash_size = size;
}

static struct tier_identity *new_identity(struct tiertable *t, const char *name, size_t len)
{
    grow_hash(t);
    if (t->nids == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->ids = xrealloc(t->ids, t->cap * sizeof *t->ids);
    }
    struct tier_identity *id = xcalloc(1, sizeof *id);
    id->name = xstrndup(name, len);
    id->name_len = len;
    size_t slot = hash_name(name, len) & (t->hash_size - 1);
    id->hnext = t->hash[slot];
    t->hash[slot] = id;
    t->ids[t->nids++] = id;
    return id;
}

const struct tier_cell *tier_identity_cell(const struct tier_identity *id, const char *tier)
{
    for (size_t c = 0; c < id->ncells; c++) {
        if (strcmp(id->cells[c].tier, tier) == 0)
            return &id->cells[c];
    }
    return NULL;
}

static struct tier_cell *find_cell(struct tier_identity *id, const char *tier, size_t len)
{
    for (size_t c = 0; c < id->ncells; c++) {
        if (strlen(id->cells[c].tier) == len && memcmp(id->cells[c].tier, tier, len) == 0)
            return &id->cells[c];
    }
    return NULL;
}

static struct tier_cell *new_cell(struct tier_identity *id, const char *tier, size_t len)
{
    if (id->ncells == id->cap) {
        id->cap = id->cap ? id->cap * 2 : 4;
        id->cells = xrealloc(id->cells, id->cap * sizeof *id->cells);
    }
    struct tier_cell *cell = &id->cells[id->ncells++];
    memset(cell, 0, sizeof *cell);
    memcpy(cell->tier, tier, len);
    return cell;
}

/* Histogram blocks src has that dst (NULL: none) does not: what merging
 * would allocate. */
static size_t new_blocks(const struct tierhist *dst, const struct tierhist *src)
{
    size_t n = 0;
    for (unsigned b = 0; b < TIERHIST_BLOCKS; b++)
        n += src->block[b] && !(dst && dst->block[b]);
    return n;
}

/* Decides everything before making anything, so a dropped line leaves no
 * empty identity or cell behind (a cell of 0 calls could not be written).
 * An identity the operator listed draws on budgets of its own (kept_*),
 * so what others sent first cannot spend them. */
void tiertable_add(struct tiertable *t, const char *identity, size_t len, const char *tier,
                   size_t tier_len, uint64_t calls, uint64_t total_ns,
                   const struct tierhist *hist, struct tier_drops *drops)
{
    struct tier_identity *id = (struct tier_identity *)tiertable_find(t, identity, len);
    int reserved = id ? id->reserved : tier_names_has(t->reserved, identity, len);
    if (!id && !reserved) {
        size_t other_len = sizeof TIERTABLE_OTHER - 1;
        const struct tier_identity *other = tiertable_find(t, TIERTABLE_OTHER, other_len);
        if (t->nids - t->nreserved - (other != NULL) >= t->max_identities) {
            /* "_other" itself (a merged line read back) overflows nothing */
            drops->overflow += len != other_len || memcmp(identity, TIERTABLE_OTHER, len) != 0;
            identity = TIERTABLE_OTHER;
            len = other_len;
            id = (struct tier_identity *)other;
        }
    }
    size_t *cells = reserved ? &t->kept_cells : &t->cells;
    size_t *blocks = reserved ? &t->kept_blocks : &t->blocks;
    size_t nkept = t->reserved ? t->reserved->n : 0;
    size_t max_cells = reserved ? nkept * TIERTABLE_CELLS_PER_IDENTITY : t->max_cells;
    size_t max_blocks = reserved ? nkept * TIERTABLE_BLOCKS_PER_IDENTITY : t->max_blocks;
    struct tier_cell *cell = id ? find_cell(id, tier, tier_len) : NULL;
    if ((!cell && ((id && id->ncells == TIERTABLE_MAX_TIERS) || *cells >= max_cells)) ||
        (cell && calls > (uint64_t)TIERLINE_COUNT_MAX - cell->calls)) {
        drops->tier_limit++;
        return;
    }
    size_t more = new_blocks(cell ? &cell->hist : NULL, hist);
    if (*blocks + more > max_blocks) {
        drops->memory++;
        return;
    }
    if (!id) {
        id = new_identity(t, identity, len);
        id->reserved = reserved;
        t->nreserved += (size_t)reserved;
    }
    if (!cell) {
        cell = new_cell(id, tier, tier_len);
        (*cells)++;
    }
    *blocks += more;
    cell->calls += calls;
    cell->total_ns = add_sat(cell->total_ns, total_ns, (uint64_t)INT64_MAX);
    tierhist_merge(&cell->hist, hist);
}

void tiertable_add_status(struct tiertable *t, const struct tier_status *s)
{
    struct tier_status *d = &t->status;
    d->requests = add_count(d->requests, s->requests);
    d->traced = add_count(d->traced, s->traced);
    d->trips = add_count(d->trips, s->trips);
    d->resumes = add_count(d->resumes, s->resumes);
    d->paused = add_count(d->paused, s->paused);
    d->skipped = add_count(d->skipped, s->skipped);
    t->status_lines++;
}

void tiertable_add_line(struct tiertable *t, const struct tierline *tl, struct tier_drops *drops)
{
    if (tl->kind == TIERLINE_STATUS) {
        struct tier_status s = {(uint64_t)tl->requests, (uint64_t)tl->traced,
                                (uint64_t)tl->trips,    (uint64_t)tl->resumes,
                                (uint64_t)tl->paused,   (uint64_t)tl->skipped};
        tiertable_add_status(t, &s);
        return;
    }
    struct tierhist h = TIERHIST_INIT;
    tierhist_parse(&h, tl->hist, tl->hist_len); /* tierline_parse checked it */
    tiertable_add(t, tl->identity, tl->identity_len, tl->tier, tl->tier_len,
                  (uint64_t)tl->calls, (uint64_t)tl->total_ns, &h, drops);
    tierhist_reset(&h);
}

void tiertable_merge(struct tiertable *dst, const struct tiertable *src,
                     struct tier_drops *drops)
{
    for (size_t i = 0; i < src->nids; i++) {
        const struct tier_identity *id = src->ids[i];
        for (size_t c = 0; c < id->ncells; c++) {
            const struct tier_cell *cell = &id->cells[c];
            tiertable_add(dst, id->name, id->name_len, cell->tier, strlen(cell->tier),
                          cell->calls, cell->total_ns, &cell->hist, drops);
        }
    }
    if (src->status_lines) {
        tiertable_add_status(dst, &src->status);
        dst->status_lines += src->status_lines - 1;
    }
}

/* --- tier lines ------------------------------------------------------------------ */

/* The head of a merged line of the window [start, end): HOST "*", PID 0. */
static struct tierline merged_head(enum tierline_kind kind, time_t start, time_t end)
{
    return (struct tierline){.kind = kind, .start = (int64_t)start, .end = (int64_t)end,
                             .host = TIERLINE_HOST_MERGED,
                             .host_len = sizeof TIERLINE_HOST_MERGED - 1, .pid = 0};
}

void tiertable_format_lines(const struct tiertable *t, time_t start, time_t end, strbuf *out)
{
    struct tierline tl = merged_head(TIERLINE_AGG, start, end);
    for (size_t i = 0; i < t->nids; i++) {
        const struct tier_identity *id = t->ids[i];
        tl.identity = id->name;
        tl.identity_len = id->name_len;
        for (size_t c = 0; c < id->ncells; c++) {
            const struct tier_cell *cell = &id->cells[c];
            tl.tier = cell->tier;
            tl.tier_len = strlen(cell->tier);
            tl.calls = (int64_t)cell->calls;
            tl.total_ns = (int64_t)cell->total_ns;
            tierline_write(out, &tl, &cell->hist);
        }
    }
    if (t->status_lines) {
        const struct tier_status *s = &t->status;
        tl = merged_head(TIERLINE_STATUS, start, end);
        tl.requests = (int64_t)s->requests;
        tl.traced = (int64_t)s->traced;
        tl.trips = (int64_t)s->trips;
        tl.resumes = (int64_t)s->resumes;
        tl.paused = (int64_t)s->paused;
        tl.skipped = (int64_t)s->skipped;
        tierline_write(out, &tl, NULL);
    }
}

void tiertable_format_line(const struct tierline *tl, time_t start, time_t end, strbuf *out)
{
    struct tierline merged = *tl;
    struct tierline head = merged_head(tl->kind, start, end);
    merged.start = head.start;
    merged.end = head.end;
    merged.host = head.host;
    merged.host_len = head.host_len;
    merged.pid = 0;
    tierline_write(out, &merged, NULL);
}

/* --- reading a .tiers file ----------------------------------------------------- */

uint64_t tiertable_each_line(const char *buf, size_t len, tiertable_line_fn *fn, void *arg)
{
    uint64_t bad = 0;
    for (const char *p = buf, *nl; (nl = memchr(p, '\n', (size_t)(buf + len - p))); p = nl + 1) {
        struct tierline tl;
        if (tierline_parse(p, (size_t)(nl - p), &tl) != TIERLINE_OK)
            bad++;
        else
            fn(arg, &tl);
    }
    return bad;
}

long long tiertable_read_fd(int fd, tiertable_line_fn *fn, void *arg)
{
    char *buf = xmalloc(TIERTABLE_LINE_MAX);
    size_t have = 0;
    long long bad = 0;
    int skipping = 0, failed = 0;
    for (;;) {
        ssize_t n = read(fd, buf + have, TIERTABLE_LINE_MAX - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            failed = n < 0;
            bad += have > 0; /* torn: no newline */
            break;
        }
        have += (size_t)n;
        const char *last_nl = memrchr(buf, '\n', have);
        size_t whole = last_nl ? (size_t)(last_nl - buf) + 1 : 0;
        const char *from = buf;
        if (skipping && whole) { /* the rest of a line too long */
            from = (const char *)memchr(buf, '\n', have) + 1;
            skipping = 0;
        }
        if (!skipping)
            bad += (long long)tiertable_each_line(from, (size_t)(buf + whole - from), fn, arg);
        memmove(buf, buf + whole, have - whole);
        have -= whole;
        if (have == TIERTABLE_LINE_MAX) {
            bad += !skipping;
            skipping = 1;
            have = 0;
        }
    }
    int saved = errno;
    free(buf);
    errno = saved;
    return failed ? -1 : bad;
}

/* --- order of the tables: heaviest first ---------------------------------------- */

static uint64_t identity_total(const struct tier_identity *id)
{
    const struct tier_cell *total = tier_identity_cell(id, TIERLINE_TOTAL);
    return total ? total->total_ns : 0;
}

/* Identities by their _total's time, most first; then by name. */
static int cmp_identity(const void *pa, const void *pb)
{
    const struct tier_identity *a = *(const struct tier_identity *const *)pa;
    const struct tier_identity *b = *(const struct tier_identity *const *)pb;
    uint64_t ta = identity_total(a), tb = identity_total(b);
    if (ta != tb)
        return ta > tb ? -1 : 1;
    return cmp_name(a->name, a->name_len, b->name, b->name_len);
}

/* _total first, then tiers by time, most first; then by name. */
static int cmp_cell(const void *pa, const void *pb)
{
    const struct tier_cell *a = *(const struct tier_cell *const *)pa;
    const struct tier_cell *b = *(const struct tier_cell *const *)pb;
    int at = strcmp(a->tier, TIERLINE_TOTAL) == 0, bt = strcmp(b->tier, TIERLINE_TOTAL) == 0;
    if (at != bt)
        return at ? -1 : 1;
    if (a->total_ns != b->total_ns)
        return a->total_ns > b->total_ns ? -1 : 1;
    return strcmp(a->tier, b->tier);
}

const struct tier_identity **tiertable_sorted_identities(const struct tiertable *t)
{
    const struct tier_identity **ids = xmalloc((t->nids + 1) * sizeof *ids);
    if (t->nids) { /* a table of status lines only has no array at all */
        memcpy(ids, t->ids, t->nids * sizeof *ids);
        qsort(ids, t->nids, sizeof *ids, cmp_identity);
    }
    return ids;
}

void tier_identity_sorted_cells(const struct tier_identity *id, const struct tier_cell **cells)
{
    for (size_t c = 0; c < id->ncells; c++)
        cells[c] = &id->cells[c];
    qsort(cells, id->ncells, sizeof *cells, cmp_cell);
}

/* --- JSON ------------------------------------------------------------------------ */

static double ns_to_us(uint64_t ns)
{
    return (double)ns / 1e3;
}

/* x as "%.3f" writes it, read back: the mean a reader of the JSON view
 * gets, so that the report's pages, which read the table itself, show
 * the same figures to the last digit. */
static double three_decimals(double x)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", x);
    return strtod(buf, NULL);
}

void tier_cell_us(const struct tier_cell *cell, struct tier_cell_us *out)
{
    out->total = ns_to_us(cell->total_ns);
    out->mean = cell->calls ? three_decimals(out->total / (double)cell->calls) : 0;
    out->p50 = ns_to_us(tierhist_percentile(&cell->hist, 50));
    out->p90 = ns_to_us(tierhist_percentile(&cell->hist, 90));
    out->p99 = ns_to_us(tierhist_percentile(&cell->hist, 99));
}

static void json_cell(const struct tier_cell *cell, strbuf *out)
{
    struct tier_cell_us us;
    tier_cell_us(cell, &us);
    json_string(out, cell->tier, strlen(cell->tier));
    strbuf_appendf(out, ":{\"calls\":%llu,\"total_us\":%.3f,\"mean_us\":%.3f,"
                        "\"p50_us\":%.3f,\"p90_us\":%.3f,\"p99_us\":%.3f,\"hist\":\"",
                   (unsigned long long)cell->calls, us.total, us.mean, us.p50, us.p90, us.p99);
    tierhist_format(&cell->hist, out);
    strbuf_appends(out, "\"}");
}

/* The identity decoded (tierline_unescape) as a JSON string. */
static void json_identity(const struct tier_identity *id, strbuf *out)
{
    char *decoded = xmalloc(id->name_len + 1);
    size_t n = tierline_unescape(id->name, id->name_len, decoded);
    json_string(out, decoded, n);
    free(decoded);
}

void tiertable_format_json(const struct tiertable *t, const struct tier_header *h, strbuf *out)
{
    const struct tier_status *s = &t->status;
    strbuf_appends(out, "{\"format\":\"arclamp-tiers/1\",\"period\":");
    json_string(out, h->period, strlen(h->period));
    strbuf_appends(out, ",\"bucket\":");
    json_string(out, h->bucket, strlen(h->bucket));
    strbuf_appendf(out, ",\"start\":%lld,\"end\":%lld,\"minutes\":%llu,\"requests\":%llu,"
                        "\"traced\":%llu,\"trips\":%llu,\"resumes\":%llu,\"skipped\":%llu,"
                        "\"identities\":{",
                   (long long)h->start, (long long)h->end, (unsigned long long)h->minutes,
                   (unsigned long long)s->requests, (unsigned long long)s->traced,
                   (unsigned long long)s->trips, (unsigned long long)s->resumes,
                   (unsigned long long)s->skipped);
    const struct tier_identity **ids = tiertable_sorted_identities(t);
    const struct tier_cell *cells[TIERTABLE_MAX_TIERS];
    for (size_t i = 0; i < t->nids; i++) {
        if (i)
            strbuf_appendc(out, ',');
        json_identity(ids[i], out);
        strbuf_appends(out, ":{");
        tier_identity_sorted_cells(ids[i], cells);
        for (size_t c = 0; c < ids[i]->ncells; c++) {
            if (c)
                strbuf_appendc(out, ',');
            json_cell(cells[c], out);
        }
        strbuf_appendc(out, '}');
    }
    strbuf_appends(out, "}}\n");
    free(ids);
}

/* --- the human table -------------------------------------------------------------- */

/* Widest identity column, in bytes as shown (capped: longer ones push the
 * row to the right rather than widen every row). */
#define TEXT_IDENTITY_MAX 48

/* The identity as on the wire but with spaces shown as spaces: control
 * bytes, DEL and '%' stay escaped, so nothing reaches a terminal raw. */
static size_t text_identity(const struct tier_identity *id, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < id->name_len; i++) {
        if (id->name[i] == '%' && i + 2 < id->name_len && id->name[i + 1] == '2' &&
            id->name[i + 2] == '0') {
            out[o++] = ' ';
            i += 2;
        } else {
            out[o++] = id->name[i];
        }
    }
    out[o] = '\0';
    return o;
}

static double ns_to_ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

static void text_row(const char *identity, int width, const struct tier_cell *cell,
                     uint64_t identity_total, strbuf *out)
{
    strbuf_appendf(out, "%-*s  %-16s %10llu %12.3f ", width, identity, cell->tier,
                   (unsigned long long)cell->calls, (double)cell->total_ns / 1e9);
    if (identity_total)
        strbuf_appendf(out, "%6.1f%%", 100.0 * (double)cell->total_ns / (double)identity_total);
    else
        strbuf_appendf(out, "%7s", "-");
    strbuf_appendf(out, " %10.3f %10.3f %10.3f %10.3f\n",
                   ns_to_ms(cell->total_ns) / (double)cell->calls,
                   ns_to_ms(tierhist_percentile(&cell->hist, 50)),
                   ns_to_ms(tierhist_percentile(&cell->hist, 90)),
                   ns_to_ms(tierhist_percentile(&cell->hist, 99)));
}

void tiertable_format_text(const struct tiertable *t, const struct tier_header *h, strbuf *out)
{
    const struct tier_status *s = &t->status;
    strbuf_appendf(out, "request tiers  period %s  bucket %s  minutes %llu  requests %llu  "
                        "traced %llu  breaker trips %llu  resumes %llu\n\n",
                   h->period, h->bucket, (unsigned long long)h->minutes,
                   (unsigned long long)s->requests, (unsigned long long)s->traced,
                   (unsigned long long)s->trips, (unsigned long long)s->resumes);
    char name[TIERLINE_IDENTITY_MAX * 3 + 1];
    int width = 8;
    for (size_t i = 0; i < t->nids; i++) {
        int n = (int)text_identity(t->ids[i], name);
        if (n > width)
            width = n < TEXT_IDENTITY_MAX ? n : TEXT_IDENTITY_MAX;
    }
    strbuf_appendf(out, "%-*s  %-16s %10s %12s %7s %10s %10s %10s %10s\n", width, "identity",
                   "tier", "calls", "total_s", "share", "mean_ms", "p50_ms", "p90_ms", "p99_ms");
    const struct tier_identity **ids = tiertable_sorted_identities(t);
    const struct tier_cell *cells[TIERTABLE_MAX_TIERS];
    for (size_t i = 0; i < t->nids; i++) {
        text_identity(ids[i], name);
        tier_identity_sorted_cells(ids[i], cells);
        for (size_t c = 0; c < ids[i]->ncells; c++)
            text_row(name, width, cells[c], identity_total(ids[i]), out);
    }
    free(ids);
}
