/* exportfmt: the three export formats (see exportfmt.h). Each walks the
 * flame's distinct stacks (flame_each_stack: once, speedscope twice). Counts are sums of
 * 32-bit counts in doubles, exact up to 2^53 samples, and printed whole. */
#include "exportfmt.h"
#include "pprof.h"
#include "stackline.h"
#include "xmlesc.h"

#include <stdlib.h>
#include <string.h>

int export_format_from_name(const char *name, enum export_format *out)
{
    static const struct {
        const char *name;
        enum export_format format;
    } names[] = {{"pprof", EXPORT_PPROF},
                 {"speedscope", EXPORT_SPEEDSCOPE},
                 {"collapsed", EXPORT_COLLAPSED}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(name, names[i].name) == 0) {
            *out = names[i].format;
            return 0;
        }
    }
    return -1;
}

/* A frame that names a PHP file (the code of an entry point or an included
 * file outside any function): its own file name. */
static int is_php_file(const char *name, size_t len)
{
    return len > 4 && memcmp(name + len - 4, ".php", 4) == 0;
}

/* --- the sink --------------------------------------------------------------- */

static void sink_flush(struct export_sink *s)
{
    if (!s->failed && s->buf.len && s->write(s->ctx, s->buf.data, s->buf.len) < 0)
        s->failed = 1;
    strbuf_reset(&s->buf);
}

static void sink_check(struct export_sink *s)
{
    if (s->buf.len >= EXPORT_SINK_CHUNK)
        sink_flush(s);
}

/* A sample's weight: its count, or with the period known the seconds it
 * stands for (15 significant digits: 0.001 * 3 prints as 0.003). */
static void append_weight(strbuf *out, const struct export_meta *m, double count)
{
    if (m->period > 0)
        strbuf_appendf(out, "%.15g", count * m->period);
    else
        strbuf_appendf(out, "%.0f", count);
}

/* --- collapsed -------------------------------------------------------------- */

struct collapsed {
    const struct flame *f;
    struct export_sink *out;
};

static void collapsed_stack(void *arg, const uint32_t *frames, uint32_t len, double count)
{
    struct collapsed *c = arg;
    strbuf *b = &c->out->buf;
    for (uint32_t i = 0; i < len; i++) {
        size_t n;
        const char *name = flame_frame_name(c->f, frames[i], &n);
        if (i)
            strbuf_appendc(b, ';');
        strbuf_append(b, name, n);
    }
    strbuf_appendf(b, " %.0f\n", count);
    sink_check(c->out);
}

/* --- speedscope ------------------------------------------------------------- */

/* One pass over the stacks writes their frame lists, a second their
 * weights: the two arrays are never held whole. */
struct speedscope {
    const struct export_meta *m;
    struct export_sink *out;
    int first;
};

static void speedscope_sample(void *arg, const uint32_t *frames, uint32_t len, double count)
{
    struct speedscope *s = arg;
    (void)count;
    strbuf_appends(&s->out->buf, s->first ? "[" : ",[");
    for (uint32_t i = 0; i < len; i++)
        strbuf_appendf(&s->out->buf, i ? ",%u" : "%u", (unsigned)frames[i]);
    strbuf_appendc(&s->out->buf, ']');
    s->first = 0;
    sink_check(s->out);
}

static void speedscope_weight(void *arg, const uint32_t *frames, uint32_t len, double count)
{
    struct speedscope *s = arg;
    (void)frames;
    (void)len;
    if (!s->first)
        strbuf_appendc(&s->out->buf, ',');
    append_weight(&s->out->buf, s->m, count);
    s->first = 0;
    sink_check(s->out);
}

static void write_speedscope(const struct flame *f, const struct export_meta *m,
                             struct export_sink *sink)
{
    strbuf *out = &sink->buf;
    strbuf_appends(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
                        "\"exporter\":\"arclamp-svg " ARCLAMP_VERSION "\",\"name\":");
    json_string(out, m->name, strlen(m->name));
    strbuf_appends(out, ",\"activeProfileIndex\":0,\"shared\":{\"frames\":[");
    for (uint32_t fr = 0; fr < flame_distinct_frames(f); fr++) {
        size_t n;
        const char *frame = flame_frame_name(f, fr, &n);
        strbuf_appends(out, fr ? ",{\"name\":" : "{\"name\":");
        json_string(out, frame, n);
        if (is_php_file(frame, n)) {
            strbuf_appends(out, ",\"file\":");
            json_string(out, frame, n);
        }
        strbuf_appendc(out, '}');
        sink_check(sink);
    }
    strbuf_appends(out, "]},\"profiles\":[{\"type\":\"sampled\",\"name\":");
    json_string(out, m->name, strlen(m->name));
    strbuf_appendf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":",
                   m->period > 0 ? "seconds" : "none");
    append_weight(out, m, flame_total(f));
    strbuf_appends(out, ",\"samples\":[");
    struct speedscope s = {m, sink, 1};
    flame_each_stack(f, speedscope_sample, &s);
    strbuf_appends(out, "],\"weights\":[");
    s.first = 1;
    flame_each_stack(f, speedscope_weight, &s);
    strbuf_appends(out, "]}]}\n");
}

/* --- pprof ------------------------------------------------------------------ */

struct pprof_export {
    const struct flame *f;
    struct pprof_writer w;
    uint64_t *locations;       /* one stack's location ids, leaf first */
    uint64_t entrypoint_key;   /* string index of "entrypoint" */
    int64_t period_ns;         /* nanoseconds per sample; 0: counts only */
};

/* count * period_ns, at most INT64_MAX (a stack of 150 million samples of
 * 60 s would pass it). */
static int64_t sample_time(double count, int64_t period_ns)
{
    double t = count * (double)period_ns;
    return t >= 9.2e18 ? INT64_MAX : (int64_t)t;
}

static void pprof_stack(void *arg, const uint32_t *frames, uint32_t len, double count)
{
    struct pprof_export *e = arg;
    for (uint32_t i = 0; i < len; i++)
        e->locations[i] = (uint64_t)frames[len - 1 - i] + 1;  /* frame n is id n+1 */
    int64_t values[2] = {(int64_t)count, sample_time(count, e->period_ns)};
    struct pprof_label label = {e->entrypoint_key, 0};
    char tag[STACKLINE_TAG_MAX + 1];
    size_t first_len = 0;
    const char *first = len ? flame_frame_name(e->f, frames[0], &first_len) : "";
    size_t tag_len = len ? stackline_tag(first, first_len, tag, NULL) : 0;
    if (tag_len)
        label.str = pprof_string(&e->w, tag, tag_len);
    pprof_sample(&e->w, e->locations, len, values, e->period_ns ? 2 : 1, &label,
                 tag_len ? 1 : 0);
}

static void write_pprof(const struct flame *f, const struct export_meta *m, strbuf *out)
{
    struct pprof_export e = {.f = f};
    pprof_writer_init(&e.w);
    pprof_sample_type(&e.w, "samples", "count");
    if (m->period > 0) {
        const char *clock = m->wall ? "wall" : "cpu";
        e.period_ns = (int64_t)(m->period * 1e9 + 0.5);
        pprof_sample_type(&e.w, clock, "nanoseconds");
        pprof_period(&e.w, clock, "nanoseconds", e.period_ns);
    }
    e.entrypoint_key = pprof_string(&e.w, "entrypoint", strlen("entrypoint"));
    for (uint32_t fr = 0; fr < flame_distinct_frames(f); fr++) {
        size_t n;
        const char *name = flame_frame_name(f, fr, &n);
        pprof_function(&e.w, name, n, is_php_file(name, n) ? name : NULL, n);
    }
    e.locations = xcalloc((size_t)flame_max_depth(f) + 1, sizeof *e.locations);
    flame_each_stack(f, pprof_stack, &e);
    strbuf raw = STRBUF_INIT;
    pprof_encode(&e.w, &raw);
    pprof_writer_free(&e.w);
    free(e.locations);
    pprof_gzip(raw.data, raw.len, out);
    strbuf_free(&raw);
}

int export_write(const struct flame *f, enum export_format format, const struct export_meta *m,
                 struct export_sink *out)
{
    switch (format) {
    case EXPORT_PPROF: write_pprof(f, m, &out->buf); break;
    case EXPORT_SPEEDSCOPE: write_speedscope(f, m, out); break;
    case EXPORT_COLLAPSED: {
        struct collapsed c = {f, out};
        flame_each_stack(f, collapsed_stack, &c);
        break;
    }
    }
    sink_flush(out);
    strbuf_free(&out->buf);
    return out->failed ? -1 : 0;
}
