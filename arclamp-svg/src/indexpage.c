/* indexpage: the static index of graphs, as HTML and as JSON. See indexpage.h.
 *
 * index.json:
 *   {"version": 1, "generated": "2026-11-22T05:00:00Z", "data_dir": "...",
 *    "config" (the configuration file the job read, or null),
 *    "logs": [{"period", "name", "time" (or null), "date", "entrypoint",
 *              "timestamp", "log", "log_path" (the log as a command on the
 *              server names it: logs_dir, absolute when resolved), "log_size", "log_mtime", "compressed",
 *              "svg", "reversed_svg" (null when missing), "diff_svg",
 *              "diff_reversed_svg" (the differential graphs against the bucket
 *              before; null when missing), "samples" (read from
 *              the graph; null when unknown), "failed", "report" (or null),
 *              "report_runs" (from arclamp-report's summary; null when unknown),
 *              "functions": [{"label", "function", "svg", "reversed_svg",
 *                             "samples"}]}]}
 * in the order of the HTML page. */
#include "indexpage.h"
#include "atomicfile.h"
#include "gendiff.h"
#include "indexcmds.h"
#include "numtext.h"
#include "xmlesc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

/* --- encoding ----------------------------------------------------------- */

static void json_cstr(strbuf *out, const char *s)
{
    if (s)
        json_string(out, s, strlen(s));
    else
        strbuf_appends(out, "null");
}

void url_encode_path(strbuf *out, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            strchr("._~-/", c)) {
            strbuf_appendc(out, (char)c);
        } else {
            strbuf_appendc(out, '%');
            strbuf_appendc(out, hex[c >> 4]);
            strbuf_appendc(out, hex[c & 15]);
        }
    }
}

static void html(strbuf *out, const char *s)
{
    xml_escape(out, s, strlen(s));
}

/* Length of the first component of p (p does not start with '/'). */
static size_t component(const char *p)
{
    const char *slash = strchr(p, '/');
    return slash ? (size_t)(slash - p) : strlen(p);
}

char *relative_path(const char *from, const char *to)
{
    while (*from == '/')
        from++;
    while (*to == '/')
        to++;
    /* Skip the common leading components. */
    for (;;) {
        size_t a = component(from), b = component(to);
        if (!a || a != b || memcmp(from, to, a) != 0)
            break;
        from += a;
        to += b;
        while (*from == '/')
            from++;
        while (*to == '/')
            to++;
    }
    strbuf sb = STRBUF_INIT;
    for (const char *p = from; *p;) {
        strbuf_appends(&sb, sb.len ? "/.." : "..");
        p += component(p);
        while (*p == '/')
            p++;
    }
    if (*to)
        strbuf_appendf(&sb, "%s%s", sb.len ? "/" : "", to);
    if (!sb.len)
        strbuf_appendc(&sb, '.');
    return (char *)strbuf_cstr(&sb);
}

/* --- ordering ----------------------------------------------------------- */

static int entrypoint_rank(const char *e)
{
    return strcmp(e, "all") == 0 ? 0 : 1;
}

/* Period; date newest first; entry point ("all" first); newest first; name. */
static int cmp_entries(const void *a, const void *b)
{
    const struct logfile *x = (*(const struct index_entry *const *)a)->log;
    const struct logfile *y = (*(const struct index_entry *const *)b)->log;
    int c = strcmp(x->period, y->period);
    if (c)
        return c;
    c = strcmp(y->date, x->date);
    if (c)
        return c;
    c = entrypoint_rank(x->entrypoint) - entrypoint_rank(y->entrypoint);
    if (c)
        return c;
    c = strcmp(x->entrypoint, y->entrypoint);
    if (c)
        return c;
    if (x->timestamp != y->timestamp)
        return x->timestamp > y->timestamp ? -1 : 1;
    return strcmp(x->name, y->name);
}

static const struct index_entry **sorted(const struct index_entry *entries, size_t n)
{
    const struct index_entry **v = xcalloc(n ? n : 1, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = &entries[i];
    if (n)
        qsort(v, n, sizeof *v, cmp_entries);
    return v;
}

/* "<dir>/<period>/<file>" relative to data_dir. */
static void rel_file(strbuf *out, const char *dir, const char *period, const char *file)
{
    if (strcmp(dir, ".") != 0)
        strbuf_appendf(out, "%s/", dir);
    strbuf_appendf(out, "%s/%s", period, file);
}

/* A graph of log lf: the log's, a function's (label), or with label
 * DIFF_LABEL its differential graph. */
static const char DIFF_LABEL[] = "";

static void graph_rel(strbuf *out, const char *svgs_rel, const struct logfile *lf,
                      const char *label, int reversed)
{
    strbuf file = STRBUF_INIT;
    if (label == DIFF_LABEL)
        gen_diff_graph_name(&file, lf->name, reversed);
    else
        gen_graph_name(&file, lf->name, label, reversed);
    rel_file(out, svgs_rel, lf->period, strbuf_cstr(&file));
    strbuf_free(&file);
}

/* --- HTML --------------------------------------------------------------- */

static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<title>Arc Lamp flame graphs</title>\n<style>\n"
    "body{font-family:sans-serif;margin:1em 2em;color:#222}\n"
    "table{border-collapse:collapse;margin-bottom:1.5em}\n"
    "th,td{border:1px solid #ccc;padding:2px 8px;text-align:left;vertical-align:top}\n"
    "th{background:#eee}td.size,td.num{text-align:right}\n"
    ".failed{color:#b00}.fn{white-space:nowrap}.count{color:#555}\n"
    "pre{background:#f4f4f4;padding:4px 8px;overflow-x:auto}code.path{font-size:smaller}\n"
    "</style>\n</head>\n<body>\n<h1>Arc Lamp flame graphs</h1>\n";

static void html_link(strbuf *out, const char *rel, const char *text)
{
    strbuf_appends(out, "<a href=\"");
    url_encode_path(out, rel);
    strbuf_appends(out, "\">");
    html(out, text);
    strbuf_appends(out, "</a>");
}

static void graph_link(strbuf *out, const char *svgs_rel, const struct logfile *lf,
                       const char *label, int reversed, const char *text)
{
    strbuf rel = STRBUF_INIT;
    graph_rel(&rel, svgs_rel, lf, label, reversed);
    html_link(out, strbuf_cstr(&rel), text);
    strbuf_free(&rel);
}

static void human_size(strbuf *out, long long bytes)
{
    static const char *const units[] = {"B", "KB", "MB", "GB", "TB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1000 && u < 4) {
        v /= 1000;
        u++;
    }
    strbuf_appendf(out, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

/* " <span class="count">(12 runs)</span>": what a link is drawn from. */
static void counted_note(strbuf *out, double n, const char *one, const char *many)
{
    strbuf_appends(out, " <span class=\"count\">(");
    numtext_counted(out, n, one, many);
    strbuf_appends(out, ")</span>");
}

static void graphs_cell(strbuf *out, const struct gen_config *cfg, const struct index_entry *e,
                        const char *svgs_rel)
{
    const struct logfile *lf = e->log;
    strbuf_appends(out, "<td>");
    if (e->graphs & INDEX_FORWARD)
        graph_link(out, svgs_rel, lf, NULL, 0, "forward");
    if (e->graphs & INDEX_REVERSED) {
        strbuf_appends(out, (e->graphs & INDEX_FORWARD) ? " · " : "");
        graph_link(out, svgs_rel, lf, NULL, 1, "reversed");
    }
    if (e->graphs & INDEX_DIFF) {
        strbuf_appends(out, " · ");
        strbuf diff = STRBUF_INIT;
        strbuf_appendf(&diff, "diff vs %s", gendiff_what(lf));
        graph_link(out, svgs_rel, lf, DIFF_LABEL, 0, strbuf_cstr(&diff));
        strbuf_free(&diff);
        if (e->graphs & INDEX_DIFF_REVERSED) {
            strbuf_appends(out, " (");
            graph_link(out, svgs_rel, lf, DIFF_LABEL, 1, "reversed");
            strbuf_appends(out, ")");
        }
    }
    if (!(e->graphs & (INDEX_FORWARD | INDEX_REVERSED)))
        strbuf_appends(out, "<span class=\"failed\">no graph</span>");
    else if (e->failed)
        strbuf_appends(out, " <span class=\"failed\">(update failed)</span>");
    if (e->report) {
        strbuf rel = STRBUF_INIT;
        rel_file(&rel, LAYOUT_REPORTS_DIR, lf->period, LAYOUT_REPORT_PAGES_DIR "/");
        strbuf_appends(&rel, lf->name);
        strbuf_appends(&rel, ".html");
        strbuf_appends(out, " · ");
        html_link(out, strbuf_cstr(&rel), "XHProf report");
        strbuf_free(&rel);
        if (e->report_runs >= 0)
            counted_note(out, (double)e->report_runs, "run", "runs");
    }
    for (size_t i = 0; e->fn && i < cfg->nfunctions; i++) {
        if (!e->fn[i])
            continue;
        strbuf_appends(out, "<br><span class=\"fn\" title=\"");
        html(out, cfg->functions[i].function);
        strbuf_appends(out, "\">");
        html(out, cfg->functions[i].label);
        strbuf_appends(out, ": ");
        if (e->fn[i] & INDEX_FORWARD)
            graph_link(out, svgs_rel, lf, cfg->functions[i].label, 0, "forward");
        if (e->fn[i] & INDEX_REVERSED) {
            strbuf_appends(out, (e->fn[i] & INDEX_FORWARD) ? " · " : "");
            graph_link(out, svgs_rel, lf, cfg->functions[i].label, 1, "reversed");
        }
        if (e->fn_samples[i] >= 0)
            counted_note(out, e->fn_samples[i], "sample", "samples");
        strbuf_appends(out, "</span>");
    }
    strbuf_appends(out, "</td>");
}

static void time_text(strbuf *out, const struct logfile *lf)
{
    const char *t = lf->time_from_name ? lf->time : "";
    strbuf tmp = STRBUF_INIT;
    for (; *t; t++)
        strbuf_appendc(&tmp, *t == '_' ? ' ' : *t);
    html(out, tmp.len ? strbuf_cstr(&tmp) : "?");
    strbuf_free(&tmp);
}

/* "<br><code>PATH</code>": the log's path quoted for a shell, to paste into
 * `arclamp-svg export` or `diff`. */
static void log_path_code(strbuf *out, const struct index_cmds *cmds, const struct logfile *lf)
{
    strbuf path = STRBUF_INIT, quoted = STRBUF_INIT;
    index_log_path(&path, cmds, lf);
    shell_quote(&quoted, strbuf_cstr(&path));
    strbuf_appends(out, "<br><code class=\"path\">");
    xml_escape(out, quoted.data, quoted.len);
    strbuf_appends(out, "</code>");
    strbuf_free(&path);
    strbuf_free(&quoted);
}

static void row(strbuf *out, const struct gen_config *cfg, const struct index_cmds *cmds,
                const struct index_entry *e, const char *svgs_rel, const char *logs_rel,
                int first_of_entrypoint)
{
    const struct logfile *lf = e->log;
    strbuf_appends(out, "<tr><td>");
    if (first_of_entrypoint) {
        strbuf_appends(out, "<b>");
        html(out, lf->entrypoint);
        strbuf_appends(out, "</b>");
    }
    strbuf_appends(out, "</td><td>");
    time_text(out, lf);
    strbuf_appends(out, "</td><td class=\"num\">");
    if (e->samples >= 0)
        numtext_amount(out, e->samples);
    strbuf_appends(out, "</td>");
    graphs_cell(out, cfg, e, svgs_rel);
    strbuf_appends(out, "<td>");
    strbuf rel = STRBUF_INIT;
    rel_file(&rel, logs_rel, lf->period, lf->file);
    html_link(out, strbuf_cstr(&rel), lf->file);
    strbuf_free(&rel);
    if (e->hosts) {
        strbuf_appends(out, " <small>(hosts: ");
        for (const char *h = e->hosts; *h; h++) {
            if (*h == ',')
                strbuf_appends(out, ", ");
            else
                html(out, (char[]){*h, '\0'});
        }
        strbuf_appends(out, ")</small>");
    }
    log_path_code(out, cmds, lf);
    strbuf_appends(out, "</td><td class=\"size\">");
    human_size(out, lf->size);
    strbuf_appends(out, "</td></tr>\n");
}

static void table_start(strbuf *out, const char *date)
{
    strbuf_appends(out, "<h3>");
    html(out, date);
    strbuf_appends(out, "</h3>\n<table>\n<thead><tr><th>Entry point</th><th>Time</th>"
                        "<th>Samples</th><th>Graphs</th><th>Log</th><th>Size</th></tr></thead>\n"
                        "<tbody>\n");
}

static void period_nav(strbuf *out, const struct index_entry **v, size_t n)
{
    strbuf_appends(out, "<p>Periods:");
    size_t id = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(v[i]->log->period, v[i - 1]->log->period) == 0)
            continue;
        strbuf_appendf(out, " <a href=\"#period-%zu\">", id++);
        html(out, v[i]->log->period);
        strbuf_appends(out, "</a>");
    }
    strbuf_appends(out, n ? "</p>\n" : " none: no trace logs yet.</p>\n");
}

static void html_body(strbuf *out, const struct gen_config *cfg, const struct index_cmds *cmds,
                      const struct index_entry **v, size_t n, const char *svgs_rel,
                      const char *logs_rel)
{
    size_t period_id = 0;
    for (size_t i = 0; i < n; i++) {
        const struct logfile *lf = v[i]->log, *prev = i ? v[i - 1]->log : NULL;
        int new_period = !prev || strcmp(prev->period, lf->period) != 0;
        int new_date = new_period || strcmp(prev->date, lf->date) != 0;
        int new_entry = new_date || strcmp(prev->entrypoint, lf->entrypoint) != 0;
        if (new_date && prev)
            strbuf_appends(out, "</tbody>\n</table>\n");
        if (new_period) {
            if (prev)
                strbuf_appends(out, "</div>\n");
            strbuf_appendf(out, "<div class=\"period\" id=\"period-%zu\">\n<h2>", period_id++);
            html(out, lf->period);
            strbuf_appends(out, "</h2>\n");
        }
        if (new_date)
            table_start(out, lf->date);
        row(out, cfg, cmds, v[i], svgs_rel, logs_rel, new_entry);
    }
    if (n)
        strbuf_appends(out, "</tbody>\n</table>\n</div>\n");
}

/* `t` as "2026-11-22T05:00:00Z" (iso) or "2026-11-22 05:00:00 UTC". */
static void utc_text(char *buf, size_t len, time_t t, int iso)
{
    struct tm tm;
    size_t n = 0;
    if (gmtime_r(&t, &tm))
        n = iso ? strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm)
                : strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
    if (n == 0)
        snprintf(buf, len, "?");
}

/* The command section, from the logs in page order. */
static void commands(strbuf *out, const struct index_cmds *cmds, const struct index_entry **v,
                     size_t n, time_t now)
{
    const struct logfile **logs = xcalloc(n ? n : 1, sizeof *logs);
    for (size_t i = 0; i < n; i++)
        logs[i] = v[i]->log;
    index_cmds_html(out, cmds, logs, n, now);
    free(logs);
}

void index_render_html(strbuf *out, const struct gen_config *cfg, const struct index_cmds *cmds,
                       const struct index_entry *entries, size_t n, const char *svgs_rel,
                       const char *logs_rel, unsigned indexes, time_t now)
{
    const struct index_entry **v = sorted(entries, n);
    char when[64];
    utc_text(when, sizeof when, now, 0);
    strbuf_appends(out, page_head);
    strbuf_appendf(out, "<p>Generated %s from ", when);
    numtext_counted(out, (double)n, "trace log", "trace logs");
    strbuf_appends(out, ". Machine-readable: <a href=\"index.json\">index.json</a>. "
                        "<i>Samples</i>: the stack samples a graph is drawn from; an XHProf "
                        "report's <i>runs</i>: the profiled requests it is the mean of.</p>\n");
    if (indexes & INDEX_HAS_REPORTS)
        strbuf_appends(out, "<p>Hierarchical profiles (XHProf) of the fleet: <a href=\""
                            INDEX_REPORTS_INDEX "\">reports</a>.</p>\n");
    if (indexes & INDEX_HAS_TIERS)
        strbuf_appends(out, "<p>Where each kind of request spends its time: <a href=\""
                            INDEX_TIERS_INDEX "\">request tiers</a>.</p>\n");
    period_nav(out, v, n);
    strbuf_appends(out, "<p>As profiles for pprof or speedscope, or compared: "
                        "<a href=\"#commands\">command lines</a>.</p>\n");
    commands(out, cmds, v, n, now);
    html_body(out, cfg, cmds, v, n, svgs_rel, logs_rel);
    strbuf_appends(out, "</body>\n</html>\n");
    free(v);
}

/* --- JSON --------------------------------------------------------------- */

static void json_key(strbuf *out, const char *key)
{
    strbuf_appendf(out, "\"%s\": ", key);
}

/* "key": N (whole counts print whole), or null when unknown (< 0). */
static void json_count(strbuf *out, const char *key, double v)
{
    json_key(out, key);
    if (v >= 0)
        strbuf_appendf(out, "%.17g", v);
    else
        strbuf_appends(out, "null");
}

static void json_graph(strbuf *out, const char *key, const char *svgs_rel,
                       const struct logfile *lf, const char *label, int reversed, int present)
{
    strbuf rel = STRBUF_INIT;
    json_key(out, key);
    if (present) {
        graph_rel(&rel, svgs_rel, lf, label, reversed);
        json_string(out, rel.data, rel.len);
    } else {
        strbuf_appends(out, "null");
    }
    strbuf_free(&rel);
}

static void json_functions(strbuf *out, const struct gen_config *cfg,
                           const struct index_entry *e, const char *svgs_rel)
{
    int first = 1;
    json_key(out, "functions");
    strbuf_appendc(out, '[');
    for (size_t i = 0; e->fn && i < cfg->nfunctions; i++) {
        if (!e->fn[i])
            continue;
        strbuf_appends(out, first ? "\n    {" : ",\n    {");
        first = 0;
        json_key(out, "label");
        json_cstr(out, cfg->functions[i].label);
        strbuf_appends(out, ", ");
        json_key(out, "function");
        json_cstr(out, cfg->functions[i].function);
        strbuf_appends(out, ", ");
        json_graph(out, "svg", svgs_rel, e->log, cfg->functions[i].label, 0,
                   e->fn[i] & INDEX_FORWARD);
        strbuf_appends(out, ", ");
        json_graph(out, "reversed_svg", svgs_rel, e->log, cfg->functions[i].label, 1,
                   e->fn[i] & INDEX_REVERSED);
        strbuf_appends(out, ", ");
        json_count(out, "samples", e->fn_samples[i]);
        strbuf_appendc(out, '}');
    }
    strbuf_appendc(out, ']');
}

/* "hosts": the hosts a log drawn from the store merges, or null. */
static void json_hosts(strbuf *out, const char *hosts)
{
    json_key(out, "hosts");
    if (!hosts) {
        strbuf_appends(out, "null");
        return;
    }
    strbuf_appendc(out, '[');
    for (const char *h = hosts; *h;) {
        size_t len = strcspn(h, ",");
        if (h != hosts)
            strbuf_appends(out, ", ");
        json_string(out, h, len);
        h += len + (h[len] == ',');
    }
    strbuf_appendc(out, ']');
}

static void json_entry(strbuf *out, const struct gen_config *cfg, const struct index_cmds *cmds,
                       const struct index_entry *e, const char *svgs_rel, const char *logs_rel)
{
    const struct logfile *lf = e->log;
    strbuf rel = STRBUF_INIT;
    rel_file(&rel, logs_rel, lf->period, lf->file);
    strbuf_appends(out, "  {");
    json_key(out, "period");
    json_cstr(out, lf->period);
    strbuf_appends(out, ", ");
    json_key(out, "name");
    json_cstr(out, lf->name);
    strbuf_appends(out, ", ");
    json_key(out, "time");
    json_cstr(out, lf->time_from_name ? lf->time : NULL);
    strbuf_appends(out, ", ");
    json_key(out, "date");
    json_cstr(out, lf->date);
    strbuf_appends(out, ", ");
    json_key(out, "entrypoint");
    json_cstr(out, lf->entrypoint);
    strbuf_appendf(out, ", \"timestamp\": %lld,\n   ", (long long)lf->timestamp);
    json_key(out, "log");
    json_string(out, rel.data, rel.len);
    strbuf_appends(out, ", ");
    strbuf_reset(&rel);
    index_log_path(&rel, cmds, lf);
    json_key(out, "log_path");
    json_string(out, rel.data, rel.len);
    strbuf_appendf(out, ", \"log_size\": %lld, \"log_mtime\": %lld, \"compressed\": %s,\n   ",
                   lf->size, (long long)lf->mtime.tv_sec, lf->gz ? "true" : "false");
    json_graph(out, "svg", svgs_rel, lf, NULL, 0, e->graphs & INDEX_FORWARD);
    strbuf_appends(out, ", ");
    json_graph(out, "reversed_svg", svgs_rel, lf, NULL, 1, e->graphs & INDEX_REVERSED);
    strbuf_appends(out, ", ");
    json_graph(out, "diff_svg", svgs_rel, lf, DIFF_LABEL, 0, e->graphs & INDEX_DIFF);
    strbuf_appends(out, ", ");
    json_graph(out, "diff_reversed_svg", svgs_rel, lf, DIFF_LABEL, 1,
               e->graphs & INDEX_DIFF_REVERSED);
    strbuf_appends(out, ", ");
    json_count(out, "samples", e->samples);
    strbuf_appendf(out, ", \"failed\": %s, ", e->failed ? "true" : "false");
    json_key(out, "report");
    if (e->report) {
        strbuf_appends(out, "\"" LAYOUT_REPORTS_DIR "/");
        strbuf_appends(out, lf->period); /* period and name: [A-Za-z0-9_.-] when report */
        strbuf_appends(out, "/report/");
        strbuf_appends(out, lf->name);
        strbuf_appends(out, ".html\"");
    } else {
        strbuf_appends(out, "null");
    }
    strbuf_appends(out, ", ");
    json_count(out, "report_runs", e->report ? (double)e->report_runs : -1);
    strbuf_appends(out, ", ");
    json_hosts(out, e->hosts);
    strbuf_appends(out, ",\n   ");
    json_functions(out, cfg, e, svgs_rel);
    strbuf_appendc(out, '}');
    strbuf_free(&rel);
}

void index_render_json(strbuf *out, const struct gen_config *cfg, const struct index_cmds *cmds,
                       const struct index_entry *entries, size_t n, const char *svgs_rel,
                       const char *logs_rel, unsigned indexes, time_t now)
{
    const struct index_entry **v = sorted(entries, n);
    char when[32];
    utc_text(when, sizeof when, now, 1);
    strbuf_appendf(out, "{\"version\": 1, \"generated\": \"%s\", \"data_dir\": ", when);
    json_cstr(out, cfg->data_dir);
    strbuf_appends(out, ", \"config\": ");
    json_cstr(out, cmds->config);
    strbuf_appends(out, ",\n \"reports_index\": ");
    json_cstr(out, indexes & INDEX_HAS_REPORTS ? INDEX_REPORTS_INDEX : NULL);
    strbuf_appends(out, ", \"tiers_index\": ");
    json_cstr(out, indexes & INDEX_HAS_TIERS ? INDEX_TIERS_INDEX : NULL);
    strbuf_appends(out, ",\n \"logs\": [");
    for (size_t i = 0; i < n; i++) {
        strbuf_appends(out, i ? ",\n" : "\n");
        json_entry(out, cfg, cmds, v[i], svgs_rel, logs_rel);
    }
    strbuf_appends(out, "\n]}\n");
    free(v);
}

/* --- writing ------------------------------------------------------------ */

/* The path of `dir` relative to data_dir, resolving symlinks; when either
 * cannot be resolved (missing), the configured text relative to data_dir. */
static char *rel_to_data(const char *data_dir, const char *dir)
{
    char *a = realpath(data_dir, NULL), *b = realpath(dir, NULL);
    char *rel = a && b ? relative_path(a, b) : NULL;
    free(a);
    free(b);
    return rel ? rel : xstrdup(dir);
}

/* path made absolute (symlinks resolved) when it exists, else as it is. */
static char *absolute(const char *path)
{
    char *abs = realpath(path, NULL);
    return abs ? abs : xstrdup(path);
}

int index_write(int data_fd, const struct gen_config *cfg, const struct index_entry *entries,
                size_t n, time_t now, char *err, size_t errlen)
{
    char *svgs_rel = rel_to_data(cfg->data_dir, cfg->svgs_dir);
    char *logs_rel = rel_to_data(cfg->data_dir, cfg->logs_dir);
    char *config = cfg->path ? absolute(cfg->path) : NULL;
    char *data_dir = absolute(cfg->data_dir), *logs_dir = absolute(cfg->logs_dir);
    struct index_cmds cmds = {config, data_dir, cfg->data_dir_given, logs_dir};
    strbuf doc = STRBUF_INIT;
    unsigned indexes = 0;
    if (faccessat(data_fd, INDEX_REPORTS_INDEX, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
        indexes |= INDEX_HAS_REPORTS;
    if (faccessat(data_fd, INDEX_TIERS_INDEX, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
        indexes |= INDEX_HAS_TIERS;
    index_render_json(&doc, cfg, &cmds, entries, n, svgs_rel, logs_rel, indexes, now);
    int rc = atomic_writeat(data_fd, "index.json", doc.data, doc.len, 0, 0, NULL, err, errlen);
    if (rc == 0) {
        strbuf_reset(&doc);
        index_render_html(&doc, cfg, &cmds, entries, n, svgs_rel, logs_rel, indexes, now);
        rc = atomic_writeat(data_fd, "index.html", doc.data, doc.len, 0, 0, NULL, err, errlen);
    }
    strbuf_free(&doc);
    free(svgs_rel);
    free(logs_rel);
    free(config);
    free(data_dir);
    free(logs_dir);
    return rc;
}
