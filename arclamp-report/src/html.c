/* html: the self-contained report page (see html.h). */
#include "html.h"
#include "atomicfile.h"
#include "strbuf.h"
#include "xmlesc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char report_js[] =
#include "report_js.h"
    ;

static const char page_style[] =
    "body{font:13px/1.4 Verdana,sans-serif;margin:1em 2em;color:#222}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "th,td{border:1px solid #ccc;padding:2px 6px}"
    "th.sortable{cursor:pointer;background:#eef}th.sorted{background:#ccf}"
    "td.num{text-align:right;font-family:monospace}"
    "dl{display:grid;grid-template-columns:max-content max-content;gap:2px 1em}"
    "dd{margin:0;font-family:monospace;text-align:right}";

/* The page's data is written straight into the page, never held as a
 * json-c tree: a tree cost some 4.7 KB an arc, and its object keys are C
 * strings, which cut a name at its first NUL (two names differing after
 * one then collided in `functions`). Every string goes through
 * json_string (xmlesc.c: any byte kept, NULs as \u0000) and then
 * script_escape, one at a time: the page is the only copy. */
struct page_json {
    strbuf *page;
    strbuf scratch;            /* one string or number at a time */
};

/* JSON inside <script>: no '<', '>' or '&' may appear raw (they only occur
 * inside strings, where \u escapes mean the same). */
static void script_escape(strbuf *out, const char *s, size_t len)
{
    size_t plain = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c != '<' && c != '>' && c != '&')
            continue;
        strbuf_append(out, s + plain, i - plain);
        strbuf_appends(out, c == '<' ? "\\u003c" : c == '>' ? "\\u003e" : "\\u0026");
        plain = i + 1;
    }
    strbuf_append(out, s + plain, len - plain);
}

static void put_string(struct page_json *pj, const char *s, size_t len)
{
    strbuf_reset(&pj->scratch);
    json_string(&pj->scratch, s, len);
    script_escape(pj->page, pj->scratch.data, pj->scratch.len);
}

/* A number as jsonout's json_number writes it: whole ones as integers. */
static void put_number(strbuf *out, double v)
{
    if (v == floor(v) && fabs(v) < 9e15)
        strbuf_appendf(out, "%lld", (long long)v);
    else if (isfinite(v))
        strbuf_appendf(out, "%.17g", v);
    else
        strbuf_appends(out, "null");
}

/* {"ct": ..., "wt": ..., "excl_wt": ...}, as json_metrics makes it. */
static void put_metrics(strbuf *out, const double *v, unsigned present, const double *excl)
{
    const char *sep = "{";
    for (int m = 0; m < M_COUNT; m++) {
        if (!(present & (1u << m)))
            continue;
        strbuf_appendf(out, "%s\"%s\":", sep, metric_names[m]);
        put_number(out, v[m]);
        if (excl && m != M_CT) {
            strbuf_appendf(out, ",\"excl_%s\":", metric_names[m]);
            put_number(out, excl[m]);
        }
        sep = ",";
    }
    strbuf_appends(out, *sep == '{' ? "{}" : "}");
}

static void page_data(strbuf *page, const char *title, const run *data, const flat *f,
                      const char *fwd, const char *back)
{
    struct page_json pj = {page, STRBUF_INIT};
    unsigned present = f->metrics | 1u;
    strbuf_appends(page, "{\"title\":");
    put_string(&pj, title, strlen(title));
    strbuf_appends(page, ",\"metrics\":[");
    const char *sep = "";
    for (int m = 1; m < M_COUNT; m++) {
        if (f->metrics & (1u << m)) {
            strbuf_appendf(page, "%s\"%s\"", sep, metric_names[m]);
            sep = ",";
        }
    }
    strbuf_appends(page, "],\"totals\":");
    put_metrics(page, f->totals, present, NULL);
    strbuf_appends(page, ",\"functions\":{");
    for (size_t i = 0; i < f->syms.n; i++) {
        if (i)
            strbuf_appendc(page, ',');
        put_string(&pj, f->syms.arcs[i].key, f->syms.arcs[i].klen);
        strbuf_appendc(page, ':');
        put_metrics(page, f->syms.arcs[i].v, present, f->excl[i]);
    }
    strbuf_appends(page, "},\"arcs\":[");
    sep = "";
    for (size_t i = 0; i < data->n; i++) {
        const char *p, *c;
        size_t pl, cl;
        arc_split(&data->arcs[i], &p, &pl, &c, &cl);
        if (!p)
            continue;
        strbuf_appendf(page, "%s[", sep);
        put_string(&pj, p, pl);
        strbuf_appendc(page, ',');
        put_string(&pj, c, cl);
        strbuf_appendc(page, ',');
        put_metrics(page, data->arcs[i].v, data->arcs[i].present, NULL);
        strbuf_appendc(page, ']');
        sep = ",";
    }
    strbuf_appends(page, "],\"diff\":");
    if (fwd) {
        strbuf_appends(page, "{\"forward\":");
        put_string(&pj, fwd, strlen(fwd));
        strbuf_appends(page, ",\"backward\":");
        put_string(&pj, back, strlen(back));
        strbuf_appendc(page, '}');
    } else {
        strbuf_appends(page, "false");
    }
    strbuf_appendc(page, '}');
    strbuf_free(&pj.scratch);
}

int html_write(const char *path, const char *title, const run *data, const flat *f,
               const char *diff_forward, const char *diff_backward, const char *callgraph_link,
               char *err, size_t errlen)
{
    strbuf page = STRBUF_INIT;
    strbuf_appends(&page, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>");
    xml_escape(&page, title, strlen(title));
    strbuf_appendf(&page, "</title>\n<style>%s</style>\n</head><body>\n<h1>", page_style);
    xml_escape(&page, title, strlen(title));
    strbuf_appends(&page, "</h1>\n");
    if (callgraph_link) {
        strbuf_appends(&page, "<p><a id=\"callgraph\" href=\"");
        xml_escape(&page, callgraph_link, strlen(callgraph_link));
        strbuf_appends(&page, "\">Callgraph</a></p>\n");
    }
    strbuf_appends(&page,
                   "<p id=\"diffdir\"></p><p><a id=\"invert\" href=\"#\" hidden>Invert the"
                   " diff</a></p>\n<div id=\"summary\"></div>\n<div id=\"main\">"
                   "<input id=\"search\" type=\"search\" placeholder=\"Search functions\"> "
                   "<button id=\"toggle\">All</button> <span id=\"count\"></span>"
                   "<table id=\"flat\"></table></div>\n<div id=\"function\" hidden></div>\n"
                   "<script type=\"application/json\" id=\"data\">");
    page_data(&page, title, data, f, diff_forward, diff_backward);
    /* report.js alone between the tags: the web front's
     * Content-Security-Policy allows the script by the SHA-256 of the file
     * (nginx/arclamp.conf.in), so not a byte may be added around it. */
    strbuf_appends(&page, "</script>\n<script>");
    strbuf_appends(&page, report_js);
    strbuf_appends(&page, "</script>\n</body></html>\n");
    int rc = atomic_write(path, page.data, page.len, 0, err, errlen);
    strbuf_free(&page);
    return rc;
}
