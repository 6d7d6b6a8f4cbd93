/* tiers: request tiers — configuration, identities, aggregates, the PHP
 * functions, the flush, the circuit breaker and the switch (tiers.h).
 *
 * A request is traced when tiers are configured (excimer.tiers), switched
 * on (excimer.tiers_control), not paused by the breaker, and sampled (1 in
 * excimer.tiers_sample). Each outermost call of a tier function adds its
 * wall time to (identity, tier); the request's own time goes to _total.
 * The process keeps, per identity and tier, calls, total time and a
 * tierhist (common/), and every excimer.tiers_flush_interval seconds (at a
 * request's end: nothing runs between requests) hands them to the sender
 * thread as tiers/1 lines (common/src/tierline.h) and starts again.
 *
 * Circuit breaker: over each excimer.tiers_breaker_window seconds the
 * tracing's own cost (timed calls times their measured cost) is compared
 * with the requests' time, and the transport's backlog and failures with
 * their bounds; past one of them tracing pauses for
 * excimer.tiers_breaker_cooldown seconds, then resumes (and trips again if
 * the cause is still there). Trips and resumes are counted, logged to
 * PHP's error log, sent in the status line and shown by
 * excimer_tiers_status().
 *
 * Switch: excimer.tiers_control names a file whose first word, "on" or
 * "off", is read at most once a second per process, at a request's start:
 * a pool turns tiers off or on within a second without a reload. */
#include "php.h"
#include "ext/standard/info.h"
#include "zend_smart_str.h"

#include <ctype.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "linefields.h"
#include "runline.h"
#include "stackline.h"
#include "cpuclock.h"
#include "php_excimer.h"
#include "fpm_worker.h"
#include "layout.h"
#include "sender.h"
#include "strbuf.h"
#include "tierhist.h"
#include "tierline.h"
#include "tiers.h"
#include "timerlib.h"
#include "tiers_arginfo.h"

#define IDENTITIES_MAX 256          /* identities per flush; beyond: "_other" */
#define REGISTRY_MAX 96             /* tier names a process aggregates */
#define UNDEFINED "undefined"
#define OTHER "_other"
#define TOKEN_PREFIX "t1."
/* The engine's part of a timed user call: the ZEND_USER_OPCODE round trip
 * and the lookups, twice, measured by bench/tiers.sh; the clock reads and
 * the histogram are measured in each process (calibrate()). */
#define VM_NS_PER_CALL 40.0

struct tiers_runtime tiers_rt;

struct tier_agg {
    uint64_t calls, total_ns;
    struct tierhist hist;
};

struct identity {
    char name[TIERLINE_IDENTITY_MAX + 1];
    size_t len;
    struct tier_agg *agg[REGISTRY_MAX];      /* by registry index; NULL: no call */
};

/* A parsed excimer.tiers, applied at the next request start (or at once,
 * when ini_set() changes it during a request). */
struct tiers_config {
    int ntiers;
    char names[TIERS_MAX + 1][65];
    int nfns;
    struct tiers_fn fns[TIERS_FN_MAX];
};

/* The process's tier state. One per process (NTS PHP): the aggregates,
 * the breaker and the switch live across requests by design.
 * Per process by design, never per thread: the extension is NTS only
 * (config.m4 refuses ZTS; README, "Threads: NTS only"). */
static struct {
    struct tiers_config pending;             /* excimer.tiers as last set */
    bool pending_changed;
    /* aggregates since the last flush */
    char registry[REGISTRY_MAX][65];         /* tier names, [0] = "_total" */
    int nregistry;
    int reg_of_tier[TIERS_MAX + 1];          /* config tier -> registry, -1: full */
    struct identity *ids[IDENTITIES_MAX + 1];/* [IDENTITIES_MAX]: "_other" */
    int nids;
    long long window_start;                  /* wall seconds */
    uint64_t requests, traced, trips_w, resumes_w, skipped_w;
    double last_flush;                       /* clock_mono */
    /* this request */
    bool configured;                         /* tiers_rt has tiers */
    bool in_request;
    char identity[TIERLINE_IDENTITY_MAX + 1];
    size_t identity_len;
    bool identity_named;                     /* by the script, or a token */
    int id_slot;                             /* ids[] index of identity, -1: not yet */
    uint64_t request_start, segment_start;   /* cpuclock ticks */
    char request_id[17];
    bool sampled;                            /* the sampling decision (a token carries it) */
    bool sampled_known;                      /* made for this request yet */
    /* breaker */
    bool paused;
    double resume_at, window_began;
    uint64_t window_req_ns, window_calls;
    long window_failed0;
    uint64_t trips, resumes;
    const char *last_trip;
    struct trip_figures {                    /* what the window that tripped measured */
        double window_s, requests_ms, cost_ratio, ns_per_call;
        uint64_t timed_calls;
        long backlog, failed_lines;
    } last_trip_figures;
    double last_cost_ratio;
    double ns_per_call;                      /* 0: not measured yet */
    double ns_per_tick;                      /* cpuclock ticks to ns */
    uint64_t rate_ticks0;                    /* where the tick rate's span began */
    double rate_mono0;
    /* switch */
    bool switched_off;
    double next_control_check;
    struct timespec control_mtime;
    off_t control_size;
    ino_t control_ino;
    bool control_seen;
} ts = {.id_slot = -1};

/* --- configuration ----------------------------------------------------- */

static void config_apply(void);
static void default_identity(void);
static void decide_tracing(void);
static void calibrate(void);

static void fns_free(struct tiers_fn *fns, int n)
{
    for (int i = 0; i < n; i++) {
        free(fns[i].lc_class);
        free(fns[i].lc_name);
    }
}

static void config_free(struct tiers_config *c)
{
    fns_free(c->fns, c->nfns);
    c->nfns = c->ntiers = 0;
}

static bool function_name_ok(const char *s, size_t len)
{
    if (!len)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!(isalnum(c) || c == '_' || c == '\\' || c >= 0x80))
            return false;
    }
    return true;
}

static int tier_index(struct tiers_config *c, const char *name, size_t len)
{
    for (int i = 1; i <= c->ntiers; i++)
        if (strlen(c->names[i]) == len && !memcmp(c->names[i], name, len))
            return i;
    if (c->ntiers == TIERS_MAX)
        return -1;
    c->ntiers++;
    memcpy(c->names[c->ntiers], name, len);
    c->names[c->ntiers][len] = 0;
    return c->ntiers;
}

static char *lower_dup(const char *s, size_t len)
{
    char *d = malloc(len + 1);
    if (!d)
        return NULL;
    zend_str_tolower_copy(d, s, len);
    return d;
}

/* One "tier=Function" or "tier=Class::method" item. */
static const char *parse_item(struct tiers_config *c, const char *s, size_t len)
{
    const char *eq = memchr(s, '=', len);
    if (!eq)
        return "an item is not tier=function";
    size_t tlen = (size_t)(eq - s), flen = len - tlen - 1;
    const char *f = eq + 1;
    if (!tierline_tier_ok(s, tlen) || s[0] == '_')
        return "a tier name must be 1-64 of [A-Za-z0-9_.-], not starting with '_'";
    const char *colons = flen > 2 ? strstr(f, "::") : NULL;
    if (colons && colons >= f + flen)
        colons = NULL;
    size_t clen = colons ? (size_t)(colons - f) : 0;
    const char *m = colons ? colons + 2 : f;
    size_t mlen = flen - (size_t)(m - f);
    while (clen && f[0] == '\\')
        f++, clen--; /* a leading namespace separator names the same class */
    if ((colons && !function_name_ok(f, clen)) || !function_name_ok(m, mlen) ||
        (colons && memchr(m, '\\', mlen)))
        return "a function must be Name, Name\\Space\\name or Class::method";
    if (c->nfns == TIERS_FN_MAX)
        return "too many functions (at most 64)";
    int tier = tier_index(c, s, tlen);
    if (tier < 0)
        return "too many tiers (at most 32)";
    struct tiers_fn *fn = &c->fns[c->nfns];
    fn->lc_class = colons ? lower_dup(f, clen) : NULL;
    fn->class_len = clen;
    fn->lc_name = lower_dup(m, mlen);
    fn->name_len = mlen;
    fn->tier = tier;
    if (!fn->lc_name || (colons && !fn->lc_class))
        return "out of memory";
    c->nfns++;
    return NULL;
}

/* Parses "db=Database::query,parse=Parser::parse" (spaces around items
 * allowed); NULL or why it is refused. */
static const char *config_parse(struct tiers_config *c, const char *s)
{
    memset(c, 0, sizeof *c);
    strcpy(c->names[0], TIERLINE_TOTAL);
    while (*s) {
        while (*s == ' ' || *s == ',')
            s++;
        size_t len = strcspn(s, ",");
        while (len && s[len - 1] == ' ')
            len--;
        if (!len)
            break;
        const char *err = parse_item(c, s, len);
        if (err) {
            config_free(c);
            return err;
        }
        s += len;
    }
    return NULL;
}

ZEND_INI_MH(excimer_tiers_on_update)
{
    struct tiers_config c;
    const char *err = config_parse(&c, ZSTR_VAL(new_value));
    if (err) {
        php_error_docref(NULL, E_WARNING, "excimer.tiers: %s", err);
        return FAILURE;
    }
    config_free(&ts.pending);
    ts.pending = c;
    ts.pending_changed = true;
    /* PHP_INI_SYSTEM: set at startup, by a php-fpm pool before its first
     * request or a web server's PHP_ADMIN_VALUE before the request starts;
     * never by the request's own code (ini_set(), .user.ini), which would
     * patch functions in memory other pools share. A SAPI that changes it
     * during a request gets it applied from that moment. */
    if (ts.in_request)
        config_apply();
    return SUCCESS;
}

int tiers_tier_of_name(const char *lc_class, size_t class_len, const char *lc_name,
                       size_t name_len)
{
    for (int i = 0; i < tiers_rt.nfns; i++) {
        const struct tiers_fn *fn = &tiers_rt.fns[i];
        if (fn->name_len == name_len && !memcmp(fn->lc_name, lc_name, name_len) &&
            (fn->lc_class ? lc_class && fn->class_len == class_len &&
                                !memcmp(fn->lc_class, lc_class, class_len)
                          : !lc_class))
            return fn->tier;
    }
    return -1;
}

static int registry_index(const char *name)
{
    for (int i = 0; i < ts.nregistry; i++)
        if (!strcmp(ts.registry[i], name))
            return i;
    if (ts.nregistry == REGISTRY_MAX)
        return -1;
    strcpy(ts.registry[ts.nregistry], name);
    return ts.nregistry++;
}

/* Makes the pending configuration the running one (the switch decides
 * whether its functions are watched). */
static void config_apply(void)
{
    struct tiers_config *c = &ts.pending;
    fns_free(tiers_rt.fns, tiers_rt.nfns);
    tiers_rt.ntiers = c->ntiers;
    memcpy(tiers_rt.names, c->names, sizeof c->names);
    tiers_rt.nfns = ts.switched_off ? 0 : c->nfns;
    for (int i = 0; i < tiers_rt.nfns; i++) {
        tiers_rt.fns[i] = c->fns[i];
        tiers_rt.fns[i].lc_class = c->fns[i].lc_class ? strdup(c->fns[i].lc_class) : NULL;
        tiers_rt.fns[i].lc_name = strdup(c->fns[i].lc_name);
        if (!tiers_rt.fns[i].lc_name) {
            tiers_rt.nfns = i;
            break;
        }
    }
    if (!ts.nregistry)
        registry_index(TIERLINE_TOTAL);
    for (int i = 0; i <= tiers_rt.ntiers; i++)
        ts.reg_of_tier[i] = registry_index(tiers_rt.names[i]);
    ts.configured = c->ntiers > 0;
    ts.pending_changed = false;
    if (ts.configured && ts.ns_per_call == 0)
        calibrate();
    tiers_hook_apply();
    if (ts.in_request && ts.configured && !ts.request_start) {
        ts.request_start = ts.segment_start = cpuclock_ticks(); /* ini_set(): timed from now */
        if (!ts.identity_named)
            default_identity();
    }
    if (ts.in_request)
        decide_tracing();
}

/* --- aggregates ------------------------------------------------------- */

static int identity_slot(void)
{
    for (int i = 0; i < ts.nids; i++)
        if (ts.ids[i]->len == ts.identity_len && !memcmp(ts.ids[i]->name, ts.identity, ts.identity_len))
            return i;
    int slot = ts.nids < IDENTITIES_MAX ? ts.nids : IDENTITIES_MAX;
    if (!ts.ids[slot]) {
        ts.ids[slot] = calloc(1, sizeof(struct identity));
        if (!ts.ids[slot])
            return -1;
        const char *name = slot == IDENTITIES_MAX ? OTHER : ts.identity;
        size_t len = slot == IDENTITIES_MAX ? strlen(OTHER) : ts.identity_len;
        memcpy(ts.ids[slot]->name, name, len);
        ts.ids[slot]->len = len;
    }
    if (slot < IDENTITIES_MAX)
        ts.nids++;
    return slot;
}

void tiers_call_done(int tier, uint64_t ticks)
{
    if (!tiers_rt.tracing)
        return;
    uint64_t ns = (uint64_t)((double)ticks * ts.ns_per_tick);
    ts.window_calls++;
    if (ts.id_slot < 0)
        ts.id_slot = identity_slot();
    int reg = ts.reg_of_tier[tier];
    if (ts.id_slot < 0 || reg < 0) {
        tiers_rt.skipped++;
        return;
    }
    struct identity *id = ts.ids[ts.id_slot];
    struct tier_agg *a = id->agg[reg];
    if (!a && !(a = id->agg[reg] = calloc(1, sizeof *a))) {
        tiers_rt.skipped++;
        return;
    }
    a->calls++;
    a->total_ns += ns;
    tierhist_add(&a->hist, ns);
}

static void aggregates_reset(void)
{
    for (int i = 0; i <= IDENTITIES_MAX; i++) {
        if (!ts.ids[i])
            continue;
        for (int r = 0; r < REGISTRY_MAX; r++)
            if (ts.ids[i]->agg[r]) {
                tierhist_reset(&ts.ids[i]->agg[r]->hist);
                free(ts.ids[i]->agg[r]);
            }
        free(ts.ids[i]);
        ts.ids[i] = NULL;
    }
    ts.nids = 0;
    ts.id_slot = -1;
    ts.requests = ts.traced = ts.trips_w = ts.resumes_w = 0;
    tiers_rt.skipped = 0;
    ts.window_start = clock_wall_seconds();
    /* the registry keeps only what the running configuration names */
    ts.nregistry = 0;
    registry_index(TIERLINE_TOTAL);
    for (int i = 0; i <= tiers_rt.ntiers; i++)
        ts.reg_of_tier[i] = registry_index(tiers_rt.names[i]);
}

static bool have_aggregates(void)
{
    return ts.nids > 0 || (ts.ids[IDENTITIES_MAX] != NULL) || ts.requests > 0;
}

/* --- the flush ------------------------------------------------------- */

/* The lines of the aggregates (written by common/src/tierline.c): the
 * status line, then one per (identity, tier). Returns the number of
 * lines. */
static size_t format_lines(strbuf *sb, long long now)
{
    char host[256], esc[3 * TIERLINE_IDENTITY_MAX];
    excimer_host_field(host, sizeof host);
    struct tierline tl = {.kind = TIERLINE_STATUS, .start = ts.window_start, .end = now,
                          .host = host, .host_len = strlen(host), .pid = (int64_t)getpid(),
                          .requests = (int64_t)ts.requests, .traced = (int64_t)ts.traced,
                          .trips = (int64_t)ts.trips_w, .resumes = (int64_t)ts.resumes_w,
                          .paused = ts.paused ? 1 : 0, .skipped = (int64_t)tiers_rt.skipped};
    tierline_write(sb, &tl, NULL);
    size_t lines = 1;
    tl.kind = TIERLINE_AGG;
    for (int i = 0; i <= IDENTITIES_MAX; i++) {
        const struct identity *id = ts.ids[i];
        if (!id)
            continue;
        tl.identity = esc;
        tl.identity_len = tierline_escape(id->name, id->len, esc);
        for (int r = 0; r < ts.nregistry; r++) {
            const struct tier_agg *a = id->agg[r];
            if (!a || !a->calls)
                continue;
            tl.tier = ts.registry[r];
            tl.tier_len = strlen(ts.registry[r]);
            tl.calls = (int64_t)a->calls;
            tl.total_ns = (int64_t)a->total_ns;
            tierline_write(sb, &tl, &a->hist);
            lines++;
        }
    }
    return lines;
}

/* Hands the aggregates to the sender, to go within `delay` seconds;
 * `quiet`: off the PHP thread (fpm_worker.c), where PHP may not warn. */
static size_t flush_lines(bool quiet, double delay)
{
    transport_target t;
    ts.last_flush = clock_mono();
    if (!have_aggregates() || excimer_target_for(EXCIMER_G(tiers_target),
                                                 quiet ? NULL : "excimer.tiers_target",
                                                 LAYOUT_CHANNEL_TIERS, &t) < 0)
        return 0;
    long long now = clock_wall_seconds();
    strbuf sb = STRBUF_INIT;
    size_t lines = format_lines(&sb, now);
    /* the lines' text, without the last newline, goes to the sender */
    sb.len--;
    sender_submit(&t, sb.data, sb.len, lines, EXCIMER_G(arclamp_timeout), delay);
    aggregates_reset();
    return lines;
}

static size_t flush_now(void)
{
    return flush_lines(false, EXCIMER_G(arclamp_send_delay));
}

/* --- the breaker ------------------------------------------------------ */

#define CALIBRATION_ROUNDS 9
#define CALIBRATION_CALLS 100

/* The cheapest of a few short rounds of `calls` clock reads and histogram
 * updates, in ns a call: the fastest round is the one nothing interrupted
 * (a round the scheduler cut into on a busy machine once measured a call
 * a hundred times dearer, and the breaker tripped on an ordinary load). */
static double cheapest_round_ns(int calls)
{
    double best = 0;
    for (int r = 0; r < CALIBRATION_ROUNDS; r++) {
        struct tierhist h = TIERHIST_INIT;
        uint64_t begin = clock_mono_ns();
        for (int i = 0; i < calls; i++) {
            uint64_t a = cpuclock_ticks();
            tierhist_add(&h, (uint64_t)((double)(cpuclock_ticks() - a) * ts.ns_per_tick) +
                                 (uint64_t)i * 1000);
        }
        double ns = (double)(clock_mono_ns() - begin) / calls;
        tierhist_reset(&h);
        if (r == 0 || ns < best)
            best = ns;
    }
    return best;
}

/* The clock reads and the histogram update of one timed call, measured
 * here (they depend on the machine's clock source). */
static void calibrate(void)
{
    /* the tick rate over 1 ms here, refined over the process's life
     * (refine_tick_rate) */
    cpuclock_ticks_are_tsc();
    ts.rate_mono0 = clock_mono();
    ts.rate_ticks0 = cpuclock_ticks();
    while (clock_mono() - ts.rate_mono0 < 0.001)
        ;
    ts.ns_per_tick = 1e9 / cpuclock_ticks_per_second(ts.rate_ticks0, ts.rate_mono0, cpuclock_ticks(),
                                                     clock_mono());
    ts.ns_per_call = cheapest_round_ns(CALIBRATION_CALLS) + VM_NS_PER_CALL;
}

static void refine_tick_rate(void)
{
    double now = clock_mono();
    if (now - ts.rate_mono0 > 0.1)
        ts.ns_per_tick = 1e9 / cpuclock_ticks_per_second(ts.rate_ticks0, ts.rate_mono0,
                                                         cpuclock_ticks(), now);
}

/* Pauses tracing; the log line says what the window measured. */
static void breaker_trip(const char *why, const struct trip_figures *f, double now)
{
    ts.paused = true;
    ts.resume_at = now + EXCIMER_G(tiers_breaker_cooldown);
    ts.trips++;
    ts.trips_w++;
    ts.last_trip = why;
    ts.last_trip_figures = *f;
    char msg[400];
    snprintf(msg, sizeof msg,
             "excimer: request tiers paused for %g s: %s (over %.1f s: %" PRIu64 " timed calls "
             "x %.0f ns = %.3f ms of %.1f ms of requests, cost %.5f of excimer.tiers_breaker_cost "
             "%g; %ld lines queued, %ld failed)",
             EXCIMER_G(tiers_breaker_cooldown), why, f->window_s, f->timed_calls, f->ns_per_call,
             (double)f->timed_calls * f->ns_per_call / 1e6, f->requests_ms, f->cost_ratio,
             EXCIMER_G(tiers_breaker_cost), f->backlog, f->failed_lines);
    php_log_err(msg);
}

static void breaker_window_end(double now)
{
    transport_stats st;
    long queued;
    sender_stats(&st, &queued);
    double ratio = ts.window_req_ns ? (double)ts.window_calls * ts.ns_per_call / (double)ts.window_req_ns : 0;
    ts.last_cost_ratio = ratio;
    long failed = st.lines_failed - ts.window_failed0;
    struct trip_figures f = {
        .window_s = now - ts.window_began, .requests_ms = (double)ts.window_req_ns / 1e6,
        .cost_ratio = ratio, .ns_per_call = ts.ns_per_call, .timed_calls = ts.window_calls,
        .backlog = queued, .failed_lines = failed,
    };
    if (!ts.paused && ts.configured && !ts.switched_off) {
        if (ratio > EXCIMER_G(tiers_breaker_cost))
            breaker_trip("own cost over excimer.tiers_breaker_cost", &f, now);
        else if (queued > EXCIMER_G(tiers_breaker_backlog))
            breaker_trip("transport backlog over excimer.tiers_breaker_backlog", &f, now);
        else if (EXCIMER_G(tiers_breaker_failures) > 0 && failed >= EXCIMER_G(tiers_breaker_failures))
            breaker_trip("transport failures reached excimer.tiers_breaker_failures", &f, now);
    }
    ts.window_began = now;
    ts.window_req_ns = ts.window_calls = 0;
    ts.window_failed0 = st.lines_failed;
}

static void breaker_maybe_resume(double now)
{
    if (!ts.paused || now < ts.resume_at)
        return;
    ts.paused = false;
    ts.resumes++;
    ts.resumes_w++;
    php_log_err("excimer: request tiers resumed");
}

/* --- the switch -------------------------------------------------------- */

static void control_read(const char *path)
{
    char buf[64] = "";
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
    }
    char word[8] = "";
    sscanf(buf, "%7s", word);
    bool off;
    if (!strcasecmp(word, "off") || !strcmp(word, "0"))
        off = true;
    else if (!strcasecmp(word, "on") || !strcmp(word, "1"))
        off = false;
    else {
        php_log_err("excimer: excimer.tiers_control: the file's first word is neither on nor off; "
                    "left as it was");
        return;
    }
    if (off != ts.switched_off) {
        ts.switched_off = off;
        ts.pending_changed = true; /* applied below, with or without functions */
    }
}

/* At most once a second: the control file's first word, when it changed.
 * No file: on. */
static void control_check(void)
{
    const char *path = EXCIMER_G(tiers_control);
    if (!path || !*path)
        return;
    double now = clock_mono();
    if (now < ts.next_control_check)
        return;
    ts.next_control_check = now + 1.0;
    struct stat st;
    if (stat(path, &st) < 0) {
        if (ts.control_seen || ts.switched_off) {
            ts.control_seen = false;
            if (ts.switched_off) {
                ts.switched_off = false;
                ts.pending_changed = true;
            }
        }
        return;
    }
    if (ts.control_seen && st.st_mtim.tv_sec == ts.control_mtime.tv_sec &&
        st.st_mtim.tv_nsec == ts.control_mtime.tv_nsec && st.st_size == ts.control_size &&
        st.st_ino == ts.control_ino)
        return;
    ts.control_seen = true;
    ts.control_mtime = st.st_mtim;
    ts.control_size = st.st_size;
    ts.control_ino = st.st_ino;
    control_read(path);
}

/* --- requests --------------------------------------------------------- */

static void set_identity(const char *s, size_t len)
{
    memcpy(ts.identity, s, len);
    ts.identity_len = len;
    ts.id_slot = -1;
}

/* 1 in excimer.tiers_sample requests; made when first needed, so a request
 * of a process without tiers draws no number. */
static bool request_sampled(void)
{
    if (!ts.sampled_known) {
        zend_long n = EXCIMER_G(tiers_sample);
        ts.sampled = n >= 1 && (n == 1 || timerlib_random() * (double)n < 1.0);
        ts.sampled_known = true;
    }
    return ts.sampled;
}

static void decide_tracing(void)
{
    tiers_rt.tracing = ts.configured && !ts.switched_off && !ts.paused && request_sampled();
}

/* A request's identity until it names one: its entry point as the trace
 * logs name it (index.php is "index"), else "undefined". */
static void default_identity(void)
{
    zend_string *entry = excimer_request_entry_point();
    char tag[STACKLINE_TAG_MAX + 1];
    size_t n = runline_entry_tag(ZSTR_VAL(entry), ZSTR_LEN(entry), tag);
    zend_string_release(entry);
    if (n && tierline_identity_valid(tag, n))
        set_identity(tag, n);
    else
        set_identity(UNDEFINED, strlen(UNDEFINED));
}

/* Without tiers (nothing configured, no switch file) a request costs a few
 * stores here: no clock read, no random number. */
void excimer_tiers_request_start(void)
{
    ts.in_request = true;
    ts.identity_named = false;
    set_identity(UNDEFINED, strlen(UNDEFINED));
    ts.request_id[0] = 0;
    ts.sampled_known = false;
    control_check();
    if (ts.pending_changed)
        config_apply();
    if (!ts.configured) {
        tiers_rt.tracing = false;
        return;
    }
    double now = clock_mono();
    ts.request_start = ts.segment_start = cpuclock_ticks();
    default_identity();
    breaker_maybe_resume(now);
    if (!ts.window_began)
        ts.window_began = now;
    if (!ts.last_flush)
        ts.last_flush = now;
    if (!ts.window_start)
        ts.window_start = clock_wall_seconds();
    decide_tracing();
    ts.requests++;
    if (tiers_rt.tracing)
        ts.traced++;
    memset(tiers_rt.active, 0, sizeof tiers_rt.active);
}

void excimer_tiers_request_end(void)
{
    ts.in_request = false;
    if (!ts.configured && !have_aggregates())
        return;
    tiers_hook_request_end();
    uint64_t end = cpuclock_ticks();
    tiers_call_done(TIERS_TOTAL_INDEX, end - ts.segment_start);
    tiers_rt.tracing = false;
    ts.window_req_ns += (uint64_t)((double)(end - ts.request_start) * ts.ns_per_tick);
    ts.request_start = 0;
    refine_tick_rate();
    double now = clock_mono();
    if (now - ts.window_began >= EXCIMER_G(tiers_breaker_window))
        breaker_window_end(now);
    if (now - ts.last_flush >= EXCIMER_G(tiers_flush_interval))
        flush_now();
}

/* A php-fpm worker idle after a request (`now`), or told to stop: from the
 * worker's thread, between requests (fpm_worker.c). */
static void worker_flush(bool now)
{
    flush_lines(true, now ? 0 : EXCIMER_G(arclamp_send_delay));
}

/* A combination that cannot work is said at start-up: tiers configured
 * where user functions cannot be patched (opcache's JIT). */
void excimer_tiers_module_init(void)
{
    const char *why;
    if (!tiers_hook_module_init() && ts.pending.nfns > 0 && !tiers_hook_user_functions(&why))
        php_error_docref(NULL, E_WARNING, "excimer.tiers: user functions cannot be tiers here (%s); "
                         "internal functions still are", why);
    excimer_fpm_worker_module_init(worker_flush);
}

void excimer_tiers_module_shutdown(void)
{
    flush_now();
    tiers_hook_module_shutdown();
    aggregates_reset();
    config_free(&ts.pending);
    fns_free(tiers_rt.fns, tiers_rt.nfns);
    tiers_rt.nfns = 0;
}

/* --- PHP functions ---------------------------------------------------- */

const zend_function_entry *excimer_tiers_functions(void)
{
    return ext_functions;
}

ZEND_FUNCTION(excimer_tiers_set_identity)
{
    zend_string *identity;
    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_STR(identity)
    ZEND_PARSE_PARAMETERS_END();
    if (!tierline_identity_valid(ZSTR_VAL(identity), ZSTR_LEN(identity))) {
        php_error_docref(NULL, E_WARNING, "The identity must be 1 to 255 bytes of valid UTF-8");
        RETURN_FALSE;
    }
    set_identity(ZSTR_VAL(identity), ZSTR_LEN(identity));
    ts.identity_named = true;
    RETURN_TRUE;
}

static bool token_char_plain(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '-' || c == '.' || c == ':' || c == '~';
}

ZEND_FUNCTION(excimer_tiers_request_id)
{
    ZEND_PARSE_PARAMETERS_NONE();
    if (!ts.request_id[0])
        timerlib_random_id(ts.request_id);
    smart_str s = {0};
    smart_str_appends(&s, TOKEN_PREFIX);
    smart_str_appendc(&s, request_sampled() ? '1' : '0');
    smart_str_appendc(&s, '.');
    smart_str_appends(&s, ts.request_id);
    smart_str_appendc(&s, '.');
    for (size_t i = 0; i < ts.identity_len; i++) {
        unsigned char c = (unsigned char)ts.identity[i];
        if (token_char_plain(c))
            smart_str_appendc(&s, (char)c);
        else {
            static const char hex[] = "0123456789ABCDEF";
            smart_str_appendc(&s, '%');
            smart_str_appendc(&s, hex[c >> 4]);
            smart_str_appendc(&s, hex[c & 15]);
        }
    }
    RETURN_STR(smart_str_extract(&s));
}

/* t1.<0|1>.<16 hex>.<identity, %XX-escaped>; false when malformed. */
static bool token_parse(const char *s, size_t len, bool *sampled, char *rid, char *identity,
                        size_t *identity_len)
{
    size_t p = strlen(TOKEN_PREFIX);
    if (len < p + 20 || memcmp(s, TOKEN_PREFIX, p) || (s[p] != '0' && s[p] != '1') || s[p + 1] != '.')
        return false;
    *sampled = s[p] == '1';
    p += 2;
    for (int i = 0; i < 16; i++)
        if (linefields_hexval(s[p + i]) < 0)
            return false;
    memcpy(rid, s + p, 16);
    rid[16] = 0;
    p += 16;
    if (s[p++] != '.')
        return false;
    size_t n = 0;
    while (p < len) {
        if (n == TIERLINE_IDENTITY_MAX)
            return false;
        if (s[p] == '%') {
            if (len - p < 3 || linefields_hexval(s[p + 1]) < 0 || linefields_hexval(s[p + 2]) < 0)
                return false;
            identity[n++] = (char)(linefields_hexval(s[p + 1]) * 16 + linefields_hexval(s[p + 2]));
            p += 3;
        } else if (token_char_plain((unsigned char)s[p]))
            identity[n++] = s[p++];
        else
            return false;
    }
    *identity_len = n;
    return tierline_identity_valid(identity, n);
}

ZEND_FUNCTION(excimer_tiers_continue)
{
    zend_string *token;
    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_STR(token)
    ZEND_PARSE_PARAMETERS_END();
    bool sampled;
    char rid[17], identity[TIERLINE_IDENTITY_MAX];
    size_t identity_len;
    if (!token_parse(ZSTR_VAL(token), ZSTR_LEN(token), &sampled, rid, identity, &identity_len)) {
        php_error_docref(NULL, E_WARNING, "Not a token of excimer_tiers_request_id()");
        RETURN_FALSE;
    }
    /* the time so far is the previous identity's */
    uint64_t now = cpuclock_ticks();
    tiers_call_done(TIERS_TOTAL_INDEX, now - ts.segment_start);
    ts.segment_start = now;
    set_identity(identity, identity_len);
    ts.identity_named = true;
    memcpy(ts.request_id, rid, sizeof rid);
    bool was_traced = tiers_rt.tracing;
    ts.sampled = sampled;
    ts.sampled_known = true;
    decide_tracing();
    if (tiers_rt.tracing && !was_traced)
        ts.traced++;
    RETURN_TRUE;
}

static void add_tier_stats(zval *tiers, const char *name, const struct tier_agg *a)
{
    zval t;
    array_init(&t);
    add_assoc_long(&t, "calls", (zend_long)a->calls);
    add_assoc_double(&t, "total_us", (double)a->total_ns / 1000.0);
    add_assoc_double(&t, "p50_us", (double)tierhist_percentile(&a->hist, 50) / 1000.0);
    add_assoc_double(&t, "p90_us", (double)tierhist_percentile(&a->hist, 90) / 1000.0);
    add_assoc_double(&t, "p99_us", (double)tierhist_percentile(&a->hist, 99) / 1000.0);
    add_assoc_zval(tiers, name, &t);
}

ZEND_FUNCTION(excimer_tiers_stats)
{
    ZEND_PARSE_PARAMETERS_NONE();
    array_init(return_value);
    for (int i = 0; i <= IDENTITIES_MAX; i++) {
        const struct identity *id = ts.ids[i];
        if (!id)
            continue;
        zval tiers;
        array_init(&tiers);
        for (int r = 0; r < ts.nregistry; r++)
            if (id->agg[r] && id->agg[r]->calls)
                add_tier_stats(&tiers, ts.registry[r], id->agg[r]);
        add_assoc_zval_ex(return_value, id->name, id->len, &tiers);
    }
}

ZEND_FUNCTION(excimer_tiers_status)
{
    ZEND_PARSE_PARAMETERS_NONE();
    const char *why;
    bool user_fns = tiers_hook_user_functions(&why);
    array_init(return_value);
    add_assoc_bool(return_value, "enabled", ts.configured && !ts.switched_off);
    add_assoc_bool(return_value, "tracing", tiers_rt.tracing);
    add_assoc_bool(return_value, "switched_off", ts.switched_off);
    add_assoc_bool(return_value, "paused", ts.paused);
    add_assoc_long(return_value, "trips", (zend_long)ts.trips);
    add_assoc_long(return_value, "resumes", (zend_long)ts.resumes);
    if (ts.last_trip) {
        add_assoc_string(return_value, "last_trip", ts.last_trip);
        const struct trip_figures *f = &ts.last_trip_figures;
        zval figures;
        array_init(&figures);
        add_assoc_double(&figures, "window_s", f->window_s);
        add_assoc_double(&figures, "requests_ms", f->requests_ms);
        add_assoc_long(&figures, "timed_calls", (zend_long)f->timed_calls);
        add_assoc_double(&figures, "cost_per_call_ns", f->ns_per_call);
        add_assoc_double(&figures, "cost_ratio", f->cost_ratio);
        add_assoc_long(&figures, "backlog", f->backlog);
        add_assoc_long(&figures, "failed_lines", f->failed_lines);
        add_assoc_zval(return_value, "last_trip_figures", &figures);
    } else {
        add_assoc_null(return_value, "last_trip");
        add_assoc_null(return_value, "last_trip_figures");
    }
    add_assoc_double(return_value, "cost_ratio", ts.last_cost_ratio);
    add_assoc_double(return_value, "cost_per_call_ns", ts.ns_per_call);
    add_assoc_long(return_value, "requests", (zend_long)ts.requests);
    add_assoc_long(return_value, "traced", (zend_long)ts.traced);
    add_assoc_long(return_value, "skipped", (zend_long)tiers_rt.skipped);
    add_assoc_bool(return_value, "user_functions", user_fns);
    if (!user_fns)
        add_assoc_string(return_value, "user_functions_unavailable", (char *)why);
    long shared, private_;
    tiers_hook_patched(&shared, &private_);
    add_assoc_long(return_value, "patched_shared", shared);
    add_assoc_long(return_value, "patched_private", private_);
    struct tiers_share share;
    if (tiers_hook_share(&share)) {
        zval z;
        array_init(&z);
        add_assoc_long(&z, "uid", share.uid);
        add_assoc_long(&z, "ops", share.ops);
        add_assoc_long(&z, "ops_max", share.ops_max);
        add_assoc_long(&z, "internals", share.internals);
        add_assoc_long(&z, "internals_max", share.internals_max);
        add_assoc_zval(return_value, "shared_quota", &z);
    } else
        add_assoc_null(return_value, "shared_quota");
    zval tiers;
    array_init(&tiers);
    for (int i = 0; i < ts.pending.nfns; i++) {
        const struct tiers_fn *fn = &ts.pending.fns[i];
        const char *tier = ts.pending.names[fn->tier];
        zval *list = zend_hash_str_find(Z_ARRVAL(tiers), tier, strlen(tier));
        if (!list) {
            zval l;
            array_init(&l);
            list = zend_hash_str_add(Z_ARRVAL(tiers), tier, strlen(tier), &l);
        }
        char name[300];
        snprintf(name, sizeof name, "%s%s%s", fn->lc_class ? fn->lc_class : "",
                 fn->lc_class ? "::" : "", fn->lc_name);
        add_next_index_string(list, name);
    }
    add_assoc_zval(return_value, "tiers", &tiers);
}

ZEND_FUNCTION(excimer_tiers_flush)
{
    ZEND_PARSE_PARAMETERS_NONE();
    RETURN_LONG((zend_long)flush_now());
}
