/* html: the self-contained report page (see html.h). */
#include "html.h"
#include "atomicfile.h"
#include "jsonout.h"
#include "strbuf.h"
#include "xmlesc.h"

#include <json-c/json.h>
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

static json_object *page_data(const char *title, const run *data, const flat *f,
                              const char *fwd, const char *back)
{
    unsigned present = f->metrics | 1u;
    json_object *root = json_object_new_object(), *metrics = json_object_new_array();
    json_object_object_add(root, "title", json_object_new_string(title));
    for (int m = 1; m < M_COUNT; m++) {
        if (f->metrics & (1u << m))
            json_object_array_add(metrics, json_object_new_string(metric_names[m]));
    }
    json_object_object_add(root, "metrics", metrics);
    json_object_object_add(root, "totals", json_metrics(f->totals, present, NULL));
    json_object *fns = json_object_new_object();
    for (size_t i = 0; i < f->syms.n; i++)
        json_object_object_add_ex(fns, f->syms.arcs[i].key,
                                  json_metrics(f->syms.arcs[i].v, present, f->excl[i]),
                                  JSON_C_OBJECT_ADD_KEY_IS_NEW);
    json_object_object_add(root, "functions", fns);
    json_object *arcs = json_object_new_array();
    for (size_t i = 0; i < data->n; i++) {
        const char *p, *c;
        size_t pl, cl;
        arc_split(&data->arcs[i], &p, &pl, &c, &cl);
        if (!p)
            continue;
        json_object *a = json_object_new_array();
        json_object_array_add(a, json_object_new_string_len(p, (int)pl));
        json_object_array_add(a, json_object_new_string_len(c, (int)cl));
        json_object_array_add(a, json_metrics(data->arcs[i].v, data->arcs[i].present, NULL));
        json_object_array_add(arcs, a);
    }
    json_object_object_add(root, "arcs", arcs);
    if (fwd) {
        json_object *d = json_object_new_object();
        json_object_object_add(d, "forward", json_object_new_string(fwd));
        json_object_object_add(d, "backward", json_object_new_string(back));
        json_object_object_add(root, "diff", d);
    } else {
        json_object_object_add(root, "diff", json_object_new_boolean(0));
    }
    return root;
}

/* JSON inside <script>: no '<', '>' or '&' may appear raw (they only occur
 * inside strings, where \u escapes mean the same). */
static void append_script_json(strbuf *out, const char *json)
{
    for (const char *p = json; *p; p++) {
        if (*p == '<')
            strbuf_appends(out, "\\u003c");
        else if (*p == '>')
            strbuf_appends(out, "\\u003e");
        else if (*p == '&')
            strbuf_appends(out, "\\u0026");
        else
            strbuf_appendc(out, *p);
    }
}

int html_write(const char *path, const char *title, const run *data, const flat *f,
               const char *diff_forward, const char *diff_backward, const char *callgraph_link,
               char *err, size_t errlen)
{
    json_object *d = page_data(title, data, f, diff_forward, diff_backward);
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
    append_script_json(&page, json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN));
    /* report.js alone between the tags: the web front's
     * Content-Security-Policy allows the script by the SHA-256 of the file
     * (nginx/arclamp.conf.in), so not a byte may be added around it. */
    strbuf_appends(&page, "</script>\n<script>");
    strbuf_appends(&page, report_js);
    strbuf_appends(&page, "</script>\n</body></html>\n");
    json_object_put(d);
    int rc = atomic_write(path, page.data, page.len, 0, err, errlen);
    strbuf_free(&page);
    return rc;
}
