/* conftable: configuration options described as a table.
 *
 * One row per option: its key, type, where it is stored, default, bounds and
 * a line of documentation. The same table sets the defaults, binds a YAML
 * map to a struct (refusing unknown keys, wrong types and out-of-range values
 * with "file:LINE: key: problem") and prints --help. Adding an option is one
 * row. */
#ifndef ARCLAMP_CONFTABLE_H
#define ARCLAMP_CONFTABLE_H

#include <stddef.h>
#include <stdio.h>

#include "strbuf.h"
#include "yamldoc.h"

enum opt_type {
    OPT_STRING,   /* char *, owned by the struct; NULL when unset */
    OPT_INT,      /* long, within [min, max] */
    OPT_SECONDS,  /* double seconds, within [min, max]; fractions allowed */
    OPT_BOOL,     /* int 0/1; true/false/yes/no/on/off */
    OPT_ENUM,     /* int: index of the value in `choices` ("a|b|c") */
    OPT_MAP,      /* a nested map bound with `sub`; storage is a struct */
    OPT_CUSTOM,   /* handled by `custom` (lists and other shapes) */
};

struct conf_ctx {
    const char *file;   /* configuration file name for messages */
    char *err;          /* where the first error is written */
    size_t errlen;
    strbuf *warnings;   /* "file:LINE: key: ...\n" per warning; NULL: not kept */
};

struct opt;
typedef int (*opt_custom_fn)(const struct opt *opt, const struct ynode *node, void *field,
                             const char *key, struct conf_ctx *ctx);

struct opt {
    const char *key;          /* key in its map */
    enum opt_type type;
    size_t offset;            /* offsetof() the field in the bound struct */
    const char *def;          /* default as text; NULL leaves the field zero/NULL */
    double min, max;          /* bounds for OPT_INT and OPT_SECONDS */
    const char *choices;      /* OPT_ENUM: the values, separated by '|' */
    const struct opt *sub;    /* OPT_MAP: the nested table */
    opt_custom_fn custom;     /* OPT_CUSTOM: the binder */
    const char *doc;          /* one line for --help */
    int nullable;             /* a YAML null keeps the default instead of failing */
    int lenient;              /* OPT_MAP: unknown keys inside are warned about and
                                 ignored, not refused (maps passed on to another
                                 program's library in the original, as redis:) */
};

/* Sets every field of `target` to its default (recursing into OPT_MAP). */
void conf_set_defaults(const struct opt *table, void *target);
/* Binds the keys of `map` into `target`. `prefix` is the path of the map in
 * messages ("", "redis", "logs[1]"). Returns 0, or -1 with ctx->err set. */
int conf_bind(const struct opt *table, const struct ynode *map, void *target,
              const char *prefix, struct conf_ctx *ctx);
/* Frees the OPT_STRING fields (recursing into OPT_MAP). */
void conf_free(const struct opt *table, void *target);
/* Prints "  prefix.key  (default: X)  doc" for each row. */
void conf_print_help(FILE *out, const struct opt *table, const char *prefix);

/* Adds "file:LINE: key: message" to ctx->warnings (when kept). */
void conf_warn(struct conf_ctx *ctx, const struct ynode *node, const char *key, const char *fmt,
               ...) __attribute__((format(printf, 4, 5)));
/* Writes "file:LINE: key: message" into ctx->err and returns -1. */
int conf_error(struct conf_ctx *ctx, const struct ynode *node, const char *key,
               const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Scalar parsers shared with custom binders; each returns 0 or -1 (with
 * ctx->err set). */
int conf_parse_string(const struct ynode *node, char **out, const char *key, struct conf_ctx *ctx);
int conf_parse_long(const struct ynode *node, long *out, double min, double max,
                    const char *key, struct conf_ctx *ctx);

#endif
