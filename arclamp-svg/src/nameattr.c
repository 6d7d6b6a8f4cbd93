/* nameattr: per-function box attributes from a --nameattr file (see
 * nameattr.h). Each line is checked and turned into the box's opening tag
 * once, when the file is read; drawing a box only looks its function up. */
#include "nameattr.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "input.h"
#include "namemap.h"
#include "strbuf.h"
#include "xmlesc.h"
#include "vec.h"

struct nameattr {
    struct namemap *names;
    struct name_attrs *attrs;   /* by entry number of names */
    size_t alloc;
};

/* A value of a line, pointing into it. */
struct span {
    const char *p;
    size_t n;
    int set;
};

/* The keys flamegraph.pl uses. */
struct raw_attrs {
    struct span title, id, class_, g_extra, href, target, a_extra;
};

/* Reading state: the table, and where we are for messages. */
struct loader {
    struct nameattr *na;
    const char *path;
    size_t line;
    char *err;
    size_t errlen;
};

static int span_is(const struct span *s, const char *text)
{
    return s->n == strlen(text) && memcmp(s->p, text, s->n) == 0;
}

/* Stores `key=value` if the key is one of flamegraph.pl's. */
static void take_field(struct raw_attrs *r, const char *p, size_t n, const char *eq)
{
    struct span key = {p, (size_t)(eq - p), 1}, value = {eq + 1, (size_t)(p + n - eq - 1), 1};
    struct {
        const char *name;
        struct span *to;
    } keys[] = {{"title", &r->title}, {"id", &r->id}, {"class", &r->class_},
                {"g_extra", &r->g_extra}, {"href", &r->href}, {"target", &r->target},
                {"a_extra", &r->a_extra}};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (span_is(&key, keys[i].name))
            *keys[i].to = value;
    }
}

/* A link a browser would run as script: javascript:, vbscript: or data:
 * (blanks and control bytes skipped, as browsers skip some of them). */
static int is_script_url(const struct span *url)
{
    static const char *const schemes[] = {"javascript", "vbscript", "data"};
    char scheme[16];
    size_t k = 0;
    for (size_t i = 0; i < url->n && k < sizeof(scheme) - 1; i++) {
        unsigned char c = (unsigned char)url->p[i];
        if (c == ':') {
            scheme[k] = '\0';
            for (size_t j = 0; j < sizeof(schemes) / sizeof(schemes[0]); j++) {
                if (strcmp(scheme, schemes[j]) == 0)
                    return 1;
            }
            return 0;
        }
        if (c > ' ')
            scheme[k++] = (char)tolower(c);
    }
    return 0;
}

static void put_attr(strbuf *tag, const char *name, const struct span *value)
{
    strbuf_appendf(tag, " %s=\"", name);
    xml_escape(tag, value->p, value->n);
    strbuf_appendc(tag, '"');
}

static int is_name_char(char c, int first)
{
    return isalpha((unsigned char)c) || c == '_' || c == ':' ||
           (!first && (isdigit((unsigned char)c) || c == '-' || c == '.'));
}

/* Whether the tag written so far has attribute `name` (values are escaped,
 * so a '"' in the tag is always an attribute's own). */
static int has_attr(const strbuf *tag, const char *name, size_t n)
{
    const char *p = tag->data, *end = tag->data + tag->len;
    while ((p = memmem(p, (size_t)(end - p), name, n))) {
        if (p > tag->data && p[-1] == ' ' && (size_t)(end - p) > n + 1 && p[n] == '=' && p[n + 1] == '"')
            return 1;
        p++;
    }
    return 0;
}

/* Why an attribute of g_extra or a_extra may not be written, or NULL. */
static const char *refused_name(const strbuf *tag, const char *name, size_t n)
{
    if (n >= 2 && strncasecmp(name, "on", 2) == 0)
        return "an event handler";
    if (n >= 5 && strncasecmp(name, "xmlns", 5) == 0)
        return "a namespace declaration";
    if ((n == 4 && strncasecmp(name, "href", 4) == 0) ||
        (n > 5 && strncasecmp(name + n - 5, ":href", 5) == 0))
        return "a link (use the href key)";
    return has_attr(tag, name, n) ? "already on the element" : NULL;
}

/* The next name="value" (or name='value') of an extra at *p: 1 and the
 * parts, 0 at the end, -1 when the text is not attributes. */
static int next_attr(const char **p, const char *end, struct span *name, struct span *value)
{
    const char *q = *p;
    while (q < end && *q == ' ')
        q++;
    if (q == end)
        return 0;
    name->p = q;
    while (q < end && is_name_char(*q, q == name->p))
        q++;
    name->n = (size_t)(q - name->p);
    while (q < end && *q == ' ')
        q++;
    if (!name->n || q == end || *q++ != '=')
        return -1;
    while (q < end && *q == ' ')
        q++;
    const char *close = q < end && (*q == '"' || *q == '\'') ? memchr(q + 1, *q, (size_t)(end - q - 1))
                                                              : NULL;
    if (!close)
        return -1;
    *value = (struct span){q + 1, (size_t)(close - q - 1), 1};
    *p = close + 1;
    return 1;
}

/* Appends the attributes of a g_extra or a_extra value, their values as
 * text; 0, or -1 with the reason in why. */
static int put_extra(strbuf *tag, const struct span *extra, char *why, size_t whylen)
{
    const char *p = extra->p, *end = extra->p + extra->n;
    struct span name, value;
    int rc;
    while ((rc = next_attr(&p, end, &name, &value)) == 1) {
        const char *no = refused_name(tag, name.p, name.n);
        if (no) {
            snprintf(why, whylen, "%.*s: %s", (int)(name.n < 64 ? name.n : 64), name.p, no);
            return -1;
        }
        strbuf_appendf(tag, " %.*s=\"", (int)name.n, name.p);
        xml_escape(tag, value.p, value.n);
        strbuf_appendc(tag, '"');
    }
    if (rc < 0)
        snprintf(why, whylen, "not name=\"value\" attributes: %.*s",
                 (int)(extra->n < 64 ? extra->n : 64), extra->p);
    return rc;
}

/* The opening tag flamegraph.pl's group_start writes for these keys: <a
 * xlink:href target a_extra id class g_extra> for a link, else <g id class
 * g_extra>. */
static int build_tag(const struct raw_attrs *r, strbuf *tag, char *why, size_t whylen)
{
    int link = r->href.set && r->href.n > 0;
    static const struct span top = {"_top", 4, 1};
    if (link && is_script_url(&r->href))
        return snprintf(why, whylen, "href: a script URL"), -1;
    strbuf_appends(tag, link ? "<a" : "<g");
    if (link) {
        put_attr(tag, "xlink:href", &r->href);
        put_attr(tag, "target", r->target.set && r->target.n ? &r->target : &top);
        if (r->a_extra.n && put_extra(tag, &r->a_extra, why, whylen) != 0)
            return -1;
    }
    if (r->id.set)
        put_attr(tag, "id", &r->id);
    if (r->class_.set)
        put_attr(tag, "class", &r->class_);
    if (r->g_extra.n && put_extra(tag, &r->g_extra, why, whylen) != 0)
        return -1;
    strbuf_appendc(tag, '>');
    return 0;
}

static void store(struct nameattr *na, const char *name, size_t len, const struct raw_attrs *r,
                  strbuf *tag)
{
    size_t i = namemap_add(na->names, name, len);
    if (i >= na->alloc) {
        size_t was = na->alloc;
        VEC_RESERVE(na->attrs, na->alloc, i + 1, 64);
        memset(na->attrs + was, 0, (na->alloc - was) * sizeof(*na->attrs));
    }
    struct name_attrs *a = &na->attrs[i];
    free(a->open);
    free(a->title);
    a->open = xstrndup(tag->data, tag->len);
    a->close = tag->data[1] == 'a' ? "</a>" : "</g>";
    /* an empty title keeps the usual tooltip, as Perl's ||= does */
    a->title = r->title.n ? xstrndup(r->title.p, r->title.n) : NULL;
    a->title_len = r->title.n;
}

/* One line: the function name, a tab, key=value fields separated by tabs
 * (empty fields are skipped, as Perl's split leaves them out). */
static int load_line(void *arg, const char *line, size_t len)
{
    struct loader *l = arg;
    l->line++;
    const char *tab = memchr(line, '\t', len);
    if (!tab) {
        snprintf(l->err, l->errlen, "Invalid format in %s", l->path);
        return -1;
    }
    struct raw_attrs r = {0};
    for (const char *p = tab + 1, *end = line + len; p < end;) {
        const char *next = memchr(p, '\t', (size_t)(end - p));
        size_t n = next ? (size_t)(next - p) : (size_t)(end - p);
        const char *eq = memchr(p, '=', n);
        if (n && !eq) {
            snprintf(l->err, l->errlen, "%s:%zu: \"%.*s\" is not key=value", l->path, l->line,
                     (int)(n < 64 ? n : 64), p);
            return -1;
        }
        if (n)
            take_field(&r, p, n, eq);
        p += n + 1;
    }
    strbuf tag = STRBUF_INIT;
    char why[256];
    int rc = build_tag(&r, &tag, why, sizeof(why));
    if (rc == 0)
        store(l->na, line, (size_t)(tab - line), &r, &tag);
    else
        snprintf(l->err, l->errlen, "%s:%zu: refused: %s", l->path, l->line, why);
    strbuf_free(&tag);
    return rc;
}

struct nameattr *nameattr_load(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "Can't read %s: %s", path, strerror(errno));
        return NULL;
    }
    struct nameattr *na = xcalloc(1, sizeof(*na));
    na->names = namemap_new();
    struct loader l = {na, path, 0, err, errlen};
    struct input_limit limit = {.max_bytes = NAMEATTR_MAX_BYTES};
    struct input_stats st = {0};
    int rc = input_read_fd_limited(fd, path, &limit, load_line, &l, &st, err, errlen);
    close(fd);
    if (rc == 0 && (limit.reached || st.too_long)) {
        snprintf(err, errlen, "%s: larger than %u MiB", path, NAMEATTR_MAX_BYTES >> 20);
        rc = -1;
    }
    if (rc != 0) {
        nameattr_free(na);
        return NULL;
    }
    return na;
}

void nameattr_free(struct nameattr *na)
{
    if (!na)
        return;
    for (size_t i = 0; i < namemap_count(na->names); i++) {
        free(na->attrs[i].open);
        free(na->attrs[i].title);
    }
    free(na->attrs);
    namemap_free(na->names);
    free(na);
}

const struct name_attrs *nameattr_find(const struct nameattr *na, const char *name, size_t len)
{
    long i = namemap_get(na->names, name, len);
    return i >= 0 ? &na->attrs[i] : NULL;
}
