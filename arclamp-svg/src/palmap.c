/* palmap: the consistent palette file, palette.map (see palmap.h). */
#include "palmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomicfile.h"
#include "input.h"
#include "namemap.h"
#include "strbuf.h"
#include "vec.h"

struct palmap {
    struct namemap *names;
    struct rgb *colors;      /* by entry number of names */
    size_t alloc;
};

struct palmap *palmap_new(void)
{
    struct palmap *m = xcalloc(1, sizeof(*m));
    m->names = namemap_new();
    return m;
}

void palmap_free(struct palmap *m)
{
    if (!m)
        return;
    namemap_free(m->names);
    free(m->colors);
    free(m);
}

/* One component: 1 to 3 digits, at most 255. */
static const char *parse_component(const char *p, const char *end, unsigned char *out)
{
    unsigned v = 0;
    const char *start = p;
    while (p < end && *p >= '0' && *p <= '9' && p - start < 3)
        v = v * 10 + (unsigned)(*p++ - '0');
    if (p == start || v > 255)
        return NULL;
    *out = (unsigned char)v;
    return p;
}

/* "rgb(R,G,B)" exactly: what flamegraph.pl writes, and nothing that could
 * leave the fill attribute. */
static int parse_rgb(const char *p, size_t len, struct rgb *out)
{
    const char *end = p + len;
    unsigned char *c[3] = {&out->r, &out->g, &out->b};
    if (len < 4 || memcmp(p, "rgb(", 4) != 0)
        return -1;
    p += 4;
    for (int i = 0; i < 3; i++) {
        if (!(p = parse_component(p, end, c[i])) || p >= end || *p++ != (i < 2 ? ',' : ')'))
            return -1;
    }
    return p == end ? 0 : -1;
}

static void set_color(struct palmap *m, const char *name, size_t len, struct rgb c)
{
    size_t i = namemap_add(m->names, name, len);
    VEC_RESERVE(m->colors, m->alloc, i + 1, 256);
    m->colors[i] = c;
}

/* One line: the name before the last "->", a colour after it; anything
 * else is skipped. A later line for the same name wins, as in a Perl hash. */
static int load_line(void *arg, const char *line, size_t len)
{
    struct palmap *m = arg;
    const char *arrow = NULL;
    for (const char *p = line; (p = memmem(p, (size_t)(line + len - p), "->", 2)); p++)
        arrow = p;
    struct rgb c;
    if (arrow && parse_rgb(arrow + 2, (size_t)(line + len - arrow - 2), &c) == 0)
        set_color(m, line, (size_t)(arrow - line), c);
    return 0;
}

int palmap_load(struct palmap *m, const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;   /* no map yet: this run starts one */
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct input_limit limit = {.max_bytes = PALMAP_MAX_BYTES};
    struct input_stats st = {0};
    int rc = input_read_fd_limited(fd, path, &limit, load_line, m, &st, err, errlen);
    close(fd);
    if (rc == 0 && limit.reached) {
        snprintf(err, errlen, "%s: larger than %u MiB, not used", path, PALMAP_MAX_BYTES >> 20);
        rc = -1;
    }
    return rc;
}

struct rgb palmap_color(struct palmap *m, const char *name, size_t len, struct rgb computed,
                        int keep)
{
    long i = namemap_get(m->names, name, len);
    if (i >= 0)
        return m->colors[i];
    if (keep)
        set_color(m, name, len, computed);
    return computed;
}

size_t palmap_count(const struct palmap *m)
{
    return namemap_count(m->names);
}

int palmap_save(const struct palmap *m, const char *path, char *err, size_t errlen)
{
    strbuf out = STRBUF_INIT;
    size_t *order = namemap_sorted(m->names);
    for (size_t k = 0; k < namemap_count(m->names); k++) {
        size_t len;
        const char *name = namemap_name(m->names, order[k], &len);
        const struct rgb *c = &m->colors[order[k]];
        strbuf_append(&out, name, len);
        strbuf_appendf(&out, "->rgb(%u,%u,%u)\n", c->r, c->g, c->b);
    }
    free(order);
    int rc = atomic_write(path, out.data ? out.data : "", out.len, 0, err, errlen);
    strbuf_free(&out);
    return rc;
}
