/* exportfmt: the three export formats (see exportfmt.h). Each walks the
 * flame's distinct stacks once (flame_each_stack). Counts are sums of
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

/* --- collapsed -------------------------------------------------------------- */

struct collapsed {
    const struct flame *f;
    strbuf *out;
};

static void collapsed_stack(void *arg, const uint32_t *frames, uint32_t len, double count)
{
    struct collapsed *c = arg;
    for (uint32_t i = 0; i < len; i++) {
        size_t n;
        const char *name = flame_frame_name(c->f, frames[i], &n);
        if (i)
            strbuf_appendc(c->out, ';');
        strbuf_append(c->out, name, n);
    }
    strbuf_appendf(c->out, " %.0f\n", count);
}

/* --- speedscope ------------------------------------------------------------- */

struct speedscope {
    strbuf samples, weights;
};

static void speedscope_stack(void *arg, const uint32_t *frames, uint32_t len, double count)
{
    struct speedscope *s = arg;
    strbuf_appends(&s->samples, s->samples.len ? ",[" : "[");
    for (uint32_t i = 0; i < len; i++)
        strbuf_appendf(&s->samples, i ? ",%u" : "%u", (unsigned)frames[i]);
    strbuf_appendc(&s->samples, ']');
    strbuf_appendf(&s->weights, s->weights.len ? ",%.0f" : "%.0f", count);
}

static void write_speedscope(const struct flame *f, const char *name, strbuf *out)
{
    strbuf_appends(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
                        "\"exporter\":\"arclamp-svg " ARCLAMP_VERSION "\",\"name\":");
    json_string(out, name, strlen(name));
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
    }
    strbuf_appends(out, "]},\"profiles\":[{\"type\":\"sampled\",\"name\":");
    json_string(out, name, strlen(name));
    strbuf_appendf(out, ",\"unit\":\"none\",\"startValue\":0,\"endValue\":%.0f,\"samples\":[",
                   flame_total(f));
    struct speedscope s = {STRBUF_INIT, STRBUF_INIT};
    flame_each_stack(f, speedscope_stack, &s);
    strbuf_append(out, s.samples.data, s.samples.len);
    strbuf_appends(out, "],\"weights\":[");
    strbuf_append(out, s.weights.data, s.weights.len);
    strbuf_appends(out, "]}]}\n");
    strbuf_free(&s.samples);
    strbuf_free(&s.weights);
}

/* --- pprof ------------------------------------------------------------------ */

struct pprof_export {
    const struct flame *f;
    struct pprof_writer w;
    uint64_t *locations;       /* one stack's location ids, leaf first */
    uint64_t entrypoint_key;   /* string index of "entrypoint" */
};

static void pprof_stack(void *arg, const uint32_t *frames, uint32_t len, double count)
{
    struct pprof_export *e = arg;
    for (uint32_t i = 0; i < len; i++)
        e->locations[i] = (uint64_t)frames[len - 1 - i] + 1;  /* frame n is id n+1 */
    int64_t value = (int64_t)count;
    struct pprof_label label = {e->entrypoint_key, 0};
    char tag[STACKLINE_TAG_MAX + 1];
    size_t first_len = 0;
    const char *first = len ? flame_frame_name(e->f, frames[0], &first_len) : "";
    size_t tag_len = len ? stackline_tag(first, first_len, tag, NULL) : 0;
    if (tag_len)
        label.str = pprof_string(&e->w, tag, tag_len);
    pprof_sample(&e->w, e->locations, len, &value, 1, &label, tag_len ? 1 : 0);
}

static void write_pprof(const struct flame *f, strbuf *out)
{
    struct pprof_export e = {.f = f};
    pprof_writer_init(&e.w);
    pprof_sample_type(&e.w, "samples", "count");
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

void export_write(const struct flame *f, enum export_format format, const char *name,
                  strbuf *out)
{
    switch (format) {
    case EXPORT_PPROF: write_pprof(f, out); break;
    case EXPORT_SPEEDSCOPE: write_speedscope(f, name, out); break;
    case EXPORT_COLLAPSED: {
        struct collapsed c = {f, out};
        flame_each_stack(f, collapsed_stack, &c);
        break;
    }
    }
}
