/* conftable: table-driven configuration binding. See conftable.h. */
#include "conftable.h"
#include "strbuf.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FIELD(target, opt, type) ((type *)((char *)(target) + (opt)->offset))

int conf_error(struct conf_ctx *ctx, const struct ynode *node, const char *key,
               const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(ctx->err, ctx->errlen, "%s:%d: %s: %s", ctx->file, node ? node->line : 0, key, what);
    return -1;
}

void conf_warn(struct conf_ctx *ctx, const struct ynode *node, const char *key, const char *fmt,
               ...)
{
    if (!ctx->warnings)
        return;
    va_list ap;
    va_start(ap, fmt);
    strbuf_appendf(ctx->warnings, "%s:%d: %s: ", ctx->file, node ? node->line : 0, key);
    strbuf_vappendf(ctx->warnings, fmt, ap);
    strbuf_appendc(ctx->warnings, '\n');
    va_end(ap);
}

static int bind_map(const struct opt *table, const struct ynode *map, void *target,
                    const char *prefix, struct conf_ctx *ctx, int lenient);

static void join_key(char *out, size_t len, const char *prefix, const char *key)
{
    if (prefix && prefix[0])
        snprintf(out, len, "%s.%s", prefix, key);
    else
        snprintf(out, len, "%s", key);
}

static int expect_scalar(const struct ynode *node, const char *key, const char *what,
                         struct conf_ctx *ctx)
{
    if (node->type == YNODE_SCALAR)
        return 0;
    return conf_error(ctx, node, key, "expected %s, got a %s", what,
                      node->type == YNODE_MAP ? "mapping" : "list");
}

int conf_parse_string(const struct ynode *node, char **out, const char *key, struct conf_ctx *ctx)
{
    if (expect_scalar(node, key, "a string", ctx) < 0)
        return -1;
    free(*out);
    *out = ynode_is_null(node) ? NULL : xstrdup(node->value);
    return 0;
}

int conf_parse_long(const struct ynode *node, long *out, double min, double max,
                    const char *key, struct conf_ctx *ctx)
{
    if (expect_scalar(node, key, "an integer", ctx) < 0)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(node->value, &end, 10);
    if (errno || end == node->value || *end != '\0' || v < min || v > max)
        return conf_error(ctx, node, key, "expected an integer from %.0f to %.0f, got \"%.100s\"",
                          min, max, node->value);
    *out = v;
    return 0;
}

static int parse_seconds(const struct ynode *node, double *out, double min, double max,
                         const char *key, struct conf_ctx *ctx)
{
    if (expect_scalar(node, key, "a number of seconds", ctx) < 0)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(node->value, &end);
    if (errno || end == node->value || *end != '\0' || !isfinite(v) || v < min || v > max)
        return conf_error(ctx, node, key, "expected seconds from %g to %g, got \"%.100s\"", min,
                          max, node->value);
    *out = v;
    return 0;
}

static int parse_bool(const struct ynode *node, int *out, const char *key, struct conf_ctx *ctx)
{
    static const char *const yes[] = {"true", "yes", "on", "1"};
    static const char *const no[] = {"false", "no", "off", "0"};
    if (expect_scalar(node, key, "true or false", ctx) < 0)
        return -1;
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(node->value, yes[i]) == 0) {
            *out = 1;
            return 0;
        }
        if (strcasecmp(node->value, no[i]) == 0) {
            *out = 0;
            return 0;
        }
    }
    return conf_error(ctx, node, key, "expected true or false, got \"%.100s\"", node->value);
}

/* Index of `value` in the '|'-separated `choices`, or -1. */
static int choice_index(const char *choices, const char *value)
{
    size_t vlen = strlen(value);
    int index = 0;
    for (const char *p = choices; *p; index++) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == vlen && memcmp(p, value, n) == 0)
            return index;
        if (!bar)
            break;
        p = bar + 1;
    }
    return -1;
}

static int parse_enum(const struct opt *opt, const struct ynode *node, int *out, const char *key,
                      struct conf_ctx *ctx)
{
    if (expect_scalar(node, key, "a string", ctx) < 0)
        return -1;
    int i = choice_index(opt->choices, node->value);
    if (i < 0)
        return conf_error(ctx, node, key, "expected one of %s, got \"%.100s\"", opt->choices,
                          node->value);
    *out = i;
    return 0;
}

static int bind_value(const struct opt *opt, const struct ynode *node, void *target,
                      const char *key, struct conf_ctx *ctx)
{
    if (opt->nullable && opt->type != OPT_MAP && ynode_is_null(node))
        return 0;
    switch (opt->type) {
    case OPT_STRING:
        return conf_parse_string(node, FIELD(target, opt, char *), key, ctx);
    case OPT_INT:
        return conf_parse_long(node, FIELD(target, opt, long), opt->min, opt->max, key, ctx);
    case OPT_SECONDS:
        return parse_seconds(node, FIELD(target, opt, double), opt->min, opt->max, key, ctx);
    case OPT_BOOL:
        return parse_bool(node, FIELD(target, opt, int), key, ctx);
    case OPT_ENUM:
        return parse_enum(opt, node, FIELD(target, opt, int), key, ctx);
    case OPT_MAP:
        if (ynode_is_null(node))
            return 0;
        if (node->type != YNODE_MAP)
            return conf_error(ctx, node, key, "expected a mapping");
        return bind_map(opt->sub, node, FIELD(target, opt, char), key, ctx, opt->lenient);
    case OPT_CUSTOM:
        return opt->custom(opt, node, FIELD(target, opt, char), key, ctx);
    }
    return conf_error(ctx, node, key, "unsupported option type");
}

void conf_set_defaults(const struct opt *table, void *target)
{
    char err[256];
    struct conf_ctx ctx = {"(defaults)", err, sizeof err, NULL};
    for (const struct opt *opt = table; opt->key; opt++) {
        if (opt->type == OPT_MAP) {
            conf_set_defaults(opt->sub, FIELD(target, opt, char));
            continue;
        }
        if (!opt->def)
            continue;
        struct ynode node = {.type = YNODE_SCALAR, .value = (char *)opt->def, .plain = 1};
        if (bind_value(opt, &node, target, opt->key, &ctx) < 0)
            abort(); /* a default that does not parse is a programming error */
    }
}

int conf_bind(const struct opt *table, const struct ynode *map, void *target,
              const char *prefix, struct conf_ctx *ctx)
{
    return bind_map(table, map, target, prefix, ctx, 0);
}

static int bind_map(const struct opt *table, const struct ynode *map, void *target,
                    const char *prefix, struct conf_ctx *ctx, int lenient)
{
    char key[256];
    if (map->type != YNODE_MAP)
        return conf_error(ctx, map, prefix[0] ? prefix : "(top level)", "expected a mapping");
    for (size_t i = 0; i + 1 < map->nitems; i += 2) {
        const struct ynode *k = map->items[i];
        const struct opt *opt = table;
        while (opt->key && strcmp(opt->key, k->value) != 0)
            opt++;
        join_key(key, sizeof key, prefix, k->value);
        if (!opt->key && lenient) {
            conf_warn(ctx, k, key, "unknown key, ignored");
            continue;
        }
        if (!opt->key)
            return conf_error(ctx, k, key, "unknown key");
        if (bind_value(opt, map->items[i + 1], target, key, ctx) < 0)
            return -1;
    }
    return 0;
}

void conf_free(const struct opt *table, void *target)
{
    for (const struct opt *opt = table; opt->key; opt++) {
        if (opt->type == OPT_STRING) {
            char **field = FIELD(target, opt, char *);
            free(*field);
            *field = NULL;
        } else if (opt->type == OPT_MAP) {
            conf_free(opt->sub, FIELD(target, opt, char));
        }
    }
}

void conf_print_help(FILE *out, const struct opt *table, const char *prefix)
{
    char key[256];
    for (const struct opt *opt = table; opt->key; opt++) {
        join_key(key, sizeof key, prefix, opt->key);
        if (opt->type == OPT_MAP) {
            conf_print_help(out, opt->sub, key);
            continue;
        }
        fprintf(out, "  %-30s %s", key, opt->doc ? opt->doc : "");
        if (opt->def)
            fprintf(out, " (default: %s)", opt->def);
        fputc('\n', out);
    }
}
