/* yamldoc: builds a line-numbered tree from libyaml's event stream. */
#include "yamldoc.h"
#include "strbuf.h"
#include "vec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Deeper nesting than any configuration needs; bounds the recursion. */
#define YDOC_MAX_DEPTH 64

struct builder {
    yaml_parser_t parser;
    const char *name;
    char *err;
    size_t errlen;
};

static void node_free(struct ynode *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->nitems; i++)
        node_free(n->items[i]);
    free(n->items);
    free(n->value);
    free(n);
}

static int fail(struct builder *b, int line, const char *what)
{
    snprintf(b->err, b->errlen, "%s:%d: %s", b->name, line, what);
    return -1;
}

static int next_event(struct builder *b, yaml_event_t *ev)
{
    if (yaml_parser_parse(&b->parser, ev))
        return 0;
    char what[256];
    snprintf(what, sizeof what, "invalid YAML: %s",
             b->parser.problem ? b->parser.problem : "parse error");
    return fail(b, (int)b->parser.problem_mark.line + 1, what);
}

static struct ynode *new_node(enum ynode_type type, const yaml_event_t *ev)
{
    struct ynode *n = xcalloc(1, sizeof *n);
    n->type = type;
    n->line = (int)ev->start_mark.line + 1;
    return n;
}

static void add_item(struct ynode *parent, struct ynode *child)
{
    VEC_RESERVE(parent->items, parent->items_cap, parent->nitems + 1, 4);
    parent->items[parent->nitems++] = child;
}

static int build_node(struct builder *b, yaml_event_t *ev, int depth, struct ynode **out);

/* Reads children until the collection's end event. */
static int build_children(struct builder *b, struct ynode *parent, yaml_event_type_t end, int depth)
{
    for (;;) {
        yaml_event_t ev;
        if (next_event(b, &ev) < 0)
            return -1;
        if (ev.type == end) {
            yaml_event_delete(&ev);
            break;
        }
        struct ynode *child = NULL;
        int rc = build_node(b, &ev, depth + 1, &child);
        yaml_event_delete(&ev);
        if (rc < 0)
            return -1;
        if (parent->type == YNODE_MAP && parent->nitems % 2 == 0 && child->type != YNODE_SCALAR) {
            int line = child->line;
            node_free(child);
            return fail(b, line, "mapping keys must be plain strings");
        }
        add_item(parent, child);
    }
    if (parent->type == YNODE_MAP) {
        for (size_t i = 0; i < parent->nitems; i += 2) {
            for (size_t j = i + 2; j < parent->nitems; j += 2) {
                if (strcmp(parent->items[i]->value, parent->items[j]->value) == 0) {
                    char what[256];
                    snprintf(what, sizeof what, "%.200s: key given twice", parent->items[j]->value);
                    return fail(b, parent->items[j]->line, what);
                }
            }
        }
    }
    return 0;
}

static int build_node(struct builder *b, yaml_event_t *ev, int depth, struct ynode **out)
{
    int line = (int)ev->start_mark.line + 1;
    if (depth > YDOC_MAX_DEPTH)
        return fail(b, line, "nesting too deep");
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        if (ev->data.scalar.anchor)
            return fail(b, line, "anchors and aliases are not supported");
        *out = new_node(YNODE_SCALAR, ev);
        (*out)->value = xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
        (*out)->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        if (strlen((*out)->value) != ev->data.scalar.length) {
            node_free(*out);
            *out = NULL;
            return fail(b, line, "NUL byte in a value");
        }
        return 0;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        int is_map = ev->type == YAML_MAPPING_START_EVENT;
        if (is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor)
            return fail(b, line, "anchors and aliases are not supported");
        *out = new_node(is_map ? YNODE_MAP : YNODE_SEQ, ev);
        if (build_children(b, *out, is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT,
                           depth) < 0) {
            node_free(*out);
            *out = NULL;
            return -1;
        }
        return 0;
    }
    case YAML_ALIAS_EVENT:
        return fail(b, line, "anchors and aliases are not supported");
    default:
        return fail(b, line, "unexpected YAML structure");
    }
}

/* Walks stream-start, document-start, the root node, document-end; a second
 * document is refused. */
static int build_document(struct builder *b, struct ydoc *doc)
{
    yaml_event_t ev;
    int rc = -1;
    if (next_event(b, &ev) < 0)
        return -1;
    yaml_event_delete(&ev); /* stream start */
    if (next_event(b, &ev) < 0)
        return -1;
    if (ev.type == YAML_STREAM_END_EVENT) {
        yaml_event_delete(&ev);
        return 0; /* empty file */
    }
    yaml_event_delete(&ev); /* document start */
    if (next_event(b, &ev) < 0)
        return -1;
    rc = build_node(b, &ev, 0, &doc->root);
    yaml_event_delete(&ev);
    if (rc < 0)
        return -1;
    if (next_event(b, &ev) < 0)
        return -1;
    yaml_event_delete(&ev); /* document end */
    if (next_event(b, &ev) < 0)
        return -1;
    int line = (int)ev.start_mark.line + 1;
    int more = ev.type != YAML_STREAM_END_EVENT;
    yaml_event_delete(&ev);
    if (more)
        return fail(b, line, "only one YAML document is allowed");
    return 0;
}

int ydoc_load_string(const char *name, const char *text, size_t len, struct ydoc *doc,
                     char *err, size_t errlen)
{
    struct builder b = {.name = name, .err = err, .errlen = errlen};
    memset(doc, 0, sizeof *doc);
    doc->path = xstrdup(name);
    if (!yaml_parser_initialize(&b.parser)) {
        snprintf(err, errlen, "%s: cannot initialize the YAML parser", name);
        ydoc_free(doc);
        return -1;
    }
    yaml_parser_set_input_string(&b.parser, (const unsigned char *)text, len);
    int rc = build_document(&b, doc);
    yaml_parser_delete(&b.parser);
    if (rc < 0)
        ydoc_free(doc);
    return rc;
}

/* Configuration files are small; a larger one is a mistake. */
#define YDOC_MAX_FILE (4 * 1024 * 1024)

int ydoc_load_file(const char *path, struct ydoc *doc, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    strbuf text = STRBUF_INIT;
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && text.len <= YDOC_MAX_FILE)
        strbuf_append(&text, chunk, n);
    int read_error = ferror(f);
    fclose(f);
    int rc;
    if (read_error) {
        snprintf(err, errlen, "%s: read error", path);
        rc = -1;
    } else if (text.len > YDOC_MAX_FILE) {
        snprintf(err, errlen, "%s: larger than %d bytes", path, YDOC_MAX_FILE);
        rc = -1;
    } else {
        rc = ydoc_load_string(path, text.data ? text.data : "", text.len, doc, err, errlen);
    }
    strbuf_free(&text);
    return rc;
}

void ydoc_free(struct ydoc *doc)
{
    node_free(doc->root);
    free(doc->path);
    doc->root = NULL;
    doc->path = NULL;
}

const struct ynode *ynode_get(const struct ynode *map, const char *key)
{
    if (!map || map->type != YNODE_MAP)
        return NULL;
    for (size_t i = 0; i + 1 < map->nitems; i += 2) {
        if (strcmp(map->items[i]->value, key) == 0)
            return map->items[i + 1];
    }
    return NULL;
}

int ynode_is_null(const struct ynode *node)
{
    if (!node || node->type != YNODE_SCALAR || !node->plain)
        return 0;
    const char *v = node->value;
    return v[0] == '\0' || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 ||
           strcmp(v, "Null") == 0 || strcmp(v, "NULL") == 0;
}
