/* tierpage: the request-tier pages' HTML (see tierpage.h). */
#include "tierpage.h"
#include "numtext.h"
#include "tierline.h"
#include "xmlesc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Longest identity or tier name shown in full; longer ones are cut (a
 * hostile name must not make the page unreadable). */
#define NAME_SHOWN 200
/* A change of the mean this large (either way) is coloured. */
#define CHANGE_MARKED 0.10
/* The sparklines: one point every SPARK_STEP px, SPARK_H px high. */
#define SPARK_STEP 10
#define SPARK_H 18

static const char page_style[] =
    "body{font:13px/1.4 Verdana,sans-serif;margin:1em 2em;color:#222}"
    "table{border-collapse:collapse;margin:.4em 0 1.2em}"
    "th,td{border:1px solid #ccc;padding:2px 6px;vertical-align:middle}"
    "th{background:#eee;text-align:left}"
    "td.n{text-align:right;font-family:monospace;white-space:nowrap}"
    "tr.total td{font-weight:bold}"
    ".worse{color:#b00}.better{color:#070}.note{color:#666}"
    ".warn{background:#fee;border:1px solid #d99;padding:4px 8px}"
    "svg.spark{vertical-align:middle}"
    "svg.spark polyline{fill:none;stroke:#36c;stroke-width:1.5}"
    "svg.spark circle{fill:#36c}svg.spark line{stroke:#ccc}";

/* ---- numbers -------------------------------------------------------------- */

void tier_format_us(strbuf *out, double us)
{
    static const struct {
        double limit, unit;
        const char *name;
    } units[] = {{1e3, 1, "\xc2\xb5s"}, {1e6, 1e3, "ms"}, {60e6, 1e6, "s"},
                 {3600e6, 60e6, "min"}, {INFINITY, 3600e6, "h"}};
    if (isnan(us)) {
        strbuf_appends(out, "\xe2\x80\x93");
        return;
    }
    size_t u = 0;
    while (us >= units[u].limit)
        u++;
    double v = us / units[u].unit;
    /* three significant digits, none after the point for whole µs */
    int decimals = u == 0 ? (v < 10 && v != floor(v) ? 1 : 0) : v < 10 ? 2 : v < 100 ? 1 : 0;
    strbuf_appendf(out, "%.*f %s", decimals, v, units[u].name);
}

static void format_pct(strbuf *out, double share)
{
    if (isnan(share))
        strbuf_appends(out, "\xe2\x80\x93");
    else
        strbuf_appendf(out, "%.1f%%", share * 100);
}

static void num_cell(strbuf *out, double us)
{
    strbuf_appends(out, "<td class=\"n\">");
    tier_format_us(out, us);
    strbuf_appends(out, "</td>");
}

/* A name from the table, escaped, cut at a character boundary past
 * NAME_SHOWN bytes. */
static void name_text(strbuf *out, const char *s)
{
    size_t len = strlen(s), cut = 0;
    if (len <= NAME_SHOWN) {
        xml_escape(out, s, len);
        return;
    }
    for (unsigned cp; cut < NAME_SHOWN;)
        cut += utf8_next(s + cut, len - cut, &cp);
    xml_escape(out, s, cut);
    strbuf_appendf(out, "\xe2\x80\xa6 (%zu bytes)", len);
}

/* ---- trend ---------------------------------------------------------------- */

enum measure { MEAN, P90, SHARE };

static double measure_of(const struct tier_point *p, enum measure m)
{
    return m == MEAN ? p->mean_us : m == P90 ? p->p90_us : p->share;
}

static void measure_text(strbuf *out, double v, enum measure m)
{
    if (m == SHARE)
        format_pct(out, v);
    else
        tier_format_us(out, v);
}

/* The first trend slot a page shows: the oldest bucket it has. */
static unsigned first_slot(const struct tier_page *p)
{
    unsigned s = 0;
    while (s < TIERS_TREND && !p->slot_bucket[s])
        s++;
    return s;
}

/* The tooltip: each bucket and its values. */
static void spark_title(strbuf *out, const struct tier_point *tr, const struct tier_page *p,
                        enum measure m)
{
    strbuf_appends(out, "<title>");
    for (unsigned s = first_slot(p); s < TIERS_SLOTS; s++) {
        xml_escape(out, p->slot_bucket[s], strlen(p->slot_bucket[s]));
        strbuf_appends(out, ": ");
        measure_text(out, measure_of(&tr[s], m), m);
        if (m == MEAN) {
            strbuf_appends(out, " (p90 ");
            tier_format_us(out, tr[s].p90_us);
            strbuf_appends(out, ")");
        }
        strbuf_appends(out, p->slot_unreadable[s] ? " (unreadable)\n" : "\n");
    }
    strbuf_appends(out, "</title>");
}

/* An inline SVG of the points from the oldest bucket shown to this one,
 * scaled from 0 to their largest: a gap where a bucket has no value, the
 * last point dotted. */
static void sparkline(strbuf *out, const struct tier_point *tr, const struct tier_page *p,
                      enum measure m)
{
    unsigned first = first_slot(p), n = TIERS_SLOTS - first;
    double max = 0;
    for (unsigned s = first; s < TIERS_SLOTS; s++) {
        double v = measure_of(&tr[s], m);
        if (v > max)
            max = v;
    }
    int w = (int)(n - 1) * SPARK_STEP + 6;
    strbuf_appendf(out, "<svg class=\"spark\" width=\"%d\" height=\"%d\" role=\"img\">", w,
                   SPARK_H + 4);
    spark_title(out, tr, p, m);
    strbuf_appendf(out, "<line x1=\"0\" y1=\"%d.5\" x2=\"%d\" y2=\"%d.5\"/>", SPARK_H + 2, w,
                   SPARK_H + 2);
    int open = 0;
    double x = 3, y = 0;
    for (unsigned s = first; s < TIERS_SLOTS; s++, x += SPARK_STEP) {
        double v = measure_of(&tr[s], m);
        if (isnan(v)) {
            strbuf_appends(out, open ? "\"/>" : "");
            open = 0;
            continue;
        }
        y = SPARK_H + 2 - (max > 0 ? v / max * SPARK_H : 0);
        strbuf_appendf(out, "%s%.0f,%.1f", open ? " " : "<polyline points=\"", x, y);
        open = 1;
    }
    strbuf_appends(out, open ? "\"/>" : "");
    if (!isnan(measure_of(&tr[TIERS_TREND], m)))
        strbuf_appendf(out, "<circle cx=\"%.0f\" cy=\"%.1f\" r=\"2\"/>", x - SPARK_STEP, y);
    strbuf_appends(out, "</svg>");
}

/* This bucket against the one before: the mean's change in %, the share's
 * in points; coloured when the mean moved by CHANGE_MARKED or more. "new":
 * the previous bucket was read and had no value. */
static void change_cell(strbuf *out, const struct tier_point *tr, const struct tier_page *p,
                        int with_share)
{
    const struct tier_point *now = &tr[TIERS_TREND], *before = &tr[TIERS_TREND - 1];
    strbuf_appends(out, "<td class=\"n\">");
    if (isnan(now->mean_us) || isnan(before->mean_us)) {
        strbuf_appends(out, !isnan(now->mean_us) && !p->slot_unreadable[TIERS_TREND - 1]
                                ? "new</td>" : "\xe2\x80\x93</td>");
        return;
    }
    double change = before->mean_us > 0 ? now->mean_us / before->mean_us - 1 : 0;
    const char *cls = change >= CHANGE_MARKED ? "worse" : change <= -CHANGE_MARKED ? "better" : NULL;
    if (cls)
        strbuf_appendf(out, "<span class=\"%s\">", cls);
    strbuf_appendf(out, "mean %+.0f%%", change * 100);
    strbuf_appends(out, cls ? "</span>" : "");
    if (with_share && !isnan(now->share) && !isnan(before->share))
        strbuf_appendf(out, "<br>share %+.1f pt", (now->share - before->share) * 100);
    strbuf_appends(out, "</td>");
}

/* ---- the page ------------------------------------------------------------- */

static void utc_text(strbuf *out, int64_t t)
{
    char buf[64];
    struct tm tm;
    time_t tt = (time_t)t;
    if (gmtime_r(&tt, &tm) && strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm))
        strbuf_appends(out, buf);
    else
        strbuf_appendf(out, "%lld", (long long)t);
}

static void page_head(strbuf *out, const struct tier_page *p)
{
    strbuf_appends(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                        "<title>Request tiers: ");
    xml_escape(out, p->period, strlen(p->period));
    strbuf_appends(out, " ");
    xml_escape(out, p->bucket, strlen(p->bucket));
    strbuf_appendf(out, "</title>\n<style>%s</style>\n</head><body>\n"
                        "<p><a href=\"../index.html\">All request tier pages</a>",
                   page_style);
    if (p->previous) {
        strbuf_appends(out, " \xc2\xb7 <a href=\"");
        xml_escape(out, p->previous, strlen(p->previous));
        strbuf_appends(out, ".html\">previous bucket (");
        xml_escape(out, p->previous, strlen(p->previous));
        strbuf_appends(out, ")</a>");
    }
    strbuf_appends(out, "</p>\n<h1>Request tiers: ");
    xml_escape(out, p->period, strlen(p->period));
    strbuf_appends(out, " \xe2\x80\x93 ");
    xml_escape(out, p->bucket, strlen(p->bucket));
    strbuf_appends(out, "</h1>\n");
}

static void figures(strbuf *out, const struct tier_table *t)
{
    strbuf_appends(out, "<p>From ");
    utc_text(out, t->start);
    strbuf_appends(out, " to ");
    utc_text(out, t->end);
    strbuf_appendf(out, " (%llu minute%s of data).</p>\n<table class=\"figures\"><tr>"
                        "<th>requests</th><th>traced</th><th>breaker trips</th>"
                        "<th>breaker resumes</th><th>tier calls skipped</th></tr>\n<tr>"
                        "<td class=\"n\">",
                   (unsigned long long)t->minutes, t->minutes == 1 ? "" : "s");
    numtext_count(out, (double)t->requests);
    strbuf_appends(out, "</td><td class=\"n\">");
    numtext_count(out, (double)t->traced);
    if (t->requests)
        strbuf_appendf(out, " (%.1f%%)", 100.0 * (double)t->traced / (double)t->requests);
    const double rest[] = {(double)t->trips, (double)t->resumes, (double)t->skipped};
    for (size_t i = 0; i < 3; i++) {
        strbuf_appends(out, "</td><td class=\"n\">");
        numtext_count(out, rest[i]);
    }
    strbuf_appends(out, "</td></tr></table>\n");
    if (t->trips) {
        strbuf_appends(out, "<p class=\"warn\">The overload breaker tripped ");
        numtext_counted(out, (double)t->trips, "time", "times");
        strbuf_appends(out, " (");
        numtext_counted(out, (double)t->resumes, "resume", "resumes");
        strbuf_appends(out, "): tracing paused while it was open, so calls and totals are "
                            "lower than the traffic was.</p>\n");
    }
    if (t->skipped) {
        strbuf_appends(out, "<p class=\"warn\">");
        numtext_counted(out, (double)t->skipped, "tier call was", "tier calls were");
        strbuf_appends(out, " not recorded (a process's tables were full).</p>\n");
    }
    if (t->bad_lines) {
        strbuf_appends(out, "<p class=\"warn\">");
        numtext_counted(out, (double)t->bad_lines, "line", "lines");
        strbuf_appends(out, " of this bucket's table could not be read (malformed, torn or too "
                            "long) and were skipped: the figures are those of the other "
                            "lines.</p>\n");
    }
    uint64_t dropped = t->drops.tier_limit + t->drops.memory;
    if (t->drops.overflow || dropped) {
        strbuf_appends(out, "<p class=\"warn\">This bucket's table holds more than the report "
                            "reads (--max-table-identities): ");
        numtext_counted(out, (double)t->drops.overflow, "line was", "lines were");
        strbuf_appends(out, " added up as _other, ");
        numtext_counted(out, (double)dropped, "line was", "lines were");
        strbuf_appends(out, " left out.</p>\n");
    }
    strbuf_appends(out, "<p class=\"note\">Calls and times are those of the traced requests. "
                        "A tier's share is its time over its identity's _total; tiers "
                        "may be nested or siblings, so shares need not add up.</p>\n");
}

static void trend_note(strbuf *out, const struct tier_page *p)
{
    unsigned first = first_slot(p);
    if (first == TIERS_TREND) {
        strbuf_appends(out, "<p class=\"note\">No earlier bucket of this period yet: no "
                            "trend.</p>\n");
        return;
    }
    strbuf_appends(out, "<p class=\"note\">Trends: the ");
    numtext_counted(out, (double)(TIERS_TREND - first), "bucket", "buckets");
    strbuf_appends(out, " before this one and this one, oldest on the left (");
    xml_escape(out, p->slot_bucket[first], strlen(p->slot_bucket[first]));
    strbuf_appends(out, " to ");
    xml_escape(out, p->bucket, strlen(p->bucket));
    strbuf_appends(out, "); hover a line for its values.");
    for (unsigned s = first; s < TIERS_TREND; s++) {
        if (!p->slot_unreadable[s])
            continue;
        strbuf_appends(out, " Could not be read: ");
        xml_escape(out, p->slot_bucket[s], strlen(p->slot_bucket[s]));
        strbuf_appends(out, ".");
    }
    strbuf_appends(out, "</p>\n");
}

static int has_trend(const struct tier_page *p)
{
    return first_slot(p) < TIERS_TREND;
}

/* The summary: one row per identity, its _total. */
static void summary(strbuf *out, const struct tier_table *t, const struct tier_page *p)
{
    strbuf_appends(out, "<h2>Identities</h2>\n<table class=\"identities\"><tr><th>identity</th>"
                        "<th>requests</th><th>total</th><th>of all</th><th>mean</th>"
                        "<th>p90</th>");
    strbuf_appends(out, has_trend(p) ? "<th>mean, trend</th><th>vs previous</th></tr>\n"
                                     : "</tr>\n");
    for (size_t i = 0; i < t->nids; i++) {
        const struct tier_ranked_identity *id = &t->ids[i];
        const struct tier_row *r = id->nrows && strcmp(id->rows[0].name, TIERLINE_TOTAL) == 0
                                       ? &id->rows[0] : NULL;
        strbuf_appendf(out, "<tr><td><a href=\"#i%zu\">", i + 1);
        name_text(out, id->name);
        strbuf_appends(out, "</a></td><td class=\"n\">");
        if (r)
            numtext_count(out, r->calls);
        strbuf_appends(out, "</td>");
        num_cell(out, r ? r->total_us : NAN);
        strbuf_appends(out, "<td class=\"n\">");
        format_pct(out, t->all_us > 0 && r ? r->total_us / t->all_us : NAN);
        strbuf_appends(out, "</td>");
        num_cell(out, r ? r->mean_us : NAN);
        num_cell(out, r ? r->p90_us : NAN);
        if (has_trend(p) && r) {
            strbuf_appends(out, "<td>");
            sparkline(out, r->trend, p, MEAN);
            strbuf_appends(out, "</td>");
            change_cell(out, r->trend, p, 0);
        } else if (has_trend(p)) {
            strbuf_appends(out, "<td></td><td></td>");
        }
        strbuf_appends(out, "</tr>\n");
    }
    strbuf_appends(out, "</table>\n");
    if (!t->nids)
        strbuf_appends(out, "<p>No identity in this bucket.</p>\n");
    if (t->ids_left_out) {
        strbuf_appends(out, "<p class=\"note\">");
        numtext_counted(out, (double)t->ids_left_out, "more identity", "more identities");
        strbuf_appends(out, " not shown: ");
        tier_format_us(out, t->left_out_us);
        strbuf_appends(out, " of _total time (");
        format_pct(out, t->all_us > 0 ? t->left_out_us / t->all_us : NAN);
        strbuf_appends(out, ").</p>\n");
    }
}

static void tier_row_html(strbuf *out, const struct tier_row *r, const struct tier_page *p)
{
    int total = strcmp(r->name, TIERLINE_TOTAL) == 0;
    strbuf_appends(out, total ? "<tr class=\"total\"><td>" : "<tr><td>");
    name_text(out, r->name);
    strbuf_appends(out, "</td><td class=\"n\">");
    numtext_count(out, r->calls);
    strbuf_appends(out, "</td>");
    num_cell(out, r->total_us);
    strbuf_appends(out, "<td class=\"n\">");
    format_pct(out, r->share);
    strbuf_appends(out, "</td>");
    num_cell(out, r->mean_us);
    num_cell(out, r->p50_us);
    num_cell(out, r->p90_us);
    num_cell(out, r->p99_us);
    if (has_trend(p)) {
        strbuf_appends(out, "<td>");
        sparkline(out, r->trend, p, MEAN);
        strbuf_appends(out, "</td><td>");
        if (!total)
            sparkline(out, r->trend, p, SHARE);
        strbuf_appends(out, "</td>");
        change_cell(out, r->trend, p, !total);
    }
    strbuf_appends(out, "</tr>\n");
}

static void identity_html(strbuf *out, const struct tier_ranked_identity *id, size_t rank,
                          const struct tier_page *p)
{
    strbuf_appendf(out, "<h2 id=\"i%zu\">", rank);
    name_text(out, id->name);
    strbuf_appends(out, "</h2>\n<table class=\"tiers\"><tr><th>tier</th><th>calls</th>"
                        "<th>total</th><th>share</th><th>mean</th><th>p50</th><th>p90</th>"
                        "<th>p99</th>");
    strbuf_appends(out, has_trend(p) ? "<th>mean, trend</th><th>share, trend</th>"
                                       "<th>vs previous</th></tr>\n"
                                     : "</tr>\n");
    for (size_t r = 0; r < id->nrows; r++)
        tier_row_html(out, &id->rows[r], p);
    strbuf_appends(out, "</table>\n");
    if (id->rows_left_out) {
        strbuf_appends(out, "<p class=\"note\">");
        numtext_counted(out, (double)id->rows_left_out, "more tier", "more tiers");
        strbuf_appends(out, " not shown.</p>\n");
    }
}

void tier_page_render(strbuf *out, const struct tier_table *t, const struct tier_page *p)
{
    page_head(out, p);
    figures(out, t);
    trend_note(out, p);
    summary(out, t, p);
    for (size_t i = 0; i < t->nids; i++)
        identity_html(out, &t->ids[i], i + 1, p);
    strbuf_appends(out, "</body></html>\n");
}

/* ---- the index ------------------------------------------------------------ */

static void index_row(strbuf *out, const struct tier_index_row *r)
{
    strbuf_appends(out, "<tr><td>");
    xml_escape(out, r->bucket, strlen(r->bucket));
    strbuf_appends(out, "</td><td>");
    if (r->has_page) {
        strbuf_appends(out, "<a href=\"");
        xml_escape(out, r->period, strlen(r->period));
        strbuf_appends(out, "/");
        xml_escape(out, r->bucket, strlen(r->bucket));
        strbuf_appends(out, ".html\">tiers</a>");
    }
    if (r->error) {
        strbuf_appends(out, " <span class=\"worse\">not updated: ");
        xml_escape(out, r->error, strlen(r->error));
        strbuf_appends(out, "</span>");
    }
    strbuf_appends(out, "</td></tr>\n");
}

void tier_index_render(strbuf *out, const struct tier_index_row *rows, size_t n,
                       int reports_index)
{
    strbuf_appendf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                        "<title>Arc Lamp: request tiers</title>\n<style>%s</style>\n"
                        "</head><body>\n<h1>Request tiers</h1>\n<p>Where each kind of "
                        "request spends its time. <a href=\"../../index.html\">Flame "
                        "graphs</a>",
                   page_style);
    strbuf_appends(out, reports_index ? " \xc2\xb7 <a href=\"../index.html\">XHProf reports</a>"
                                        "</p>\n" : "</p>\n");
    if (!n)
        strbuf_appends(out, "<p>No tier tables yet.</p>\n");
    /* newest first within each period: walk each period's rows backwards */
    for (size_t end = 0, start = 0; start < n; start = end) {
        for (end = start; end < n && strcmp(rows[end].period, rows[start].period) == 0;)
            end++;
        strbuf_appends(out, "<h2>");
        xml_escape(out, rows[start].period, strlen(rows[start].period));
        strbuf_appends(out, "</h2>\n<table><tr><th>bucket</th><th>page</th></tr>\n");
        for (size_t i = end; i > start; i--)
            index_row(out, &rows[i - 1]);
        strbuf_appends(out, "</table>\n");
    }
    strbuf_appends(out, "</body></html>\n");
}
